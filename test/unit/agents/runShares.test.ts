// svc_summarize_run's trainable share per step (issue 30 item 5): a run folder as ART leaves it,
// history.jsonl and trajectories/train/<step>.{jsonl,parquet}, written by Python's json (the JSONL
// files and the history) and DuckDB (the Parquet step), never by our code. The shares asserted are
// counted by hand from the groups below.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTool, runTool } from '../../../src/agents/core/tools';
import { readHost } from './readHost';
import { readStepShares, shareOf } from '../../../src/files/stepShares';
import { writeArtParquet } from '../../fixtures/art/parquet';

/**
 * T(r): a choice with logprobs and token ids (trains when its advantage is not 0); N(r): a choice
 * whose logprobs are null (never trains at ART's default). Steps, counted by hand:
 *  1 (jsonl):   [T1,T0] [T1,T0]             groups 2 of 2, trajectories 4 of 4
 *  2 (jsonl):   [T1,T1] [T1,T0,T.5] [T1,N0] groups 2 of 3 (zero variance; .5 is the mean; N), trajectories 3 of 7
 *  3 (parquet): [T1,T0] [T0,T0] [T.3]       groups 1 of 3 (zero variance; group of one), trajectories 2 of 5
 *     (a 0003.jsonl where everything trains lies beside it: the Parquet file is the one read)
 *  4 (jsonl):   not JSON                    unreadable
 * The history has ART's own counts: 2 of 2, 2 of 3, 1 of 3 groups trainable (it counts groups whose rewards vary).
 */
const PYTHON = String.raw`
import json, os, sys
root = sys.argv[1]
def choice(lp=True):
    c = {"finish_reason": "stop", "index": 0, "logprobs": None, "message": {"content": "4", "role": "assistant", "tool_calls": None}, "prompt_token_ids": [1, 2, 3], "token_ids": [100, 101]}
    if lp:
        c["logprobs"] = {"content": [{"token": "token_id:%d" % t, "bytes": None, "logprob": -0.5, "top_logprobs": []} for t in (100, 101)], "refusal": None}
    return c
def traj(r, lp=True):
    return {"messages_and_choices": [{"role": "user", "content": "2+2?"}, choice(lp)], "tools": None, "additional_histories": [], "reward": r, "metrics": {}, "metadata": {}, "logs": []}
def group(ts):
    return {"trajectories": ts, "exceptions": [], "metadata": {}, "metrics": {}, "logs": []}
T = traj
N = lambda r: traj(r, False)
steps = {
    "0001.jsonl": [group([T(1.0), T(0.0)]), group([T(1.0), T(0.0)])],
    "0002.jsonl": [group([T(1.0), T(1.0)]), group([T(1.0), T(0.0), T(0.5)]), group([T(1.0), N(0.0)])],
    "0003.jsonl": [group([T(1.0), T(0.0)]), group([T(1.0), T(0.0)]), group([T(1.0), T(0.0)])],
}
train = os.path.join(root, "trajectories", "train")
os.makedirs(train)
for name, groups in steps.items():
    with open(os.path.join(train, name), "w") as f:
        for g in groups:
            f.write(json.dumps(g) + "\n")
with open(os.path.join(train, "0004.jsonl"), "w") as f:
    f.write("not json\n")
with open(os.path.join(root, "history.jsonl"), "w") as f:
    for step, (r, sub, ok) in enumerate([(0.5, 2, 2), (0.55, 3, 2), (0.6, 3, 1)], start=1):
        f.write(json.dumps({"step": step, "train/reward": r, "data/step_num_groups_submitted": sub, "data/step_num_groups_trainable": ok, "recorded_at": "2026-01-01T00:00:0%d" % step}) + "\n")
print(json.dumps([group([T(1.0), T(0.0)]), group([T(0.0), T(0.0)]), group([T(0.3)])]))
`;

const host = (roots: string[]) => readHost(roots);

