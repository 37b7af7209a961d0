// The viewer's file index: groups by byte offset in every accepted shape, stats without keeping
// the file, positions exact to the UTF-16 column, and the same answers from a file and from text.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FileBytes, MemoryBytes, TrajectoryIndex, type ByteSource } from '../../../src/files/groupIndex';
import { useTempDir, writeTemp } from './helpers';

const FIXTURES = resolve(__dirname, '../../fixtures/viewer');

const opened: ByteSource[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

async function build(source: ByteSource, format: 'json' | 'jsonl', chunkBytes?: number): Promise<TrajectoryIndex> {
  opened.push(source);
  const index = new TrajectoryIndex(source, format);
  await index.build({ chunkBytes });
  return index;
}

/** The text at a 1-based line and UTF-16 column of `text`. */
function at(text: string, pos: { line: number; column: number }): string {
  return text.replace(/^\uFEFF/, '').split('\n')[pos.line - 1]!.slice(pos.column - 1);
}

describe('viewer index: JSONL', () => {
  const dir = useTempDir();

  it('indexes one group per non-blank line, with BOM, CRLF, a bare trajectory and an invalid line', async () => {
    const g = (r: number[]) => JSON.stringify({ trajectories: r.map((reward) => ({ messages_and_choices: [], reward })) });
    const text = `\uFEFF${g([1, 0])}\r\n\r\n${g([1, 1])}\n{"messages_and_choices":[],"reward":0.5}\n{"trajectories": [\n`;
    for (const chunk of [undefined, 5]) {
      const index = await build(await FileBytes.open(writeTemp(dir(), 'a.jsonl', text)), 'jsonl', chunk);
      assert.equal(index.groups, 4, `chunk ${chunk}`);
      assert.deepEqual([0, 1, 2, 3].map((i) => index.row(i).line), [1, 3, 4, 5]);
      assert.equal(index.row(0).stats.mean, 0.5);
      assert.equal(index.row(1).stats.zeroVariance, true);
      assert.equal(index.row(2).bare, true);
      assert.match(index.row(3).invalid ?? '', /^Invalid JSON/);
      assert.equal(index.trajectories, 5);
      assert.equal(index.rewardMin, 0);
      assert.equal(index.rewardMax, 1);
      const first = await index.readGroup(0);
      assert.ok(!first.text.endsWith('\r'), 'a CRLF line ends before the CR');
      assert.deepEqual((first.value as { trajectories: unknown[] }).trajectories.length, 2);
    }
  });

  it('gives the same index for the file and for its text in memory', async () => {
    const file = join(FIXTURES, 'art-model-dump.trajectories.jsonl');
    const a = await build(await FileBytes.open(file), 'jsonl');
    const b = await build(MemoryBytes.fromText(readFileSync(file, 'utf8')), 'jsonl', 1000);
    assert.equal(a.groups, 3);
    assert.deepEqual([0, 1, 2].map((i) => a.row(i)), [0, 1, 2].map((i) => b.row(i)));
  });

  it('locates a message at its exact line and UTF-16 column, after non-ASCII text', async () => {
    const line = JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'héllo 👋🏽' }, { role: 'assistant', content: 'ok' }], reward: 1 }] });
    const text = `\n${line}\n`;
    const index = await build(await FileBytes.open(writeTemp(dir(), 'pos.jsonl', text)), 'jsonl');
    const pos = await index.positionOf(0, ['trajectories', 0, 'messages_and_choices', 1]);
    assert.equal(pos.line, 2);
    assert.ok(at(text, pos).startsWith('{"role":"assistant"'), at(text, pos).slice(0, 30));
  });

  it('finds the group of a line, and reads groups in batches for a scan', async () => {
    const text = Array.from({ length: 50 }, (_, i) => JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: `m${i}` }], reward: i }] })).join('\n');
    const index = await build(MemoryBytes.fromText(text), 'jsonl');
    assert.equal(index.groupAtLine(17), 16);
    assert.equal(index.groupAtLine(51), -1);
    const seen: number[] = [];
    for await (const g of index.rawGroups(10, 200)) {
      seen.push(g.index);
      assert.equal(JSON.parse(g.text).trajectories[0].reward, g.index);
    }
    assert.deepEqual(seen, Array.from({ length: 40 }, (_, i) => i + 10));
  });

  it('keeps at most 256 reward ticks per group, spread over the group', async () => {
    const text = JSON.stringify({ trajectories: Array.from({ length: 1000 }, (_, i) => ({ messages_and_choices: [], reward: i })) });
    const index = await build(MemoryBytes.fromText(text), 'jsonl');
    const row = index.row(0);
    assert.equal(row.rewards.length, 256);
    assert.equal(row.rewards[0], 0);
    assert.ok(row.rewards[255]! > 990);
    assert.equal(row.stats.count, 1000);
  });
});

