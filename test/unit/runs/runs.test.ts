// Issue 31 items 1 and 2: ART runs found by their layout, each step's numbers from the small
// columns, and the reward distribution's quantiles. The run is written by Python's json (JSONL
// steps, history, model.json) and DuckDB (Parquet steps), never by our code; the expected
// quantiles are computed here, by sorting, not with the function under test.
import * as assert from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { bandOf, binsOf, QUANTILES, quantile } from '../../../src/dashboard/shared/distribution';
import { findRuns, runSteps } from '../../../src/files/runs';
import { DistributionFeed } from '../../../src/dashboard/distributionFeed';
import { StepDistribution } from '../../../src/dashboard/shared/distribution';
import type { ToWebview } from '../../../src/dashboard/shared/protocol';
import { readStepStats, StepStatsCache } from '../../../src/dashboard/stepStats';
import { writeArtParquet } from '../../fixtures/art/parquet';
import { artWithTrajectoryPage, Codec, zstdRleFrame } from '../../fixtures/art/hostileParquet';
import { readTrajectoryGroups } from '../../../src/files';

const PYTHON = String.raw`
import json, os, sys
root = sys.argv[1]
run = os.path.join(root, ".art", "proj", "models", "agent-001")
def traj(r):
    return {"messages_and_choices": [{"role": "user", "content": "2+2?"}, {"finish_reason": "stop", "index": 0, "logprobs": None, "message": {"content": "4", "role": "assistant"}}], "reward": r, "metrics": {}, "metadata": {}, "logs": []}
def group(rs):
    return {"trajectories": [traj(r) for r in rs], "exceptions": [], "metadata": {}, "metrics": {}, "logs": []}
for split, steps in {"train": {"0001.jsonl": [[1.0, 0.0], [0.5, 0.5]], "0002.jsonl": [[0.25, 0.75, 1.0]]}, "val": {"0001.jsonl": [[0.1], [0.2, 0.2]]}}.items():
    d = os.path.join(run, "trajectories", split)
    os.makedirs(d)
    for name, groups in steps.items():
        with open(os.path.join(d, name), "w") as f:
            for g in groups:
                f.write(json.dumps(group(g)) + "\n")
with open(os.path.join(run, "trajectories", "train", "0004.jsonl"), "w") as f:
    f.write("not json\n")
for s in (1, 2):
    os.makedirs(os.path.join(run, "checkpoints", "%04d" % s))
with open(os.path.join(run, "model.json"), "w") as f:
    json.dump({"name": "agent-001", "project": "proj", "base_model": "Qwen/Qwen2.5-7B-Instruct", "config": {"learning_rate": 1e-5}}, f)
with open(os.path.join(run, "history.jsonl"), "w") as f:
    f.write(json.dumps({"step": 1, "train/reward": 0.5}) + "\n")
other = os.path.join(root, "sub", "exp", ".art", "p2", "models", "m2", "trajectories", "train")
os.makedirs(other)
os.makedirs(os.path.join(root, "node_modules", "x", ".art", "p3", "models", "m3", "trajectories", "train"))
os.makedirs(os.path.join(root, ".art", "proj", "models", "empty-folder"))
`;

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
/** numpy's default quantile (linear), written out here. */
function expectedQuantile(xs: number[], p: number): number {
  const s = sorted(xs);
  const h = (s.length - 1) * p;
  const lo = Math.floor(h);
  return s[lo]! + (h - lo) * ((s[Math.min(lo + 1, s.length - 1)] ?? 0) - s[lo]!);
}

