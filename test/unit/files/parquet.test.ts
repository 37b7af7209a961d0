import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INVALID_UTF8 } from '../../../src/files/problems';
import { groupText, openArtParquet, readArtGroups, readTrajectoryGroups, validateTrajectoryFile, type ArtGroup, type GroupRecord, type ValidationSummary } from '../../../src/files';
import { describeLines, uploadGroups } from '../../../src/trajectories/upload';
import { artRows, compactGroup, emptyGroup, stringContents, writeArtParquet, writeArtRows, type ArtRow } from '../../fixtures/art/parquet';
import { harness, type Harness } from '../contract/helpers';
import { collect, useTempDir } from './helpers';

/**
 * The rows as a user's pandas/pyarrow rewrite may leave them: ART's own test writes
 * `table.take([2, 0, 1])`; here each run of three rows is rotated the same way, and the runs are
 * reversed, so groups and trajectories are both out of order.
 */
function shuffle<T>(rows: T[]): T[] {
  const runs: T[][] = [];
  for (let i = 0; i < rows.length; i += 3) {
    const run = rows.slice(i, i + 3);
    runs.push(run.length === 3 ? [run[2]!, run[0]!, run[1]!] : run.reverse());
  }
  return runs.reverse().flat();
}

const errors = (s: ValidationSummary) => s.problems.filter((p) => p.severity === 'error').map((p) => p.message);

/** Groups of every shape the client writes that today's service takes: compact dumps, unicode, a 1 MB content. */
function groups(): Record<string, unknown>[] {
  return [compactGroup(0), compactGroup(1, { size: 1_000_000 }), compactGroup(2, { trajectories: 1 }), compactGroup(3, { trajectories: 4 })];
}

/** Uploads `path` as the manager does (validate, then the trusted read) and returns the group texts sent. */
async function upload(h: Harness, path: string): Promise<{ sent: string[]; status: string; requests: number }> {
  const summary = await validateTrajectoryFile(path);
  assert.deepEqual(errors(summary), [], `${path} validates`);
  const sent: string[] = [];
  const models = h.client.models;
  const original = models.logGroupsJson.bind(models);
  models.logGroupsJson = async (modelId, body) => {
    sent.push(...body.groups);
    return original(modelId, body);
  };
  const result = await uploadGroups(h.client, readTrajectoryGroups(path, { trusted: true, groupTrajectories: summary.groupTrajectories }), { modelId: 'm', split: 'train', maxRequestBytes: 256 * 1024 });
  models.logGroupsJson = original;
  return { sent, status: result.outcome.status, requests: result.totals.requests };
}

