// The confirmation VS Code shows before one of svc's two write tools runs (issue 29, item 4). An
// agent outside a chat calls the tool through vscode.lm.invokeTool (here a helper extension,
// test/fixtures/tool-caller, installed beside the VSIX); VS Code asks the tool's prepareInvocation
// and shows its confirmationMessages in a modal dialog. The in-host suites cannot see that dialog
// (a workbench running extension tests answers yes without showing it), so this drives the real
// workbench: the dialog's title and text, Cancel sends nothing, the primary button sends once.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { startReferenceServer, type ReferenceServer } from '../server';
import { closeAfter, openVsixWorkbench, out, poll, root, type Workbench } from './helpers';

const KEY = 'ui-confirm-key-3b9d7c1e';
const PROJECT = 'acme/chatbot';

describe('UI: the confirmation VS Code shows before a write tool of svc runs (vscode.lm.invokeTool outside a chat)', function () {
  this.timeout(180_000);
  let server: ReferenceServer;
  let wb: Workbench;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ui-confirm-'));
  const workspace = path.join(tmp, 'workspace');
  const requestFile = path.join(tmp, 'request.json');
  const resultFile = path.join(tmp, 'result.json');
  const trajectories = path.join(workspace, '0003.jsonl');

  before(async () => {
    fs.mkdirSync(workspace);
    const t = (reward: number) => ({ messages_and_choices: [{ role: 'user', content: 'hi' }, { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'hello' } }], reward });
    fs.writeFileSync(trajectories, [JSON.stringify({ trajectories: [t(0.2), t(0.9)] }), JSON.stringify({ trajectories: [t(0.4), t(0.5)] })].join('\n') + '\n');
    const pack = spawnSync(path.join(root, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--skip-license', '--out', path.join(tmp, 'tool-caller.vsix')], { cwd: path.join(root, 'test', 'fixtures', 'tool-caller'), encoding: 'utf8' });
    assert.equal(pack.status, 0, `packaging the tool caller: ${pack.stdout}${pack.stderr}`);
    server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: 'ui-user' }] });
    server.addCheckpoints('agent-7b', 2);
    wb = await openVsixWorkbench({
      settings: { 'svc.baseUrl': server.url, 'svc.project': PROJECT, 'workbench.startupEditor': 'none' },
      env: { SVC_API_KEY: KEY, SVC_TOOL_CALLER_REQUEST: requestFile },
      extraVsix: [path.join(tmp, 'tool-caller.vsix')],
      workspace,
      viewport: { width: 1280, height: 800 },
    });
  });
  closeAfter(() => wb, async () => {
    await server?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Calls the tool through the helper, answers VS Code's dialog with `button`, and returns what it showed and how the call settled. */
  async function callAndAnswer(name: string, input: object, button: 'cancel' | 'primary', shot: string) {
    fs.rmSync(resultFile, { force: true });
    fs.writeFileSync(requestFile, JSON.stringify({ name, input, result: resultFile }));
    await wb.runCommand('svc tests: Invoke the Requested Tool', 60_000);
    const box = wb.page.locator('.monaco-dialog-box').last();
    await box.waitFor({ state: 'visible', timeout: 60_000 });
    const message = (await box.locator('.dialog-message-text').innerText()).trim();
    const detail = (await box.locator('.dialog-message-detail').innerText()).trim();
    const buttons = box.locator('.dialog-buttons .monaco-button');
    const labels = (await buttons.allInnerTexts()).map((b) => b.trim());
    await wb.screenshot(out(shot));
    const cancel = labels.indexOf('Cancel');
    assert.ok(cancel >= 0 && labels.length === 2, `a Cancel button and one other: ${JSON.stringify(labels)}`);
    await buttons.nth(button === 'cancel' ? cancel : 1 - cancel).click();
    await poll('the call to settle after the answer', async () => fs.existsSync(resultFile), (done) => done, 30_000);
    const outcome = JSON.parse(fs.readFileSync(resultFile, 'utf8')) as { status: string; text?: string; name?: string; message?: string };
    return { message, detail, labels, outcome };
  }

  it('svc_attach_feedback: the dialog names the host, the ref and the note; Cancel sends nothing, the other button stores it once', async () => {
    const ref = `svc:///${PROJECT}/call/turn-4`;
    const note = 'wrong tool picked at turn 4';
    const cancelled = await callAndAnswer('svc_attach_feedback', { ref, note }, 'cancel', 'confirm-feedback.png');
    assert.equal(cancelled.message, 'Attach feedback?');
    for (const part of [server.url, ref, note]) assert.ok(cancelled.detail.includes(part), `the dialog names ${part}: ${cancelled.detail}`);
    assert.deepEqual([cancelled.outcome.status, cancelled.outcome.name], ['rejected', 'Canceled'], JSON.stringify(cancelled.outcome));
    assert.equal(server.store.feedback.length, 0, 'Cancel: nothing sent');

    const accepted = await callAndAnswer('svc_attach_feedback', { ref, note }, 'primary', 'confirm-feedback-2.png');
    assert.equal(accepted.outcome.status, 'fulfilled', JSON.stringify(accepted.outcome));
    assert.match(accepted.outcome.text ?? '', /^Attached svc\.note\.1 feedback /);
    assert.equal(server.store.feedback.length, 1, 'stored once');
  });

  it('svc_upload_trajectories: the dialog names the host, model, split, groups and file; Cancel logs nothing, the other button logs the groups', async () => {
    const input = { files: [trajectories], modelId: 'agent-7b', split: 'train' };
    const cancelled = await callAndAnswer('svc_upload_trajectories', input, 'cancel', 'confirm-upload.png');
    assert.equal(cancelled.message, 'Upload trajectories?');
    assert.ok(cancelled.detail.includes(server.url), cancelled.detail);
    assert.match(cancelled.detail, /2 trajectory groups \(4 trajectories, \d+ B\) from 1 files to model agent-7b, split train/);
    assert.ok(cancelled.detail.includes(trajectories), cancelled.detail);
    assert.equal(cancelled.outcome.status, 'rejected');
    assert.equal(server.store.logs.length, 0, 'Cancel: nothing logged');

    const accepted = await callAndAnswer('svc_upload_trajectories', input, 'primary', 'confirm-upload-2.png');
    assert.equal(accepted.outcome.status, 'fulfilled', JSON.stringify(accepted.outcome));
    assert.ok(server.store.logs.length > 0, 'logged');
  });
});
