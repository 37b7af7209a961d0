import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ParquetIndex, V1_NOTICE } from '../../../src/files/parquetIndex';
import { asGroup } from '../../../src/files/model';
import { groupDetail } from '../../../src/viewer/views';
import { GroupFiles } from '../../../src/viewer/groupFile';
import { ParquetFile } from '../../../src/files';
import { artLayout } from '../../../src/trajectories/layout';
import { artRows, compactGroup, emptyGroup, stringContents, writeArtParquet, writeArtRows } from '../../fixtures/art/parquet';
import { useTempDir } from './helpers';

async function indexOf(path: string): Promise<ParquetIndex> {
  const index = await ParquetIndex.open(path);
  await index.build();
  return index;
}

describe('files/parquetIndex: ART step files in the viewer', function () {
  // DuckDB writes each fixture.
  this.timeout(60_000);
  const dir = useTempDir();
  const opened: ParquetIndex[] = [];
  afterEach(async () => {
    for (const i of opened.splice(0)) await i.source.close();
  });
  const open = async (path: string) => {
    const i = await indexOf(path);
    opened.push(i);
    return i;
  };

  it('indexes a version 2 file by row range: groups in order, an empty group as its one row, counts and rewards from the small columns', async () => {
    const groups = [compactGroup(0, { trajectories: 3 }), emptyGroup(), compactGroup(2, { trajectories: 1 }), compactGroup(3, { trajectories: 5 })];
    const path = join(dir(), '0001.parquet');
    await writeArtParquet(path, groups);
    const index = await open(path);
    assert.equal(index.done, true);
    assert.equal(index.shapeError, undefined);
    assert.equal(index.notice, undefined);
    assert.equal(index.groups, 4);
    assert.equal(index.trajectories, 9);
    assert.deepEqual([0, 1, 2, 3].map((i) => index.rows(i)), [
      { first: 0, last: 2, groupIndex: 0 },
      { first: 3, last: 3, groupIndex: 1 },
      { first: 4, last: 4, groupIndex: 2 },
      { first: 5, last: 9, groupIndex: 3 },
    ]);
    assert.deepEqual([0, 1, 2, 3].map((i) => index.row(i).stats.count), [3, 0, 1, 5]);
    // compactGroup: trajectory t has reward t/2 (t = 0 leaves it out: 0 by default).
    assert.deepEqual(index.row(3).rewards, [0, 0.5, 1, 1.5, 2]);
    assert.equal(index.row(1).stats.exceptions, 1, 'the empty group carries its exception');
    assert.equal(index.rewardMin, 0);
    assert.equal(index.rewardMax, 2);
  });

  it('rebuilds each group exactly as the upload sends it (group_json with trajectory_json), across row groups and from the middle of the file', async () => {
    // Row groups of at least 2,048 rows: a group of two trajectories after an odd row count spans a boundary.
    const groups = [compactGroup(0, { trajectories: 3 }), ...Array.from({ length: 3000 }, (_, i) => compactGroup(i + 1, { size: i % 500 === 0 ? 100_000 : undefined }))];
    groups[3000] = emptyGroup();
    const path = join(dir(), 'paged.parquet');
    await writeArtParquet(path, groups, { rowGroupSize: 2048 });
    const index = await open(path);
    assert.ok(index.info!.rowGroups > 1, `${index.info!.rowGroups} row groups`);
    assert.equal(index.groups, 3001);
    const f = await ParquetFile.open(path);
    const boundary = Number(f.metadata.row_groups[0]!.num_rows);
    await f.close();
    let straddling = -1;
    for (let i = 0; i < index.groups; i++) if (index.rows(i).first < boundary && index.rows(i).last >= boundary) straddling = i;
    assert.ok(straddling > 0, 'a group spans the row groups');
    for (const i of [straddling + 1, straddling, 0, 3000, 2999, 1, 501]) {
      const g = await index.readGroup(i);
      assert.equal(g.error, undefined);
      assert.equal(g.text, JSON.stringify(groups[i]), `group ${i} is the client's dump`);
    }
    const detail = groupDetail((await index.readGroup(3000)).value, index.row(3000), []);
    assert.equal(detail.exceptions.length, 1);
  });

  it('maps a validation problem to its group by row, else by group_index', async () => {
    const path = join(dir(), 'map.parquet');
    await writeArtParquet(path, [compactGroup(0, { trajectories: 2 }), compactGroup(1, { trajectories: 3 })]);
    const index = await open(path);
    assert.equal(index.groupOf({ row: 0 }), 0);
    assert.equal(index.groupOf({ row: 4 }), 1);
    assert.equal(index.groupOf({ group: 1 }), 1);
    assert.equal(index.groupOf({}), -1);
  });

  it('shows a version 1 file from its analytics columns, saying it is the lossy format', async () => {
    // Version 1's writer stores content as a string column (ART's v1 files never hold parts).
    const groups = [compactGroup(0, { trajectories: 2 }), compactGroup(1, { trajectories: 3 })].map(stringContents);
    const path = join(dir(), 'v1.parquet');
    await writeArtParquet(path, groups, { v1: true });
    const index = await open(path);
    assert.equal(index.notice, V1_NOTICE);
    assert.match(index.notice!, /lossy/);
    assert.equal(index.groups, 2);
    assert.deepEqual([index.row(0).stats.count, index.row(1).stats.count], [2, 3]);
    const g = asGroup((await index.readGroup(1)).value)!;
    const t = g.trajectories[1] as Record<string, unknown>;
    assert.equal(t.reward, 0.5);
    assert.deepEqual(t.metadata, { scenario: 's1' });
    const items = t.messages_and_choices as Record<string, unknown>[];
    const original = (groups[1]!.trajectories as Record<string, unknown>[])[1]!.messages_and_choices as Record<string, unknown>[];
    assert.equal(items.length, original.length);
    // The choice comes back as a choice, without the finish reason the file does not hold.
    const last = items[items.length - 1]!;
    assert.equal('finish_reason' in last, false);
    assert.equal((last.message as Record<string, unknown>).content, 'réponse 1 — 答え 🚀');
  });

  it('gives a damaged file a shape error, and a file that is not Parquet one naming what is wrong', async () => {
    const path = join(dir(), 'cut.parquet');
    await writeArtParquet(path, [compactGroup(0)]);
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 20));
    const cut = await open(path);
    assert.match(cut.shapeError ?? '', /damaged or cut short/);
    assert.equal(cut.groups, 0);
    const text = join(dir(), 'text.parquet');
    writeFileSync(text, '{"trajectories": []}\n');
    assert.match((await open(text)).shapeError ?? '', /not a Parquet file/);
  });

  it('shows a file whose rows are out of order as ART reads it: groups and trajectories in index order, an empty group by its sentinel, problems on their group by row', async () => {
    const groups = [compactGroup(0, { trajectories: 3 }), emptyGroup(), compactGroup(2, { trajectories: 2 }), compactGroup(3, { trajectories: 1 })];
    const rows = artRows(groups);
    // Rows 0-2 group 0, 3 the empty group 1, 4-5 group 2, 6 group 3: written as [6, 2, 0, 5, 3, 1, 4] (groups and trajectories shuffled, as take() leaves them).
    const taken = [6, 2, 0, 5, 3, 1, 4];
    const path = join(dir(), 'order.parquet');
    await writeArtRows(path, taken.map((i) => rows[i]!));
    const index = await open(path);
    assert.equal(index.shapeError, undefined);
    assert.equal(index.groups, 4);
    assert.equal(index.trajectories, 6);
    assert.deepEqual([0, 1, 2, 3].map((i) => index.rows(i)), [
      { first: 1, last: 5, groupIndex: 0 },
      { first: 4, last: 4, groupIndex: 1 },
      { first: 3, last: 6, groupIndex: 2 },
      { first: 0, last: 0, groupIndex: 3 },
    ]);
    assert.deepEqual([0, 1, 2, 3].map((i) => index.row(i).stats.count), [3, 0, 2, 1]);
    assert.deepEqual(index.row(0).rewards, [0, 0.5, 1], 'rewards in trajectory order');
    assert.equal(index.row(1).stats.exceptions, 1);
    for (const i of [2, 0, 1, 3]) assert.equal((await index.readGroup(i)).text, JSON.stringify(groups[i]), `group ${i} is the client's dump`);
    // A problem at file row 2 (group 0's first trajectory) is on group 0; row 0 is group 3's.
    assert.equal(index.groupOf({ row: 2 }), 0);
    assert.equal(index.groupOf({ row: 0 }), 3);
    assert.equal(index.groupOf({ row: 3 }), 2);
  });

  it('writes a group for "Upload this group…" as a one-line .jsonl of its exact JSON, keeping the .art layout so model, split and step are proposed', async () => {
    const groups = [compactGroup(0), compactGroup(1, { trajectories: 3 })];
    const path = join(dir(), '.art', 'p', 'models', 'agent-7b', 'trajectories', 'val', '0003.parquet');
    mkdirSync(join(path, '..'), { recursive: true });
    await writeArtParquet(path, groups);
    const index = await open(path);
    const files = new GroupFiles();
    try {
      const file = await files.write(path, 1, (await index.readGroup(1)).text, 'jsonl');
      assert.match(file, /models[\\/]agent-7b[\\/]trajectories[\\/]val[\\/]0003\.jsonl$/);
      assert.deepEqual(artLayout(file), { model: 'agent-7b', split: 'val', step: 3 });
      assert.equal(readFileSync(file, 'utf8'), `${JSON.stringify(groups[1])}\n`);
      const loose = await files.write(join(dir(), 'run.parquet'), 0, '{}', 'jsonl');
      assert.match(loose, /run\.group-1\.jsonl$/);
    } finally {
      await files.dispose();
    }
  });
});
