// The one error presenter: what a user sees when a command fails (a notification from the
// presenter, never VS Code's "Error running command"), and what a scripted caller gets (a rejection
// with the same readable message, and nothing opened). The Connection's change event is
// connectionChange.test.ts.
import * as assert from 'assert';
import * as vscode from 'vscode';
import { ErrorPresenter } from '../../../src/common/errors';
import { commandsPresentedBy } from '../../../src/ui/commands';
import { hostPrompts } from '../../../src/ui/prompts';
import { Logger } from '../../../src/common/logger';
import { api } from './helpers';
import { Prompts } from './prompts';

describe('presenter: every command failure reaches the user in one voice', () => {
  let log: Logger;
  const subs: vscode.Disposable[] = [];
  before(() => {
    // The registration and the presenter as the composition root wires them, in the test's own
    // copy of the modules (the extension's copy is exercised through its real commands below).
    log = new Logger('svc-test-presenter');
    subs.push(log);
    subs.push(
      commandsPresentedBy(new ErrorPresenter(log, hostPrompts())).register('svcTest.throwPlain', () => {
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
