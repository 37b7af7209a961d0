// svc_summarize_trajectories across a file (issue 30 item 3): the distribution of the sampled
// tokens' logprobs and of each turn's mean logprob, and the turns with the least likely tokens named
// by group, trajectory and turn. The file is written by Python's json in ART's shapes (OpenAI
// logprobs.content, ART's compact_logprobs on a choice, an exchange's response choice); the
// quantiles asserted are worked out by hand below.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ToolHost } from '../../../src/agents/core/host';
import { findTool, runTool } from '../../../src/agents/core/tools';

// Tokens: g0t0 [-.1 -.2 -.3], g0t1 [-1 -5], g1t0 [-.5] and [-2 -.05], g1t1 (exchange) [-9 -1].
// Sorted (10): -9 -5 -2 -1 -1 -.5 -.3 -.2 -.1 -.05; the value at index round(q × 9): min -9, 1% -9,
// 5% -9, 25% -2, median -.5, 75% -.2, 95% -.05, max -.05.
// Turn means (5): -.2, -3, -.5, -1.025, -5; sorted -5 -3 -1.025 -.5 -.2, at index round(q × 4):
// min -5, 1% -5, 5% -5, 25% -3, median -1.025, 75% -.5, 95% -.2, max -.2.
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

describe('agents: svc_summarize_trajectories gives the logprob distribution across a file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-logprobs-'));
  const file = path.join(dir, '0001.jsonl');
  const host: ToolHost = {
    client: () => ({ problem: 'no service in this test' }),
    keyProblem: async () => 'no key in this test',
    origin: () => undefined,
    defaultProject: () => undefined,
    resolvePath: (f) => path.resolve(f),
    feedbackCreator: () => undefined,
    signInHint: '',
    readRoots: () => [dir],
    outsideRoots: 'refuse',
    redact: (t) => t,
  };
  before(() => execFileSync('python3', ['-c', PYTHON, file]));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('prints token and turn-mean quantiles and names the turns with the least likely tokens', async () => {
    const r = await runTool(host, findTool('svc_summarize_trajectories')!, { file });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /\nLogprobs of the sampled tokens \(10 tokens in 5 turns\): min -9, 1% -9, 5% -9, 25% -2, median -0\.5, 75% -0\.2, 95% -0\.05, max -0\.05\.\n/);
    assert.match(r.text, /\nMean logprob per turn: min -5, 1% -5, 5% -5, 25% -3, median -1\.025, 75% -0\.5, 95% -0\.2, max -0\.2\.\n/);
    assert.match(
      r.text,
      /\nTurns with the least likely tokens: group 1, trajectory 1, turn 0 \(exchanges\.chat_completions\[0\]\.response\.choices\[0\]\): lowest -9 \(probability 1\.23e-4\), mean -5 over 2 tokens; group 0, trajectory 1, turn 0 \(messages_and_choices\[1\]\): lowest -5 \(probability 0\.006738\), mean -3 over 2 tokens; group 1, trajectory 0, turn 1 \(messages_and_choices\[3\]\): lowest -2 .*; group 1, trajectory 0, turn 0 \(messages_and_choices\[1\]\): lowest -0\.5 .*; group 0, trajectory 0, turn 0 \(messages_and_choices\[1\]\): lowest -0\.3 .*\.\n/,
    );
  });
});
