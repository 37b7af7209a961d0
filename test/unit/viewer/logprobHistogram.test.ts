// The viewer's logprob panel across a file (issue 30 item 3): per-token logprobs and per-turn mean
// logprobs counted into fixed bins as the file is indexed, and the turns with the least likely
// tokens kept in a small top-N list, each with the place the viewer opens it at. Bounded memory:
// bins and N turns, not every token. The fixture is written by Python's json in ART's shapes
// (test/fixtures/trainability/logprobs.py, the file of test/unit/agents/logprobDistribution.test.ts); the bin counts are worked out by hand below.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryBytes, TrajectoryIndex } from '../../../src/files/groupIndex';
import { binOf, LOGPROB_EDGES, LogprobHistogram } from '../../../src/files/logprobStats';

// Tokens: g0t0 [-.1 -.2 -.3], g0t1 [-1 -5], g1t0 [-.5] and [-2 -.05], g1t1 (exchange) [-9 -1].
// Bins (edges -20 -10 -5 -3 -2 -1 -.5 -.2 -.1 -.05 -.01; bin k holds edges[k-1] <= v < edges[k]):
//   -9 → 2, -5 → 3, -2 → 5, -1 -1 → 6, -.5 -.3 → 7, -.2 → 8, -.1 → 9, -.05 → 10.
// Turn means: g0t0 (-.1 + -.2 + -.3)/3 = -0.20000000000000004 in IEEE doubles (Python says the
// same) → 7; -3 → 4; -.5 → 7; -1.025 → 5; -5 → 3.

describe('viewer: the logprob histograms across a file', () => {
  const file = path.resolve(__dirname, '../../fixtures/trainability/logprobs.jsonl');

  it('bins a value by the edges: edges[k-1] <= v < edges[k] is bin k', () => {
    assert.strictEqual(LOGPROB_EDGES.length, 11);
    assert.strictEqual(binOf(-25), 0);
    assert.strictEqual(binOf(-20), 1);
    assert.strictEqual(binOf(-0.5), 7);
    assert.strictEqual(binOf(-0.01), 11);
    assert.strictEqual(binOf(0), 11);
  });

  it('counts every token and turn mean of the file into the bins as the index reads it, and lists the least likely turns', async () => {
    const index = new TrajectoryIndex(new MemoryBytes(fs.readFileSync(file)), 'jsonl');
    await index.build();
    const h = index.logprobs;
    assert.strictEqual(h.tokens, 10);
    assert.strictEqual(h.turns, 5);
    assert.deepStrictEqual(h.tokenBins, [0, 0, 1, 1, 0, 1, 2, 2, 1, 1, 1, 0]);
    assert.deepStrictEqual(h.turnBins, [0, 0, 0, 1, 1, 1, 0, 2, 0, 0, 0, 0]);
    assert.strictEqual(h.positive, 0);
    assert.deepStrictEqual(
      h.worst.map((w) => [w.group, w.trajectory, w.turn, w.path.join('.'), w.min, w.minToken, w.tokens]),
      [
        [1, 1, 0, 'exchanges.chat_completions.0.response.choices.0', -9, 0, 2],
        [0, 1, 0, 'messages_and_choices.1', -5, 1, 2],
        [1, 0, 1, 'messages_and_choices.3', -2, 0, 2],
        [1, 0, 0, 'messages_and_choices.1', -0.5, 0, 1],
        [0, 0, 0, 'messages_and_choices.1', -0.3, 2, 3],
      ],
    );
  });

  it('counts the same from a JSON file (the groups under trajectory_groups)', async () => {
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    const text = `{"trajectory_groups": [\n${lines.join(',\n')}\n]}\n`;
    const index = new TrajectoryIndex(new MemoryBytes(Buffer.from(text)), 'json');
    await index.build();
    assert.strictEqual(index.groups, 2);
    assert.deepStrictEqual(index.logprobs.tokenBins, [0, 0, 1, 1, 0, 1, 2, 2, 1, 1, 1, 0]);
    assert.deepStrictEqual(index.logprobs.turnBins, [0, 0, 0, 1, 1, 1, 0, 2, 0, 0, 0, 0]);
    assert.deepStrictEqual(index.logprobs.worst.map((w) => [w.group, w.trajectory, w.min]), [[1, 1, -9], [0, 1, -5], [1, 0, -2], [1, 0, -0.5], [0, 0, -0.3]]);
  });

  it('keeps only the N least likely turns, lowest first, and the first seen on a tie', () => {
    const h = new LogprobHistogram(2);
    const t = (lps: number[]) => ({ messages_and_choices: [{ role: 'user', content: 'q' }, { message: { role: 'assistant', content: 'x' }, compact_logprobs: lps }] });
    h.add(0, 0, t([-1, -3]));
    h.add(0, 1, t([-3]));
    h.add(0, 2, t([-7, 0.5]));
    h.add(0, 3, t([-2]));
    assert.deepStrictEqual(h.worst.map((w) => [w.trajectory, w.min]), [[2, -7], [0, -3]]);
    assert.strictEqual(h.tokens, 6);
    assert.strictEqual(h.positive, 1, 'a logprob above 0 is counted apart: it is no probability');
  });
});
