// Runs first: the extension is activated here, after the settings point it at a live service,
// to prove that activation itself sends nothing over the network.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ReferenceServer } from '../../server';
import { api, configure, EXTENSION_ID, KEY, PROJECT, resetSettings, startServer } from './helpers';

describe('activation', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 10);
    server.addCheckpoints('m1', 5);
    process.env.SVC_API_KEY = KEY;
    await configure({ baseUrl: server.url, project: PROJECT, models: ['m1'] });
  });
  after(async () => {
    delete process.env.SVC_API_KEY;
    await resetSettings();
    await server.close();
  });

  it('activates without a single network request, even when configured and signed in', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    assert.strictEqual(ext.isActive, false, 'another suite activated the extension first');
    const t0 = performance.now();
    const a = await api();
    const wallMs = performance.now() - t0;
    // A baseline in the same host: a built-in extension's activation, timed the same way.
    const candidates = ['vscode.markdown-language-features', 'vscode.references-view', 'vscode.merge-conflict', 'vscode.extension-editing', 'vscode.emmet'];
    const builtin = candidates.map((id) => vscode.extensions.getExtension(id)).find((e) => e && !e.isActive);
    let baseline = 'n/a';
    if (builtin) {
      const b0 = performance.now();
      await builtin.activate();
      baseline = (performance.now() - b0).toFixed(1);
    }
    console.log(`      activation wall ${wallMs.toFixed(1)} ms (baseline ${builtin?.id ?? 'none'} ${baseline} ms)`);
    await new Promise((r) => setTimeout(r, 500));
    assert.strictEqual(server.stats.count(), 0, `requests: ${JSON.stringify(server.stats.requests)}`);
    assert.strictEqual(a.connection.state, 'signedIn');
    assert.strictEqual(a.connection.source, 'environment');
    console.log(`      activation took ${a.activationMs.toFixed(1)} ms inside activate()`);
  });

  it('contributes the views, the palette commands and the settings', async () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    const views = pkg.contributes.views.svc.map((v: { id: string }) => v.id);
    assert.deepStrictEqual(views, ['svc.threads', 'svc.checkpoints']);
    const all = await vscode.commands.getCommands(true);
    for (const c of ['svc.signIn', 'svc.signOut', 'svc.threads.refresh', 'svc.threads.sortBy', 'svc.threads.filter', 'svc.checkpoints.addModel', 'svc.selectProject', 'svc.showLog']) {
      assert.ok(all.includes(c), `${c} is not registered`);
    }
    const hidden = pkg.contributes.menus.commandPalette.filter((m: { when: string }) => m.when === 'false').map((m: { command: string }) => m.command);
    assert.ok(hidden.includes('svc.threads.loadMore') && hidden.includes('svc.checkpoints.loadMore'));
    const cfg = vscode.workspace.getConfiguration('svc');
    assert.strictEqual(cfg.inspect('threads.pageSize')!.defaultValue, 50);
    assert.strictEqual(cfg.inspect('checkpoints.pageSize')!.defaultValue, 20);
    // Sort and order are view state (workspaceState), not settings a repository could carry.
    const settings = Object.keys(pkg.contributes.configuration.properties);
    assert.ok(!settings.includes('svc.threads.sortBy') && !settings.includes('svc.checkpoints.order'), settings.join(', '));
  });
});
