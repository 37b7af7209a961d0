import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CheckpointNode } from '../../../src/checkpoints/provider';
import type { DashboardPanel, RenderedMessage } from '../../../src/dashboard/panel';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, endSuite, EXTENSION_ID, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

const MODEL = 'm-run';
const PATH = `/v1/preview/models/${MODEL}/checkpoints`;
/** 30 steps; val/reward peaks at step 250 (the star), loss falls, train/reward rises. */
const metrics = (step: number) => ({
  'train/reward': step / 300,
  'val/reward': step === 250 ? 0.9 : step / 400,
  'loss/train': 1 - step / 400,
});

async function rendered(panel: DashboardPanel, what: string, predicate: (r: RenderedMessage) => boolean, timeoutMs = 20_000): Promise<RenderedMessage> {
  await waitFor(`the dashboard webview to draw ${what}`, () => !!panel.lastRendered && predicate(panel.lastRendered), timeoutMs);
  return panel.lastRendered!;
}

describe('training dashboard', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    server.addCheckpoints(MODEL, 30, { stepSize: 10, metrics });
    await connect(server, { models: [MODEL], 'checkpoints.pollSeconds': 1 });
    await vscode.commands.executeCommand('svc.checkpoints.toggleOrder', { order: 'desc' });
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await endSuite(server);
  });

  it('is offered on model nodes (inline and context menu) and checkpoint rows of the Checkpoints tree', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when: string; group?: string }[]> } };
    const items = pkg.contributes.menus['view/item/context']!.filter((m) => m.command === 'svc.dashboard.open');
    assert.ok(items.some((m) => m.group?.startsWith('inline') && /viewItem == svc\.model/.test(m.when)), 'inline on model nodes');
    assert.ok(items.some((m) => !m.group?.startsWith('inline') && /svc\\\.\(model\|checkpoint\)/.test(m.when)), 'context menu of models and checkpoints');
  });

  it('opens from the model node and draws every checkpoint, one chart per metric, the best starred', async () => {
    const a = await api();
    const roots = await a.checkpointsProvider.getChildren();
    const node = roots.find((n) => n.kind === 'model' && n.modelId === MODEL)!;
    server.stats.clear();
    await vscode.commands.executeCommand('svc.dashboard.open', node);
    const panel = a.dashboards.panel(MODEL)!;
    assert.ok(panel, 'a panel for the model');
    assert.strictEqual(panel.panel.title, `Training: ${MODEL}`);
    const r = await rendered(panel, '30 checkpoints', (x) => x.count === 30);
    assert.strictEqual(r.charts, 3, 'train/reward, val/reward and loss/train');
    const best = server.store.checkpoints.get(MODEL)!.find((c) => c.step === 250)!;
    assert.strictEqual(r.best, best.id, 'the webview stars val/reward, maximised');
    // Cursor pages of 100, ascending, through the model endpoint's Bearer auth.
    const queries = server.stats.filter(PATH);
    assert.ok(queries.length >= 1);
    assert.match(queries[0]!.query, /limit=100/);
    assert.match(queries[0]!.query, /order=asc/);
    assert.ok(queries.every((q) => q.authScheme === 'bearer'));
  });

  it('stars the best checkpoint in the tree', async () => {
    const a = await api();
    await waitFor('the best mark', () => a.dashboards.best(MODEL)?.step === 250);
    const children = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: MODEL });
    const icon = (n: CheckpointNode) => (a.checkpointsProvider.getTreeItem(n).iconPath as vscode.ThemeIcon).id;
    const starred = children.filter((n) => n.kind === 'checkpoint' && icon(n) === 'star-full');
    assert.deepStrictEqual(starred.map((n) => (n as { checkpoint: { step: number } }).checkpoint.step), [250]);
    const tooltip = a.checkpointsProvider.resolveTreeItem(a.checkpointsProvider.getTreeItem(starred[0]!), starred[0]!).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /Best checkpoint by val\/reward \(highest\)/);
  });

  it('opens from a checkpoint row with that checkpoint selected', async () => {
    const a = await api();
    const children = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: MODEL });
    const node = children.find((n) => n.kind === 'checkpoint' && n.checkpoint.step === 200)!;
    const item = a.checkpointsProvider.getTreeItem(node);
    assert.strictEqual(item.command?.command, 'svc.dashboard.open', 'clicking the row opens the dashboard');
    await vscode.commands.executeCommand(item.command.command, ...(item.command.arguments ?? []));
    const panel = a.dashboards.panel(MODEL)!;
    const id = (node as { checkpoint: { id: string } }).checkpoint.id;
    await rendered(panel, 'the row selected', (r) => r.selected.length === 1 && r.selected[0] === id);
    await waitFor('the selection kept per model', () => a.dashboards.uiState(MODEL).selected[0] === id);
  });

  it('shows checkpoints added to the service after a poll, in the tree too, and counts them on the view badge', async () => {
    const a = await api();
    const panel = a.dashboards.panel(MODEL)!;
    a.dashboards.clearNew();
    const added = server.addCheckpoints(MODEL, 3, { metrics });
    const r = await rendered(panel, '33 checkpoints', (x) => x.count === 33, 15_000);
    assert.strictEqual(r.count, 33);
    assert.strictEqual(a.dashboards.newCount, 3);
    assert.strictEqual(a.checkpointsView.badge?.value, 3);
    assert.match(a.checkpointsView.badge!.tooltip!, /3 new checkpoints/);
    const steps = a.checkpointsProvider.childrenOf(MODEL).filter((n) => n.kind === 'checkpoint').map((n) => (n as { checkpoint: { step: number } }).checkpoint.step);
    assert.deepStrictEqual(steps.slice(0, 4), [added[2]!.step, added[1]!.step, added[0]!.step, 300], 'newest first in the tree');
    a.dashboards.clearNew(MODEL);
    assert.strictEqual(a.checkpointsView.badge, undefined);
  });

  it('notifies about a new checkpoint with the best metric when opted in', async () => {
    const a = await api();
    const panel = a.dashboards.panel(MODEL)!;
    const prompts = new Prompts();
    try {
      await configure({ 'checkpoints.notifyNew': true });
      await waitFor('the setting', () => a.connection.config.checkpointsNotify);
      const count = panel.sync.series.length;
      const [added] = server.addCheckpoints(MODEL, 1, { metrics: (step) => ({ ...metrics(step), 'val/reward': 0.83 }) });
      await waitFor('the notification', () => prompts.messages('info').length > 0, 10_000);
      assert.deepStrictEqual(prompts.messages('info').map((m) => [m.title, m.items]), [[`svc: model ${MODEL}: new checkpoint step ${added!.step} (val/reward 0.83)`, ['Show']]]);
      assert.strictEqual(panel.sync.series.length, count + 1);
    } finally {
      prompts.dispose();
      await configure({ 'checkpoints.notifyNew': undefined });
    }
  });

  it('opens from the palette after picking a model', async () => {
    const a = await api();
    const prompts = new Prompts().script({ pick: MODEL, title: 'svc: Open the training dashboard of a model' });
    try {
      assert.strictEqual(await vscode.commands.executeCommand('svc.dashboard.open'), MODEL);
      prompts.assertDone();
    } finally {
      prompts.dispose();
    }
    assert.ok(a.dashboards.panel(MODEL)!.panel.visible);
  });

  it('makes no request while hidden, and catches up when shown again', async () => {
    const a = await api();
    const panel = a.dashboards.panel(MODEL)!;
    // A saved file in front of the panel (not an untitled one: closed untitled names are reused by
    // later suites' documents while the old one is still being disposed).
    const file = path.join(os.tmpdir(), `svc-dashboard-hide-${process.pid}.txt`);
    fs.writeFileSync(file, 'in front of the dashboard\n');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc, { viewColumn: panel.panel.viewColumn, preview: false });
    await waitFor('the panel to be hidden', () => !panel.panel.visible);
    await new Promise((r) => setTimeout(r, 300)); // a request in flight when it hid is aborted
    server.stats.clear();
    server.addCheckpoints(MODEL, 2, { metrics });
    await new Promise((r) => setTimeout(r, 3500)); // three poll intervals
    assert.strictEqual(server.stats.count(PATH), 0, 'no request while hidden');
    panel.reveal();
    await rendered(panel, '36 checkpoints after showing it again', (x) => x.count === 36, 15_000);
    assert.ok(server.stats.count(PATH) >= 1);
    const tab = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === doc.uri.toString());
    if (tab) await vscode.window.tabGroups.close(tab);
    fs.rmSync(file, { force: true });
  });

  it('backs off after an error and recovers', async () => {
    const a = await api();
    const panel = a.dashboards.panel(MODEL)!;
    panel.reveal();
    await waitFor('visible', () => panel.panel.visible);
    server.faults.add({ path: PATH, kind: 'status', status: 404, times: 2 });
    await waitFor('the error', () => !!panel.sync.status().error, 10_000);
    const first = panel.sync.status();
    assert.match(first.error!, /404/);
    assert.ok(first.nextPollAt! - Date.now() > 1200, 'the delay doubled (poll every 1 s)');
    await waitFor('the second error', () => panel.sync.status().nextPollAt! - Date.now() > 2500, 10_000);
    await waitFor('recovery', () => panel.sync.status().error === undefined, 15_000);
  });

  it('remembers the best choice per model and moves the star', async () => {
    const a = await api();
    a.dashboards.chooseBest(MODEL, { metric: 'loss/train', direction: 'min' });
    await waitFor('the new best', () => a.dashboards.best(MODEL)?.metric === 'loss/train');
    assert.strictEqual(a.dashboards.best(MODEL)!.step, 360, 'the lowest loss is at the last step');
    assert.deepStrictEqual(a.globalState.get<Record<string, unknown>>('svc.dashboard.best')![MODEL], { metric: 'loss/train', direction: 'min' });
    a.dashboards.chooseBest(MODEL, { direction: 'max' }); // back to the default
    await waitFor('the default best', () => a.dashboards.best(MODEL)?.metric === 'val/reward');
  });

  it('exports every checkpoint as CSV and copies ids and steps', async () => {
    const a = await api();
    const file = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, `svc-dashboard-${process.pid}.csv`);
    const written = await vscode.commands.executeCommand<string>('svc.dashboard.exportCsv', { modelId: MODEL, path: file });
    assert.strictEqual(written, file);
    const lines = fs.readFileSync(file, 'utf8').split('\r\n').filter(Boolean);
    fs.rmSync(file, { force: true });
    assert.strictEqual(lines[0], 'id,step,train/reward,val/reward,loss/train');
    assert.strictEqual(lines.length, 1 + 36);
    const best = a.dashboards.best(MODEL)!;
    await a.dashboards.copy(MODEL, 'step', best.checkpointId);
    assert.strictEqual(await vscode.env.clipboard.readText(), '250');
    await a.dashboards.copy(MODEL, 'id', best.checkpointId);
    assert.strictEqual(await vscode.env.clipboard.readText(), best.checkpointId);
  });

  it('exports from a script only inside a workspace folder: a path outside, or a link out, is refused by name and nothing is written', async () => {
    const ws = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-export-outside-'));
    const link = path.join(ws, `svc-export-link-${process.pid}`);
    fs.symlinkSync(outside, link);
    try {
      for (const target of [path.join(outside, 'x.csv'), path.join(link, 'x.csv'), path.join(ws, '..', path.basename(outside), 'y.csv')]) {
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.exportCsv', { modelId: MODEL, path: target })), (e: Error) => {
          assert.match(e.message, /svc\.dashboard\.exportCsv writes only inside a workspace folder/);
          assert.ok(e.message.includes(path.resolve(target)), e.message);
          return true;
        });
      }
      assert.deepStrictEqual(fs.readdirSync(outside), [], 'nothing written outside');
      const inside = path.join(ws, `svc-export-${process.pid}.csv`);
      assert.strictEqual(await vscode.commands.executeCommand('svc.dashboard.exportCsv', { modelId: MODEL, path: inside }), inside);
      assert.match(fs.readFileSync(inside, 'utf8'), /^id,step,/);
      fs.rmSync(inside);
    } finally {
      fs.rmSync(link, { force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses bad arguments with a readable error and no prompt', async () => {
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.open', { modelId: 42 })), /"modelId" must be a model id string/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.dashboard.exportCsv', { modelId: 'nope', path: '/tmp/x.csv' })), /not open/);
  });

  it('stops polling when closed', async () => {
    const a = await api();
    const panel = a.dashboards.panel(MODEL)!;
    panel.panel.dispose();
    assert.strictEqual(a.dashboards.panel(MODEL), undefined);
    server.stats.clear();
    await new Promise((r) => setTimeout(r, 1500));
    assert.strictEqual(server.stats.count(PATH), 0);
    await configure({ 'checkpoints.pollSeconds': undefined });
  });
});
