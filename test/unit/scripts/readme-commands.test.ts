import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

const { pageCommands, docPages } = require('../../../scripts/readme-commands.js') as { pageCommands: (text: string) => string[]; docPages: () => string[] };

describe('scripts/readme-commands.js: CI runs the README commands as the README shows them', () => {
  it('knows how to run every command the README shows, and none it does not', () => {
    const r = spawnSync(process.execPath, ['scripts/readme-commands.js', '--list'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.ok(lines.some((l) => /^serve\s+npm ci && npm run demo\s+\[/.test(l)), r.stdout);
    // `npm run package` runs before anything creates dist-vsix/ except the demo, which packages elsewhere.
    const order = lines.map((l) => l.replace(/^\w+\s+/, '').replace(/\s+[([].*$/, ''));
    assert.ok(order.indexOf('npm run package') < order.indexOf('npm ci && npm test'));
    assert.ok(order.indexOf('npm run package') < order.indexOf('npm run bench -- --quick'));
  });

  it('.ci/run runs it', () => {
    const ci = fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8');
    assert.match(ci, /^node scripts\/readme-commands\.js$/m);
  });

  it('reads the pages the text moved to: README.md, CONTRIBUTING.md, ARCHITECTURE.md and docs/*.md', () => {
    const pages = docPages();
    for (const p of ['README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', 'docs/usage.md', 'docs/commands.md']) assert.ok(pages.includes(p), pages.join(', '));
    const r = spawnSync(process.execPath, ['scripts/readme-commands.js', '--list'], { cwd: root, encoding: 'utf8' });
    assert.match(r.stdout, /^run\s+npm run build\s+\[CONTRIBUTING\.md\]$/m, 'a command of the contributor page is run');
    assert.match(r.stdout, /^serve\s+npm ci && npm run demo\s+\[README\.md/m, 'the front page shows the fresh-clone commands');
  });

  it('takes the lines of every bash block and the first column of every "command | what it does" table, not the VS Code command table', () => {
    const page = [
      '# A page',
      '```bash',
      'npm run one    # a comment',
      '',
      'npm run two',
      '```',
      '```text',
      'node not-a-ci-command.js',
      '```',
      '| command | what it does |',
      '| --- | --- |',
      '| `npm run three` / `npm run four` | things |',
      '',
      '| command | arguments |',
      '| --- | --- |',
      '| `svc.signIn`: Sign In | `{ apiKey }` |',
      '```bash',
      'npm run five',
      '```',
    ].join('\n');
    assert.deepEqual(pageCommands(page), ['npm run one', 'npm run two', 'npm run five', 'npm run three', 'npm run four']);
  });
});
