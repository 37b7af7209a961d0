// The Checkpoints view as a user meets it (issue 10): the title buttons with a row focused, Add
// Model's check of the id, Remove Model on an unknown model, the metric in each row, and the
// model row's count after Load More and after toggling the order.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { CheckpointNode } from '../../../src/checkpoints/provider';
import type { UploadReport } from '../../../src/trajectories/report';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, EXTENSION_ID, modelRow, resetSettings, signOut, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

const RECENT = 'svc.recentModels';
const USER_SCOPE = { pick: 'User settings', title: 'svc: Save svc.models in…' };
// What VS Code passes a view-title command: the focused node, and the selected nodes.
const asTitleButton = (command: string, node: CheckpointNode) => Promise.resolve(vscode.commands.executeCommand(command, node, [node]));

async function withPrompts<T>(p: Prompts, fn: () => PromiseLike<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    p.dispose();
  }
}

describe('checkpoint rows: title buttons, Add Model, Remove Model, metric and count', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    server.addCheckpoints('m-run', 45, { stepSize: 10 }); // metrics: loss, reward, accuracy
    server.addCheckpoints('m-two', 3);
    await connect(server, { models: ['m-run', 'm-two'], 'checkpoints.pageSize': 20 });
    await vscode.commands.executeCommand('svc.checkpoints.toggleOrder', { order: 'desc' });
  });
  beforeEach(() => {
    server.faults.clear();
    server.stats.clear();
  });
  after(async () => {
    await signOut();
    await resetSettings();
    await server.close();
  });

  /** Loads a model as the host does when it is expanded; returns its first checkpoint row. */
  async function firstRow(modelId: string): Promise<CheckpointNode> {
    const a = await api();
    const children = await a.checkpointsProvider.getChildren(modelRow(a, modelId));
    const row = children.find((n) => n.kind === 'checkpoint');
    assert.ok(row, `${modelId} has checkpoint rows: ${JSON.stringify(children.map((n) => n.kind))}`);
    return row;
  }

  it('runs every title button with a checkpoint row or a model row focused, as without one', async () => {
    const a = await api();
    for (const focused of [await firstRow('m-run'), modelRow(a, 'm-run')]) {
      await firstRow('m-two');
      const p = new Prompts().script({ cancel: true, title: 'svc: Add a model' });
      await withPrompts(p, async () => {
        // Add Model… opens its prompt (it did nothing: the row's modelId read as the model to add).
        await asTitleButton('svc.checkpoints.addModel', focused);
        p.assertDone();
        // Refresh drops every model's rows, not only the focused one's.
        await asTitleButton('svc.checkpoints.refresh', focused);
        assert.strictEqual(a.checkpoints.state('m-two').loaded, false, `Refresh with ${focused.kind} row focused reloads m-two too`);
        assert.strictEqual(a.checkpoints.state('m-run').loaded, false);
        // Toggle Order flips the order.
        await asTitleButton('svc.checkpoints.toggleOrder', focused);
        assert.strictEqual(a.checkpoints.order, 'asc');
        await asTitleButton('svc.checkpoints.toggleOrder', focused);
        assert.strictEqual(a.checkpoints.order, 'desc');
        assert.deepStrictEqual(p.messages('error'), [], 'no error');
      });
    }
    // The model row's inline Refresh (and an error row's click) reloads that model only.
    await firstRow('m-two');
    await firstRow('m-run');
    server.stats.clear();
    await vscode.commands.executeCommand('svc.checkpoints.refreshModel', modelRow(a, 'm-run'));
    assert.strictEqual(server.stats.count('/v1/preview/models/m-run/checkpoints'), 1);
    assert.strictEqual(a.checkpoints.state('m-two').loaded, true, 'm-two was kept');
  });

  it("treats a script's object as a script even when it has a kind field: tree nodes are known by identity", async () => {
    const p = new Prompts();
    await withPrompts(p, () =>
      assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.checkpoints.addModel', { kind: 'model', modelId: 'm-nope' })), /has no model "m-nope"/),
    );
    assert.deepStrictEqual(p.shown, [], 'no prompt, no notification: the script gets the error');
    // Copy Checkpoint Id: a row, or { checkpointId }; an object shaped like a row is refused.
    const row = await firstRow('m-two');
    assert.strictEqual(await vscode.commands.executeCommand('svc.checkpoints.copyId', row), (row as { checkpoint: { id: string } }).checkpoint.id);
    assert.strictEqual(await vscode.commands.executeCommand('svc.checkpoints.copyId', { checkpointId: 'c-42' }), 'c-42');
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('svc.checkpoints.copyId', { ...row })),
      /svc\.checkpoints\.copyId takes a checkpoint row or \{ checkpointId \}/,
    );
  });

  it('checks the id of a new model with one request: an unknown one is refused naming model and host', async () => {
    const a = await api();
    await a.globalState.update(RECENT, ['m-nope']);
    const host = new URL(server.url).host.replace(/\./g, '\\.');
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('svc.checkpoints.addModel', { modelId: 'm-nope' })),
      new RegExp(`^InputError: ${host} has no model "m-nope" \\(404\\): check the id; it was not added\\.$`),
    );
    const sent = server.stats.filter('/v1/preview/models/m-nope/checkpoints');
    assert.deepStrictEqual(
      sent.map((r) => r.query),
      ['limit=1'],
    );
    assert.deepStrictEqual(a.checkpoints.models, ['m-run', 'm-two'], 'not added');
    assert.deepStrictEqual(a.globalState.get(RECENT), [], 'and not offered again');
    // From the prompt: the same words in a notification, and no question about where to save.
    const p = new Prompts().script({ type: 'm-nope', title: 'svc: Add a model' });
    await withPrompts(p, () => vscode.commands.executeCommand('svc.checkpoints.addModel'));
    p.assertDone();
    assert.match(p.messages('error')[0]!.title, new RegExp(`${host} has no model "m-nope" \\(404\\)`));
  });

  it('adds a model that has no checkpoints yet, and its row says so without another request', async () => {
    const a = await api();
    server.addCheckpoints('m-new', 0);
    await vscode.commands.executeCommand('svc.checkpoints.addModel', { modelId: 'm-new' });
    await waitFor('added', () => a.checkpoints.models.includes('m-new'));
    await waitFor('"no checkpoints yet"', () => a.checkpointsProvider.getTreeItem(modelRow(a, 'm-new')).description === 'no checkpoints yet', 3000);
    assert.deepStrictEqual(
      server.stats.filter('/v1/preview/models/m-new/checkpoints').map((r) => r.query),
      ['limit=1'],
    );
    assert.ok(a.globalState.get<string[]>(RECENT)!.includes('m-new'));
    await vscode.commands.executeCommand('svc.checkpoints.removeModel', { modelId: 'm-new' });
  });

  it("offers Remove Model on an unknown model's error row; it removes the model from the view and the recent list", async () => {
    const a = await api();
    await configure({ models: ['m-run', 'm-two', 'm-gone'] });
    await waitFor('in the view', () => a.checkpoints.models.includes('m-gone'));
    const [error] = await a.checkpointsProvider.getChildren(modelRow(a, 'm-gone'));
    assert.strictEqual(error!.kind, 'error');
    assert.match((error as { message: string }).message, /404/);
    const item = a.checkpointsProvider.getTreeItem(error!);
    assert.strictEqual(item.contextValue, 'svc.error.unknownModel');
    const menus = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON.contributes.menus['view/item/context'] as { command: string; when: string; group: string }[];
    assert.ok(
      menus.some((m) => m.command === 'svc.checkpoints.removeModel' && m.group === 'inline' && m.when.includes('viewItem == svc.error.unknownModel')),
      'Remove Model is a button on that row',
    );
    await a.globalState.update(RECENT, ['m-gone', 'm-run']);
    // The inline button: VS Code passes the row.
    const p = new Prompts().script(USER_SCOPE);
    await withPrompts(p, () => vscode.commands.executeCommand('svc.checkpoints.removeModel', error, [error]));
    p.assertDone();
    await waitFor('removed', () => !a.checkpoints.models.includes('m-gone'));
    assert.deepStrictEqual(a.globalState.get(RECENT), ['m-run'], 'gone from the recent models too');
  });

  it('drops a model from the recent list when an upload gets 404, and offers Remove Model', async () => {
    const a = await api();
    await configure({ models: ['m-run', 'm-two', 'm-lost'] });
    await waitFor('in the view', () => a.checkpoints.models.includes('m-lost'));
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-rows-')), 'rollouts.jsonl');
    fs.writeFileSync(file, JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1 }] }) + '\n');
    server.faults.add({ path: '/v1/preview/models/m-lost/log', kind: 'status', status: 404, body: { detail: 'Not Found' } });
    const p = new Prompts().answer(/^svc: upload to m-lost failed/, 'Remove Model').script(USER_SCOPE);
    await withPrompts(p, async () => {
      const report = await vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', { modelId: 'm-lost', split: 'train', files: [file] });
      assert.strictEqual(report.status, 'failed');
      await waitFor('removed from the view', () => !a.checkpoints.models.includes('m-lost'));
      p.assertDone();
    });
    const shown = p.messages('error')[0]!;
    assert.match(shown.title, /404/);
    assert.deepStrictEqual(shown.items, ['Remove Model', 'Retry Remaining', 'Show Log']);
    assert.ok(!a.globalState.get<string[]>(RECENT)!.includes('m-lost'), 'the upload remembered it, the 404 dropped it');
  });

  it('shows the metric of svc.checkpoints.metric in each row (default: the first reward-like one), every metric in the tooltip', async () => {
    const a = await api();
    const row = (await firstRow('m-run')) as Extract<CheckpointNode, { kind: 'checkpoint' }>;
    const metrics = row.checkpoint.metrics as Record<string, number>;
    const item = () => a.checkpointsProvider.getTreeItem(row);
    assert.strictEqual(item().description, `reward ${Number(metrics.reward!.toPrecision(4))}`);
    server.stats.clear();
    await configure({ 'checkpoints.metric': 'loss' });
    await waitFor('the setting', () => a.connection.config.checkpointsMetric === 'loss');
    assert.strictEqual(item().description, `loss ${Number(metrics.loss!.toPrecision(4))}`);
    assert.strictEqual(server.stats.count('/v1/preview/models/m-run/checkpoints'), 0, 'another metric loads nothing');
    await configure({ 'checkpoints.metric': 'val/reward' });
    await waitFor('the setting', () => a.connection.config.checkpointsMetric === 'val/reward');
    assert.strictEqual(item().description, 'val/reward —', 'a metric this checkpoint lacks');
    const tooltip = a.checkpointsProvider.resolveTreeItem(item(), row).tooltip as vscode.MarkdownString;
    for (const name of ['loss', 'reward', 'accuracy']) assert.match(tooltip.value, new RegExp(`\\| ${name} \\| `));
    await configure({ 'checkpoints.metric': '' });
  });

  it("keeps the model row's count right after Load More and after toggling the order", async () => {
    const a = await api();
    const model = modelRow(a, 'm-run');
    const told: (CheckpointNode | undefined)[] = [];
    const sub = a.checkpointsProvider.onDidChangeTreeData((e) => told.push(e));
    /** What VS Code does with the expanded model: render its row, resolve its children, and render again what it is told changed. */
    const shownCount = async () => {
      told.length = 0;
      a.checkpointsProvider.getTreeItem(model);
      await a.checkpointsProvider.getChildren(model);
      await waitFor('the model row to be re-rendered', () => told.some((e) => e === undefined || e === model), 3000);
      return a.checkpointsProvider.getTreeItem(model).description;
    };
    try {
      await vscode.commands.executeCommand('svc.checkpoints.refresh');
      assert.strictEqual(await shownCount(), '20+ checkpoints');
      const more = a.checkpointsProvider.childrenOf('m-run').at(-1)!;
      assert.strictEqual(more.kind, 'more');
      told.length = 0;
      await vscode.commands.executeCommand('svc.checkpoints.loadMore', more);
      assert.ok(told.some((e) => e === undefined || e === model));
      assert.strictEqual(a.checkpointsProvider.getTreeItem(model).description, '40+ checkpoints');
      await vscode.commands.executeCommand('svc.checkpoints.toggleOrder');
      assert.strictEqual(await shownCount(), '20+ checkpoints', 'after toggling the order');
      await vscode.commands.executeCommand('svc.checkpoints.toggleOrder');
      assert.strictEqual(await shownCount(), '20+ checkpoints', 'and back');
    } finally {
      sub.dispose();
    }
  });
});
