// The rule every command keeps: called with an arguments object (a script, an agent, another
// extension), it does the work or rejects with a readable error, and never opens a prompt. This
// suite calls every command of package.json so, with two objects it does not expect, and records
// every prompt (quick pick, input box, open or save dialog, modal question) that opens.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ReferenceServer } from '../../server';
import { connect, endSuite, EXTENSION_ID, startServer } from './helpers';
import { Prompts } from './prompts';

const SETTLE_MS = 20_000;

describe('scripted calls: every command, given an arguments object, opens no prompt', function () {
  this.timeout(600_000);
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    server.seedThreads('acme/chatbot', 3);
    server.addCheckpoints('m-scripted', 3);
    await connect(server, { models: ['m-scripted'] });
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await endSuite(server);
  });

  it('resolves or rejects for {} and for an object of unknown fields, with no quick pick, input box, dialog or modal', async () => {
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { commands: { command: string }[] } };
    // Signing out last keeps the others' calls signed in, where they do the most.
    const commands = manifest.contributes.commands.map((c) => c.command).sort((a, b) => Number(a === 'svc.signOut') - Number(b === 'svc.signOut'));
    assert.ok(commands.length >= 30, `${commands.length} commands`);
    const offenders: string[] = [];
    for (const command of commands) {
      for (const args of [{}, { unexpectedField: 'value' }]) {
        const p = new Prompts();
        const saves: string[] = [];
        const w = vscode.window as unknown as Record<string, unknown>;
        const save = w.showSaveDialog;
        w.showSaveDialog = (o?: vscode.SaveDialogOptions) => {
          saves.push(o?.title ?? 'save dialog');
          return Promise.resolve(undefined);
        };
        let timer: NodeJS.Timeout | undefined;
        try {
          const outcome = await Promise.race([
            Promise.resolve(vscode.commands.executeCommand(command, args)).then(
              () => 'settled',
              () => 'settled',
            ),
            new Promise<string>((resolve) => (timer = setTimeout(() => resolve('unsettled'), SETTLE_MS))),
          ]);
          const opened = [...p.prompts().map((s) => `${s.kind} "${s.title}"`), ...p.modals().map((s) => `modal "${s.title}"`), ...saves.map((t) => `save dialog "${t}"`)];
          if (outcome !== 'settled') opened.push(`no answer in ${SETTLE_MS / 1000} s`);
          if (opened.length) offenders.push(`${command} ${JSON.stringify(args)}: ${opened.join(', ')}`);
        } finally {
          clearTimeout(timer);
          w.showSaveDialog = save;
          p.dispose();
        }
      }
    }
    assert.deepStrictEqual(offenders, [], 'commands that opened a prompt for an arguments object');
  });
});
