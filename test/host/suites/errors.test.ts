// Errors that leave the user a next step: what the message names, the buttons it offers, the
// status bar after a 401, and recent lists that forget what the service refused.
import * as assert from 'assert';
import * as net from 'net';
import * as vscode from 'vscode';
import { callRef } from '../../../src/api/refs';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, endSuite, PROJECT, signIn, startServer, storeRevokedKey, waitFor } from './helpers';
import { Prompts } from './prompts';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe('errors: what they say and the next step they offer', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 3, { turnsPerThread: 2 });
    await connect(server);
  });
  beforeEach(() => server.faults.clear());
  after(async () => {
    await endSuite(server);
  });

  it('"could not connect" names host and port, ends in one period, and offers Retry, Open Settings and Show Log', async () => {
    const a = await api();
    const port = await closedPort();
    await configure({ baseUrl: `http://127.0.0.1:${port}`, requestTimeoutSeconds: 2 });
    await waitFor('the new client', () => a.connection.config.baseUrl.endsWith(`:${port}`) && !!a.connection.client);
    await signIn();
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    const p = new Prompts();
    try {
      // A ref link's click (interactive): the failure is shown, not thrown.
      p.script({ pick: 'Note' }, { type: 'unreachable' });
      await vscode.commands.executeCommand('svc.attachFeedback', { ref: callRef(PROJECT, 'thread-0-turn-0'), via: 'link' });
      await waitFor('the error', () => p.messages('error').length > 0, 20_000);
      const shown = p.messages('error')[0]!;
      assert.match(shown.title, new RegExp(`could not connect to 127\\.0\\.0\\.1:${port} \\(connection refused\\)`));
      assert.doesNotMatch(shown.title, /\.\./, 'no doubled period');
      assert.deepStrictEqual(shown.items, ['Retry', 'Open Settings', 'Show Log']);
      // The Threads view's message row takes the user to the setting too.
      await vscode.commands.executeCommand('svc.threads.refresh');
      const node = a.threadsProvider.nodes()[0]!;
      assert.strictEqual(node.kind, 'error');
      const item = a.threadsProvider.getTreeItem(node);
      assert.strictEqual(item.command?.command, 'workbench.action.openSettings');
      assert.deepStrictEqual(item.command?.arguments, ['svc.baseUrl']);
      assert.match(String(item.description), new RegExp(`127\\.0\\.0\\.1:${port}`));
    } finally {
      p.dispose();
      await configure({ baseUrl: server.url, requestTimeoutSeconds: undefined });
      await waitFor('back to the server', () => a.connection.config.baseUrl === server.url);
      await signIn();
      await waitFor('signed in', () => a.connection.state === 'signedIn');
    }
  });

  it('Retry on a failed feedback sends it again with the same id: one row, not two', async () => {
    const ref = callRef(PROJECT, 'thread-1-turn-0');
    server.faults.add({ path: '/feedback/create', kind: 'status-after-processing', status: 503, times: 4 }); // every attempt of the first send (maxAttempts 4)
    const p = new Prompts().script({ pick: 'Note' }, { type: 'try again please' });
    let retried = false;
    p.answer(/^Could not attach feedback/, () => {
      if (retried) return undefined;
      retried = true;
      return 'Retry';
    });
    try {
      await vscode.commands.executeCommand('svc.attachFeedback', { ref, via: 'link' });
      await waitFor('the retried feedback', () => p.messages('info').some((m) => /created at/.test(m.title)), 20_000);
    } finally {
      p.dispose();
    }
    const rows = server.store.feedback.filter((r) => r.svc_ref === ref);
    assert.strictEqual(rows.length, 1, 'the retry reused the id');
    assert.deepStrictEqual(p.messages('error')[0]!.items, ['Retry', 'Show Log']);
  });

  it('after a 401 the status bar item signs in, as its tooltip says; once signed in it selects the project again', async () => {
    const a = await api();
    assert.strictEqual(a.statusBar.item.command, 'svc.selectProject');
    await storeRevokedKey('a-key-the-service-does-not-know');
    await waitFor('signed in (revoked key)', () => a.connection.state === 'signedIn');
    const p = new Prompts();
    try {
      await vscode.commands.executeCommand('svc.threads.refresh');
      await waitFor('auth failed', () => a.connection.state === 'authFailed');
    } finally {
      p.dispose();
    }
    assert.strictEqual(a.statusBar.item.command, 'svc.signIn');
    assert.match((a.statusBar.item.tooltip as vscode.MarkdownString).value, /Click to sign in\.$/);
    const item = a.threadsProvider.getTreeItem(a.threadsProvider.nodes()[0]!);
    assert.strictEqual(item.command?.command, 'svc.signIn', 'the message row signs in too');
    await signIn();
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    assert.strictEqual(a.statusBar.item.command, 'svc.selectProject');
    assert.match((a.statusBar.item.tooltip as vscode.MarkdownString).value, /Click to select the project\.$/);
  });

  it('recent lists drop a project the service refused and a model it does not know', async () => {
    const a = await api();
    await a.globalState.update('svc.recentProjects', ['acme/locked', PROJECT, 'acme/other']);
    await a.globalState.update('svc.recentModels', ['ghost-model', 'm-real']);
    server.addCheckpoints('m-real', 2);
    server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 403, body: { reason: 'No access to acme/locked' } });
    await vscode.commands.executeCommand('svc.selectProject', { projectId: 'acme/locked' });
    await waitFor('project', () => a.threads.project === 'acme/locked');
    await vscode.commands.executeCommand('svc.threads.refresh');
    await waitFor('forgotten', () => !a.globalState.get<string[]>('svc.recentProjects')!.includes('acme/locked'));
    assert.deepStrictEqual(a.globalState.get<string[]>('svc.recentProjects'), [PROJECT, 'acme/other']);
    // A 5xx says nothing about the project: it stays.
    server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 500 });
    await vscode.commands.executeCommand('svc.selectProject', { projectId: PROJECT });
    await waitFor('project back', () => a.threads.project === PROJECT);
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.ok(a.globalState.get<string[]>('svc.recentProjects')!.includes(PROJECT));

    await configure({ models: ['ghost-model', 'm-real'] });
    await waitFor('models', () => a.checkpoints.models.length === 2);
    await vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'm-real' });
    await vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'ghost-model' });
    await waitFor('model forgotten', () => !a.globalState.get<string[]>('svc.recentModels')!.includes('ghost-model'));
    assert.deepStrictEqual(a.globalState.get<string[]>('svc.recentModels'), ['m-real']);
    await configure({ models: undefined });
  });
});
