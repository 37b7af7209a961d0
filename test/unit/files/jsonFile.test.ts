import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ProblemError, readTrajectoryGroups, validateTrajectoryFile } from '../../../src/files';
import { artGroup } from '../../fixtures/art/producers';
import { brief, collect, TRAJECTORY_FIXTURES, useTempDir, writeTemp } from './helpers';

// A .json file over 16 MiB is streamed group by group (src/files/jsonScan.ts) instead of read
// whole. The two paths must say the same thing about every file: the same problems at the same
// places, and the same group texts and lines. `streamJsonAbove: 0` streams every file, and tiny
// chunks put a chunk boundary inside every token.

async function outcome(path: string, opts: { streamJsonAbove?: number; streamChunkBytes?: number }) {
  const summary = await validateTrajectoryFile(path, opts);
  let read: unknown;
  try {
    read = (await collect(readTrajectoryGroups(path, opts))).map((r) => [r.index, r.line, r.endLine, r.bytes, r.trajectories, r.json]);
  } catch (e) {
    read = e instanceof ProblemError ? `ProblemError ${e.message}` : e;
  }
  // The upload's read pass (trusted, counted, unparsed) yields the same records as a checked read.
  if (!summary.problems.some((p) => p.severity === 'error')) {
    const fast = (await collect(readTrajectoryGroups(path, { ...opts, trusted: true, groupTrajectories: summary.groupTrajectories }))).map((r) => [r.index, r.line, r.endLine, r.bytes, r.trajectories, r.json]);
    assert.deepEqual(fast, read, `${path}: the trusted read`);
  }
  return { problems: summary.problems.map(brief), groups: summary.groups, trajectories: summary.trajectories, split: summary.split, members: summary.members, read };
}

describe('files/jsonFile: streamed and whole reads agree', () => {
  const dir = useTempDir();
  const extra = (): string[] => [
    writeTemp(dir(), 'art-array.json', JSON.stringify([artGroup(1), artGroup(2, { unset: true })], null, 2)),
    writeTemp(dir(), 'art-request.json', `\uFEFF${JSON.stringify({ model_id: 'agent-001', split: 'val', trajectory_groups: [artGroup(3)], step: 3 })}`),
    writeTemp(dir(), 'crlf.json', JSON.stringify({ trajectory_groups: [artGroup(4), artGroup(5)] }, null, 2).replace(/\n/g, '\r\n')),
    writeTemp(dir(), 'cr.json', JSON.stringify([artGroup(6)], null, 1).replace(/\n/g, '\r')),
    writeTemp(dir(), 'unicode.json', JSON.stringify([{ trajectories: [{ messages_and_choices: [{ role: 'user', content: '日本語 🎉 "quoted" \\ back' }] }] }, { trajectories: 'x' }], null, 2)),
    writeTemp(dir(), 'split-after.json', '{"trajectory_groups": [{"trajectories": []}], "split": "val"}'),
    writeTemp(dir(), 'bad-split.json', '{"split": 3, "trajectory_groups": [{"trajectories": []}]}'),
    writeTemp(dir(), 'groups-not-array.json', '{"split": "train", "trajectory_groups": {"trajectories": []}}'),
    writeTemp(dir(), 'scalar.json', '  42  '),
    writeTemp(dir(), 'unclosed.json', '[{"trajectories": []}, {"trajectories": ['),
    writeTemp(dir(), 'bad-group-syntax.json', '[\n  {"trajectories": []},\n  {"trajectories": [}]\n]'),
    writeTemp(dir(), 'missing-comma.json', '[{"trajectories": []} {"trajectories": []}]'),
    writeTemp(dir(), 'object-trailing.json', '{"trajectory_groups": [],}'),
    writeTemp(dir(), 'no-groups.json', '{"split": "train"}'),
  ];

  it('every fixture: the same problems, counts, split, members and group texts, for any chunk size', async () => {
    const fixtures = readdirSync(TRAJECTORY_FIXTURES)
      .filter((n) => n.endsWith('.json') || n.endsWith('.jsonl'))
      .map((n) => join(TRAJECTORY_FIXTURES, n));
    const all = [...fixtures, ...extra()];
    assert.ok(all.length >= 20, `${all.length} files`);
    for (const file of all) {
      const whole = await outcome(file, {});
      for (const streamChunkBytes of [undefined, 1, 7, 64]) {
        const streamed = await outcome(file, { streamJsonAbove: 0, streamChunkBytes });
        assert.deepEqual(streamed, whole, `${file} (chunks of ${streamChunkBytes ?? 'default'} bytes)`);
      }
    }
  });

  it('keeps top-level members other than the groups (as written) for the requests, and the split', async () => {
    const file = writeTemp(dir(), 'members.json', '{"model_id": "agent-001",\n "split": "val", "step": 12, "trajectory_groups": [{"trajectories": []}], "note": {"a": [1, 2.50]}}');
    for (const streamJsonAbove of [undefined, 0]) {
      const s = await validateTrajectoryFile(file, { streamJsonAbove });
      assert.equal(s.split, 'val');
      // Spread: the members are a null-prototype record (the file's names are data).
      assert.deepEqual({ ...s.members }, { model_id: '"agent-001"', step: '12', note: '{"a": [1, 2.50]}' });
    }
  });

  it('a group over the limit is named where it starts; nothing is read whole', async () => {
    const file = writeTemp(dir(), 'big-group.json', `[{"trajectories": []},\n  {"trajectories": [], "logs": ["${'x'.repeat(5000)}"]}]`);
    const s = await validateTrajectoryFile(file, { streamJsonAbove: 0, maxLineBytes: 1000 });
    assert.deepEqual(s.problems.map(brief), ['2:3-2:4 error A group is larger than 1000 bytes: split it, or store one group per line in a .jsonl file']);
  });
});
