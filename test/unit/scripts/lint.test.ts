import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '..', '..', '..');
const lint = path.join(root, 'scripts', 'lint.js');

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lint-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('scripts/lint.js (the text checks)', () => {
  it('passes a clean tree', () => {
    const r = spawnSync(process.execPath, [lint, '--root', tree({ 'src/api/a.ts': "import { z } from 'zod';\n" })], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('fails on a focused test, an eslint-disable without a reason, and Node in webview code, naming file and line', () => {
    // Built from parts so this file does not itself hold what it tests.
    const disable = ['eslint', 'disable-next-line'].join('-');
    const dir = tree({
      'test/unit/y.test.ts': `${['describe', 'only'].join('.')}('x', () => {});\n`,
      'src/a.ts': `const a = 1;\n// ${disable} no-console\nconsole.log(a);\n// ${disable} no-console -- a reason\nconsole.log(a);\n`,
      'src/webview/w.ts': "import * as fs from 'node:fs';\n",
      'src/viewer/webview/v.ts': "import * as vscode from 'vscode';\n",
    });
    const r = spawnSync(process.execPath, [lint, '--root', dir], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /test\/unit\/y\.test\.ts:1: focused test/);
    assert.match(r.stderr, /src\/a\.ts:2: an eslint-disable comment needs its reason/);
    assert.doesNotMatch(r.stderr, /src\/a\.ts:4:/);
    assert.match(r.stderr, /src\/webview\/w\.ts:1: webview code must not import/);
    assert.match(r.stderr, /src\/viewer\/webview\/v\.ts:1: webview code must not import/);
  });

  it('fails on a require cycle among the scripts, naming it once', () => {
    const dir = tree({
      'scripts/host/a.js': "const { b } = require('./b');\nmodule.exports = { a: 1, b };\n",
      'scripts/host/b.js': "// require('./b') in a comment is no cycle\nconst { a } = require('./a.js');\nmodule.exports = { b: 2, a };\n",
      'scripts/host/c.js': "require('./a');\n",
    });
    const r = spawnSync(process.execPath, [lint, '--root', dir], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /require cycle: scripts\/host\/a\.js -> scripts\/host\/b\.js -> scripts\/host\/a\.js/);
    assert.equal(r.stderr.match(/require cycle/g)?.length, 1, r.stderr);
  });
  it('fails on an import cycle in src/**/*.ts, naming it once; type-only and dynamic imports do not count', () => {
    const dir = tree({
      'src/files/reader.ts': "import { scan } from './jsonFile';\nexport const read = () => scan;\n",
      'src/files/jsonFile.ts': "import {\n  read,\n} from './reader';\nexport const scan = () => read;\n",
      'src/files/index.ts': "export * from './reader';\n",
      'src/a.ts': "import type { B } from './b';\nimport { type C } from './c';\nexport type A = B | C;\n",
      'src/b.ts': "import { x } from './a';\nexport type B = typeof x;\n",
      'src/c.ts': "export type C = number;\nexport const load = () => import('./d');\n",
      'src/d.ts': "import { load } from './c';\nexport const d = load;\n",
    });
    const r = spawnSync(process.execPath, [lint, '--root', dir], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /src\/files\/jsonFile\.ts: import cycle: src\/files\/jsonFile\.ts -> src\/files\/reader\.ts -> src\/files\/jsonFile\.ts/);
    assert.equal(r.stderr.match(/import cycle/g)?.length, 1, r.stderr);
  });

  it('fails on an import against the folder order (a static import or an import type), naming file, line, import and rule', () => {
    const dir = tree({
      'src/api/a.ts': "export const a = 1;\n",
      'src/common/c.ts': "import { a } from '../api/a';\nexport const c = a;\n",
      // files is below viewer: both a value import and a type-only import are against the order.
      'src/files/model.ts': "import { c } from '../common/c';\nimport type { V } from '../viewer/protocol';\nexport const m = (v: V) => [v, c];\n",
      'src/files/index.ts': "export { m } from './model';\nexport { p } from '../viewer/protocol';\n",
      'src/viewer/protocol.ts': "import { m } from '../files';\nexport type V = number;\nexport const p = m;\n",
      // calls and harnesses share a tier: neither imports the other.
      'src/calls/x.ts': "import { h } from '../harnesses/h';\nexport const x = h;\n",
      'src/harnesses/h.ts': "export const h = 1;\n",
      // a dynamic import() loads later: it does not count.
      'src/ui/u.ts': "export const load = () => import('../viewer/protocol');\n",
      'src/newFolder/n.ts': "export const n = 1;\n",
    });
    const r = spawnSync(process.execPath, [lint, '--root', dir], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^src\/files\/model\.ts:2: folder order: files may not import viewer \('\.\.\/viewer\/protocol'\): viewer is above files/m);
    assert.match(r.stderr, /^src\/files\/index\.ts:2: folder order: files may not import viewer/m);
    assert.match(r.stderr, /^src\/calls\/x\.ts:1: folder order: calls may not import harnesses \('\.\.\/harnesses\/h'\): calls and harnesses share a tier/m);
    assert.match(r.stderr, /src\/newFolder\/n\.ts: folder order: src\/newFolder\/ has no place in FOLDER_ORDER/);
    assert.doesNotMatch(r.stderr, /src\/(common|viewer|ui)\/\w+\.ts:\d+: folder order/);
    assert.equal(r.stderr.match(/folder order/g)?.length, 4, r.stderr);
  });

  it('finds no import against the folder order in this repository\'s src/', () => {
    const r = spawnSync(process.execPath, [lint, '--root', root], { encoding: 'utf8' });
    assert.doesNotMatch(r.stderr, /folder order/, r.stderr);
  });

  it('finds no import cycle in this repository\'s src/', () => {
    const r = spawnSync(process.execPath, [lint, '--root', root], { encoding: 'utf8' });
    assert.doesNotMatch(r.stderr, /cycle/, r.stderr);
  });
});

describe('eslint.config.mjs (the typed rules)', function () {
  // The first lint builds the TypeScript program of the project.
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: root });
  /** The rule ids ESLint reports for `code` as the text of the project file `file`. */
  async function rules(code: string, file: string): Promise<string[]> {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    return (result?.messages ?? []).map((m) => m.ruleId ?? m.message);
  }

  it('reports a floating promise, a voided one too, and passes one that is handled', async () => {
    const code = 'async function work(): Promise<void> {}\nexport function f(): void {\n  work();\n  void work();\n  work().catch((e: unknown) => console.error(e));\n}\n';
    const found = await rules(code, 'src/common/background.ts');
    assert.deepEqual(found, ['@typescript-eslint/no-floating-promises', '@typescript-eslint/no-floating-promises']);
  });

  it('svc/null-prototype-records: reports a record keyed by data built on {} (the series.ts of 6e38fc4 too), and passes dict(), a Map and fixed names', async () => {
    const RULE = 'svc/null-prototype-records';
    // The series.ts of 6e38fc4, whose metric "__proto__" set Object.prototype[0]: eight records on {}.
    const old = fs.readFileSync(path.join(root, 'test', 'fixtures', 'lint', 'series-6e38fc4.ts.txt'), 'utf8');
    assert.equal((await rules(old, 'src/dashboard/shared/series.ts')).filter((r) => r === RULE).length, 8);
    const bad = [
      'export function f(names: string[], from: Record<string, number>, o: { m?: Record<string, string> }): unknown[] {',
      '  const a: Record<string, number> = {};', // filled by key
      '  for (const n of names) a[n] = 1;',
      '  const b = { ...from };', // a copy of a record
      '  (o.m ??= {})[names[0]!] = "x";',
      '  const c = Object.fromEntries(names.map((n) => [n, 1]));',
      '  const d = {} as { [k: string]: boolean };',
      '  return [a, b, c, d, { metrics: {} as Record<string, number> }];',
      '}',
    ].join('\n');
    const found = await rules(bad, 'src/common/format.ts');
    assert.equal(found.filter((r) => r === RULE).length, 6, found.join(', '));
    const good = [
      "import { dict } from '../api/dict';",
      'export function g(names: string[], from: Record<string, number>, opts: { signal?: AbortSignal } = {}): unknown[] {',
      '  const a = dict<number>();', // null prototype
      '  for (const n of names) a[n] = 1;',
      '  const m = new Map<string, number>(names.map((n) => [n, 1]));',
      "  const headers: Record<string, string> = { accept: 'application/json' };", // fixed names
      '  const b = dict(from);',
      '  return [a, m, headers, b, opts];',
      '}',
    ].join('\n');
    assert.deepEqual(await rules(good, 'src/common/format.ts'), []);
  });

  it('reports vscode in src/api, undici outside src/api/http.ts, and eval', async () => {
    assert.deepEqual(await rules("import * as vscode from 'vscode';\nexport const v = vscode.version;\n", 'src/api/index.ts'), ['no-restricted-imports']);
    assert.deepEqual(await rules("import { request } from 'undici';\nexport const r = request;\n", 'src/threads/model.ts'), ['no-restricted-imports']);
    assert.deepEqual(await rules("import type { Agent } from 'undici/types/agent';\nexport type A = Agent;\n", 'src/api/http.ts'), ['no-restricted-imports']);
    assert.deepEqual(await rules("export const x: unknown = eval('1');\n", 'src/common/format.ts'), ['no-restricted-syntax']);
  });
});
