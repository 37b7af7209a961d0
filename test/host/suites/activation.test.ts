// Runs first: the extension is activated here, after the settings point it at a live service,
// to prove that activation itself sends nothing over the network.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ReferenceServer } from '../../server';
import * as fs from 'fs';
import * as path from 'path';
import { boot, configure, EXTENSION_ID, KEY, PROJECT, resetSettings, startServer } from './helpers';

/** The activation baseline: a fixed built-in extension, activated and timed the same way. */
const BASELINE = 'vscode.markdown-language-features';

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
    const b = await boot();
    const wallMs = performance.now() - t0;
    const builtin = vscode.extensions.getExtension(BASELINE);
    let baseline = 'n/a';
    if (builtin && !builtin.isActive) {
      const b0 = performance.now();
      await builtin.activate();
      baseline = (performance.now() - b0).toFixed(1);
    }
    console.log(`      activation wall ${wallMs.toFixed(1)} ms (baseline ${BASELINE} ${baseline} ms)`);
    console.log(`      activation took ${b.activationMs.toFixed(1)} ms inside activate()`);
    // activate() loaded only the activation bundle: the core (HTTP client, schemas) is not in it.
    const bundle = path.join(ext.extensionPath, 'dist', 'extension.js');
    const text = fs.readFileSync(bundle, 'utf8');
    assert.ok(!/llhttp|ZodType|\$ZodObject/.test(text), 'the activation bundle holds undici or zod');
    const c0 = performance.now();
    // The first use: a contributed command's stand-in loads the core and passes the call on to the
    // real command (a gap between the two would reject with "command not found").
    await vscode.commands.executeCommand('svc.showLog');
    const a = await b.core();
    console.log(`      core loaded on first use in ${(performance.now() - c0).toFixed(1)} ms (${a.composeMs.toFixed(1)} ms composing); activation bundle ${(fs.statSync(bundle).size / 1024).toFixed(1)} KiB`);
    // Activation has finished: b.core() resolved with what compose() returned after its last step.
    // A marker on the extension's own HTTP client, sent now: a request activation started went out
    // on that client before it, so the service sees it first. The marker must be the only request.
    await a.connection.client!.models.listCheckpoints('m1', { limit: 1 });
    const seen = server.stats.requests.map((r) => `${r.method} ${r.path}?${r.query}`);
    assert.deepStrictEqual(seen, ['GET /v1/preview/models/m1/checkpoints?limit=1'], 'activation sent no request: the marker is the first and only one the service saw');
    assert.strictEqual(a.connection.state, 'signedIn');
    assert.strictEqual(a.connection.source, 'environment');
  });

  it('contributes the views, the palette commands and the settings', async () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
    const views = pkg.contributes.views.svc.map((v: { id: string }) => v.id);
    assert.deepStrictEqual(views, ['svc.threads', 'svc.checkpoints', 'svc.runs']);
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