describe('viewer index: JSON', () => {
  const dir = useTempDir();

  it('indexes the groups of a {split, trajectory_groups} document with their line spans', async () => {
    const file = join(FIXTURES, 'request.trajectories.json');
    const text = readFileSync(file, 'utf8');
    for (const chunk of [undefined, 64]) {
      const index = await build(await FileBytes.open(file), 'json', chunk);
      assert.equal(index.groups, 3);
      assert.equal(index.split, 'val');
      assert.equal(index.shapeError, undefined);
      for (let i = 0; i < 3; i++) {
        const r = index.row(i);
        assert.ok(r.endLine > r.line);
        assert.ok(at(text, { line: r.line, column: 1 }).trim().startsWith('{'));
        assert.equal(index.groupAtLine(r.line + 1), i);
      }
      assert.equal(index.row(1).stats.zeroVariance, true);
      assert.equal(index.row(1).stats.exceptions, 1);
      const pos = await index.positionOf(2, ['trajectories', 1, 'messages_and_choices', 3]);
      assert.match(at(text, pos), /^\{/);
      assert.equal(text.split('\n')[pos.line]!.trim(), '"role": "tool",');
    }
  });

  it('indexes an array of groups, and one group alone', async () => {
    const array = await build(await FileBytes.open(join(FIXTURES, 'array.json')), 'json');
    assert.equal(array.groups, 2);
    assert.equal(array.row(1).stats.count, 1);
    const single = await build(await FileBytes.open(join(FIXTURES, 'single-group.json')), 'json');
    assert.equal(single.groups, 1);
    assert.equal(single.row(0).line, 1);
    assert.equal(single.row(0).stats.count, 2);
    const pos = await single.positionOf(0, ['trajectories', 1]);
    assert.match(at(readFileSync(join(FIXTURES, 'single-group.json'), 'utf8'), pos), /^\{/);
  });

  it('explains a file that is not a trajectory file, is empty, or is cut short', async () => {
    const cases: [string, RegExp][] = [
      ['"text"', /Not a trajectory file/],
      ['{"rows": []}', /Not a trajectory file/],
      ['   ', /empty/],
      ['{"trajectory_groups": [{"trajectories": []}', /incomplete/],
    ];
    for (const [text, re] of cases) {
      const index = await build(await FileBytes.open(writeTemp(dir(), 'x.json', text)), 'json');
      assert.match(index.shapeError ?? '', re, text);
    }
  });

  it('is not confused by brackets and quotes inside strings', async () => {
    const text = JSON.stringify({ split: 'a "quoted" split', trajectory_groups: [{ trajectories: [{ messages_and_choices: [{ role: 'user', content: '}]{["\\' }], reward: 2 }] }, { trajectories: [] }] });
    const index = await build(MemoryBytes.fromText(text), 'json', 3);
    assert.equal(index.groups, 2);
    assert.equal(index.split, 'a "quoted" split');
    assert.equal(index.row(0).stats.mean, 2);
  });
});

describe('viewer index: JSON faults between groups', () => {
  it('shows the groups past a missing comma, skips items that are not groups, and gives each group its exact place', async () => {
    const text = '\uFEFF{"split": "tränen", "trajectory_groups": [\r\n  {"trajectories": [{"messages_and_choices": [], "reward": 1}]}\r\n  {"trajectories": [{"messages_and_choices": [], "reward": 3}]}, 7,\r\n  {"trajectories": []},\r\n]}';
    for (const chunk of [1, 5, 1 << 20]) {
      const index = new TrajectoryIndex(MemoryBytes.fromText(text), 'json');
      await index.build({ chunkBytes: chunk });
      assert.equal(index.shapeError, undefined, `chunk ${chunk}`);
      assert.equal(index.split, 'tränen');
      assert.equal(index.groups, 3, `chunk ${chunk}`);
      assert.deepEqual([0, 1, 2].map((i) => index.row(i).line), [2, 3, 4]);
      assert.equal(index.row(1).stats.mean, 3);
      const bytes = Buffer.from(text);
      for (let i = 0; i < 3; i++) {
        const { start, end } = index.byteRange(i);
        assert.equal(bytes.toString('utf8', start, end), (await index.readGroup(i)).text);
        assert.equal(bytes[start], 0x7b);
      }
      assert.deepEqual(await index.positionOf(1, ['trajectories', 0]), { line: 3, column: 21 });
    }
  });

  it('says where the structure breaks when it cannot go on, and keeps the groups before it', async () => {
    const index = new TrajectoryIndex(MemoryBytes.fromText('{"trajectory_groups": [{"trajectories": []}], "x" 1}'), 'json');
    await index.build();
    assert.equal(index.groups, 1);
    assert.match(index.shapeError ?? '', /colon expected \(line 1, column 51\)/);
  });
});

describe('viewer index: without verdicts', () => {
  const dir = useTempDir();

  it('builds the plain index (offsets, lines, reward stats) and no verdict when asked: the bench\'s baseline for the verdict pass', async () => {
    const g = (r: number[]) => JSON.stringify({ trajectories: r.map((reward) => ({ messages_and_choices: [], reward })) });
    const file = writeTemp(dir(), 'v.jsonl', `${g([1, 0])}\n${g([1, 1])}\n`);
    const judged = await build(await FileBytes.open(file), 'jsonl');
    const plainSource = await FileBytes.open(file);
    opened.push(plainSource);
    const plain = new TrajectoryIndex(plainSource, 'jsonl', { verdicts: false });
    await plain.build();
    assert.equal(judged.verdicts.groups, 2);
    assert.ok(judged.row(0).verdict, 'the default index has verdicts');
    assert.equal(plain.verdicts.groups, 0);
    assert.equal(plain.row(0).verdict, undefined);
    for (const i of [0, 1]) assert.deepEqual({ ...plain.row(i) }, (({ verdict: _, ...rest }) => rest)(judged.row(i)));
  });
});
