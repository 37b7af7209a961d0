import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { UploadReport } from '../../../src/trajectories/commands';
import type { ReferenceServer } from '../../server';
import { api, connect, resetSettings, signOut, startServer, waitFor } from './helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upload-'));

function group(i: number) {
  return {
    trajectories: [
      {
        messages_and_choices: [
          { role: 'user', content: `question ${i}` },
          { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: `answer ${i}` } },
        ],
        reward: i % 2,
        metadata: { group: i },
      },
    ],
  };
}
function writeJsonl(name: string, n: number): vscode.Uri {
  const file = path.join(dir, name);
  fs.writeFileSync(file, Array.from({ length: n }, (_, i) => JSON.stringify(group(i))).join('\n') + '\n');
  return vscode.Uri.file(file);
}
function loggedGroupIds(server: ReferenceServer, file?: string): number[] {
  void file;
  return server.store.logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { group: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.group));
}
const upload = (...args: unknown[]) => vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', ...args);

describe('upload trajectories', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    await connect(server);
  });
  beforeEach(() => {
    server.faults.clear();
    server.store.logs.length = 0;
    server.stats.clear();
  });
  after(async () => {
    await signOut();
    await resetSettings();
    await server.close();
  });

  it('uploads several files selected in the explorer; the service receives exactly their groups', async () => {
    const a = writeJsonl('a.jsonl', 3);
    const jsonFile = path.join(dir, 'b.json');
    fs.writeFileSync(jsonFile, JSON.stringify({ split: 'val', trajectory_groups: [group(10), group(11)] }, null, 2));
    const b = vscode.Uri.file(jsonFile);
    const report = await upload(a, [a, b], { modelId: 'model-x', split: 'train' });
    assert.strictEqual(report.status, 'done');
    assert.deepStrictEqual(report.files.map((f) => f.result!.totals.groupsSent), [3, 2]);
    assert.deepStrictEqual(loggedGroupIds(server), [0, 1, 2, 10, 11]);
    assert.ok(server.store.logs.every((l) => l.modelId === 'model-x' && l.split === 'train'));
    const sent = server.store.logs[0]!.body.trajectory_groups as unknown[];
    assert.deepStrictEqual(sent[1], group(1), 'the exact data of the file');
    const a2 = await api();
    assert.strictEqual(a2.workspaceState.get(`svc.split:${a.fsPath}`), 'train', 'the split is remembered per file');
  });

  it('puts every problem in the Problems panel at its line and column, and sends nothing', async () => {
    const file = path.join(dir, 'bad.jsonl');
    const good = JSON.stringify(group(0));
    const badReward = JSON.stringify({ trajectories: [{ ...group(1).trajectories[0], reward: 'high' }] });
    const bare = JSON.stringify(group(2).trajectories[0]);
    fs.writeFileSync(file, [good, badReward, '{"trajectories": [', bare].join('\n') + '\n');
    const uri = vscode.Uri.file(file);
    const report = await upload(uri, [uri], { modelId: 'model-x', split: 'train' });
    assert.strictEqual(report.status, 'invalid');
    assert.strictEqual(server.stats.count('/v1/preview/models/'), 0, 'nothing was sent');
    const diags = vscode.languages.getDiagnostics(uri);
    const lines = diags.map((d) => d.range.start.line + 1).sort();
    assert.deepStrictEqual([...new Set(lines)], [2, 3, 4]);
    const reward = diags.find((d) => d.range.start.line === 1)!;
    assert.match(reward.message, /reward/);
    assert.strictEqual(reward.range.start.character, badReward.indexOf('"high"'), 'the column of the bad value');
    assert.match(diags.find((d) => d.range.start.line === 3)!.message, /single trajectory|trajectories/);
  });

  it('cancels in the middle after the request in flight; "Retry remaining" finishes without duplicates', async () => {
    const uri = writeJsonl('many.jsonl', 40);
    server.faults.add({ path: '/v1/preview/models/model-c/log', kind: 'delay', ms: 150, times: 100 });
    const running = upload(uri, [uri], { modelId: 'model-c', split: 'train', maxRequestBytes: 2048 });
    await waitFor('two requests logged', () => server.store.logs.length >= 2);
    await vscode.commands.executeCommand('svc.uploadTrajectories.cancel');
    const report = await running;
    assert.strictEqual(report.status, 'cancelled');
    const logged = loggedGroupIds(server);
    assert.ok(logged.length > 0 && logged.length < 40, `${logged.length} groups logged before the cancel`);
    assert.deepStrictEqual(logged, Array.from({ length: logged.length }, (_, i) => i), 'a prefix, in order');
    server.faults.clear();
    const retry = await vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories.retryRemaining');
    assert.strictEqual(retry.status, 'done');
    assert.deepStrictEqual(loggedGroupIds(server), Array.from({ length: 40 }, (_, i) => i), 'every group exactly once');
  });

  it('never retries a failed request itself; "Retry remaining" resumes from the first unsent group', async () => {
    const uri = writeJsonl('fail.jsonl', 12);
    // The 2nd request fails with 503 (the service answered: nothing of it was logged).
    let seen = 0;
    const sub = setInterval(() => {
      if (server.stats.count('/v1/preview/models/model-f/log') >= 1 && seen++ === 0) {
        server.faults.add({ path: '/v1/preview/models/model-f/log', kind: 'status', status: 503 });
      }
    }, 1);
    server.faults.add({ path: '/v1/preview/models/model-f/log', kind: 'delay', ms: 100 });
    const report = await upload(uri, [uri], { modelId: 'model-f', split: 'train', maxRequestBytes: 2048 });
    clearInterval(sub);
    assert.strictEqual(report.status, 'failed');
    const outcome = report.files[0]!.result!.outcome;
    assert.ok(outcome.status === 'failed' && !outcome.uncertain);
    const requests = server.stats.count('/v1/preview/models/model-f/log');
    assert.strictEqual(requests, 2, 'the failed request was not sent again');
    const before = loggedGroupIds(server);
    const retry = await vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories.retryRemaining');
    assert.strictEqual(retry.status, 'done');
    assert.deepStrictEqual(loggedGroupIds(server), Array.from({ length: 12 }, (_, i) => i));
    assert.ok(before.length < 12);
  });

  it('maps a 422 from the service to the line of the group it names', async () => {
    const uri = writeJsonl('refused.jsonl', 5);
    server.faults.add({
      path: '/v1/preview/models/model-r/log',
      kind: 'status',
      status: 422,
      body: { detail: [{ loc: ['body', 'trajectory_groups', 3, 'trajectories', 0, 'reward'], msg: 'reward must be finite', type: 'value_error' }] },
    });
    const report = await upload(uri, [uri], { modelId: 'model-r', split: 'train' });
    assert.strictEqual(report.status, 'failed');
    const diags = vscode.languages.getDiagnostics(uri);
    assert.strictEqual(diags.length, 1);
    assert.strictEqual(diags[0]!.range.start.line, 3, 'group 3 is on line 4');
    assert.match(diags[0]!.message, /422.*trajectories\.0\.reward: reward must be finite/);
  });

  it('gives completion and squiggles for *.trajectories.json through the generated JSON schema', async () => {
    const file = path.join(dir, 'edit.trajectories.json');
    fs.writeFileSync(file, '{\n  "trajectory_groups": [\n    { "trajectories": [ { "messages_and_choices": [], "reward": "high" } ] }\n  ]\n}\n');
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    await waitFor('JSON schema diagnostics', () => vscode.languages.getDiagnostics(doc.uri).some((d) => /number/i.test(d.message)), 30_000);
    const d = vscode.languages.getDiagnostics(doc.uri).find((x) => /number/i.test(x.message))!;
    assert.strictEqual(d.range.start.line, 2);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
