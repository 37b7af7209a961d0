// The one error presenter and the one Connection change event: what a user sees when a command
// fails (a notification from the presenter, never VS Code's "Error running command"), what a
// scripted caller gets (a rejection with the same readable message, and nothing opened), and
// what the Connection says when it changes.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { ErrorPresenter } from '../../../src/common/errors';
import { presentCommandErrors, registerCommand } from '../../../src/ui/commands';
import { Logger } from '../../../src/common/logger';
import type { ConnectionChange } from '../../../src/service/connection';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, PROJECT, resetSettings, signIn, signOut, startServer, storeRevokedKey, waitFor } from './helpers';
import { Prompts } from './prompts';

describe('presenter: every command failure reaches the user in one voice', () => {
  let log: Logger;
  const subs: vscode.Disposable[] = [];
  before(() => {
    // The registration and the presenter as the composition root wires them, in the test's own
    // copy of the modules (the extension's copy is exercised through its real commands below).
    log = new Logger('svc-test-presenter');
    subs.push(log, presentCommandErrors(new ErrorPresenter(log)));
    subs.push(
      registerCommand('svcTest.throwPlain', () => {
        throw new Error('the test command could not find /tmp/nowhere.jsonl line 3');
      }),
    );
  });
  after(() => {
    for (const d of subs.splice(0)) d.dispose();
  });

  it('a plain Error thrown by a command run by the user becomes the presenter message (with Show Log), and the command resolves', async () => {
    const p = new Prompts();
    try {
      const result = await vscode.commands.executeCommand('svcTest.throwPlain');
      assert.strictEqual(result, undefined);
      const shown = p.messages('error');
      assert.strictEqual(shown.length, 1, JSON.stringify(p.messages()));
      assert.strictEqual(shown[0]!.title, 'the test command could not find /tmp/nowhere.jsonl line 3');
      assert.deepStrictEqual(shown[0]!.items, ['Show Log']);
    } finally {
      p.dispose();
    }
  });

  it('the same command called with an arguments object rejects with the readable message and opens nothing', async () => {
    const p = new Prompts();
    try {
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svcTest.throwPlain', { file: 'x' })), /^Error: the test command could not find \/tmp\/nowhere\.jsonl line 3$/);
      assert.deepStrictEqual(p.messages(), []);
      assert.deepStrictEqual(p.prompts(), []);
    } finally {
      p.dispose();
    }
  });

  it("the extension's own commands: a refusal from a click is a notification naming what is wrong; from a script it is the rejection and nothing opens", async () => {
    await api();
    const p = new Prompts();
    try {
      // No thread selected: the click gets the presenter's notification, not an exception.
      assert.strictEqual(await vscode.commands.executeCommand('svc.threads.copyFirstTurnRef'), undefined);
      const shown = p.messages('error');
      assert.strictEqual(shown.length, 1, JSON.stringify(p.messages()));
      assert.match(shown[0]!.title, /select a thread in the Threads view first/);
      assert.ok(shown[0]!.items.includes('Show Log'));
      // Scripted: a readable rejection naming the field, and no notification or prompt.
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.checkpoints.addModel', { scope: 'user' })), /svc\.checkpoints\.addModel needs \{ modelId \}/);
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.checkpoints.toggleOrder', { order: 'up' })), /order must be "asc" or "desc", not "up"/);
      assert.strictEqual(p.messages().length, 1, JSON.stringify(p.messages()));
      assert.deepStrictEqual(p.prompts(), []);
    } finally {
      p.dispose();
    }
  });
});

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
