import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../src/api';
import { TRAJECTORY_VIEWER } from '../../../src/common/ids';
import { findRuns, runSteps, type Run } from '../../../src/files/runs';
import { RunsManager } from '../../../src/runs/manager';
import type { RunsModel } from '../../../src/runs/model';
import type { RunNode } from '../../../src/runs/provider';
import { ScriptedPrompts } from '../../fakes/prompts';
import { fake, type Uri } from '../../fakes/vscode';

// A run written by Python's json: one JSONL step and a history; a second run with no history.
const PYTHON = String.raw`
import json, os, sys
root = sys.argv[1]
for model, history in (("agent-001", True), ("no-history", False)):
    run = os.path.join(root, ".art", "proj", "models", model)
    d = os.path.join(run, "trajectories", "train")
    os.makedirs(d)
    with open(os.path.join(d, "0001.jsonl"), "w") as f:
        f.write(json.dumps({"trajectories": [{"messages_and_choices": [{"role": "user", "content": "2+2?"}], "reward": 1.0}]}) + "\n")
    if history:
        with open(os.path.join(run, "history.jsonl"), "w") as f:
            f.write(json.dumps({"step": 1, "train/reward": 0.5}) + "\n")
`;

// The Runs view's flows (the commands are thin over them): the dashboard of a run, a step in the viewer, the selection.
describe('runs/RunsManager: a run\'s dashboard and its steps', () => {
  const scripted = { interactive: false };
  let root = '';
  let run = '';
  let runs: Run[];
  let selection: RunNode[];
  let manager: RunsManager;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-runs-manager-'));
    execFileSync('python3', ['-c', PYTHON, root]);
    run = path.join(root, '.art', 'proj', 'models', 'agent-001');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  beforeEach(async () => {
    fake.reset();
    ({ runs } = await findRuns([root]));
    selection = [];
    // The model's runs as the Runs view found them (RunsModel watches files, which the fake host does not).
    const model = { runAt: (dir: string) => runs.find((r) => r.dir === dir) } as unknown as RunsModel;
    manager = new RunsManager(model, () => selection, new ScriptedPrompts());
  });
  const executed = () => fake.executed.map((c) => [c.command, ...c.args.map((a) => ((a as Uri).fsPath ?? a))]);

  it("opens a run's dashboard on its history, and refuses a run without one, naming the folder", async () => {
    await manager.openDashboard(scripted, run);
    assert.deepEqual(executed(), [['svc.dashboard.open', { file: path.join(run, 'history.jsonl') }]]);
    const bare = path.join(root, '.art', 'proj', 'models', 'no-history');
    await assert.rejects(manager.openDashboard(scripted, bare), (e: unknown) => e instanceof InputError && e.place.file === bare && /has no history\.jsonl: the dashboard draws a run's history/.test(e.message));
  });

  it('with nothing given, acts on the selection, and a script with nothing selected gets nothing, not a pick', async () => {
    assert.equal(await manager.openDashboard(scripted), undefined);
    assert.equal(await manager.openSelectedStep(scripted), undefined);
    assert.deepEqual(executed(), []);
    const r = runs.find((x) => x.dir === run)!;
    const [file] = await runSteps(r, 'train');
    selection = [{ kind: 'run', run: r } as RunNode, { kind: 'step', run: r, split: 'train', file: file! } as RunNode];
    await manager.openDashboard(scripted);
    assert.equal(await manager.openSelectedStep(scripted), file!.path);
    assert.deepEqual(executed(), [
      ['svc.dashboard.open', { file: path.join(run, 'history.jsonl') }],
      ['vscode.openWith', file!.path, TRAJECTORY_VIEWER],
    ]);
  });

  it('opens a step in a reward band through the viewer command', async () => {
    const file = path.join(run, 'trajectories', 'train', '0001.jsonl');
    assert.equal(await manager.openStepInBand(file, { min: 0.5 }), file);
    await manager.openStepInBand(file);
    assert.deepEqual(executed(), [
      ['svc.openTrajectoryViewer', { file, reward: { min: 0.5 } }],
      ['svc.openTrajectoryViewer', { file }],
    ]);
  });
});
