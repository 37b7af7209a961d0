import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ComparePanel, CompareRendered } from '../../../src/dashboard/compare';
import type { HistorySync } from '../../../src/dashboard/historySync';
import type { ReferenceServer } from '../../server';
import { api, connect, endSuite, EXTENSION_ID, modelRow, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

const MODEL = 'm-compare';
const OTHER = 'm-compare-b';
/** 20 checkpoints, steps 5..100; val/reward peaks at step 60; loss/train falls to its lowest at step 100. */
const metrics = (step: number) => ({ 'val/reward': step === 60 ? 0.8 : step / 200, 'loss/train': 1 - step / 200 });

/** ART's history.jsonl lines, written here from the producer's fields (step, metrics, recorded_at). */
function artLine(step: number, m: Record<string, number>): string {
  return JSON.stringify({ ...m, step, recorded_at: `2026-11-19T10:${String(step % 60).padStart(2, '0')}:00.000000` });
}

async function rendered(panel: ComparePanel, what: string, predicate: (r: CompareRendered) => boolean, timeoutMs = 30_000): Promise<CompareRendered> {
  await waitFor(`Compare Runs to draw ${what}`, () => !!panel.lastRendered && predicate(panel.lastRendered), timeoutMs);
  return panel.lastRendered!;
}

describe('Compare Runs', () => {
  let server: ReferenceServer;
  let dir: string;
  let file: string;
  let panel: ComparePanel;
  before(async () => {
    server = await startServer();
    server.addCheckpoints(MODEL, 20, { stepSize: 5, metrics });
    server.addCheckpoints(OTHER, 4, { stepSize: 50, metrics });
    await connect(server, { models: [MODEL, OTHER] });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-compare-'));
    const modelDir = path.join(dir, '.art', 'demo', 'models', 'run-b');
    fs.mkdirSync(modelDir, { recursive: true });
    file = path.join(modelDir, 'history.jsonl');
    // 10 steps, 10..100 by 10: val/reward best 0.7 at step 30, latest 0.5 at 100; loss/train lowest 0.1 at step 100.
    const lines = [];
    for (let step = 10; step <= 100; step += 10) lines.push(artLine(step, { 'val/reward': step === 30 ? 0.7 : 0.5, 'loss/train': 1 - step / 111 }));
    fs.writeFileSync(file, lines.join('\n') + '\n');
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
    await endSuite(server);
  });

  it('is offered on several selected models in the Checkpoints view and several history files in the explorer', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when: string }[]> } };
    const tree = pkg.contributes.menus['view/item/context']!.filter((m) => m.command === 'svc.dashboard.compare');
    assert.ok(tree.some((m) => /view == svc\.checkpoints/.test(m.when) && /listMultiSelection/.test(m.when)), JSON.stringify(tree));
    const explorer = pkg.contributes.menus['explorer/context']!.filter((m) => m.command === 'svc.dashboard.compare');
    assert.ok(explorer.some((m) => /history\.jsonl/.test(m.when) && /listMultiSelection/.test(m.when)), JSON.stringify(explorer));
  });

  it('draws a service model and a history.jsonl on the same charts, aligned by step, with each run\'s best and latest value', async () => {
    const a = await api();
    const opened = new Promise<ComparePanel>((resolve) => {
      const sub = a.compareRuns.onDidOpen((p) => (sub.dispose(), resolve(p)));
    });
    const keys = await vscode.commands.executeCommand<string[]>('svc.dashboard.compare', { runs: [{ modelId: MODEL }, { file }] });
    assert.deepStrictEqual(keys, [MODEL, `file:${file}`]);
    panel = await opened;
    assert.strictEqual(panel.panel.title, `Compare: ${MODEL} vs run-b`);
    const r = await rendered(panel, '20 checkpoints and 10 steps', (x) => x.counts[0] === 20 && x.counts[1] === 10);
    assert.strictEqual(r.charts, 2, 'val/reward and loss/train');
    assert.deepStrictEqual({ ...r.lines }, { 'val/reward': 2, 'loss/train': 2 }, 'a line per run on every chart');
    const row = (metric: string) => r.table.find((t) => t.metric === metric)!;
    assert.deepStrictEqual(row('val/reward'), {
      metric: 'val/reward',
      direction: 'max',
      runs: [
        { best: { step: 60, value: 0.8 }, latest: { step: 100, value: 0.5 } },
        { best: { step: 30, value: 0.7 }, latest: { step: 100, value: 0.5 } },
      ],
    });
    const loss = row('loss/train');
    assert.strictEqual(loss.direction, 'min', 'a loss is best when lowest');
    assert.deepStrictEqual(loss.runs[0]!.best, { step: 100, value: 0.5 });
    assert.deepStrictEqual(loss.runs[1]!.best, { step: 100, value: 1 - 100 / 111 });
  });

  it('shows lines appended to a compared history.jsonl while it is visible', async () => {
    fs.appendFileSync(file, artLine(110, { 'val/reward': 0.95, 'loss/train': 0.05 }) + '\n');
    const r = await rendered(panel, 'step 110 of the file run', (x) => x.counts[1] === 11);
    assert.strictEqual(r.counts[0], 20);
    const reward = r.table.find((t) => t.metric === 'val/reward')!;
    assert.deepStrictEqual(reward.runs[1], { best: { step: 110, value: 0.95 }, latest: { step: 110, value: 0.95 } });
  });

  it('does not redraw while neither run changes, though the history.jsonl is looked at every 2 s', async function () {
    this.timeout(45_000);
    const history = panel.sources[1] as HistorySync;
    const start = history.reads;
    // Each draw, with the number of the file's reads made when it reached us.
    const draws: { reads: number; counts: number[] }[] = [];
    const sub = panel.onDidRender((r) => draws.push({ reads: history.reads, counts: [...r.counts] }));
    try {
      // Two of the file's 2 s looks with nothing new. A draw the append above still owed (its rows
      // and its status can reach the page in two frames) comes before the second look, 2 s later;
      // anything drawn after the second look began is a look's doing.
      await waitFor("the file's first 2 s look", () => history.reads >= start + 1 && !history.busy, 5_000);
      await waitFor("the file's second 2 s look", () => history.reads >= start + 2 && !history.busy, 5_000);
      const looked = history.reads;
      // And one more look at once (the same check the timer makes): should the second look draw,
      // its draw cannot hide in the frame of the append below.
      await history.check();
      await waitFor('the look to end', () => !history.busy);
      assert.strictEqual(history.reads, looked + 1);
      assert.strictEqual(history.series.length, 11, 'the looks found nothing new');
      // The page takes messages in order: once it drew step 120, it had taken the looks' messages.
      fs.appendFileSync(file, artLine(120, { 'val/reward': 0.9, 'loss/train': 0.04 }) + '\n');
      await rendered(panel, 'step 120 of the file run', (x) => x.counts[1] === 12);
      const afterLooks = draws.filter((d) => d.reads >= looked);
      assert.deepStrictEqual(afterLooks[0]?.counts, [20, 12], `a look that finds nothing new draws nothing: ${JSON.stringify(draws)}`);
    } finally {
      sub.dispose();
    }
  });

  it('comes back after a window reload (the panel serializer), reading its runs again', async () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { activationEvents: string[] };
    assert.ok(pkg.activationEvents.includes('onWebviewPanel:svc.dashboardCompare'), 'a kept Compare Runs panel activates the extension');
    const a = await api();
    const opened = new Promise<ComparePanel>((resolve) => {
      const sub = a.compareRuns.onDidOpen((p) => (sub.dispose(), resolve(p)));
    });
    // What the webview kept with setState (the init message's state), as VS Code hands it back.
    const restored = vscode.window.createWebviewPanel('svc.dashboardCompare', 'Compare Runs', vscode.ViewColumn.Active, { enableScripts: true });
    await a.compareRuns.serializer().deserializeWebviewPanel(restored, { runs: [{ modelId: MODEL }, { file }] });
    const again = await opened;
    assert.strictEqual(again.panel, restored, 'the kept panel is reused');
    assert.strictEqual(again.panel.title, `Compare: ${MODEL} vs run-b`);
    await rendered(again, 'the model and the file again', (x) => x.counts[0] === 20 && x.counts[1] === 12);
    again.panel.dispose();
    // A state that names no runs, or a file gone since, closes the kept panel instead of a blank one.
    for (const state of [undefined, { runs: [{ modelId: MODEL }] }, { runs: [{ modelId: MODEL }, { file: path.join(dir, 'gone', 'history.jsonl') }] }]) {
      const kept = vscode.window.createWebviewPanel('svc.dashboardCompare', 'Compare Runs', vscode.ViewColumn.Active, { enableScripts: true });
      let disposed = false;
      kept.onDidDispose(() => (disposed = true));
      await a.compareRuns.serializer().deserializeWebviewPanel(kept, state);
      assert.ok(disposed, `closed for ${JSON.stringify(state)}`);
    }
  });

  it('opens from several models selected in the Checkpoints view, and from several history files selected in the explorer', async () => {
    const a = await api();
    await a.checkpointsProvider.getChildren();
    const rows = [modelRow(a, MODEL), modelRow(a, OTHER)];
    assert.deepStrictEqual(await vscode.commands.executeCommand('svc.dashboard.compare', rows[0], rows), [MODEL, OTHER]);
    const second = path.join(dir, '.art', 'demo', 'models', 'run-c');
    fs.mkdirSync(second, { recursive: true });
    fs.writeFileSync(path.join(second, 'history.jsonl'), artLine(1, { 'val/reward': 0.1 }) + '\n');
    // A file and a model folder, as the explorer passes a multi-selection.
    const uris = [vscode.Uri.file(file), vscode.Uri.file(second)];
    assert.deepStrictEqual(await vscode.commands.executeCommand('svc.dashboard.compare', uris[0], uris), [`file:${file}`, `file:${path.join(second, 'history.jsonl')}`]);
  });

  it('draws every chart of a comparison over one step range, though a run logged a metric only early', async () => {
    const a = await api();
    const early = path.join(dir, '.art', 'demo', 'models', 'run-d');
    fs.mkdirSync(early, { recursive: true });
    // val/reward stops at step 50, loss/train goes on to 300 (run-b: 10 to 120, after the tests before): the charts used to span 10–120 and 10–300.
    const lines = [];
    for (let step = 10; step <= 300; step += 10) lines.push(artLine(step, step <= 50 ? { 'val/reward': step / 100, 'loss/train': 1 / step } : { 'loss/train': 1 / step }));
    fs.writeFileSync(path.join(early, 'history.jsonl'), lines.join('\n') + '\n');
    const opened = new Promise<ComparePanel>((resolve) => {
      const sub = a.compareRuns.onDidOpen((p) => (sub.dispose(), resolve(p)));
    });
    await vscode.commands.executeCommand('svc.dashboard.compare', { runs: [{ file: path.join(early, 'history.jsonl') }, { file }] });
    const p = await opened;
    const r = await rendered(p, '30 steps and run-b', (x) => x.counts[0] === 30 && x.counts[1]! >= 10 && x.charts === 2, 12_000).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; last: ${JSON.stringify(p.lastRendered)}`);
    });
    assert.deepStrictEqual({ ...r.xRanges }, { 'val/reward': [10, 300], 'loss/train': [10, 300] });
  });

  it("the palette's pick lists the history.jsonl files whose dashboard is open, and its file dialog starts at the workspace's .art folder", async () => {
    const a = await api();
    const key = await vscode.commands.executeCommand<string>('svc.dashboard.open', { file });
    assert.ok(a.dashboards.panel(key), 'the dashboard of run-b is open');
    const second = path.join(dir, '.art', 'demo', 'models', 'run-c', 'history.jsonl');
    const prompts = new Prompts().script({ pick: 'run-b', title: 'svc: Compare Runs' });
    try {
      // One run picked: the command says two are needed (the pick's items are what this test is about).
      await vscode.commands.executeCommand('svc.dashboard.compare');
      const pick = prompts.prompts().find((p) => p.kind === 'quickPick')!;
      assert.ok(pick.items.includes('run-b'), JSON.stringify(pick));
      assert.strictEqual(pick.descriptions![pick.items.indexOf('run-b')], 'history.jsonl · dashboard open');
    } finally {
      prompts.dispose();
    }
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const art = path.join(folder, '.art');
    const made = !fs.existsSync(art);
    if (made) fs.mkdirSync(art);
    const dialog = new Prompts().script({ pick: 'Add history.jsonl file…' }, { open: [vscode.Uri.file(file), vscode.Uri.file(second)] });
    try {
      const keys = await vscode.commands.executeCommand<string[]>('svc.dashboard.compare');
      assert.deepStrictEqual(keys, [`file:${file}`, `file:${second}`]);
      assert.strictEqual(dialog.prompts().find((p) => p.kind === 'openDialog')!.defaultUri, art);
    } finally {
      dialog.dispose();
      if (made) fs.rmSync(art, { recursive: true, force: true });
    }
  });

  it('gives a metric flat in every run its group\'s scale, not 0–100', async () => {
    const a = await api();
    const files = ['run-e', 'run-f'].map((name, r) => {
      const d = path.join(dir, '.art', 'demo', 'models', name);
      fs.mkdirSync(d, { recursive: true });
      const lines = [1, 2, 3].map((step) => artLine(step, { 'train/reward_std': (step + r) / 40, 'train/exception_rate': 0 }));
      fs.writeFileSync(path.join(d, 'history.jsonl'), lines.join('\n') + '\n');
      return path.join(d, 'history.jsonl');
    });
    const opened = new Promise<ComparePanel>((resolve) => {
      const sub = a.compareRuns.onDidOpen((p) => (sub.dispose(), resolve(p)));
    });
    await vscode.commands.executeCommand('svc.dashboard.compare', { runs: files.map((file) => ({ file })) });
    const p = await opened;
    const r = await rendered(p, 'both runs', (x) => x.counts[0] === 3 && x.counts[1] === 3 && !!x.yRanges?.['train/exception_rate'], 12_000).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)}; last: ${JSON.stringify(p.lastRendered)}`);
    });
    // uPlot's usual 10% pad over the group's 0–0.1 (uPlot gave the flat line 0–100 before).
    const [lo, hi] = r.yRanges!['train/exception_rate']!;
    assert.ok(lo === 0 && hi >= 0.1 && hi <= 0.12, JSON.stringify(r.yRanges));
  });

  it('rejects a scripted call with one run, opening nothing', async () => {
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('svc.dashboard.compare', { runs: [{ modelId: MODEL }] })),
      (e: Error) => /at least two runs/.test(e.message) && /got 1/.test(e.message),
    );
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.compare', { runs: [{ modelId: MODEL }, { bogus: 1 }] })), /runs\[1\] must be/);
  });
});
