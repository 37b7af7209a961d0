import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');

describe('scripts/readme-commands.js: CI runs the README commands as the README shows them', () => {
  it('knows how to run every command the README shows, and none it does not', () => {
    const r = spawnSync(process.execPath, ['scripts/readme-commands.js', '--list'], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.ok(lines.some((l) => /^serve\s+npm ci && npm run demo$/.test(l)), r.stdout);
    // `npm run package` runs before anything creates dist-vsix/ except the demo, which packages elsewhere.
    const order = lines.map((l) => l.replace(/^\w+\s+/, '').replace(/\s+\(.*$/, ''));
    assert.ok(order.indexOf('npm run package') < order.indexOf('npm ci && npm test'));
    assert.ok(order.indexOf('npm run package') < order.indexOf('npm run bench -- --quick'));
  });

  it('.ci/run runs it', () => {
    const ci = fs.readFileSync(path.join(root, '.ci', 'run'), 'utf8');
    assert.match(ci, /^node scripts\/readme-commands\.js$/m);
  });
});