describe('files/parquet: ART step files', function () {
  // DuckDB writes each fixture; the 1 MB content makes a few pages.
  this.timeout(60_000);
  const dir = useTempDir();

  it('reads a version 2 file as the client dumped each group: group_json with trajectory_json spliced in, in index order', async () => {
    const all = groups();
    const path = join(dir(), 'v2.parquet');
    await writeArtParquet(path, all);
    const summary = await validateTrajectoryFile(path);
    assert.equal(summary.format, 'parquet');
    assert.deepEqual(summary.problems, []);
    assert.equal(summary.groups, 4);
    assert.deepEqual(summary.groupTrajectories, [2, 2, 1, 4]);
    const read = await collect(readTrajectoryGroups(path));
    assert.deepEqual(read.map((g) => g.json), all.map((g) => JSON.stringify(g)));
    assert.deepEqual(read.map((g) => [g.index, g.line, g.endLine, g.unit, g.trajectories]), [
      [0, 0, 1, 'row', 2],
      [1, 2, 3, 'row', 2],
      [2, 4, 4, 'row', 1],
      [3, 5, 8, 'row', 4],
    ]);
    assert.deepEqual(read.map((g) => g.bytes), all.map((g) => Buffer.byteLength(JSON.stringify(g))));
    // The upload's read (trusted, nothing parsed) gives the same records.
    const summaryCounts = summary.groupTrajectories;
    assert.deepEqual(await collect(readTrajectoryGroups(path, { trusted: true, groupTrajectories: summaryCounts })), read);
    assert.deepEqual((await collect(readTrajectoryGroups(path, { startGroup: 2 }))).map((g) => g.index), [2, 3]);
  });

  it('reads an empty group (one row, trajectory_index null) as its group_json, exceptions and all', async () => {
    const path = join(dir(), 'empty.parquet');
    const all = [compactGroup(0), emptyGroup(), compactGroup(2)];
    await writeArtParquet(path, all);
    const { file, info } = await openArtParquet(path);
    try {
      assert.equal(info.version, 2);
      const read = (await collect(readArtGroups(file))) as ArtGroup[];
      assert.deepEqual(read.map((g) => [g.group, g.firstRow, g.lastRow, g.trajectories.length]), [
        [0, 0, 1, 2],
        [1, 2, 2, 0],
        [2, 3, 4, 2],
      ]);
      assert.deepEqual(read.map(groupText), all.map((g) => JSON.stringify(g)));
    } finally {
      await file.close();
    }
  });

  describe('rows out of order, read as ART reads them (sorted by group and trajectory index)', () => {
    let h: Harness;
    afterEach(() => h?.close());

    it('reads a shuffled file (take([2, 0, 1])) group by group in index order, each problem at its own row', async () => {
      const all = groups();
      const path = join(dir(), 'shuffled.parquet');
      const rows = artRows(all);
      // ART's test: the rows of one group taken [2, 0, 1].
      const one = join(dir(), 'take.parquet');
      const three = artRows([compactGroup(3, { trajectories: 3 })]);
      await writeArtRows(one, [three[2]!, three[0]!, three[1]!]);
      assert.deepEqual((await collect(readTrajectoryGroups(one))).map((g) => g.json), [JSON.stringify(compactGroup(3, { trajectories: 3 }))]);

      const shuffled = shuffle(rows);
      await writeArtRows(path, shuffled);
      assert.notDeepEqual(shuffled.map((r) => [r.group_index, r.trajectory_index]), rows.map((r) => [r.group_index, r.trajectory_index]));
      const summary = await validateTrajectoryFile(path);
      assert.deepEqual(summary.problems, []);
      assert.equal(summary.groups, 4);
      assert.deepEqual(summary.groupTrajectories, [2, 2, 1, 4]);
      const read = await collect(readTrajectoryGroups(path));
      assert.deepEqual(read.map((g) => g.index), [0, 1, 2, 3]);
      assert.deepEqual(read.map((g) => g.json), all.map((g) => JSON.stringify(g)));
      // Each group's first and last row in the file.
      const at = (gi: number) => shuffled.flatMap((r, i) => (r.group_index === gi ? [i] : []));
      assert.deepEqual(read.map((g) => [g.line, g.endLine]), [0, 1, 2, 3].map((gi) => [Math.min(...at(gi)), Math.max(...at(gi))]));
      assert.deepEqual(await collect(readTrajectoryGroups(path, { trusted: true, groupTrajectories: summary.groupTrajectories })), read);

      // A problem names the row the trajectory is in, not its place in the group.
      const bad = shuffled.map((r) => (r.group_index === 3 && r.trajectory_index === 2 ? { ...r, trajectory_json: JSON.stringify({ messages_and_choices: [], reward: 'high' }) } : r));
      const badPath = join(dir(), 'shuffled-bad.parquet');
      await writeArtRows(badPath, bad);
      const badRow = bad.findIndex((r) => r.group_index === 3 && r.trajectory_index === 2);
      assert.deepEqual(errors(await validateTrajectoryFile(badPath)).map((m) => m.replace(/reward: .*/, 'reward')), [`row ${badRow}, group 3: trajectories[2].reward`]);
    });

    it('reads an empty group (its one sentinel row) out of order', async () => {
      const all = [compactGroup(0), emptyGroup(), compactGroup(2)];
      const path = join(dir(), 'shuffled-empty.parquet');
      const rows = artRows(all);
      await writeArtRows(path, [...rows].reverse());
      const summary = await validateTrajectoryFile(path);
      assert.deepEqual(summary.problems, []);
      assert.deepEqual(summary.groupTrajectories, [2, 0, 2]);
      const { file } = await openArtParquet(path);
      try {
        const read = (await collect(readArtGroups(file))) as ArtGroup[];
        assert.deepEqual(read.map((g) => [g.group, g.firstRow, g.lastRow, g.rows]), [
          [0, 3, 4, [4, 3]],
          [1, 2, 2, undefined],
          [2, 0, 1, [1, 0]],
        ]);
        assert.deepEqual(read.map(groupText), all.map((g) => JSON.stringify(g)));
      } finally {
        await file.close();
      }
    });

    it('gathers groups in windows when the file is larger than one: every group once, in order; a group larger than the limit is refused', async () => {
      const all = Array.from({ length: 60 }, (_, i) => compactGroup(i, { trajectories: 1 + (i % 3), size: i % 7 === 0 ? 20_000 : undefined }));
      const path = join(dir(), 'windows.parquet');
      await writeArtRows(path, shuffle(artRows(all)));
      const { file } = await openArtParquet(path);
      try {
        const read = (await collect(readArtGroups(file, { windowBytes: 30_000, maxGroupBytes: 25_000 }))) as ArtGroup[];
        assert.deepEqual(read.map((g) => ('fault' in g ? -1 : g.group)), all.map((_, i) => i));
        assert.deepEqual(read.map(groupText), all.map((g) => JSON.stringify(g)));
        const small = await collect(readArtGroups(file, { windowBytes: 1, maxGroupBytes: 10_000 }));
        const faults = small.flatMap((g) => ('fault' in g ? [g.fault.message] : []));
        assert.equal(faults.length, all.filter((_, i) => i % 7 === 0).length);
        assert.ok(faults.every((m) => /^row \d+, group \d+: the group is larger than 0 MiB$/.test(m)), faults.join('\n'));
        assert.deepEqual(small.flatMap((g) => ('fault' in g ? [] : [g.group])), all.flatMap((_, i) => (i % 7 ? [i] : [])));
      } finally {
        await file.close();
      }
    });

    it('uploads a shuffled file: the service receives the groups in index order, each once', async () => {
      h = await harness();
      const all = groups();
      const path = join(dir(), '0002.parquet');
      await writeArtRows(path, shuffle(artRows(all)));
      const result = await upload(h, path);
      assert.equal(result.status, 'done');
      assert.deepEqual(result.sent, all.map((g) => JSON.stringify(g)));
      assert.deepEqual(h.server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]), all);
    });
  });

  it('reads rows across many data pages and row groups in order', async () => {
    const path = join(dir(), 'pages.parquet');
    const all = Array.from({ length: 2000 }, (_, i) => compactGroup(i, { size: 1000, trajectories: 3 }));
    await writeArtParquet(path, all, { rowGroupSize: 2048 });
    const { file, info } = await openArtParquet(path);
    await file.close();
    assert.ok(info.rowGroups > 1, `${info.rowGroups} row groups`);
    const read = await collect(readTrajectoryGroups(path));
    assert.equal(read.length, 2000);
    assert.ok(read.every((g, i) => g.json === JSON.stringify(all[i])));
  });

  it('says a version 1 file (analytics columns only) is lossy, and reads nothing from it', async () => {
    const path = join(dir(), 'v1.parquet');
    await writeArtParquet(path, groups().map(stringContents), { v1: true });
    const summary = await validateTrajectoryFile(path);
    assert.equal(errors(summary).length, 1);
    assert.match(errors(summary)[0]!, /version 1 .*analytics columns.*lost/);
    await assert.rejects(collect(readTrajectoryGroups(path)), /version 1/);
    // What a view can still show of it: the analytics rows as written, flattened messages included.
    const { file, info } = await openArtParquet(path);
    try {
      assert.equal(info.version, 1);
      const rows = await file.objects({ rowStart: 2, rowEnd: 3 });
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.group_index, 1n);
      const messages = rows[0]!.messages as { role: string; content: string | null; trainable: boolean }[];
      assert.deepEqual(messages.map((m) => [m.role, m.trainable]), [['system', false], ['user', false], ['assistant', false], ['tool', false], ['user', false], ['assistant', true]]);
      assert.match(messages[4]!.content!, /^long 1 é+$/);
    } finally {
      await file.close();
    }
  });

  describe('sends exactly what the client dumped', () => {
    let h: Harness;
    afterEach(() => h.close());

    it('a Parquet file and the JSONL of the same groups send the same bytes per group', async () => {
      h = await harness();
      const all = groups();
      const parquet = join(dir(), '0001.parquet');
      await writeArtParquet(parquet, all);
      const jsonl = join(dir(), '0001.jsonl');
      writeFileSync(jsonl, all.map((g) => JSON.stringify(g)).join('\n') + '\n');
      const fromParquet = await upload(h, parquet);
      const fromJsonl = await upload(h, jsonl);
      assert.equal(fromParquet.status, 'done');
      assert.equal(fromJsonl.status, 'done');
      assert.ok(fromParquet.requests > 1, 'several requests');
      assert.deepEqual(fromParquet.sent, all.map((g) => JSON.stringify(g)), 'group_json + trajectory_json, group by group');
      assert.deepEqual(fromParquet.sent, fromJsonl.sent);
      const logged = h.server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]);
      assert.deepEqual(logged, [...all, ...all]);
    });
  });

  describe('Retry Remaining', () => {
    let h: Harness;
    afterEach(() => h.close());

    it('resumes a failed Parquet upload at the first group not logged: every group once, the ledger in rows', async () => {
      h = await harness();
      const all = Array.from({ length: 8 }, (_, i) => compactGroup(i));
      const path = join(dir(), '0009.parquet');
      await writeArtParquet(path, all);
      const server = h.server;
      const budget = 2 * Buffer.byteLength(JSON.stringify(all[1])) + 200;
      let armed = false;
      const first = await uploadGroups(
        h.client,
        (async function* () {
          for await (const g of readTrajectoryGroups(path)) {
            if (g.index === 4 && !armed) {
              armed = true;
              while (server.stats.count('/v1/preview/models/m/log') < 1) await new Promise((r) => setTimeout(r, 5));
              server.faults.add({ path: '/v1/preview/models/m/log', kind: 'status', status: 429 });
            }
            yield g;
          }
        })(),
        { modelId: 'm', split: 'train', maxRequestBytes: budget },
      );
      assert.equal(first.outcome.status, 'failed');
      assert.match(describeLines(first.logged), /^rows 0–\d+$/);
      assert.ok(first.nextGroup > 0 && first.nextGroup < 8, `nextGroup ${first.nextGroup}`);
      const rest = await uploadGroups(h.client, readTrajectoryGroups(path, { startGroup: first.nextGroup }), { modelId: 'm', split: 'train', maxRequestBytes: budget });
      assert.equal(rest.outcome.status, 'done');
      assert.deepEqual(h.server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]), all);
    });
  });

  describe('bad input: each has its message, naming the file, row and group, and nothing is sent', () => {
    let h: Harness;
    afterEach(() => h.close());

    async function refused(name: string, write: (path: string) => Promise<void> | void, message: RegExp): Promise<void> {
      const path = join(dir(), name);
      await write(path);
      const summary = await validateTrajectoryFile(path);
      assert.ok(errors(summary).some((m) => message.test(m)), `${name}: ${JSON.stringify(errors(summary))}`);
      assert.ok(summary.problems.every((p) => p.file === path));
      // The read the upload makes refuses it too, before a request.
      h = await harness();
      const result = await uploadGroups(h.client, readTrajectoryGroups(path), { modelId: 'm', split: 'train' }).catch((e: unknown) => e);
      assert.equal(h.server.stats.count('/v1/preview/models/m/log'), 0, `${name}: no request`);
      assert.ok(!(result as { logged?: unknown[] }).logged?.length);
    }
    const rowsWith = async (path: string, change: (rows: ArtRow[]) => ArtRow[], opts = {}) => writeArtRows(path, change(artRows(groups())), opts);

    it('a truncated file', async () => {
      await refused(
        'cut.parquet',
        async (p) => {
          await writeArtParquet(p, groups());
          const bytes = readFileSync(p);
          writeFileSync(p, bytes.subarray(0, bytes.length - 100));
        },
        /^The file is damaged or cut short: it does not end with a Parquet footer/,
      );
    });

    it('a file whose pages are cut (footer intact)', async () => {
      await refused(
        'pages.parquet',
        async (p) => {
          await writeArtParquet(p, groups());
          const bytes = readFileSync(p);
          // Zero the pages between the magic and the footer: they no longer decode.
          bytes.fill(0, 4, bytes.length - 8 - bytes.readUInt32LE(bytes.length - 8));
          writeFileSync(p, bytes);
        },
        /damaged in column "(group_index|trajectory_index|group_json|trajectory_json|format_version)"/,
      );
    });

    it('wrong magic', async () => {
      await refused('magic.parquet', (p) => writeFileSync(p, `{"trajectories": []}\n`.repeat(4)), /^The file is not a Parquet file: it does not start with "PAR1"/);
    });

    it('an unknown version', async () => {
      await refused('v3.parquet', (p) => writeArtParquet(p, groups(), { version: '3' }).then(() => undefined), /has ART trajectory format version "3"/);
    });

    it('a group_json that differs between the rows of a group', async () => {
      await refused(
        'conflict.parquet',
        (p) =>
          rowsWith(p, (rows) => {
            rows[1]!.group_json = '{"metadata":{"other":1}}';
            return rows;
          }),
        /^row 1, group 0: group_json differs from row 0's/,
      );
    });

    it('a missing trajectory index', async () => {
      await refused('missing.parquet', (p) => rowsWith(p, (rows) => rows.filter((_, i) => i !== 5)), /^row 5, group 3: trajectory_index 1 where 0 was expected|^row \d+, group 3: trajectory_index \d+ where \d+ was expected: trajectory \d+ is missing/);
    });

    it('a repeated trajectory index', async () => {
      await refused('repeated.parquet', (p) => rowsWith(p, (rows) => rows.map((r, i) => (i === 6 ? { ...r, trajectory_index: 0 } : r))), /^row 6, group 3: trajectory_index 0 is repeated/);
    });

    // Rows out of order are read as ART reads them (sorted), and refused for what ART refuses.
    it('rows out of order with a gap in the group indexes', async () => {
      await refused('shuffled-gap.parquet', (p) => rowsWith(p, (rows) => shuffle(rows.filter((r) => r.group_index !== 1))), /^row 4, group 2: group 1 is missing \(group_index jumps from 0 to 2\)/);
    });

    it('rows out of order with a (group, trajectory) pair twice', async () => {
      // Row 9 repeats group 3's trajectory 1 (row 1 after the shuffle).
      await refused('shuffled-duplicate.parquet', (p) => rowsWith(p, (rows) => [...shuffle(rows), { ...rows[6]!, trajectory_json: '{"messages_and_choices":[],"reward":9}' }]), /^row 9, group 3: trajectory_index 1 is repeated/);
    });

    it('rows out of order mixing trajectories and an empty-group row in one group', async () => {
      await refused(
        'shuffled-mixed.parquet',
        (p) => rowsWith(p, (rows) => [...shuffle(rows), { ...rows[0]!, trajectory_index: null, trajectory_json: null }]),
        /^row 7, group 0: an empty-group row \(trajectory_index null\) beside other rows of the group/,
      );
    });

    it('a missing group', async () => {
      await refused('nogroup.parquet', (p) => rowsWith(p, (rows) => rows.filter((r) => r.group_index !== 1)), /^row 2, group 2: group 1 is missing/);
    });

    it('a trajectory_json that is not an object', async () => {
      await refused(
        'array.parquet',
        (p) =>
          rowsWith(p, (rows) => {
            rows[3]!.trajectory_json = '[1,2]';
            return rows;
          }),
        /^row 3, group 1: trajectory_json of trajectory 1 is not a JSON object/,
      );
    });

    it('a trajectory_json that is not JSON', async () => {
      await refused(
        'text.parquet',
        (p) =>
          rowsWith(p, (rows) => {
            rows[4]!.trajectory_json = '{"messages_and_choices": [';
            return rows;
          }),
        /^row 4, group 2: trajectory_json of trajectory 0 is not valid JSON/,
      );
    });

    it('a trajectory the service would refuse, at its row', async () => {
      await refused(
        'reward.parquet',
        (p) =>
          rowsWith(p, (rows) => {
            rows[6]!.trajectory_json = JSON.stringify({ messages_and_choices: [], reward: 'high' });
            return rows;
          }),
        /^row 6, group 3: trajectories\[1\]\.reward: /,
      );
    });
  });

  it('refuses a value that is not valid UTF-8 at its row and sends nothing, as for a JSONL line', async () => {
    const path = join(dir(), 'utf8.parquet');
    const all = groups().slice(0, 3);
    ((all[2]!.trajectories as { metadata?: unknown }[])[0]!).metadata = { marker: 'QQQQ' };
    await writeArtParquet(path, all, { compression: 'uncompressed' });
    const bytes = readFileSync(path);
    const at = bytes.indexOf('QQQQ');
    assert.ok(at > 0);
    bytes[at] = 0xff;
    writeFileSync(path, bytes);
    const summary = await validateTrajectoryFile(path);
    assert.deepEqual(
      summary.problems.map((p) => [p.severity, p.row, p.group, p.message]),
      [['error', 4, 2, `row 4, group 2: the row's JSON ${INVALID_UTF8}`]],
    );
    const read: string[] = [];
    await assert.rejects(async () => {
      for await (const g of readTrajectoryGroups(path)) read.push(g.json);
    }, /row 4, group 2: the row's JSON is not valid UTF-8/);
    assert.equal(read.length, 2, 'the groups before the bad one are read, the bad one is not');
  });

  it('records positions as rows, so a chunk reads "rows 0–3"', async () => {
    const path = join(dir(), 'rows.parquet');
    await writeArtParquet(path, groups().slice(0, 2));
    const read: GroupRecord[] = await collect(readTrajectoryGroups(path));
    assert.deepEqual(read.map((g) => [g.line, g.endLine, g.unit]), [
      [0, 1, 'row'],
      [2, 3, 'row'],
    ]);
    const chunk = { firstGroup: 0, lastGroup: 1, firstLine: read[0]!.line, lastLine: read[1]!.endLine, unit: read[0]!.unit, groups: 2, trajectories: 4, bytes: 0 };
    assert.equal(describeLines([chunk]), 'rows 0–3');
  });
});
