import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { startReferenceServer, type ReferenceServer } from '../../server';

const root = path.resolve(__dirname, '..', '..', '..');

describe('scripts/api-example.js: a plain Node program on the built src/api', () => {
  let server: ReferenceServer;
  before(async function () {
    this.timeout(60_000);
    const build = spawnSync(process.execPath, ['esbuild.js'], { cwd: root, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    server = await startReferenceServer({ fixture: path.join(root, 'test/fixtures/demo.json') });
  });
  after(() => server.close());

  it('performs every operation of the five endpoints against the reference service', async () => {
    const run = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['scripts/api-example.js', '--url', server.url, '--key', 'demo-key'], { cwd: root });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('close', (code) => resolve({ code, out, err }));
    });
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /upsert_batch: \[\{"id":/);
    assert.match(run.out, /thread: example-\w+ turns 1 p50 1234/);
    assert.match(run.out, /feedback: [0-9a-f-]{36} /);
    assert.match(run.out, /latest checkpoint: \d+/);
    assert.match(run.out, new RegExp(`checkpoints: ${server.store.checkpoints.get('demo-model-7b')!.length}\n`));
    for (const p of ['/call/upsert_batch', '/threads/stream_query', '/feedback/create', '/v1/preview/models/demo-model-7b/log', '/v1/preview/models/demo-model-7b/checkpoints']) {
      assert.ok(server.stats.filter(p).some((r) => r.status === 200), `no successful request to ${p}`);
    }
    assert.equal(server.store.logs.length, 1);
  });
});
