// The viewer's logprob panel across a file (issue 30 item 3): per-token logprobs and per-turn mean
// logprobs counted into fixed bins as the file is indexed, and the turns with the least likely
// tokens kept in a small top-N list, each with the place the viewer opens it at. Bounded memory:
// bins and N turns, not every token. The fixture is written by Python's json in ART's shapes (the
// same as test/unit/agents/logprobDistribution.test.ts); the bin counts are worked out by hand below.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryBytes, TrajectoryIndex } from '../../../src/files/groupIndex';
import { binOf, LOGPROB_EDGES, LogprobHistogram } from '../../../src/viewer/logprobStats';

// Tokens: g0t0 [-.1 -.2 -.3], g0t1 [-1 -5], g1t0 [-.5] and [-2 -.05], g1t1 (exchange) [-9 -1].
// Bins (edges -20 -10 -5 -3 -2 -1 -.5 -.2 -.1 -.05 -.01; bin k holds edges[k-1] <= v < edges[k]):
//   -9 → 2, -5 → 3, -2 → 5, -1 -1 → 6, -.5 -.3 → 7, -.2 → 8, -.1 → 9, -.05 → 10.
// Turn means: g0t0 (-.1 + -.2 + -.3)/3 = -0.20000000000000004 in IEEE doubles (Python says the
// same) → 7; -3 → 4; -.5 → 7; -1.025 → 5; -5 → 3.
const PYTHON = String.raw`
import json, sys
def entry(t, lp):
    return {"token": "token_id:%d" % t, "bytes": None, "logprob": lp, "top_logprobs": []}
def content(lps):
    return {"finish_reason": "stop", "index": 0, "logprobs": {"content": [entry(100 + i, v) for i, v in enumerate(lps)], "refusal": None}, "message": {"content": "x", "role": "assistant"}, "prompt_token_ids": [1], "token_ids": [100 + i for i in range(len(lps))]}
def compact(lps):
    return {"finish_reason": "stop", "index": 0, "logprobs": None, "compact_logprobs": lps, "message": {"content": "x", "role": "assistant"}, "prompt_token_ids": [1], "token_ids": [100 + i for i in range(len(lps))]}
def user():
    return {"role": "user", "content": "q"}
def traj(r, items):
    return {"messages_and_choices": items, "tools": None, "additional_histories": [], "reward": r, "metrics": {}, "metadata": {}, "logs": []}
def exchange(r, lps):
    c = {"index": 0, "finish_reason": "stop", "logprobs": None, "message": {"role": "assistant", "content": "x"}, "token_ids": [20, 21], "compact_logprobs": lps}
    response = {"id": "c", "object": "chat.completion", "created": 0, "model": "policy", "choices": [c], "prompt_token_ids": [1]}
    x = {"request": {"model": "policy", "messages": [user()]}, "response": response, "model": "policy", "start_time": "2026-11-27T08:00:00Z", "end_time": "2026-11-27T08:00:01Z"}
    t = traj(r, [])
    del t["messages_and_choices"]
    t["exchanges"] = {"chat_completions": [x]}
    return t
groups = [
    [traj(1.0, [user(), content([-0.1, -0.2, -0.3])]), traj(0.0, [user(), compact([-1.0, -5.0])])],
    [traj(1.0, [user(), content([-0.5]), user(), content([-2.0, -0.05])]), exchange(0.0, [-9.0, -1.0])],
]
with open(sys.argv[1], "w") as f:
    for g in groups:
        f.write(json.dumps({"trajectories": g, "exceptions": [], "metadata": {}, "metrics": {}, "logs": []}) + "\n")
`;

describe('viewer: the logprob histograms across a file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-logprob-bins-'));
  const file = path.join(dir, '0001.jsonl');
  before(() => execFileSync('python3', ['-c', PYTHON, file]));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

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
