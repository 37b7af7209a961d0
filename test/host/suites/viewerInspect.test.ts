// Issue 32: Inspect AI `.eval` logs in the trajectory viewer, in a real host. The logs are written
// by Python (test/fixtures/inspect/write_eval.py: zipfile, the zstd tool, JSON from Inspect's field
// lists): the default editor of `*.eval`, a sample per group with its epochs, rewards from the
// summaries, conversations as bubbles; a damaged zip and a bomb are clear problems, never a blank view.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { writeEval } from '../../fixtures/inspect/evalFixtures';
import { waitFor } from './helpers';
import { openByDefault, openInViewer, serverHooks, sessionOf, VIEW_TYPE } from './setups';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-inspect-'));

describe('trajectory viewer: Inspect AI .eval logs (issue 32)', function () {
  this.timeout(60_000);
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is the default editor of *.eval: a group per sample, epochs as trajectories, rewards from the summaries, conversations as bubbles', async () => {
    const file = writeEval(path.join(dir, 'arith.eval'), { compression: 'mixed', samples: 4, epochs: 2, error_sample: 3, frame_bytes: 600 });
    const uri = vscode.Uri.file(file);
    const session = await openByDefault(uri);
    await session.whenIndexed();
    const index = session.index!;
    assert.strictEqual(index.format, 'eval');
    assert.strictEqual(index.groups, 4);
    assert.deepStrictEqual([0, 1, 2, 3].map((i) => index.row(i).rewards), [[1, 0], [0, 1], [], [0, 1]]);
    assert.strictEqual(index.row(2).stats.exceptions, 2, 'sample 3 ended in an error in both epochs');
    assert.match(index.format === 'eval' ? (index.notice ?? '') : '', /^Inspect AI log · task arith · model openai\/gpt-4o-mini · 4 samples × 2 epochs\. .*reward: score "match", the other scores \(closeness\)/);

    const report = session.lastRendered!;
    assert.deepStrictEqual([report.group, report.trajectory], [0, 0]);
    assert.deepStrictEqual(report.bubbles.map((b) => [b.role, b.trainable]), [['system', false], ['user', false], ['assistant', true], ['tool', false], ['assistant', true]]);
    // The question was an attachment (attachment://<md5>): the bubble shows its text.
    assert.match(report.bubbles[1]!.text, /^Question 1: what is 1 \+ 1\?/);
    assert.match(report.bubbles[4]!.text, /ANSWER: 2/);

    session.select(1, 1);
    await waitFor('group 2, trajectory 2', () => session.lastRendered?.group === 1 && session.lastRendered.trajectory === 1);
    assert.match(session.lastRendered!.bubbles[1]!.text, /^Question 2/);
  });

  it('lists the groups before their scores are read, then shows each row\'s scores and exceptions once the summaries are', async () => {
    const file = writeEval(path.join(dir, 'later.eval'), { samples: 4, epochs: 2, error_sample: 3 });
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    const session = await sessionOf(uri);
    await session.whenIndexed();
    assert.doesNotMatch(session.index!.format === 'eval' ? (session.index!.notice ?? '') : '', /still being read/);
    // The first paint came before the summaries were read (the build waits for it), its rows without
    // scores. Once read, the rows on screen are asked again: each shows its rewards, sample 3 its two exceptions.
    let t = 0;
    let asked = 0;
    await waitFor(
      'the group rows to show their scores',
      () => {
        const stats = session.lastRendered?.groupStats ?? [];
        if (stats.length === 4 && /μ/.test(stats[0]!) && /2 exceptions/.test(stats[2]!)) return true;
        if (Date.now() - asked > 500) {
          asked = Date.now();
          session.select(0, (t = 1 - t));
        }
        return false;
      },
      20_000,
    );
    assert.deepStrictEqual(session.lastRendered!.groupStats, ['2 trajectories · μ 0.5 · σ 0.5 · 0 – 1', '2 trajectories · μ 0.5 · σ 0.5 · 0 – 1', '0 trajectories · 2 exceptions', '2 trajectories · μ 0.5 · σ 0.5 · 0 – 1']);
  });

  it('names a damaged log, and a damaged sample entry on its group, instead of a blank view', async () => {
    const cut = writeEval(path.join(dir, 'cut.eval'), { samples: 1, epochs: 1 });
    const bytes = fs.readFileSync(cut);
    fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 30));
    const damaged = await openInViewer(cut, { render: false });
    await waitFor('the index', () => damaged.index?.done === true, 20_000);
    assert.strictEqual(damaged.index!.shapeError, 'Cannot read the Inspect log cut.eval: not a zip, or cut short: no end-of-central-directory record');
    assert.strictEqual(damaged.index!.groups, 0);

    // A sample entry whose data is damaged: its group says which entry, the others still show.
    const log = writeEval(path.join(dir, 'crc.eval'), { samples: 2, epochs: 1, compression: 'stored' });
    const raw = fs.readFileSync(log);
    const at = raw.indexOf(Buffer.from('"Question 2'));
    raw[at + 3] = 'X'.charCodeAt(0);
    fs.writeFileSync(log, raw);
    const session = await openInViewer(log);
    await session.whenIndexed();
    const g = await session.index!.readGroup(1);
    assert.match(g.error ?? '', /^crc\.eval, entry samples\/2_epoch_1\.json: its CRC-32 is 0x[0-9a-f]{8}, the zip says 0x[0-9a-f]{8}: the data is damaged/);
    assert.strictEqual((await session.index!.readGroup(0)).error, undefined);
  });

  describe('uploads', () => {
    const s = serverHooks({ prompts: true });

    it('"Upload this group…" sends the sample as the ART group shown; the whole log is refused, saying to convert it', async () => {
      const file = writeEval(path.join(dir, 'upload.eval'), { samples: 2, epochs: 2 });
      const session = await openInViewer(file);
      s.prompts.script({ type: 'viewer-model' }, { pick: 'train' });
      const report = await session.uploadGroup(1);
      assert.strictEqual(report?.status, 'done');
      s.prompts.assertDone();
      assert.strictEqual(s.server.store.logs.length, 1);
      const sent = s.server.store.logs[0]!.body.trajectory_groups as { metadata: unknown; trajectories: { reward: number; metadata: Record<string, unknown> }[] }[];
      assert.deepStrictEqual(sent[0]!.metadata, { task: 'arith', sample_id: '2' });
      assert.deepStrictEqual(sent[0]!.trajectories.map((t) => [t.metadata.sample_id, t.metadata.epoch, t.reward]), [['2', 1, 0], ['2', 2, 1]]);
      await assert.rejects(session.uploadFile(), /upload\.eval is an Inspect log, not a trajectory file: convert it to ART trajectories first/);
      assert.strictEqual(s.server.store.logs.length, 1, 'nothing more was sent');
    });
  });
});
