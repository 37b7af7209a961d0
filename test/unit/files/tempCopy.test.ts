import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withTempCopy } from '../../../src/files/tempCopy';

describe('files: a temporary copy of unsaved text (withTempCopy)', () => {
  it('hands the check a copy with the document\'s own file name and content, then removes the copy', async () => {
    let seen = '';
    const result = await withTempCopy('/work/run/step-1.trajectories.jsonl', '{"trajectories": []}\n', async (file) => {
      seen = file;
      assert.equal(path.basename(file), 'step-1.trajectories.jsonl');
      assert.equal(fs.readFileSync(file, 'utf8'), '{"trajectories": []}\n');
      return 7;
    });
    assert.equal(result, 7);
    assert.ok(seen && !fs.existsSync(path.dirname(seen)), 'the copy and its folder are gone');
  });

  it('removes the copy when the check fails, and passes the failure on', async () => {
    let seen = '';
    await assert.rejects(
      withTempCopy('a.json', Buffer.from('[]'), async (file) => {
        seen = file;
        throw new Error('the check failed');
      }),
      /the check failed/,
    );
    assert.ok(seen && !fs.existsSync(path.dirname(seen)));
  });
});
