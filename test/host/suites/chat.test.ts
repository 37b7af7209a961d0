// The chat of the current VS Code (issue 29, item 4): the skill VS Code registers from
// contributes.chatSkills, and the confirmation VS Code shows before one of our write tools runs.
// Feature-detected: on VS Code 1.100 (engines.vscode) the skill's contribution point does not exist
// and the extension runs as before.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { TOOLS } from '../../../src/agents/core/tools';
import { atLeast } from '../../../src/boot/version';
import { dump, GROUP, TRAJECTORY } from '../../fixtures/art/producers';
import type { ReferenceServer } from '../../server';
import { api, boot, endSuite, EXTENSION_ID, PROJECT, startWithModel } from './helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-chat-'));

function invoke(name: string, input: object): Thenable<vscode.LanguageModelToolResult> {
  return vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
}
const text = (r: vscode.LanguageModelToolResult) => r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');

/** Two groups of ART's dump with rewards that differ. */
function trajectoryFile(): string {
  const file = path.join(dir, '0007.jsonl');
  const t = dump(TRAJECTORY);
  const groups = [0, 1].map((i) => ({ ...dump(GROUP), trajectories: [{ ...t, reward: 0.1 + i }, { ...t, reward: 0.6 + i }], exceptions: [] }));
  fs.writeFileSync(file, groups.map((g) => JSON.stringify(g)).join('\n') + '\n');
  return file;
}

describe('chat today: skills and the confirmation of write tools', function () {
  this.timeout(90_000);
  let server: ReferenceServer;
  before(async () => {
    server = await startWithModel('agent-7b', 3);
  });
  after(async () => {
    await endSuite(server);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('1.139 registers the diagnose-art-run skill from contributes.chatSkills; 1.100 has no skills and runs the extension as before', async () => {
    const commands = await vscode.commands.getCommands(false); // with the internal (_) ones
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    if (atLeast(vscode.version, 1, 139)) {
      assert.ok(commands.includes('_listExtensionPromptFiles'), 'VS Code 1.139 lists the prompt files extensions contribute');
      const files = await vscode.commands.executeCommand<{ uri: { path: string }; type: string; extensionId: string }[]>('_listExtensionPromptFiles');
      const ours = files.filter((f) => f.extensionId.toLowerCase() === EXTENSION_ID);
      assert.deepStrictEqual(
        ours.map((f) => [f.type, path.relative(ext.extensionUri.path, f.uri.path)]),
        [['skill', 'skills/diagnose-art-run/SKILL.md']],
        JSON.stringify(files),
      );
    } else {
      assert.ok(!atLeast(vscode.version, 1, 101), `VS Code ${vscode.version}: this suite knows 1.100 and 1.139`);
      assert.ok(!commands.includes('_listExtensionPromptFiles'), 'VS Code 1.100 has no contributed skills');
    }
    assert.ok(ext.isActive, 'the extension is active');
    assert.strictEqual(vscode.lm.tools.filter((t) => t.name.startsWith('svc_')).length, TOOLS.length, `its ${TOOLS.length} tools are registered`);
  });

  // VS Code, called outside a chat (vscode.lm.invokeTool with no toolInvocationToken), asks the
  // tool's prepareInvocation and, when it returns confirmationMessages with a title, shows them in a
  // modal dialog (dialogService.confirm) before invoke: 1.100 and 1.139 alike. A workbench that runs
  // extension tests answers every such dialog with yes without showing it ("refused to show
  // confirmation dialog in tests"), so here the proof is the order of the calls and what VS Code was
  // handed; the UI suite (toolConfirmation.ui.test.ts) shows the dialog itself and clicks Cancel.
  async function callThroughVsCode(tool: string, input: object): Promise<{ prepared: vscode.PreparedToolInvocation; result: string; phases: string[] }> {
    const calls = (await boot()).toolCalls;
    const from = calls.length;
    const result = text(await invoke(tool, input));
    const ours = calls.slice(from).filter((e) => e.tool === tool);
    const prepare = ours.find((e) => e.phase === 'prepare');
    assert.ok(prepare && prepare.phase === 'prepare' && prepare.prepared, `VS Code asked ${tool}'s prepareInvocation: ${JSON.stringify(ours)}`);
    return { prepared: prepare.prepared, result, phases: ours.map((e) => e.phase) };
  }

  it('svc_attach_feedback through vscode.lm.invokeTool: VS Code takes our confirmation (title, host, ref, note) before it invokes', async () => {
    await api();
    const ref = `svc:///${PROJECT}/call/turn-1`;
    const before = server.store.feedback.length;
    const { prepared, result, phases } = await callThroughVsCode('svc_attach_feedback', { ref, note: 'the answer ignored the refund policy' });
    assert.deepStrictEqual(phases, ['prepare', 'invoke'], 'the confirmation first, then the call');
    const c = prepared.confirmationMessages!;
    assert.strictEqual(c.title, 'Attach feedback?');
    const message = typeof c.message === 'string' ? c.message : c.message.value;
    for (const part of [server.url, ref, 'the answer ignored the refund policy']) assert.ok(message.includes(part), `the confirmation names ${part}: ${message}`);
    assert.match(result, /^Attached svc\.note\.1 feedback /);
    assert.strictEqual(server.store.feedback.length, before + 1, 'stored once, after the confirmation');
  });

  it('svc_upload_trajectories through vscode.lm.invokeTool: VS Code takes our confirmation (title, host, model, split, groups) before it invokes', async () => {
    await api();
    const file = trajectoryFile();
    const before = server.store.logs.length;
    const { prepared, phases } = await callThroughVsCode('svc_upload_trajectories', { files: [file], modelId: 'agent-7b', split: 'train' });
    assert.deepStrictEqual(phases, ['prepare', 'invoke']);
    const c = prepared.confirmationMessages!;
    assert.strictEqual(c.title, 'Upload trajectories?');
    const message = typeof c.message === 'string' ? c.message : c.message.value;
    assert.ok(message.includes(server.url), message);
    assert.match(message, /2 trajectory groups \(4 trajectories, [\d.]+ KB\) from 1 files to model agent-7b, split train/);
    assert.ok(server.store.logs.length > before, 'logged after the confirmation');
  });

  it('read tools hand VS Code an invocation message and no confirmation', async () => {
    const { prepared, result } = await callThroughVsCode('svc_list_checkpoints', { modelId: 'agent-7b' });
    assert.strictEqual(prepared.confirmationMessages, undefined);
    assert.ok(prepared.invocationMessage);
    assert.match(result, /^Model "agent-7b": 3 checkpoints/);
  });
});
