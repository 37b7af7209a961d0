import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const lint = path.resolve(__dirname, '..', '..', 'scripts', 'lint.js');

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lint-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('scripts/lint.js', () => {
  it('passes a clean tree', () => {
    const r = spawnSync(process.execPath, [lint, '--root', tree({ 'src/api/a.ts': "import { z } from 'zod';\n" })], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('fails when src/api imports vscode, naming the file and line', () => {
    const dir = tree({ 'src/api/a.ts': "export const x = 1;\nimport * as vscode from 'vscode';\n" });
    const r = spawnSync(process.execPath, [lint, '--root', dir], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /src\/api\/a\.ts:2: src\/api must not import vscode/);
  });

  it('fails on undici outside the HTTP client, a focused test, and eval', () => {
    const dir = tree({
      'src/threads/x.ts': "import { request } from 'undici';\n",
      // Built from parts so this file does not itself contain a focused test.
      'test/unit/y.test.ts': `${['describe', 'only'].join('.')}('x', () => {});\n`,
      'src/z.ts': 'eval("1");\n',
    });
    const r = spawnSync(process.execPath, [lint, '--root', dir], { encoding: 'utf8' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /only src\/api\/http\.ts talks HTTP/);
    assert.match(r.stderr, /focused test/);
    assert.match(r.stderr, /no eval/);
  });
});
