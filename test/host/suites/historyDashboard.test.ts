import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Logger } from '../../../src/common/logger';
import { HistorySync } from '../../../src/dashboard/historySync';
import type { DashboardPanel, RenderedMessage } from '../../../src/dashboard/panel';
import { api, EXTENSION_ID, waitFor } from './helpers';

// The demo's run, written by the demo script (ART's line format, independent of the reader).
const { writeArtHistory, pyLine } = require('../../../scripts/demo-art-history.js') as {
  writeArtHistory: (dir: string) => string;
  pyLine: (metrics: Record<string, number>, step: number, recordedAt: string) => string;
};

async function rendered(panel: DashboardPanel, what: string, predicate: (r: RenderedMessage) => boolean, timeoutMs = 20_000): Promise<RenderedMessage> {
  await waitFor(`the dashboard webview to draw ${what}`, () => !!panel.lastRendered && predicate(panel.lastRendered), timeoutMs);
  return panel.lastRendered!;
}

describe('training dashboard of a history.jsonl (ART)', () => {
  let dir: string;
  let file: string;
  let key: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-history-'));
    file = path.join(dir, writeArtHistory(dir));
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is offered in the explorer on history.jsonl and on a model folder of .art/', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when: string }[]> } };
    const items = pkg.contributes.menus['explorer/context']!.filter((m) => m.command === 'svc.dashboard.open');
    assert.ok(items.some((m) => /resourceFilename == '?history\.jsonl/.test(m.when) && /!explorerResourceIsFolder/.test(m.when)), JSON.stringify(items));
    const folder = items.find((m) => /explorerResourceIsFolder/.test(m.when) && !/!explorerResourceIsFolder/.test(m.when));
    assert.ok(folder, 'on folders');
    const re = new RegExp(/resourcePath =~ \/(.+)\/$/.exec(folder.when)![1]!);
    assert.ok(re.test('/home/u/run/.art/demo/models/agent-7b'));
    assert.ok(!re.test('/home/u/run/.art/demo/models/agent-7b/trajectories'));
    assert.ok(!re.test('/home/u/run/models/agent-7b'));
  });

  it('draws a chart per metric over step from { file }, with the best and the latest step marked, and no service', async () => {
    const a = await api();
    assert.strictEqual(a.connection.config.baseUrl, '', 'no service configured');
    key = await vscode.commands.executeCommand<string>('svc.dashboard.open', { file });
    const panel = a.dashboards.panel(key)!;
    assert.ok(panel, 'a panel for the file');
    assert.strictEqual(panel.panel.title, 'Training: agent-7b (history.jsonl)');
    const r = await rendered(panel, '50 steps', (x) => x.count === 50);
    assert.ok(r.charts >= 3, `charts: ${r.charts}`);
    assert.strictEqual(r.latest, '50', 'the latest step');
    // val/reward (logged every fifth step) is the default best metric, maximised.
    const rewards = panel.sync.series.columns.get('val/reward')!;
    const bestRow = rewards.reduce<number>((b, v, i) => (v !== null && (rewards[b] === null || v > rewards[b]!) ? i : b), 0);
    assert.strictEqual(r.best, String(panel.sync.series.steps[bestRow]));
    assert.deepStrictEqual(panel.sync.status().file?.problems, 0);
    // The demo's last line (val of step 50) was recorded at 10:12:08.915524, local time, as written.
    assert.strictEqual(panel.sync.status().file?.recordedAt, new Date(2026, 10, 19, 10, 12, 8, 915).getTime());
    assert.strictEqual(await vscode.commands.executeCommand('svc.dashboard.open', { file }), key, 'the same panel again');
  });

  it('shows lines appended while it is visible: a new step, then its val line merged into it', async () => {
    const a = await api();
    const panel = a.dashboards.panel(key)!;
    fs.appendFileSync(file, pyLine({ 'train/reward': 0.91, 'loss/train': 0.2 }, 51, '2026-11-19T10:13:00.000001') + '\n');
    await rendered(panel, 'step 51', (x) => x.count === 51 && x.latest === '51');
    fs.appendFileSync(file, pyLine({ 'val/reward': 0.99 }, 51, '2026-11-19T10:13:20.5') + '\n');
    const r = await rendered(panel, 'the val line of step 51 merged (the new best)', (x) => x.best === '51');
    assert.strictEqual(r.count, 51);
    const row = panel.sync.series.indexOf('51');
    assert.strictEqual(panel.sync.series.value('train/reward', row), 0.91);
    assert.strictEqual(panel.sync.series.value('val/reward', row), 0.99);
  });

  it('skips a bad line, names it and counts it, and keeps reading', async () => {
    const a = await api();
    const panel = a.dashboards.panel(key)!;
    fs.appendFileSync(file, '{"train/reward": 0.5, "step": \n');
    await waitFor('the problem counted', () => panel.sync.status().file?.problems === 1);
    assert.match(panel.sync.status().file!.problem!, /^line 113: not JSON/);
    fs.appendFileSync(file, pyLine({ 'train/reward': 0.92 }, 52, '2026-11-19T10:14:00') + '\n');
    await rendered(panel, 'step 52', (x) => x.count === 52);
  });

  it('reads a rewritten file again from the start', async () => {
    const a = await api();
    const panel = a.dashboards.panel(key)!;
    const lines = [1, 2, 3].map((s) => pyLine({ 'train/reward': s / 10 }, s, `2026-11-20T08:0${s}:00`));
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const r = await rendered(panel, '3 steps', (x) => x.count === 3);
    assert.strictEqual(r.latest, '3');
    assert.strictEqual(panel.sync.status().file?.problems, 0);
  });

  it('exports the steps as CSV, one row per step', async () => {
    // A script writes inside a workspace folder only.
    const out = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, `svc-history-${process.pid}.csv`);
    assert.strictEqual(await vscode.commands.executeCommand('svc.dashboard.exportCsv', { modelId: key, path: out }), out);
    const lines = fs.readFileSync(out, 'utf8').split('\r\n').filter(Boolean);
    fs.rmSync(out);
    assert.deepStrictEqual(lines, ['id,step,train/reward', '1,1,0.1', '2,2,0.2', '3,3,0.3']);
  });

  it('charts what a step would train on once its step file appears beside the history (trainable/*)', async () => {
    const a = await api();
    const panel = a.dashboards.panel(key)!;
    const charts = panel.lastRendered!.charts;
    // Step 1's train file, by Python's json: one group, rewards 1 and 0, choices with logprobs and
    // token ids: the group and both trajectories train.
    const splitDir = path.join(path.dirname(file), 'trajectories', 'train');
    const py = String.raw`
import json, os, sys
c = {"finish_reason": "stop", "index": 0, "logprobs": {"content": [{"token": "token_id:7", "bytes": None, "logprob": -0.1, "top_logprobs": []}], "refusal": None}, "message": {"content": "4", "role": "assistant"}, "prompt_token_ids": [1], "token_ids": [7]}
t = lambda r: {"messages_and_choices": [{"role": "user", "content": "2+2?"}, c], "reward": r}
os.makedirs(sys.argv[1], exist_ok=True)
with open(os.path.join(sys.argv[1], "0001.jsonl"), "w") as f:
    f.write(json.dumps({"trajectories": [t(1.0), t(0.0)], "exceptions": []}) + "\n")
`;
    execFileSync('python3', ['-c', py, splitDir]);
    const value = (metric: string) => panel.sync.series.value(metric, panel.sync.series.indexOf('1'));
    await waitFor('the trainable series of step 1', () => value('trainable/trajectories') === 2);
    assert.deepStrictEqual(['trainable/groups', 'trainable/group_share', 'trainable/trajectory_share'].map(value), [1, 1, 1]);
    assert.strictEqual(panel.sync.series.length, 3, 'no row added: step 1 is the history\'s');
    await rendered(panel, `the trainable/group_share chart beside the reward (had ${charts})`, (x) => x.charts === charts + 1 && x.count === 3, 15_000).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; last: ${JSON.stringify(panel.lastRendered)}`);
    });
  });

  it("opens a step's trajectory file in the viewer (the .jsonl when there is no .parquet), and names what it looked for", async () => {
    const a = await api();
    const splitDir = path.join(path.dirname(file), 'trajectories', 'train');
    fs.mkdirSync(splitDir, { recursive: true });
    const group = { trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1 }] };
    fs.writeFileSync(path.join(splitDir, '0003.jsonl'), JSON.stringify(group) + '\n');
    await a.dashboards.openStep(key, 3, 'train');
    await waitFor('the viewer on 0003.jsonl', () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputCustom && input.viewType === 'svc.trajectoryViewer' && input.uri.fsPath === path.join(splitDir, '0003.jsonl');
    });
    await assert.rejects(a.dashboards.openStep(key, 2, 'train'), /Step 2 has no train trajectory file: neither 0002\.parquet nor 0002\.jsonl/);
    await assert.rejects(a.dashboards.openStep(key, 3, '../x'), /not a split name/);
    await waitFor('the splits in the status', () => panel().sync.status().file?.splits.join() === 'train');
    function panel() {
      return a.dashboards.panel(key)!;
    }
  });

  it('links the best and latest step to their step files only where a file exists, and says "no file" in place otherwise', async () => {
    const a = await api();
    const panel = a.dashboards.panel(key)!;
    const splitDir = path.join(path.dirname(file), 'trajectories', 'train');
    // The viewer the test before opened hides the dashboard (a hidden one reads nothing).
    panel.reveal();
    // Step 4 is the new best and latest; it has no step file yet.
    fs.appendFileSync(file, pyLine({ 'train/reward': 0.95 }, 4, '2026-11-20T08:04:00') + '\n');
    const last = (e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; last: ${JSON.stringify(panel.lastRendered)}`);
    };
    let r = await rendered(panel, 'step 4, best and latest', (x) => x.count === 4 && x.best === '4' && x.latest === '4', 8_000).catch(last);
    assert.match(r.stepFiles ?? '', /★ best · ● latest step 4: train: no file/, JSON.stringify(r));
    assert.deepStrictEqual(r.stepLinks, []);
    // Its file appears, then step 5 (lower): step 4 stays the best and is a link now, step 5 is not.
    fs.writeFileSync(path.join(splitDir, '0004.jsonl'), JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1 }] }) + '\n');
    fs.appendFileSync(file, pyLine({ 'train/reward': 0.5 }, 5, '2026-11-20T08:05:00') + '\n');
    r = await rendered(panel, 'step 5 and the link to step 4', (x) => x.count === 5 && x.latest === '5' && (x.stepLinks ?? []).includes('4/train'), 8_000).catch(last);
    assert.deepStrictEqual(r.stepLinks, ['4/train']);
    assert.match(r.stepFiles ?? '', /● latest step 5: train: no file/);
    // The suite's next tests start from the file's 3 steps again.
    fs.rmSync(path.join(splitDir, '0004.jsonl'));
    fs.writeFileSync(file, [1, 2, 3].map((s) => pyLine({ 'train/reward': s / 10 }, s, `2026-11-20T08:0${s}:00`)).join('\n') + '\n');
    await rendered(panel, '3 steps again', (x) => x.count === 3);
  });

  it("gives a metric that stayed 0 its group's scale (0–0.1 beside a reward std of 0.02–0.1), not 0–100", async () => {
    const a = await api();
    const run = path.join(dir, '.art', 'demo', 'models', 'flat');
    fs.mkdirSync(run, { recursive: true });
    const flat = path.join(run, 'history.jsonl');
    fs.writeFileSync(flat, [1, 2, 3, 4].map((s) => pyLine({ 'train/reward_std': s / 40, 'train/exception_rate': 0 }, s, `2026-11-20T09:0${s}:00`)).join('\n') + '\n');
    const flatKey = await vscode.commands.executeCommand<string>('svc.dashboard.open', { file: flat });
    const panel = a.dashboards.panel(flatKey)!;
    const r = await rendered(panel, 'the two train charts', (x) => x.count === 4 && x.charts === 2 && !!x.yRanges?.['train/exception_rate']);
    // uPlot's usual 10% pad over the group's 0–0.1 (uPlot gave the flat line 0–100 before); the sibling keeps uPlot's own range.
    const [lo, hi] = r.yRanges!['train/exception_rate']!;
    assert.ok(lo === 0 && hi >= 0.1 && hi <= 0.12, JSON.stringify(r.yRanges));
    assert.deepStrictEqual(r.yRanges!['train/reward_std']!.map((v) => Number(v.toFixed(3))), [0.017, 0.108], 'the varying chart is drawn as uPlot draws it');
    panel.panel.dispose();
  });

  it('opens from a model folder, and rejects a missing or non-history file naming file and line, with no prompt', async () => {
    const modelDir = path.dirname(file);
    assert.strictEqual(await vscode.commands.executeCommand('svc.dashboard.open', vscode.Uri.file(modelDir)), key, 'the folder opens its history.jsonl');
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.open', { file: path.join(dir, 'nope.jsonl') })), /nope\.jsonl: no such file/);
    const notHistory = path.join(dir, 'rollouts.jsonl');
    fs.writeFileSync(notHistory, '{"trajectories": []}\n{"trajectories": []}\n');
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.open', { file: notHistory })), /rollouts\.jsonl line 1: no "step" or "training_step"/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.open', { file: dir })), /has no history\.jsonl/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.open', { file: 3 })), /"file" must be the path of a history\.jsonl file/);
  });

  it('opens a history of several MiB once its first rows are read, and reads the rest while the panel starts', async () => {
    const big = path.join(dir, 'big', 'history.jsonl');
    fs.mkdirSync(path.dirname(big), { recursive: true });
    const metrics = (step: number) => Object.fromEntries(Array.from({ length: 12 }, (_, k) => [`train/metric_${k}`, Math.sin(step / 50 + k)]));
    const lines = Array.from({ length: 8000 }, (_, i) => pyLine(metrics(i + 1), i + 1, '2026-11-20T08:00:00'));
    fs.writeFileSync(big, lines.join('\n') + '\n');
    assert.ok(fs.statSync(big).size > 2 << 20, 'more than one read of the file');
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
    const history = new HistorySync(big, 'big/history.jsonl', log);
    try {
      await history.load();
      assert.ok(history.series.length > 0 && history.series.length < 8000, `${history.series.length} steps when load() returned`);
      assert.strictEqual(history.loaded, false, 'still reading');
      await waitFor('the whole file read', () => history.loaded);
      assert.strictEqual(history.series.length, 8000);
      assert.strictEqual(history.status().file?.problems, 0);
    } finally {
      history.dispose();
    }
  });

  it('comes back after a window reload (the panel serializer), reading the file again', async () => {
    const a = await api();
    a.dashboards.panel(key)!.panel.dispose();
    assert.strictEqual(a.dashboards.panel(key), undefined);
    const restored = vscode.window.createWebviewPanel('svc.dashboard', 'Training', vscode.ViewColumn.Active, { enableScripts: true });
    await a.dashboards.serializer().deserializeWebviewPanel(restored, { modelId: key, ui: {} });
    const panel = a.dashboards.panel(key)!;
    assert.ok(panel, 'the file dashboard again');
    assert.strictEqual(panel.panel.title, 'Training: agent-7b (history.jsonl)');
    await rendered(panel, 'the 3 steps of the file', (x) => x.count === 3);
  });

  it('reads nothing while hidden, and catches up when shown again', async () => {
    const a = await api();
    const panel = a.dashboards.panel(key)!;
    await vscode.commands.executeCommand('workbench.action.files.newUntitledFile');
    await waitFor('the dashboard hidden', () => !panel.panel.visible);
    const sync = panel.sync as unknown as { reads: number };
    // A visible twin on the same file proves the looks happened: it reads the append on the folder
    // watcher's event, then again on its 2 s look, while the hidden dashboard reads nothing.
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
    const twin = new HistorySync(file, 'history.jsonl', log);
    try {
      await twin.load();
      await waitFor('the twin loaded', () => twin.loaded && !twin.busy);
      twin.setActive(true);
      await waitFor("the twin's first read", () => !twin.busy && twin.series.length === 3);
      const reads = sync.reads;
      fs.appendFileSync(file, pyLine({ 'train/reward': 0.4 }, 4, '2026-11-20T08:04:00') + '\n');
      await waitFor('the twin to read the append', () => twin.series.length === 4 && !twin.busy);
      const twinReads = twin.reads;
      await waitFor("the twin's 2 s look", () => twin.reads > twinReads && !twin.busy, 5_000);
      assert.strictEqual(sync.reads, reads, 'no read while hidden: not on the watcher, not on the 2 s look');
    } finally {
      twin.dispose();
    }
    panel.reveal();
    await rendered(panel, 'step 4', (x) => x.count === 4);
  });
});