describe('runs: discovery and step numbers', function () {
  this.timeout(60_000);
  let root: string;
  let run: string;
  // Rewards of the Parquet step 3: 40 groups of 5, rewards spread unevenly.
  const parquetRewards: number[][] = [];

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-runs-'));
    execFileSync('python3', ['-c', PYTHON, root]);
    run = path.join(root, '.art', 'proj', 'models', 'agent-001');
    const groups: Record<string, unknown>[] = [];
    for (let g = 0; g < 40; g++) {
      const rs = Array.from({ length: 5 }, (_, t) => (g % 7 === 0 ? 0.5 : Math.round(((g * 37 + t * 11) % 100) ** 1.5) / 1000));
      parquetRewards.push(rs);
      groups.push({ trajectories: rs.map((r) => ({ messages_and_choices: [{ role: 'user', content: `q${g}` }, { finish_reason: 'stop', index: 0, logprobs: null, message: { role: 'assistant', content: 'a' } }], reward: r, metrics: {}, metadata: {}, logs: [] })), exceptions: [], metadata: {}, metrics: {}, logs: [] });
    }
    await writeArtParquet(path.join(run, 'trajectories', 'train', '0003.parquet'), groups);
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('finds every run by the layout, below the root too, and not in node_modules or a folder with nothing of a run', async () => {
    const { runs, cut } = await findRuns([root]);
    assert.strictEqual(cut, undefined);
    assert.deepStrictEqual(
      runs.map((r) => `${path.relative(root, r.root) || '.'}:${r.project}/${r.model}`),
      ['.:proj/agent-001', 'sub/exp:p2/m2'],
    );
    const r = runs[0]!;
    assert.strictEqual(r.history, true);
    assert.deepStrictEqual(r.splits, ['train', 'val']);
    assert.deepStrictEqual(r.checkpoints, [1, 2]);
    assert.strictEqual(r.modelJson?.baseModel, 'Qwen/Qwen2.5-7B-Instruct');
    assert.deepStrictEqual(r.modelJson?.fields.find((f) => f.key === 'config'), { key: 'config', value: '{"learning_rate":0.00001}' });
  });

  it('lists each split\'s steps, Parquet and JSONL', async () => {
    const [r] = (await findRuns([root])).runs;
    assert.deepStrictEqual((await runSteps(r!, 'train')).map((s) => path.basename(s.path)), ['0001.jsonl', '0002.jsonl', '0003.parquet', '0004.jsonl']);
    assert.deepStrictEqual((await runSteps(r!, 'val')).map((s) => s.step), [1]);
  });

  it('counts groups, trajectories, the mean reward and the groups whose rewards vary, from a JSONL step', async () => {
    const s = await readStepStats(path.join(run, 'trajectories', 'train', '0001.jsonl'));
    assert.deepStrictEqual({ groups: s.groups, trajectories: s.trajectories, rewards: s.rewards, mean: s.mean, varying: s.groupsVarying, inVarying: s.trajectoriesVarying }, { groups: 2, trajectories: 4, rewards: 4, mean: 0.5, varying: 1, inVarying: 2 });
  });

  it('reads a Parquet step from its small columns, with quantiles equal to those computed by sorting', async () => {
    const s = await readStepStats(path.join(run, 'trajectories', 'train', '0003.parquet'));
    const all = parquetRewards.flat();
    assert.strictEqual(s.groups, 40);
    assert.strictEqual(s.trajectories, 200);
    assert.strictEqual(s.rewards, 200);
    assert.ok(Math.abs(s.mean! - all.reduce((a, b) => a + b, 0) / all.length) < 1e-12);
    assert.strictEqual(s.groupsVarying, parquetRewards.filter((rs) => new Set(rs).size > 1).length);
    QUANTILES.forEach((p, i) => assert.ok(Math.abs(s.quantiles[i]! - expectedQuantile(all, p)) < 1e-12, `q${p}: ${s.quantiles[i]} vs ${expectedQuantile(all, p)}`));
    // 200 rewards fit the sketch: it holds them all, sorted; its bins count every reward.
    assert.deepStrictEqual(s.sketch, sorted(all));
    const bins = binsOf(s.sketch, s.rewards, 0, 1, 10);
    const expected = new Array(10).fill(0);
    for (const r of all) expected[Math.min(9, Math.floor(r * 10))]++;
    assert.deepStrictEqual(bins, expected);
  });

  it('never decodes trajectory_json: a step whose trajectory_json page is a Zstd bomb still gives its numbers (the reader of groups refuses it)', async () => {
    const file = path.join(root, 'bomb.parquet');
    // A 26 KB page that expands to 250 MiB (its header says 1 MiB), written by the independent writer.
    fs.writeFileSync(file, artWithTrajectoryPage(4, Codec.ZSTD, { body: Buffer.concat(Array.from({ length: 2000 }, () => zstdRleFrame(128 * 1024))), values: 4, uncompressedSize: 1024 * 1024 }));
    const s = await readStepStats(file);
    assert.deepStrictEqual({ groups: s.groups, trajectories: s.trajectories, mean: s.mean, quantiles: s.quantiles }, { groups: 4, trajectories: 4, mean: 1, quantiles: [1, 1, 1, 1, 1, 1, 1] });
    await assert.rejects(async () => {
      for await (const g of readTrajectoryGroups(file)) void g;
    }, /trajectory_json/);
  });

  it('a cell\'s reward band holds every reward counted in that cell (a click shows them all in the viewer)', () => {
    for (const [lo, hi] of [[0, 1], [-1, 3], [0.1, 0.7]] as const) {
      const values = Array.from({ length: 401 }, (_, i) => lo + ((hi - lo) * i) / 400).concat([0.3, 0.15, 0.45, 0.6].filter((v) => v >= lo && v <= hi));
      for (const v of values) {
        const bins = binsOf([v], 1, lo, hi);
        const b = bins.findIndex((x) => x === 1);
        const band = bandOf(b, lo, hi);
        assert.ok(band.min <= v && v <= band.max, `${v} in bin ${b} of [${lo}, ${hi}]: band ${band.min}–${band.max}`);
      }
    }
  });

  it('quantile() matches sorting by hand on odd and even sizes, one value, and ties', () => {
    for (const xs of [[3, 1, 2], [4, 1, 3, 2], [7], [1, 1, 1, 5], Array.from({ length: 101 }, (_, i) => (i * 53) % 101)]) {
      for (const p of [0, 0.05, 0.25, 0.5, 0.75, 0.95, 1]) assert.ok(Math.abs(quantile(sorted(xs), p) - expectedQuantile(xs, p)) < 1e-12, `${JSON.stringify(xs)} p=${p}`);
    }
    assert.ok(Number.isNaN(quantile([], 0.5)));
  });

  it('caches by path, size and mtime: a second read is free, a changed file is read again; a bad file is an error naming its line', async () => {
    const cache = new StepStatsCache();
    const steps = await runSteps({ dir: run }, 'train');
    for (const f of steps) await cache.get(f);
    assert.strictEqual(cache.reads, 4);
    for (const f of steps) await cache.get(f);
    assert.strictEqual(cache.reads, 4);
    const bad = await cache.get(steps[3]!);
    assert.match(bad.error ?? '', /line 1 is not JSON/);
    fs.appendFileSync(steps[0]!.path, JSON.stringify({ trajectories: [{ reward: 2, messages_and_choices: [] }] }) + '\n');
    const [changed] = await runSteps({ dir: run }, 'train');
    const again = await cache.get(changed!);
    assert.strictEqual(cache.reads, 5);
    assert.strictEqual(again.stats?.trajectories, 5);
  });

  it('the dashboard\'s feed sends every split\'s steps (messages valid by the schema), then only a step file that changed', async () => {
    const sent: Extract<ToWebview, { type: 'distribution' }>[] = [];
    const feed = new DistributionFeed(run, new StepStatsCache(), (m) => sent.push(m));
    await feed.start();
    const steps = (split: string) => sent.filter((m) => m.split === split).flatMap((m) => m.steps);
    assert.deepStrictEqual(steps('train').map((s) => s.step), [1, 2, 3, 4]);
    assert.deepStrictEqual(steps('val').map((s) => s.step), [1]);
    for (const split of ['train', 'val']) assert.strictEqual(sent.filter((m) => m.split === split).at(-1)!.done, true);
    for (const d of [...steps('train'), ...steps('val')]) assert.ok(StepDistribution.safeParse(d).success, JSON.stringify(d));
    assert.match(steps('train')[3]!.error ?? '', /line 1 is not JSON/);
    assert.deepStrictEqual(steps('train')[2]!.quantiles.length, QUANTILES.length);
    sent.length = 0;
    await feed.start();
    assert.deepStrictEqual(sent.flatMap((m) => m.steps), [], 'nothing changed: nothing sent again');
    fs.appendFileSync(path.join(run, 'trajectories', 'val', '0001.jsonl'), JSON.stringify({ trajectories: [{ reward: 0.7, messages_and_choices: [] }] }) + '\n');
    await feed.start();
    assert.deepStrictEqual(sent.flatMap((m) => m.steps).map((s) => [s.step, s.trajectories]), [[1, 4]]);
  });
});
