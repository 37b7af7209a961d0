// The Connection's one change event: what it says when the configuration changes (the setting
// before and after, and whether data was dropped) and when a working sign-in fails.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ConnectionChange } from '../../../src/service/connection';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, PROJECT, resetSettings, signIn, signOut, startServer, storeRevokedKey, waitFor } from './helpers';
import { Prompts } from './prompts';

describe('connection: one change event that says what changed', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 2);
  });
  after(async () => {
    await signOut();
    await resetSettings();
    await server.close();
  });

  async function record(during: () => Promise<void>, until: (events: ConnectionChange[]) => boolean): Promise<ConnectionChange[]> {
    const a = await api();
    const events: ConnectionChange[] = [];
    const sub = a.connection.onDidChange((e) => events.push(e));
    try {
      await during();
      await waitFor('the change events', () => until(events));
      return events;
    } finally {
      sub.dispose();
    }
  }

  it('a page size change carries the setting before and after and keeps data; a base URL change drops data', async () => {
    const a = await connect(server);
    const paged = await record(
      () => configure({ 'threads.pageSize': 7 }),
      (events) => events.some((e) => e.config?.after.threadsPageSize === 7),
    );
    const change = paged.find((e) => e.config)!;
    assert.strictEqual(change.data, false, 'the client, key and project did not change');
    assert.notStrictEqual(change.config!.before.threadsPageSize, 7);
    assert.strictEqual(change.authFailed, undefined);

    const other = await startServer();
    try {
      const moved = await record(
        () => configure({ baseUrl: other.url }),
        (events) => events.some((e) => e.data && e.config?.after.baseUrl === other.url),
      );
      assert.ok(moved.every((e) => !e.authFailed));
    } finally {
      await configure({ baseUrl: server.url, 'threads.pageSize': undefined });
      await waitFor('back', () => a.connection.config.baseUrl === server.url);
      await other.close();
    }
  });

  it('a 401 after a working sign-in fires once with authFailed, and the presenter (not the Connection) offers Sign In Again', async () => {
    const a = await connect(server);
    await storeRevokedKey('a-key-the-service-does-not-know');
    await waitFor('signed in (bad key)', () => a.connection.state === 'signedIn');
    const p = new Prompts();
    try {
      const events = await record(
        async () => {
          await vscode.commands.executeCommand('svc.threads.refresh');
          await vscode.commands.executeCommand('svc.threads.refresh');
        },
        (e) => e.some((c) => c.authFailed),
      );
      const failed = events.filter((e) => e.authFailed);
      assert.strictEqual(failed.length, 1, 'once per failure of a working sign-in');
      assert.strictEqual(failed[0]!.data, false, 'the views keep their rows');
      assert.strictEqual(failed[0]!.authFailed!.error.status, 401);
      assert.strictEqual(a.connection.state, 'authFailed');
      await waitFor('the offer', () => p.messages('error').some((m) => m.items.includes('Sign In Again')));
      assert.strictEqual(p.messages('error').filter((m) => m.items.includes('Sign In Again')).length, 1);
    } finally {
      p.dispose();
      await signIn();
      await waitFor('signed in', () => a.connection.state === 'signedIn');
    }
  });
});
