import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const consumer = path.join(root, 'test', 'fixtures', 'api-consumer');

function compile(project: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('public API: api/svc.d.ts', () => {
  it('compiles in a consumer project that sees only the .d.ts and the vscode types', function () {
    this.timeout(60_000);
    const r = compile(consumer);
    assert.equal(r.status, 0, r.out);
  });

  it('refuses what it does not offer: getApi(2), a connection, the test entry (the consumer expects these errors)', function () {
    this.timeout(60_000);
    // The consumer marks each with @ts-expect-error; without them, each is an error of its own.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-consumer-'));
    try {
      const text = fs.readFileSync(path.join(consumer, 'consumer.ts'), 'utf8').replace(/\/\/ @ts-expect-error.*\n/g, '').replaceAll("'../../../api/svc'", JSON.stringify(path.join(root, 'api', 'svc')));
      fs.writeFileSync(path.join(dir, 'consumer.ts'), text);
      const config = JSON.parse(fs.readFileSync(path.join(consumer, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
      config.compilerOptions.typeRoots = [path.join(root, 'node_modules', '@types')];
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
      const r = compile(dir);
      assert.notEqual(r.status, 0);
      for (const expected of [/Argument of type '2' is not assignable/, /Property 'connection' does not exist/, /Property 'getTestApi' does not exist/, /"cost"/, /modelId/]) assert.match(r.out, expected);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ships in the VSIX and is what the extension implements', () => {
    const ignore = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
    assert.match(ignore, /^!api\/svc\.d\.ts$/m);
    const impl = fs.readFileSync(path.join(root, 'src', 'publicApi', 'api.ts'), 'utf8');
    assert.match(impl, /from '\.\.\/\.\.\/api\/svc'/);
  });
});
