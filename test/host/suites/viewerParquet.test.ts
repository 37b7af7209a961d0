// The trajectory viewer on ART's Parquet step files in a real host: files written by DuckDB (an
// independent writer) in ART's v2 and v1 layouts, opened as ART leaves them (the default editor
// under a trajectories folder) or through Open With. What the viewer shows is checked against the
// groups that were written, read here without the viewer.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { demoStepGroups } from '../../fixtures/art/demoSteps';
import { artRows, compactGroup, emptyGroup, stringContents, writeArtParquet, writeArtRows } from '../../fixtures/art/parquet';
import { waitFor } from './helpers';
import { openByDefault, openInViewer as openWith, serverHooks, uploadGroupOfAgent7b, VIEW_TYPE } from './setups';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-parquet-'));
const split = path.join(dir, '.art', 'weather', 'models', 'agent-7b', 'trajectories', 'train');
fs.mkdirSync(split, { recursive: true });

type O = Record<string, unknown>;

/** A choice's or a message's role and whether it is a trainable turn, as the bubbles report them. */
const bubble = (item: O) => ('role' in item ? [String(item.role), false] : [String((item.message as O).role), true]);

describe('trajectory viewer: ART Parquet step files', function () {
  this.timeout(60_000);
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is the default editor of a .parquet step file under a trajectories folder: its groups, counts and rewards, legacy conversations as bubbles', async () => {
    const file = path.join(split, '0002.parquet');
    const groups = demoStepGroups(2, 'train');
    await writeArtParquet(file, groups);
    const uri = vscode.Uri.file(file);
    const session = await openByDefault(uri);

    await session.whenIndexed();
    const index = session.index!;
    assert.strictEqual(index.format, 'parquet');
    assert.strictEqual(index.groups, groups.length);
    groups.forEach((g, i) => {
      const trajectories = g.trajectories as O[];
      const row = index.row(i);
      assert.strictEqual(row.stats.count, trajectories.length, `group ${i + 1}: trajectories`);
      assert.deepStrictEqual(row.rewards, trajectories.map((t) => (t.reward as number | undefined) ?? 0), `group ${i + 1}: rewards`);
    });
    assert.strictEqual(index.row(2).stats.zeroVariance, true, 'group 3 gives no learning signal');

    // Group 1, trajectory 1 is a legacy one: a bubble per message and choice.
    const report = session.lastRendered!;
    const first = (groups[0]!.trajectories as O[])[0]!.messages_and_choices as O[];
    assert.deepStrictEqual([report.group, report.trajectory], [0, 0]);
    assert.deepStrictEqual(report.bubbles.map((b) => [b.role, b.trainable]), first.map(bubble));
    // Markdown renders to text without its syntax.
    assert.strictEqual(report.bubbles[4]!.text.replace(/\*/g, '').trim(), String(((first[4] as O).message as O).content).replace(/\*/g, ''));

    // Each group is read as the upload sends it: group_json with its trajectory_json.
    for (const i of [0, 3, groups.length - 1]) assert.deepStrictEqual(JSON.parse((await index.readGroup(i)).text), groups[i]);
    session.select(4, 1);
    await waitFor('group 5, trajectory 2', () => session.lastRendered?.group === 4 && session.lastRendered.trajectory === 1);
  });

  it('opens any .parquet through Open With…, and contributes the default only under trajectories folders', async () => {
    const file = path.join(dir, 'elsewhere.parquet');
    await writeArtParquet(file, [compactGroup(0), emptyGroup(), compactGroup(2, { trajectories: 3 })]);
    const session = await openWith(vscode.Uri.file(file));
    await session.whenIndexed();
    assert.deepStrictEqual([0, 1, 2].map((i) => session.index!.row(i).stats.count), [2, 0, 3]);
    assert.strictEqual(session.index!.row(1).stats.exceptions, 1, 'the empty group shows its exception');
    const associations = vscode.workspace.getConfiguration('workbench').get<Record<string, string>>('editorAssociations') ?? {};
    assert.strictEqual(associations['**/trajectories/**/*.parquet'], VIEW_TYPE);
    assert.strictEqual(associations['*.parquet'], undefined);
  });

  it('shows a version 1 file from its analytics columns, under a banner saying it is the lossy format', async () => {
    const file = path.join(dir, 'v1', 'trajectories', 'train', '0001.parquet');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    // Version 1's writer stores content as a string column (ART's v1 files never hold parts).
    const groups = [compactGroup(0, { trajectories: 2 }), compactGroup(1, { trajectories: 3 })].map(stringContents);
    await writeArtParquet(file, groups, { v1: true });
    const session = await openWith(vscode.Uri.file(file));
    await session.whenIndexed();
    const index = session.index!;
    assert.ok(index.format === 'parquet');
    assert.match(index.notice ?? '', /version 1, the lossy one/);
    assert.match(index.notice ?? '', /finish reasons and logprobs, additional histories, the group's exceptions/);
    assert.deepStrictEqual([index.row(0).stats.count, index.row(1).stats.count], [2, 3]);
    const messages = (groups[0]!.trajectories as O[])[0]!.messages_and_choices as O[];
    assert.deepStrictEqual(session.lastRendered!.bubbles.map((b) => [b.role, b.trainable]), messages.map(bubble));
    // No logprobs in version 1: the Logprobs panel says so, and there is no summary line.
    session.showLogprobs(true);
    await waitFor('the Logprobs panel', () => !!session.lastRendered?.logprobs?.note && !/^Reading/.test(session.lastRendered.logprobs.note), 20_000);
    assert.deepStrictEqual(session.lastRendered!.logprobs, { tokenBins: [], turnBins: [], turns: [], note: "ART's Parquet format version 1 keeps no logprobs" });
    assert.strictEqual(session.lastRendered!.trainability, undefined);
    session.showLogprobs(false);
  });

  it('names a damaged file, and puts bad indexes on their group naming row and group', async () => {
    const cut = path.join(dir, 'cut.parquet');
    await writeArtParquet(cut, [compactGroup(0)]);
    const bytes = fs.readFileSync(cut);
    fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 30));
    const damaged = await openWith(vscode.Uri.file(cut), { render: false });
    await waitFor('the index', () => damaged.index?.done === true, 20_000);
    assert.match(damaged.index!.shapeError ?? '', /damaged or cut short/);
    assert.strictEqual(damaged.index!.groups, 0);

    const file = path.join(dir, 'indexes.parquet');
    const rows = artRows([compactGroup(0), compactGroup(1, { trajectories: 3 })]);
    rows[3]!.trajectory_index = 0; // group 1's second row repeats trajectory 0
    await writeArtRows(file, rows);
    const session = await openWith(vscode.Uri.file(file));
    await waitFor('validation', () => !session.validating && session.problemsOf(1).length > 0, 20_000);
    assert.deepStrictEqual(session.problemsOf(0), []);
    assert.match(session.problemsOf(1).map((p) => p.message).join('\n'), /row 3, group 1: trajectory_index 0 is repeated/);
  });

  describe('uploads', () => {
    const s = serverHooks({ prompts: true });

    it('"Upload this group…" sends the group as the client dumped it, proposing the model and split of the .art layout', async () => {
      const file = path.join(split, '0007.parquet');
      const groups = [compactGroup(0), compactGroup(1, { trajectories: 3 }), compactGroup(2)];
      await writeArtParquet(file, groups);
      const session = await openWith(vscode.Uri.file(file));
      await waitFor('validation', () => !session.validating, 20_000);
      await uploadGroupOfAgent7b(s, session, 1);
      assert.deepStrictEqual(s.server.store.logs[0]!.body.trajectory_groups, [groups[1]]);
      assert.strictEqual(s.server.store.logs[0]!.body.split, 'train');
    });

    it('"Upload this file…" hands the .parquet file to the upload, which sends every group', async () => {
      const file = path.join(split, '0008.parquet');
      const groups = [compactGroup(0), compactGroup(1, { trajectories: 3 })];
      await writeArtParquet(file, groups);
      const session = await openWith(vscode.Uri.file(file));
      s.prompts.script({ pick: 'agent-7b' }, { pick: 'train' });
      const report = await session.uploadFile();
      assert.strictEqual(report?.status, 'done');
      assert.deepStrictEqual(s.server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]), groups);
    });

    it('shows and uploads a step file whose rows are out of order (as pandas or pyarrow may write it back) as ART reads it: groups and trajectories in index order', async () => {
      const file = path.join(split, '0009.parquet');
      const groups = [compactGroup(0, { trajectories: 3 }), emptyGroup(), compactGroup(2, { trajectories: 2 })];
      const rows = artRows(groups);
      // Rows 0-2 group 0, 3 the empty group, 4-5 group 2: each run taken [2, 0, 1], the runs reversed.
      await writeArtRows(file, [5, 3, 4, 2, 0, 1].map((i) => rows[i]!));
      const session = await openWith(vscode.Uri.file(file));
      await session.whenIndexed();
      await waitFor('validation', () => !session.validating, 20_000);
      const index = session.index!;
      assert.strictEqual(index.shapeError, undefined);
      assert.strictEqual(index.groups, 3);
      assert.deepStrictEqual([0, 1, 2].map((i) => index.row(i).stats.count), [3, 0, 2]);
      assert.deepStrictEqual([0, 1, 2].map((i) => session.problemsOf(i)), [[], [], []]);
      assert.deepStrictEqual(session.lastRendered!.bubbles.map((b) => [b.role, b.trainable]), ((groups[0]!.trajectories as O[])[0]!.messages_and_choices as O[]).map(bubble));
      for (const i of [0, 1, 2]) assert.deepStrictEqual(JSON.parse((await index.readGroup(i)).text), groups[i]);
      s.prompts.script({ pick: 'agent-7b' }, { pick: 'train' });
      const report = await session.uploadFile();
      assert.strictEqual(report?.status, 'done');
      assert.deepStrictEqual(s.server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]), groups);
    });

    it('refuses to upload a group of a version 1 file, saying why, and sends nothing', async () => {
      const file = path.join(dir, 'v1-upload.parquet');
      await writeArtParquet(file, [compactGroup(0)], { v1: true });
      const session = await openWith(vscode.Uri.file(file));
      s.prompts.answer(/group 1 .*lossy.*nothing was sent/, () => undefined);
      assert.strictEqual(await session.uploadGroup(0), undefined);
      assert.ok(s.prompts.messages('error').some((m) => /group 1 \(rows 0–1\) is in ART's lossy Parquet format/.test(m.title)));
      assert.strictEqual(s.server.store.logs.length, 0);
    });
  });
});
