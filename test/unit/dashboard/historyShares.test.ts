import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Logger } from '../../../src/common/logger';
import { HistorySync } from '../../../src/dashboard/historySync';
import type { SourceAppend } from '../../../src/dashboard/source';
import { DistributionFeed } from '../../../src/dashboard/distributionFeed';
import { StepReadPriority } from '../../../src/dashboard/stepReadPriority';
import { StepStatsCache } from '../../../src/dashboard/stepStats';
import { StepShareScanner } from '../../../src/files/stepShares';
import { writeArtParquet } from '../../fixtures/art/parquet';

// The training dashboard of a history.jsonl charts what each step would train on (issue 30 item 4):
// `trainable/groups`, `trainable/trajectories` and their shares per step, from the step files in
// trajectories/train/ (Python's json for the JSONL files and the history, DuckDB for the Parquet
// one), read after the history in the background, and a new step file read when it appears.
// Counted by hand (T: a choice with logprobs and token ids; N: logprobs null):
//   1 (jsonl):   [T1,T0] [T1,T1]        groups 1 of 2, trajectories 2 of 4
//   2 (parquet): [T1,T.5,T0] [T1,N0]    groups 2 of 2 (.5 is the mean; N has no logprobs), trajectories 3 of 5
//   3 (jsonl, written later): [T0,T0]  groups 0 of 1, trajectories 0 of 2
const PYTHON = String.raw`
import json, os, sys
model, what = sys.argv[1], sys.argv[2]
def choice(lp=True):
    c = {"finish_reason": "stop", "index": 0, "logprobs": None, "message": {"content": "4", "role": "assistant", "tool_calls": None}, "prompt_token_ids": [1, 2], "token_ids": [7]}
    if lp:
        c["logprobs"] = {"content": [{"token": "token_id:7", "bytes": None, "logprob": -0.1, "top_logprobs": []}], "refusal": None}
    return c
def T(r, lp=True):
    return {"messages_and_choices": [{"role": "user", "content": "2+2?"}, choice(lp)], "tools": None, "additional_histories": [], "reward": r, "metrics": {}, "metadata": {}, "logs": []}
def N(r):
    return T(r, False)
def group(ts):
    return {"trajectories": ts, "exceptions": [], "metadata": {}, "metrics": {}, "logs": []}
def line(step, reward):
    return json.dumps({"train/reward": reward, "training_step": step, "step": step, "recorded_at": "2026-03-01T12:00:0%d.000001" % step}) + "\n"
train = os.path.join(model, "trajectories", "train")
if what == "first":
    os.makedirs(train)
    with open(os.path.join(train, "0001.jsonl"), "w") as f:
        for g in [group([T(1.0), T(0.0)]), group([T(1.0), T(1.0)])]:
            f.write(json.dumps(g) + "\n")
    with open(os.path.join(model, "history.jsonl"), "w") as f:
        f.write(line(1, 0.5) + line(2, 0.6))
    print(json.dumps([group([T(1.0), T(0.5), T(0.0)]), group([T(1.0), N(0.0)])]))
else:
    with open(os.path.join(train, "0003.jsonl"), "w") as f:
        f.write(json.dumps(group([T(0.0), T(0.0)])) + "\n")
    with open(os.path.join(model, "history.jsonl"), "a") as f:
        f.write(line(3, 0.4))
`;