describe('agents: svc_summarize_run reports the trainable share per step', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-shares-'));
  const model = path.join(dir, 'proj', 'models', 'agent');
  before(async () => {
    fs.mkdirSync(model, { recursive: true });
    const third = JSON.parse(execFileSync('python3', ['-c', PYTHON, model], { encoding: 'utf8' })) as Record<string, unknown>[];
    await writeArtParquet(path.join(model, 'trajectories', 'train', '0003.parquet'), third);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('counts each step file by the verdicts (the Parquet file over the JSONL one) and names the unreadable one', async () => {
    const shares = await readStepShares(model);
    assert.strictEqual(shares.found, 4);
    assert.strictEqual(shares.cut, undefined);
    const got = shares.steps.map((s) => (s.summary ? { step: s.step, file: s.file, ...shareOf(s.summary) } : { step: s.step, file: s.file, error: !!s.error }));
    assert.deepStrictEqual(got, [
      { step: 1, file: '0001.jsonl', groups: 2, groupsTraining: 2, trajectories: 4, training: 4, groupShare: 1, trajectoryShare: 1 },
      { step: 2, file: '0002.jsonl', groups: 3, groupsTraining: 2, trajectories: 7, training: 3, groupShare: 2 / 3, trajectoryShare: 3 / 7 },
      { step: 3, file: '0003.parquet', groups: 3, groupsTraining: 1, trajectories: 5, training: 2, groupShare: 1 / 3, trajectoryShare: 2 / 5 },
      { step: 4, file: '0004.jsonl', error: true },
    ]);
  });

  it('reads only the newest step files past the cap, and says so', async () => {
    const shares = await readStepShares(model, { maxFiles: 2 });
    assert.deepStrictEqual(
      shares.steps.map((s) => s.step),
      [3, 4],
    );
    assert.deepStrictEqual(shares.cut, { left: 2, why: 'only the newest 2 step files are read' });
  });

  it('names the steps where the share fell, from the step files and from ART\'s own counts', async () => {
    const r = await runTool(host([dir]), findTool('svc_summarize_run')!, { historyFile: path.join(model, 'history.jsonl') });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /Trainable share per step \(.*; 3 of 4 step files under .*trajectories[/\\]train read\):/);
    assert.match(r.text, /Latest, step 3: groups 1 of 3 \(33%\), trajectories 2 of 5 \(40%\)\. Group share over these steps: mean 67%, lowest 33% at step 3\./);
    assert.match(r.text, /share of groups that train fell .*: step 2: groups 2 of 3 \(67%\), trajectories 3 of 7 \(43%\) \(from 100% at step 1\); step 3: groups 1 of 3 \(33%\), trajectories 2 of 5 \(40%\) \(from 67% at step 2\)\./);
    assert.match(r.text, /\| 3 \| 0003\.parquet \| 1 of 3 \| 33% \| 2 of 5 \| 40% \|/);
    assert.match(r.text, /Unreadable step files \(1\): 0004\.jsonl: /);
    assert.match(r.text, /ART's own counts in the history .* at 3 steps; latest, step 3: 1 of 3 groups \(33%\)\. It fell at step 2: 2 of 3 groups \(67%\) \(from 100% at step 1\); step 3: 1 of 3 groups \(33%\) \(from 67% at step 2\)\./);
  });

  it('follows no link out of the run folder: a linked step file is not a step file, a linked trajectories/ folder is not read', async () => {
    const linked = path.join(dir, 'linked');
    const outside = path.join(dir, 'outside');
    fs.mkdirSync(path.join(outside, 'train'), { recursive: true });
    fs.copyFileSync(path.join(model, 'trajectories', 'train', '0001.jsonl'), path.join(outside, 'train', '0001.jsonl'));
    fs.mkdirSync(path.join(linked, 'trajectories', 'train'), { recursive: true });
    fs.symlinkSync(path.join(outside, 'train', '0001.jsonl'), path.join(linked, 'trajectories', 'train', '0001.jsonl'));
    assert.strictEqual((await readStepShares(linked)).found, 0);
    fs.rmSync(path.join(linked, 'trajectories'), { recursive: true });
    fs.symlinkSync(outside, path.join(linked, 'trajectories'));
    fs.writeFileSync(path.join(linked, 'history.jsonl'), '{"step": 1, "train/reward": 0.5}\n');
    const r = await runTool(host([dir]), findTool('svc_summarize_run')!, { historyFile: path.join(linked, 'history.jsonl') });
    assert.match(r.text, /Trainable share per step: not read: .*linked[/\\]trajectories[/\\]train leads outside the run's folder\./);
  });

  it('says when a run has no step files', async () => {
    const bare = path.join(dir, 'bare');
    fs.mkdirSync(bare);
    fs.writeFileSync(path.join(bare, 'history.jsonl'), '{"step": 1, "train/reward": 0.5}\n');
    const r = await runTool(host([dir]), findTool('svc_summarize_run')!, { historyFile: path.join(bare, 'history.jsonl') });
    assert.match(r.text, /Trainable share per step: no step files \(<step>\.parquet or <step>\.jsonl\) under .*bare[/\\]trajectories[/\\]train\./);
    assert.match(r.text, /The history has no data\/step_num_groups_trainable/);
  });
});
