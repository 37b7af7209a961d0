import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CheckpointNode } from '../../../src/checkpoints/provider';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, endSuite, startServer, waitFor } from './helpers';

const steps = (nodes: CheckpointNode[]) => nodes.filter((n) => n.kind === 'checkpoint').map((n) => (n as { checkpoint: { step: number } }).checkpoint.step);

describe('checkpoints view', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    server.addCheckpoints('m-small', 45, { stepSize: 10 }); // steps 10..450
    server.addCheckpoints('m-empty', 0);
    await connect(server, { models: [], 'checkpoints.pageSize': 20 });
    await vscode.commands.executeCommand('svc.checkpoints.toggleOrder', { order: 'desc' });
  });
  beforeEach(() => server.faults.clear());
  after(async () => {
    await endSuite(server);
  });

  it('shows the add-model welcome state with no models, then a node per model', async () => {
    const a = await api();
    assert.strictEqual(a.connection.contextKeys['svc.hasModels'], false);
    assert.deepStrictEqual(await a.checkpointsProvider.getChildren(), []);
    await vscode.commands.executeCommand('svc.checkpoints.addModel', { modelId: 'm-small' });
    await vscode.commands.executeCommand('svc.checkpoints.addModel', { modelId: 'm-empty' });
    await waitFor('models', () => a.checkpoints.models.length === 2);
    assert.deepStrictEqual(vscode.workspace.getConfiguration('svc').get('models'), ['m-small', 'm-empty']);
    assert.strictEqual(a.connection.contextKeys['svc.hasModels'], true);
    const roots = await a.checkpointsProvider.getChildren();
    assert.deepStrictEqual(roots.map((r) => r.kind === 'model' && r.modelId), ['m-small', 'm-empty']);
    assert.strictEqual(a.checkpointsProvider.getTreeItem(roots[0]!).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
  });

  it('pages by cursor with "Load more", newest first, until the end', async () => {
    const a = await api();
    server.stats.clear();
    const model: CheckpointNode = { kind: 'model', modelId: 'm-small' };
    let children = await a.checkpointsProvider.getChildren(model);
    assert.deepStrictEqual(steps(children).slice(0, 3), [450, 440, 430]);
    assert.strictEqual(steps(children).length, 20);
    assert.strictEqual(children.at(-1)!.kind, 'more');
    await Promise.all([
      vscode.commands.executeCommand('svc.checkpoints.loadMore', children.at(-1)),
      vscode.commands.executeCommand('svc.checkpoints.loadMore', children.at(-1)),
    ]);
    await vscode.commands.executeCommand('svc.checkpoints.loadMore', { modelId: 'm-small' });
    children = a.checkpointsProvider.childrenOf('m-small');
    const all = steps(children);
    assert.strictEqual(all.length, 45);
    assert.strictEqual(new Set(all).size, 45);
    assert.deepStrictEqual(all, [...all].sort((x, y) => y - x));
    assert.strictEqual(children.at(-1)!.kind, 'checkpoint', 'no "Load more" after the last page');
    const queries = server.stats.filter('/v1/preview/models/m-small/checkpoints').map((r) => r.query);
    assert.strictEqual(queries.length, 3, queries.join(' | '));
    assert.match(queries[1]!, /after=/);
  });

  it('toggles the order to oldest first, kept in workspaceState', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.checkpoints.toggleOrder');
    await waitFor('asc', () => a.checkpoints.order === 'asc');
    assert.strictEqual(a.workspaceState.get('svc.checkpoints.order'), 'asc', 'view state, not a setting');
    const children = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-small' });
    assert.deepStrictEqual(steps(children).slice(0, 3), [10, 20, 30]);
    await vscode.commands.executeCommand('svc.checkpoints.toggleOrder', { order: 'desc' });
    await waitFor('desc', () => a.checkpoints.order === 'desc');
  });

  it('shows step, the reward-like metric and a tooltip with every metric', async () => {
    const a = await api();
    const children = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-small' });
    const node = children[0]!;
    const item = a.checkpointsProvider.getTreeItem(node);
    assert.strictEqual(item.label, 'step 450');
    assert.match(String(item.description), /^reward \d\.\d{1,4}$/, 'svc.checkpoints.metric empty: the first reward-like metric, rounded');
    const resolved = a.checkpointsProvider.resolveTreeItem(item, node);
    const md = resolved.tooltip as vscode.MarkdownString;
    assert.strictEqual(md.isTrusted, false);
    for (const key of Object.keys((node as { checkpoint: { metrics: object } }).checkpoint.metrics)) assert.ok(md.value.includes(key.replace(/_/g, '\\_')), key);
    const id = await vscode.commands.executeCommand<string>('svc.checkpoints.copyId', node);
    assert.strictEqual(await vscode.env.clipboard.readText(), id);
  });

  it('says when a model has no checkpoints, and shows errors with a retry', async () => {
    const a = await api();
    const empty = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-empty' });
    assert.deepStrictEqual(empty.map((n) => n.kind), ['empty']);
    // Known when added (Add Model checks), gone since: set in the settings directly.
    await configure({ models: [...a.checkpoints.models, 'm-missing'] });
    await waitFor('model added', () => a.checkpoints.models.includes('m-missing'));
    const missing = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-missing' });
    assert.strictEqual(missing[0]!.kind, 'error');
    assert.match((missing[0] as { message: string }).message, /404/);
    await vscode.commands.executeCommand('svc.checkpoints.removeModel', { modelId: 'm-missing' });
    await waitFor('model removed', () => !a.checkpoints.models.includes('m-missing'));
  });

  it('retries a 429 on its own', async () => {
    const a = await api();
    server.faults.add({ path: '/v1/preview/models/m-small/checkpoints', kind: 'status', status: 429, retryAfter: '0' });
    await vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'm-small' });
    assert.strictEqual(steps(a.checkpointsProvider.childrenOf('m-small')).length, 20);
  });

  it('remembers added models for the quick pick', async () => {
    const a = await api();
    const recent = a.globalState.get<string[]>('svc.recentModels')!;
    assert.ok(recent.includes('m-small') && recent.includes('m-empty'));
  });

  it('keeps loaded pages through a configuration event that changes nothing', async () => {
    const a = await api();
    await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-small' });
    const loaded = a.checkpoints.state('m-small').items.length;
    assert.ok(loaded > 0);
    server.stats.clear();
    // A configuration event that leaves every value as it is: the user's page size of 20 removed,
    // leaving the default 20.
    const svc = vscode.workspace.getConfiguration('svc');
    assert.strictEqual(svc.inspect('checkpoints.pageSize')?.globalValue, 20);
    let events = 0;
    const sub = vscode.workspace.onDidChangeConfiguration((e) => (events += e.affectsConfiguration('svc.checkpoints') ? 1 : 0));
    await svc.update('checkpoints.pageSize', undefined, vscode.ConfigurationTarget.Global);
    await svc.update('checkpoints.pageSize', 20, vscode.ConfigurationTarget.Global);
    await new Promise((r) => setTimeout(r, 300));
    sub.dispose();
    assert.ok(events >= 1, `the host fired ${events} configuration events`);
    assert.strictEqual(a.checkpoints.state('m-small').items.length, loaded, 'the loaded checkpoints were kept');
    await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-small' });
    assert.strictEqual(server.stats.count('/v1/preview/models/m-small/checkpoints'), 0, 'nothing reloaded');
  });

  it('reloads when the page size changes', async () => {
    const a = await api();
    await configure({ 'checkpoints.pageSize': 7 });
    await waitFor('page size', () => a.connection.config.checkpointsPageSize === 7);
    const children = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-small' });
    assert.strictEqual(steps(children).length, 7);
  });
});