describe('HistorySync: the trainable series from the step files', () => {
  let dir: string;
  let model: string;
  let log: Logger;
  let sync: HistorySync | undefined;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-history-shares-'));
    model = path.join(dir, '.art', 'demo', 'models', 'agent');
    fs.mkdirSync(model, { recursive: true });
    log = new Logger('svc-test');
  });
  after(() => {
    sync?.dispose();
    log.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  async function settle(s: HistorySync): Promise<void> {
    await s.check();
    while (s.busy || s.sharesScan) {
      await s.sharesScan;
      await sleep(10);
    }
  }
  const at = (s: HistorySync, step: number) => {
    const i = s.series.indexOf(String(step));
    assert.ok(i >= 0, `a row for step ${step}`);
    return ['trainable/groups', 'trainable/trajectories', 'trainable/group_share', 'trainable/trajectory_share', 'train/reward'].map((m) => s.series.value(m, i));
  };

  it('charts groups and trajectories that would train per step, and reads a new step file when it appears (and only it)', async () => {
    const second = JSON.parse(execFileSync('python3', ['-c', PYTHON, model, 'first'], { encoding: 'utf8' })) as Record<string, unknown>[];
    await writeArtParquet(path.join(model, 'trajectories', 'train', '0002.parquet'), second);
    const s = (sync = new HistorySync(path.join(model, 'history.jsonl'), 'history.jsonl', log));
    const appends: SourceAppend[] = [];
    s.onDidAppend((a) => appends.push(a));
    await s.load();
    await settle(s);
    assert.deepEqual(at(s, 1), [1, 2, 0.5, 0.5, 0.5]);
    assert.deepEqual(at(s, 2), [2, 3, 1, 0.6, 0.6]);
    assert.ok(
      appends.some((a) => a.columns.metrics['trainable/group_share']),
      'the panel is sent the trainable columns',
    );
    assert.equal(s.stepShares.reads, 2);

    execFileSync('python3', ['-c', PYTHON, model, 'more']);
    await settle(s);
    assert.deepEqual(at(s, 3), [0, 0, 0, 0, 0.4]);
    assert.equal(s.stepShares.reads, 3, 'only the new step file was read');
    assert.deepEqual(at(s, 1), [1, 2, 0.5, 0.5, 0.5]);
  });

  // Issue 31 item 2: the share scan decodes every train step file in full on the dashboard's event
  // loop; the reward distribution (small columns) is read first. Order, not time: what the scan had
  // read when each distribution message was posted.
  const RUN = String.raw`
import json, os, sys
model = sys.argv[1]
def T(r):
    return {"messages_and_choices": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}], "reward": r, "metrics": {}, "metadata": {}, "logs": []}
for split, steps in (("train", 3), ("val", 2)):
    os.makedirs(os.path.join(model, "trajectories", split))
    for s in range(1, steps + 1):
        with open(os.path.join(model, "trajectories", split, "%04d.jsonl" % s), "w") as f:
            f.write(json.dumps({"trajectories": [T(s / 10), T(1.0)], "exceptions": [], "metadata": {}, "metrics": {}, "logs": []}) + "\n")
with open(os.path.join(model, "history.jsonl"), "w") as f:
    for s in range(1, 4):
        f.write(json.dumps({"step": s, "train/reward": s / 10}) + "\n")
`;

  it('reads the reward distribution of every split before the share scan reads a step file, then the scan completes', async () => {
    const run = path.join(dir, '.art', 'demo', 'models', 'first');
    execFileSync('python3', ['-c', RUN, run]);
    const s = new HistorySync(path.join(run, 'history.jsonl'), 'history.jsonl', log, { distributionFirst: true });
    try {
      await s.load();
      await s.check();
      // A scan that does not wait has had its chance to start (the assertion below is on order).
      await sleep(300);
      const events = [`before the distribution: ${s.stepShares.reads} step files scanned`];
      const feed = new DistributionFeed(run, new StepStatsCache(), (m) => events.push(`${m.split} ${m.steps.length} steps${m.done ? ', done' : ''}: ${s.stepShares.reads} step files scanned`), s.stepReads);
      await feed.start();
      await settle(s);
      assert.deepEqual(events, ['before the distribution: 0 step files scanned', 'train 3 steps, done: 0 step files scanned', 'val 2 steps, done: 0 step files scanned']);
      assert.equal(s.stepShares.reads, 3, 'the share scan read every train step file after the distribution');
      assert.deepEqual(at(s, 3), [0, 0, 0, 0, 0.3], 'the trainable series of step 3 (plain messages, no choice with logprobs: nothing would train)');
    } finally {
      s.dispose();
    }
  });

  it('the share scan waits between step files while the distribution holds the priority', async () => {
    const run = path.join(dir, '.art', 'demo', 'models', 'second');
    execFileSync('python3', ['-c', RUN, run]);
    const priority = new StepReadPriority();
    const release = priority.hold();
    const scanner = new StepShareScanner(run, {}, priority);
    let finished = false;
    const scan = scanner.scan().then((r) => ((finished = true), r));
    await sleep(300);
    const heldReads = scanner.reads;
    const heldFinished = finished;
    release();
    const found = await scan;
    assert.deepEqual({ heldReads, heldFinished }, { heldReads: 0, heldFinished: false }, 'nothing scanned while held');
    assert.deepEqual(found.rows.map((r) => r.step), [1, 2, 3]);
  });
});
