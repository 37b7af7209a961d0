// Issue 31 items 1 and 2: the Runs view over the workspace's ART runs, and the reward distribution
// per step on a run's dashboard. The run is written into the workspace folder by Python's json
// (JSONL steps, model.json, history) and DuckDB (a Parquet step), never by our code; the expected
// bins are counted here from the rewards written.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { RunNode } from '../../../src/runs/provider';
import type { HistorySync } from '../../../src/dashboard/historySync';
import { writeArtParquet } from '../../fixtures/art/parquet';
import { api, waitFor } from './helpers';

const PYTHON = String.raw`
import json, os, sys
run = sys.argv[1]
def traj(r):
    return {"messages_and_choices": [{"role": "user", "content": "2+2?"}, {"finish_reason": "stop", "index": 0, "logprobs": None, "message": {"content": "4", "role": "assistant"}}], "reward": r, "metrics": {}, "metadata": {}, "logs": []}
def group(rs):
    return {"trajectories": [traj(r) for r in rs], "exceptions": [], "metadata": {}, "metrics": {}, "logs": []}
for split, name, groups in [("train", "0001.jsonl", [[1.0, 0.0], [0.5, 0.5]]), ("val", "0001.jsonl", [[0.1], [0.2, 0.2]])]:
    d = os.path.join(run, "trajectories", split)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "w") as f:
        for g in groups:
            f.write(json.dumps(group(g)) + "\n")
os.makedirs(os.path.join(run, "checkpoints", "0002"))
with open(os.path.join(run, "model.json"), "w") as f:
    json.dump({"name": "agent-001", "project": "proj", "base_model": "Qwen/Qwen2.5-7B-Instruct"}, f)
with open(os.path.join(run, "history.jsonl"), "w") as f:
    for step, r in [(1, 0.5), (2, 0.55)]:
        f.write(json.dumps({"step": step, "train/reward": r, "recorded_at": "2026-01-01T00:00:0%d" % step}) + "\n")
`;

/** Rewards of each step, as written: the expected numbers and bins come from these. */
const TRAIN: Record<number, number[][]> = { 1: [[1.0, 0.0], [0.5, 0.5]], 2: [[0.2, 0.9, 1.0], [0.3, 0.3, 0.3]] };

const trajectory = (r: number) => ({ messages_and_choices: [{ role: 'user', content: '2+2?' }, { finish_reason: 'stop', index: 0, logprobs: null, message: { role: 'assistant', content: String(r) } }], reward: r, metrics: {}, metadata: {}, logs: [] });

