import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startReferenceServer, type ReferenceServer } from '../../server';
import { DEMO_API_KEY, DEMO_FIXTURE_PATH, DEMO_NOW, generateDemoFixture } from '../../fixtures/generate-demo';
import { basic, getJson, postJson } from './helpers';

describe('demo fixture (test/fixtures/demo.json)', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startReferenceServer({ fixture: DEMO_FIXTURE_PATH });
  });
  after(() => server.close());

  it('is exactly what generate-demo.ts produces (deterministic, up to date) and stays under 2 MB', () => {
    const onDisk = readFileSync(DEMO_FIXTURE_PATH, 'utf8');
    assert.equal(JSON.stringify(generateDemoFixture()), onDisk);
    assert.ok(onDisk.length < 2 * 1024 * 1024);
  });

  it('accepts the demo key as Basic api:<key> and as Bearer', async () => {
    assert.equal(server.apiKey, DEMO_API_KEY);
    const threads = await postJson(server, '/threads/stream_query', { project_id: 'demo-entity/agents', limit: 1 }, basic('api', DEMO_API_KEY));
    assert.equal(threads.status, 200);
    const checkpoints = await getJson(server, '/v1/preview/models/demo-model-7b/checkpoints', `Bearer ${DEMO_API_KEY}`);
    assert.equal(checkpoints.status, 200);
  });

  it('has at least 200 listed threads in demo-entity/chatbot, within 45 days before its fixed now', async () => {
    const { rows } = await queryThreadsAs(server, 'demo-entity/chatbot');
    assert.ok(rows.length >= 200, `${rows.length} threads`);
    const now = Date.parse(DEMO_NOW);
    for (const row of rows) {
      assert.ok(Date.parse(row.start_time) > now - 46 * 86_400_000);
      assert.ok(Date.parse(row.last_updated) < now);
      assert.ok(row.turn_count >= 1 && row.turn_count <= 12);
    }
    for (const project of ['demo-entity/agents', 'other-team/eval']) {
      assert.ok((await queryThreadsAs(server, project)).rows.length > 0, project);
    }
  });

  it('mixes turns, nested calls, unfinished turns and all-unfinished threads', () => {
    const calls = [...server.store.calls.get('demo-entity/chatbot')!.values()];
    const turns = calls.filter((c) => c.id === c.turn_id && c.thread_id);
    const nested = calls.filter((c) => c.parent_id !== undefined);
    assert.ok(nested.length > 0);
    for (const c of nested) {
      const parent = server.store.getCall('demo-entity/chatbot', c.parent_id!)!;
      assert.equal(c.thread_id, parent.thread_id);
      assert.notEqual(c.turn_id, c.id);
    }
    assert.ok(turns.some((t) => t.ended_at === undefined));
    const finishedThreads = new Set(turns.filter((t) => t.ended_at !== undefined).map((t) => t.thread_id));
    assert.ok(turns.some((t) => !finishedThreads.has(t.thread_id)), 'some thread has only unfinished turns');
  });

  it('has two models with at least 150 checkpoints each, with numeric metrics', async () => {
    for (const model of ['demo-model-7b', 'demo-model-70b']) {
      const list = server.store.checkpoints.get(model)!;
      assert.ok(list.length >= 150, model);
      assert.ok(list.every((c, i) => i === 0 || c.step > list[i - 1]!.step));
      assert.ok(list.every((c) => Object.values(c.metrics).every((v) => typeof v === 'number' && Number.isFinite(v))));
    }
    assert.ok(['loss', 'reward', 'accuracy'].every((m) => typeof server.store.checkpoints.get('demo-model-70b')![0]!.metrics[m] === 'number'));
  });

  it("has a training run with the official client's metric names: rewards rise, loss and KL fall, val/reward every 10 steps", () => {
    const list = server.store.checkpoints.get('demo-model-7b')!;
    assert.ok(list.length >= 200 && list.length <= 500, `${list.length} steps`);
    const mean = (metric: string, from: number, to: number) => {
      const values = list.slice(from, to).map((c) => c.metrics[metric]).filter((v): v is number => v !== undefined);
      return values.reduce((a, b) => a + b, 0) / values.length;
    };
    const n = list.length;
    for (const m of ['train/reward', 'val/reward']) assert.ok(mean(m, n - 50, n) > mean(m, 0, 50) + 0.3, `${m} rises`);
    for (const m of ['loss/train', 'loss/kl_div']) assert.ok(mean(m, n - 50, n) < mean(m, 0, 50) * 0.7, `${m} falls`);
    for (const m of ['train/reward_std_dev', 'train/exception_rate', 'loss/entropy', 'loss/grad_norm', 'loss/learning_rate', 'data/step_num_trajectories', 'time/step_wall_s']) {
      assert.ok(list.every((c) => typeof c.metrics[m] === 'number'), m);
    }
    assert.ok(list.every((c) => (c.step % 10 === 0) === ('val/reward' in c.metrics)), 'val/reward only at evaluation steps');
    const noisy = list.slice(1).filter((c, i) => c.metrics['train/reward']! < list[i]!.metrics['train/reward']!).length;
    assert.ok(noisy > n / 5, 'train/reward is noisy, not monotonic');
  });

  it('reset() restores the fixture data', async () => {
    server.store.calls.clear();
    server.reset();
    assert.ok(server.store.calls.get('demo-entity/chatbot')!.size > 0);
  });
});

async function queryThreadsAs(server: ReferenceServer, project: string) {
  const res = await fetch(`${server.url}/threads/stream_query`, {
    method: 'POST',
    headers: { authorization: basic('api', DEMO_API_KEY), 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: project }),
  });
  const rows = (await res.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l));
  return { status: res.status, rows };
}

describe('reference server CLI (test/server/cli.ts)', () => {
  it('prints the URL and the demo key, serves, and exits on SIGTERM', async function () {
    this.timeout(10_000);
    const cli = join(__dirname, '..', '..', 'server', 'cli.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--data', DEMO_FIXTURE_PATH], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const output = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('API key:')) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`cli exited ${code}: ${out}`)));
      });
      const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
      assert.match(output, /API key: demo-key/);
      const ok = await fetch(`${url}/v1/preview/models/demo-model-70b/checkpoints?limit=1`, { headers: { authorization: 'Bearer demo-key' } });
      assert.equal(ok.status, 200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
