import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ReferenceServer } from '../../server';
import { startConnectProxy } from '../../server/connect-proxy';
import { configure, connect, endSuite, KEY, PROJECT, signIn, startServer, storeRevokedKey, waitFor } from './helpers';

describe('connection: configuration changes and auth failures', () => {
  let one: ReferenceServer;
  let two: ReferenceServer;
  before(async () => {
    one = await startServer();
    two = await startServer();
    one.seedThreads(PROJECT, 4, { threadIdPrefix: 'one-' });
    two.seedThreads(PROJECT, 2, { threadIdPrefix: 'two-' });
  });
  after(async () => {
    await endSuite(one, two);
  });

  it('rebuilds the client and drops caches when svc.baseUrl changes', async () => {
    const a = await connect(one);
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows[0]!.thread_id, 'one-3');
    const before = a.connection.client;
    await configure({ baseUrl: two.url });
    await waitFor('new client', () => a.connection.client !== before && a.connection.config.baseUrl === two.url);
    assert.strictEqual(a.threads.rows.length, 0, 'the old rows are gone');
    await signIn();
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    two.stats.clear(); // the sign-in's check
    const nodes = await a.threadsProvider.getChildren();
    assert.strictEqual(nodes.length, 2);
    assert.strictEqual(two.stats.count('/threads/stream_query'), 1);
  });

  it('uses svc.trainingBaseUrl for the model endpoints only, with the key signed in for that origin', async () => {
    const a = await connect(one, { models: ['m'] });
    two.addCheckpoints('m', 3);
    await configure({ trainingBaseUrl: two.url });
    await waitFor('training url', () => a.connection.config.trainingBaseUrl === two.url);
    // The key of one is not the key of two: sign in there (the approval of borrowing it is in trust.test.ts).
    await vscode.commands.executeCommand('svc.signIn', { apiKey: KEY, target: 'training' });
    two.stats.clear();
    one.stats.clear();
    await vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'm' });
    assert.strictEqual(a.checkpointsProvider.childrenOf('m').filter((n) => n.kind === 'checkpoint').length, 3);
    assert.strictEqual(two.stats.count('/v1/preview/models/m/checkpoints'), 1);
    assert.strictEqual(one.stats.count(), 0);
    await a.credentials.clear(new URL(two.url).origin);
    await configure({ trainingBaseUrl: undefined, models: undefined });
  });

  it('applies svc.requestTimeoutSeconds', async () => {
    const a = await connect(one, { requestTimeoutSeconds: 1 });
    await waitFor('timeout applied', () => a.connection.config.requestTimeoutSeconds === 1);
    one.faults.add({ path: '/threads/stream_query', kind: 'delay', ms: 10_000, times: 4 });
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes()[0]!;
    assert.strictEqual(node.kind, 'error');
    assert.match((node as { message: string }).message, /timed out/);
    one.faults.clear();
    await configure({ requestTimeoutSeconds: undefined });
  });

  it('turns a 401 into the auth-failed state with a sign-in offer, and recovers after signing in', async () => {
    const a = await connect(one);
    await storeRevokedKey('a-key-the-server-does-not-know');
    // Another view or panel still open from an earlier suite may ask first and find the key refused.
    await waitFor('signed in (with a bad key)', () => a.connection.state === 'signedIn' || a.connection.state === 'authFailed');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.connection.state, 'authFailed');
    assert.match(a.statusBar.item.text, /\$\(warning\)/);
    const node = a.threadsProvider.nodes()[0]!;
    assert.strictEqual(node.kind, 'error');
    assert.match((node as { message: string }).message, /401/);
    await signIn();
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 4);
  });

  it('refuses plain http to a non-loopback host unless svc.allowInsecureHttp is set', async () => {
    const a = await connect(one);
    await configure({ baseUrl: 'http://svc.example.invalid' });
    await waitFor('client', () => a.connection.config.baseUrl === 'http://svc.example.invalid');
    await signIn();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes()[0]!;
    assert.strictEqual(node.kind, 'error');
    assert.match((node as { message: string }).message, /Refusing to send credentials over plain http/);
    await configure({ allowInsecureHttp: true });
    await waitFor('insecure allowed', () => a.connection.config.allowInsecureHttp);
    await vscode.commands.executeCommand('svc.threads.refresh');
    const after = a.threadsProvider.nodes()[0]! as { message: string };
    assert.doesNotMatch(after.message, /Refusing/, 'with the setting the request is attempted');
    await configure({ allowInsecureHttp: undefined, baseUrl: one.url });
  });

  it('honours http.proxy for a remote service, and never sends loopback requests (and their keys) to it', async () => {
    // The service is on loopback; the proxy finds "svc.test" there. Plain http to a non-loopback
    // host needs svc.allowInsecureHttp.
    const proxy = await startConnectProxy({ resolve: () => '127.0.0.1' });
    const a = await connect(one);
    const http_ = vscode.workspace.getConfiguration('http');
    await http_.update('proxy', proxy.url, vscode.ConfigurationTarget.Global);
    await http_.update('noProxy', [], vscode.ConfigurationTarget.Global);
    try {
      await waitFor('proxy applied', () => vscode.workspace.getConfiguration('http').get('proxy') === proxy.url);
      await new Promise((r) => setTimeout(r, 200));
      one.stats.clear();
      await vscode.commands.executeCommand('svc.threads.refresh');
      assert.strictEqual(a.threads.rows.length, 4);
      assert.strictEqual(one.stats.last('/threads/stream_query')!.authScheme, 'basic');
      assert.deepStrictEqual(proxy.targets(), [], 'http://127.0.0.1 with Basic credentials went around the proxy');

      const remote = `http://svc.test:${new URL(one.url).port}`;
      await configure({ baseUrl: remote, allowInsecureHttp: true });
      await waitFor('remote base URL', () => a.connection.config.baseUrl === remote && a.connection.config.allowInsecureHttp);
      await vscode.commands.executeCommand('svc.signIn', { apiKey: KEY });
      await vscode.commands.executeCommand('svc.threads.refresh');
      assert.strictEqual(a.threads.rows.length, 4);
      assert.ok(proxy.tunnels() >= 1, 'the request to svc.test went through the CONNECT proxy');
      assert.ok(proxy.targets().every((t) => t.startsWith('svc.test:')), proxy.targets().join(', '));
    } finally {
      await http_.update('proxy', undefined, vscode.ConfigurationTarget.Global);
      await http_.update('noProxy', undefined, vscode.ConfigurationTarget.Global);
      await a.credentials.clear(new URL(`http://svc.test:${new URL(one.url).port}`).origin);
      await configure({ baseUrl: one.url, allowInsecureHttp: undefined });
      proxy.close();
    }
  });
});
