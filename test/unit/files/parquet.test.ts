import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { INVALID_UTF8 } from '../../../src/files/problems';
import { groupText, openArtParquet, readArtGroups, readTrajectoryGroups, validateTrajectoryFile, type ArtGroup, type GroupRecord, type ValidationSummary } from '../../../src/files';
import { describeLines, uploadGroups } from '../../../src/trajectories/upload';
import { artRows, compactGroup, emptyGroup, stringContents, writeArtParquet, writeArtRows, type ArtRow } from '../../fixtures/art/parquet';
import { harness, type Harness } from '../contract/helpers';
import { collect, useTempDir } from './helpers';

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

    it('rows out of group order (a group repeated further on)', async () => {
      await refused('order.parquet', (p) => rowsWith(p, (rows) => [...rows, { ...rows[0]!, trajectory_index: 2 }]), /^row 9, group 0: comes after group 3; ART writes the rows in group_index order/);
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