describe('Runs view and the reward distribution per step (issue 31)', function () {
  this.timeout(120_000);
  const ws = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const art = path.join(ws, '.art');
  const run = path.join(art, 'proj', 'models', 'agent-001');
  const kids = async (n?: RunNode) => (await api()).runsProvider.getChildren(n);
  const item = async (n: RunNode) => (await api()).runsProvider.getTreeItem(n);
  const labelOf = (i: vscode.TreeItem) => (typeof i.label === 'string' ? i.label : i.label?.label);

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(art, { recursive: true, force: true });
  });

  it('lists nothing in a workspace without a run, so its welcome view shows; the view and its commands are contributed', async () => {
    const a = await api();
    await a.runs.refresh();
    assert.deepStrictEqual(a.runs.runs, []);
    assert.deepStrictEqual(await kids(), []);
    const commands = await vscode.commands.getCommands(true);
    for (const c of ['svc.runs.refresh', 'svc.runs.openDashboard', 'svc.runs.openStep', 'svc.runs.focus']) assert.ok(commands.includes(c), c);
  });

  it('finds a run as its files appear (the watcher), with its splits, steps and their numbers, checkpoints and model.json', async () => {
    const a = await api();
    execFileSync('python3', ['-c', PYTHON, run]);
    await writeArtParquet(path.join(run, 'trajectories', 'train', '0002.parquet'), TRAIN[2]!.map((rs) => ({ trajectories: rs.map(trajectory), exceptions: [], metadata: {}, metrics: {}, logs: [] })));
    await waitFor('the watcher to find the run', () => a.runs.runs.length === 1 && a.runs.runs[0]!.splits.length === 2 && a.runs.runs[0]!.checkpoints.length === 1, 20_000);
    const [runRow, ...rest] = await kids();
    assert.strictEqual(rest.length, 0);
    const ri = await item(runRow!);
    assert.strictEqual(labelOf(ri), 'agent-001');
    assert.strictEqual(ri.description, 'proj · Qwen/Qwen2.5-7B-Instruct');
    // Markdown-escaped in the tooltip: read without the escapes.
    assert.match((ri.tooltip as vscode.MarkdownString).value.replace(/\\/g, ''), /base model: Qwen\/Qwen2\.5-7B-Instruct/);
    assert.strictEqual(ri.command?.command, 'svc.runs.openDashboard');
    const children = await kids(runRow);
    assert.deepStrictEqual(await Promise.all(children.map(async (c) => labelOf(await item(c)))), ['train', 'val', 'checkpoints']);
    const steps = await kids(children[0]);
    await a.runsProvider.whenStepsRead();
    const rows = await Promise.all(steps.map(item));
    assert.deepStrictEqual(rows.map(labelOf), ['step 1', 'step 2']);
    assert.deepStrictEqual(
      rows.map((r) => r.description),
      ['2 groups · 4 traj. · mean 0.5 · 1/2 vary', '2 groups · 6 traj. · mean 0.5 · 1/2 vary · checkpoint'],
    );
    assert.deepStrictEqual((await Promise.all((await kids(children[2])).map(item))).map(labelOf), ['step 2']);
  });

  it('opens a step in the trajectory viewer from its row (a click or Enter runs the row\'s command)', async () => {
    const a = await api();
    const [runRow] = await kids();
    const [train] = await kids(runRow);
    const [, step2] = await kids(train);
    const cmd = (await item(step2!)).command!;
    await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
    const uri = vscode.Uri.file(path.join(run, 'trajectories', 'train', '0002.parquet'));
    await waitFor('the viewer of step 2', () => a.viewer.sessionsFor(uri).length > 0, 20_000);
  });

  it('is keyboard and palette reachable: a step revealed and selected in the view opens from the palette\'s command, with no argument', async () => {
    const a = await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const file = path.join(run, 'trajectories', 'train', '0001.jsonl');
    const node = await a.runsProvider.stepNode(run, 'train', file);
    assert.ok(node, 'the row of step 1');
    await vscode.commands.executeCommand('svc.runs.focus');
    await a.runs.whenScanned();
    // Revealed again while the view is still loading its rows (shown for the first time just now).
    for (let i = 0; i < 20 && !a.runsView.selection.includes(node); i++) {
      await a.runsView.reveal(node, { select: true, focus: true });
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(a.runsView.selection.includes(node), `visible ${a.runsView.visible}; selected ${JSON.stringify(a.runsView.selection.map((n) => (n as RunNode).kind))}`);
    assert.strictEqual(await vscode.commands.executeCommand('svc.runs.openStep'), file);
    await waitFor('the viewer of step 1', () => a.viewer.sessionsFor(vscode.Uri.file(file)).length > 0, 20_000);
  });

  it('lists a long split as ranges of 100 steps, and reads a range\'s step files only when it is expanded', async () => {
    const a = await api();
    const long = path.join(art, 'proj', 'models', 'long-run');
    execFileSync('python3', ['-c', 'import json, os, sys\nd = sys.argv[1]\nos.makedirs(d)\nfor s in range(250):\n    open(os.path.join(d, "%04d.jsonl" % s), "w").write(json.dumps({"trajectories": [{"messages_and_choices": [], "reward": s / 250}]}) + "\\n")', path.join(long, 'trajectories', 'train')]);
    // The watcher is the previous test's; here the point is the ranges.
    await a.runs.refresh();
    assert.ok(a.runs.runs.some((r) => r.dir === long));
    const runRow = (await kids()).find((n) => n.kind === 'run' && n.run.dir === long)!;
    const [train] = await kids(runRow);
    const reads = a.runs.stats.reads;
    const ranges = await kids(train);
    assert.deepStrictEqual(await Promise.all(ranges.map(async (r) => `${labelOf(await item(r))}: ${(await item(r)).description}`)), ['steps 0–99: 100 step files', 'steps 100–199: 100 step files', 'steps 200–249: 50 step files']);
    await a.runsProvider.whenStepsRead();
    assert.strictEqual(a.runs.stats.reads, reads, 'no step file read before a range is expanded');
    const last = await kids(ranges[2]);
    await a.runsProvider.whenStepsRead();
    assert.strictEqual(a.runs.stats.reads, reads + 50);
    assert.strictEqual((await item(last[49]!)).description, '1 group · 1 traj. · mean 0.996 · 0/1 vary');
  });

  it('opens the run\'s dashboard from its row, which draws each step\'s reward distribution per split, with bins per step', async () => {
    const a = await api();
    const [runRow] = await kids();
    const cmd = (await item(runRow!)).command!;
    const key = await vscode.commands.executeCommand<string>(cmd.command, ...(cmd.arguments ?? []));
    const panel = a.dashboards.panel(key);
    assert.ok(panel, 'the dashboard of the run\'s history.jsonl');
    // The distribution's reads go before the trainable-share scan (which decodes every train step
    // file whole): the train step files it had scanned when each split's last message was posted.
    const sync = panel.sync as HistorySync;
    const scannedAtDone: string[] = [];
    const webview = panel.panel.webview;
    const postMessage = webview.postMessage.bind(webview);
    webview.postMessage = (m: { type?: string; done?: boolean; split?: string }) => {
      if (m?.type === 'distribution' && m.done) scannedAtDone.push(`${m.split}: ${sync.stepShares.reads}`);
      return postMessage(m);
    };
    await waitFor('the distribution of both splits', () => {
      const d = panel.lastDistribution;
      return !!d && d.splits.length === 2 && d.splits[0]!.steps.length === 2 && d.splits[1]!.steps.length === 1;
    }, 30_000);
    const [train, val] = panel.lastDistribution!.splits;
    assert.strictEqual(train!.split, 'train');
    assert.deepStrictEqual([train!.lo, train!.hi], [0, 1]);
    for (const [i, step] of [1, 2].entries()) {
      const expected = new Array(20).fill(0);
      for (const r of TRAIN[step]!.flat()) expected[Math.min(19, Math.floor(((r - 0) / (1 - 0)) * 20))]++;
      assert.deepStrictEqual(train!.bins[i], expected, `bins of step ${step}`);
    }
    assert.strictEqual(val!.split, 'val');
    assert.deepStrictEqual([val!.lo, val!.hi], [0.1, 0.2]);
    assert.strictEqual(train!.errors, 0);
    assert.deepStrictEqual(scannedAtDone, ['train: 0', 'val: 0'], 'no step file scanned for the trainable share before every split\'s distribution was read');
    await waitFor('the trainable-share scan after the distribution', () => sync.stepShares.reads === 2 && !sync.sharesScan, 30_000);
    webview.postMessage = postMessage;
  });

  it('opens a step filtered to a reward band (a cell of the distribution; { file, reward } when scripted)', async () => {
    const a = await api();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const file = path.join(run, 'trajectories', 'train', '0002.parquet');
    await vscode.commands.executeCommand('svc.runs.openStep', { file, reward: { min: 0.85, max: 1 } });
    const uri = vscode.Uri.file(file);
    await waitFor('the filtered viewer to draw group 1', () => {
      const r = a.viewer.sessionsFor(uri)[0]?.lastRendered;
      return !!r && r.trajectoryRows?.length === 2;
    }, 30_000);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.runs.openStep', { file, reward: { min: 2, max: 1 } })), /min 2 is above max 1/);
  });
});
