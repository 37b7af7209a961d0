// Issue 19: the promises that need a real VS Code. 5: a file edited during its upload stops the
// upload, and the report says exactly what was sent. 6: each failed upload keeps its own Retry
// Remaining plan, acted on by its own notification's button. 12: links in a trajectory file are text.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { UploadReport } from '../../../src/trajectories/report';
import { api, waitFor } from './helpers';
import { numberedGroup, numberedJsonl } from '../../fixtures/trajectories/numbered';
import { Prompts } from './prompts';
import { serverHooks } from './setups';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-promises-'));

const line = (i: number) => JSON.stringify(numberedGroup(i));
function writeJsonl(name: string, n: number, first = 0): vscode.Uri {
  const file = path.join(dir, name);
  fs.writeFileSync(file, numberedJsonl(n, first));
  return vscode.Uri.file(file);
}
const upload = (uri: vscode.Uri, options: Record<string, unknown>) => vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', uri, [uri], options);

describe('issue 19: promises under attack (in VS Code)', function () {
  this.timeout(120_000);
  const s = serverHooks();
  const logged = (model: string) =>
    s.server.store.logs.filter((l) => l.modelId === model).flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { group: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.group));

  const EDITS: [string, (lines: string[]) => string[]][] = [
    ['the first line deleted', (l) => l.slice(1)],
    ['the file truncated to half', (l) => l.slice(0, l.length / 2)],
    ['a line inserted at the top', (l) => [line(99_999), ...l]],
  ];
  for (const [what, edit] of EDITS) {
    it(`5. a 4,000-group file edited during its upload (${what}) stops the upload; the report says exactly what was sent, nothing missing or twice`, async () => {
      const model = `model-edit-${EDITS.findIndex((e) => e[0] === what)}`;
      const uri = writeJsonl(`edited-${model}.jsonl`, 4000);
      const original = fs.readFileSync(uri.fsPath, 'utf8').split('\n').filter(Boolean);
      s.server.faults.add({ path: `/v1/preview/models/${model}/log`, kind: 'delay', ms: 40, times: 1000 });
      const running = upload(uri, { modelId: model, split: 'train', maxRequestBytes: 32 * 1024 });
      await waitFor('a few requests logged', () => s.server.store.logs.length >= 3, 30_000);
      fs.writeFileSync(uri.fsPath, edit(original).join('\n') + '\n');
      const report = await running;
      const result = report.files[0]!.result!;
      const groups = logged(model);
      console.log(`      [figure] ${what}: status ${report.status}, ${groups.length} groups stored, ${new Set(groups).size} distinct, ledger ${result.totals.groupsSent}`);
      assert.strictEqual(report.status, 'failed');
      assert.ok(result.outcome.status === 'failed' && /changed during the upload/.test(String((result.outcome.error as Error).message)), JSON.stringify(result.outcome));
      assert.deepStrictEqual(groups, Array.from({ length: groups.length }, (_, i) => i), 'a prefix of the validated file, in order, each once');
      const ledger = result.logged.flatMap((c) => Array.from({ length: c.lastGroup - c.firstGroup + 1 }, (_, i) => c.firstGroup + i));
      assert.deepStrictEqual(ledger, groups, 'the report names exactly the groups the service stored');
      assert.ok(groups.length < 4000);
    });
  }

  it('6. two uploads failing one after the other: each notification\'s Retry Remaining sends its own upload\'s groups only', async () => {
    const p = new Prompts();
    const clicks = new Map<string, (button: string | undefined) => void>();
    // Each failure notification waits for a click the test gives later, as a user would.
    p.answer(/upload to model-(a|b) failed/, (text) => new Promise<string | undefined>((resolve) => clicks.set(/model-a/.test(text) ? 'a' : 'b', resolve)));
    try {
      for (const [name, first] of [['a', 0], ['b', 100]] as const) {
        const uri = writeJsonl(`plan-${name}.jsonl`, 12, first);
        // The 1st request is logged, the 2nd refused (429: surely not logged).
        s.server.faults.add([
          { path: `/v1/preview/models/model-${name}/log`, kind: 'delay', ms: 1 },
          { path: `/v1/preview/models/model-${name}/log`, kind: 'status', status: 429 },
        ]);
        const report = await upload(uri, { modelId: `model-${name}`, split: 'train', maxRequestBytes: 2048 });
        assert.strictEqual(report.status, 'failed', name);
        await waitFor(`the notification of ${name}`, () => clicks.has(name));
      }
      const before = { a: logged('model-a').length, b: logged('model-b').length };
      assert.ok(before.a < 12 && before.b < 12);
      clicks.get('a')!('Retry Remaining');
      await waitFor('upload a to finish', () => logged('model-a').length === 12, 30_000);
      assert.deepStrictEqual(logged('model-a'), Array.from({ length: 12 }, (_, i) => i), "a's groups, each once");
      assert.strictEqual(logged('model-b').length, before.b, "b's groups were not sent by a's button");
      // The service has a's last groups before a's upload has ended: b's button waits for it, as a user would.
      const uploads = (await api()).uploads as unknown as { running?: unknown };
      await waitFor('upload a to end', () => uploads.running === undefined);
      clicks.get('b')!('Retry Remaining');
      await waitFor('upload b to finish', () => logged('model-b').length === 12, 30_000);
      assert.deepStrictEqual(logged('model-b'), Array.from({ length: 12 }, (_, i) => 100 + i));
      assert.deepStrictEqual(logged('model-a').length, 12);
      // The service has b's groups before b's upload has ended (it still records what it sent).
      await waitFor('upload b to end', () => uploads.running === undefined);
    } finally {
      p.dispose();
    }
  });

  it('6. an upload that fails, then another that succeeds: the first one\'s Retry Remaining still sends what it has left', async () => {
    const p = new Prompts();
    let click: ((b: string | undefined) => void) | undefined;
    p.answer(/upload to model-c failed/, () => new Promise<string | undefined>((resolve) => (click = resolve)));
    p.answer(/uploaded 1 file to model-d/, () => undefined);
    try {
      const a = writeJsonl('plan-c.jsonl', 12);
      s.server.faults.add([
        { path: '/v1/preview/models/model-c/log', kind: 'delay', ms: 1 },
        { path: '/v1/preview/models/model-c/log', kind: 'status', status: 429 },
      ]);
      assert.strictEqual((await upload(a, { modelId: 'model-c', split: 'train', maxRequestBytes: 2048 })).status, 'failed');
      await waitFor('the notification of c', () => click !== undefined);
      const b = writeJsonl('plan-d.jsonl', 3, 200);
      assert.strictEqual((await upload(b, { modelId: 'model-d', split: 'train' })).status, 'done');
      click!('Retry Remaining');
      await waitFor('upload c to finish', () => logged('model-c').length === 12, 30_000);
      assert.deepStrictEqual(logged('model-c'), Array.from({ length: 12 }, (_, i) => i));
    } finally {
      p.dispose();
    }
  });

  it('12. links in a trajectory file are text with their target shown: no vscode: or https: link in the viewer is clickable', async () => {
    const targets = ['vscode://svc.svc-vscode/model?id=attacker', 'https://example.test/phish', 'command:workbench.action.openSettings'];
    const answer = `See [the model](${targets[0]}), [docs](${targets[1]}) and [settings](${targets[2]}).`;
    const file = path.join(dir, 'links.trajectories.jsonl');
    fs.writeFileSync(
      file,
      JSON.stringify({ trajectories: [{ reward: 1, messages_and_choices: [{ role: 'user', content: 'links?' }, { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: answer } }] }] }) + '\n',
    );
    const uri = vscode.Uri.file(file);
    const viewer = (await api()).viewer;
    await vscode.commands.executeCommand('vscode.openWith', uri, 'svc.trajectoryViewer');
    await waitFor('the viewer to render the trajectory', () => viewer.sessionsFor(uri)[0]?.lastRendered?.trajectory === 0, 30_000);
    const report = viewer.sessionsFor(uri)[0]!.lastRendered!;
    assert.strictEqual(report.liveLinks, 0, 'no a[href] in the conversation');
    const assistant = report.bubbles.find((b) => b.role === 'assistant')!;
    for (const t of targets) assert.ok(assistant.text.includes(`(${t})`), `the target ${t} is shown as text`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
