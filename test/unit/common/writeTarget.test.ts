import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkWriteTarget } from '../../../src/common/writeTarget';

describe('common/writeTarget: where a scripted command may write', () => {
  let base: string;
  let ws: string;
  let outside: string;
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-write-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    fs.mkdirSync(path.join(ws, 'out'), { recursive: true });
    fs.mkdirSync(outside);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('takes a file inside a workspace folder, absolute or relative to the first folder', async () => {
    assert.deepEqual(await checkWriteTarget(path.join(ws, 'out', 'a.csv'), [ws], 'x'), { ok: true, path: path.join(ws, 'out', 'a.csv') });
    assert.deepEqual(await checkWriteTarget('out/a.csv', [ws], 'x'), { ok: true, path: path.join(ws, 'out', 'a.csv') });
    assert.deepEqual(await checkWriteTarget(path.join(outside, 'a.csv'), [ws, outside], 'x'), { ok: true, path: path.join(outside, 'a.csv') });
  });

  it('refuses a file outside, by name, and a path that climbs out with ..', async () => {
    for (const p of [path.join(outside, 'a.csv'), path.join(ws, '..', 'outside', 'a.csv'), '../outside/a.csv', path.join(os.homedir(), '.bashrc')]) {
      const r = await checkWriteTarget(p, [ws], 'svc.dashboard.exportCsv');
      assert.equal(r.ok, false, p);
      assert.match(!r.ok ? r.reason : '', /svc\.dashboard\.exportCsv writes only inside a workspace folder/);
      assert.ok(!r.ok && r.reason.includes(path.resolve(ws, p)), !r.ok ? r.reason : '');
    }
  });

  it('resolves links: a linked folder in the workspace that points out, and a file that is a link out, are outside', async () => {
    fs.symlinkSync(outside, path.join(ws, 'link'));
    const viaFolder = await checkWriteTarget(path.join(ws, 'link', 'a.csv'), [ws], 'x');
    assert.equal(viaFolder.ok, false);
    assert.match(!viaFolder.ok ? viaFolder.reason : '', new RegExp(`${path.join(outside, 'a.csv').replace(/[/\\.]/g, '\\$&')} once links are resolved`));
    fs.writeFileSync(path.join(outside, 'target'), 'keep');
    fs.symlinkSync(path.join(outside, 'target'), path.join(ws, 'file.csv'));
    assert.equal((await checkWriteTarget(path.join(ws, 'file.csv'), [ws], 'x')).ok, false);
    // A workspace folder opened through a link is the folder it points to.
    fs.symlinkSync(ws, path.join(base, 'wslink'));
    assert.equal((await checkWriteTarget(path.join(ws, 'a.csv'), [path.join(base, 'wslink')], 'x')).ok, true);
  });

  it('refuses without a workspace folder, a missing folder, and a folder as the file', async () => {
    assert.match(JSON.stringify(await checkWriteTarget(path.join(ws, 'a.csv'), [], 'x')), /no folder is open/);
    assert.match(JSON.stringify(await checkWriteTarget(path.join(ws, 'nope', 'a.csv'), [ws], 'x')), /does not exist/);
    assert.match(JSON.stringify(await checkWriteTarget(path.join(ws, 'out'), [ws], 'x')), /is a folder/);
  });
});
