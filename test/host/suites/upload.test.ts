import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { UploadReport } from '../../../src/trajectories/report';
import type { ReferenceServer } from '../../server';
import { artGroup, exchangeOf } from '../../fixtures/art/producers';
import { numberedGroup as group, numberedJsonl } from '../../fixtures/trajectories/numbered';
import { api, connect, signOut, waitFor } from './helpers';
import { serverHooks } from './setups';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upload-'));

function writeJsonl(name: string, n: number): vscode.Uri {
  const file = path.join(dir, name);
  fs.writeFileSync(file, numberedJsonl(n));
  return vscode.Uri.file(file);
}
function loggedGroupIds(server: ReferenceServer, file?: string): number[] {
  void file;
  return server.store.logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { group: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.group));
}
const upload = (...args: unknown[]) => vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', ...args);

describe('upload trajectories', () => {
  const s = serverHooks();

  it('uploads several files selected in the explorer; the service receives exactly their groups', async () => {
    const a = writeJsonl('a.jsonl', 3);
    const jsonFile = path.join(dir, 'b.json');
    fs.writeFileSync(jsonFile, JSON.stringify({ split: 'val', trajectory_groups: [group(10), group(11)] }, null, 2));
    const b = vscode.Uri.file(jsonFile);
    const report = await upload(a, [a, b], { modelId: 'model-x', split: 'train' });
    assert.strictEqual(report.status, 'done');
    assert.deepStrictEqual(report.files.map((f) => f.result!.totals.groupsSent), [3, 2]);
    assert.deepStrictEqual(loggedGroupIds(s.server), [0, 1, 2, 10, 11]);
    assert.ok(s.server.store.logs.every((l) => l.modelId === 'model-x' && l.split === 'train'));
    const sent = s.server.store.logs[0]!.body.trajectory_groups as unknown[];
    assert.deepStrictEqual(sent[1], group(1), 'the exact data of the file');
    const a2 = await api();
    assert.strictEqual(a2.workspaceState.get(`svc.split:${a.fsPath}`), 'train', 'the split is remembered per file');
  });

  it('refuses a file that is not on disk (a virtual workspace\'s), naming it, and sends nothing', async () => {
    const virtual = vscode.Uri.from({ scheme: 'vscode-vfs', authority: 'github', path: '/org/repo/data.jsonl' });
    s.server.stats.clear();
    await assert.rejects(Promise.resolve(upload({ files: [virtual], modelId: 'model-x', split: 'train' })), /vscode-vfs:\/\/github\/org\/repo\/data\.jsonl is not a file on this machine's disk/);
    assert.strictEqual(s.server.stats.count('/v1/preview/models/model-x/log'), 0);
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
    assert.strictEqual(s.server.stats.count('/v1/preview/models/'), 0, 'nothing was sent');
    const diags = vscode.languages.getDiagnostics(uri);
    const lines = diags.map((d) => d.range.start.line + 1).sort();
    assert.deepStrictEqual([...new Set(lines)], [2, 3, 4]);
    const reward = diags.find((d) => d.range.start.line === 1)!;
    assert.match(reward.message, /reward/);
    assert.strictEqual(reward.range.start.character, badReward.indexOf('"high"'), 'the column of the bad value');
    assert.match(diags.find((d) => d.range.start.line === 3)!.message, /single trajectory|trajectories/);
  });

  it('Problems entries follow the file: fixing the line in the editor clears its entry, unsaved, without another upload', async () => {
    const file = path.join(dir, 'fixme.jsonl');
    const good = JSON.stringify(group(0));
    const bad = JSON.stringify({ trajectories: [{ ...group(1).trajectories[0], reward: 'high' }] });
    fs.writeFileSync(file, [good, bad, good].join('\n') + '\n');
    const uri = vscode.Uri.file(file);
    const report = await upload(uri, [uri], { modelId: 'model-x', split: 'train' });
    assert.strictEqual(report.status, 'invalid');
    assert.deepStrictEqual(vscode.languages.getDiagnostics(uri).map((d) => d.range.start.line), [1]);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    const at = bad.indexOf('"high"');
    edit.replace(uri, new vscode.Range(1, at, 1, at + '"high"'.length), '0.5');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await waitFor('the entry to go', () => vscode.languages.getDiagnostics(uri).length === 0, 10_000);
    assert.ok(doc.isDirty, 'checked from the unsaved text');
    // And a new mistake comes back the same way.
    const again = new vscode.WorkspaceEdit();
    again.insert(uri, new vscode.Position(2, 0), '{"trajectories": 3}\n');
    assert.ok(await vscode.workspace.applyEdit(again));
    await waitFor('the new entry', () => vscode.languages.getDiagnostics(uri).some((d) => d.range.start.line === 2), 10_000);
    assert.strictEqual(s.server.stats.count('/v1/preview/models/'), 0, 'nothing was uploaded');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });

  it('cancels in the middle after the request in flight; "Retry remaining" finishes without duplicates', async () => {
    const uri = writeJsonl('many.jsonl', 40);
    s.server.faults.add({ path: '/v1/preview/models/model-c/log', kind: 'delay', ms: 150, times: 100 });
    const running = upload(uri, [uri], { modelId: 'model-c', split: 'train', maxRequestBytes: 2048 });
    await waitFor('two requests logged', () => s.server.store.logs.length >= 2);
    await vscode.commands.executeCommand('svc.uploadTrajectories.cancel');
    const report = await running;
    assert.strictEqual(report.status, 'cancelled');
    const logged = loggedGroupIds(s.server);
    assert.ok(logged.length > 0 && logged.length < 40, `${logged.length} groups logged before the cancel`);
    assert.deepStrictEqual(logged, Array.from({ length: logged.length }, (_, i) => i), 'a prefix, in order');
    s.server.faults.clear();
    const retry = await vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories.retryRemaining');
    assert.strictEqual(retry.status, 'done');
    assert.deepStrictEqual(loggedGroupIds(s.server), Array.from({ length: 40 }, (_, i) => i), 'every group exactly once');
  });

  it('never retries a failed request itself; "Retry remaining" resumes from the first unsent group', async () => {
    const uri = writeJsonl('fail.jsonl', 12);
    // The 2nd request fails with 429 (the service refused it: nothing of it was logged; a 5xx
    // would leave it in doubt, see the interactive suite).
    let seen = 0;
    const sub = setInterval(() => {
      if (s.server.stats.count('/v1/preview/models/model-f/log') >= 1 && seen++ === 0) {
        s.server.faults.add({ path: '/v1/preview/models/model-f/log', kind: 'status', status: 429 });
      }
    }, 1);
    s.server.faults.add({ path: '/v1/preview/models/model-f/log', kind: 'delay', ms: 100 });
    const report = await upload(uri, [uri], { modelId: 'model-f', split: 'train', maxRequestBytes: 2048 });
    clearInterval(sub);
    assert.strictEqual(report.status, 'failed');
    const outcome = report.files[0]!.result!.outcome;
    assert.ok(outcome.status === 'failed' && !outcome.uncertain);
    const requests = s.server.stats.count('/v1/preview/models/model-f/log');
    assert.strictEqual(requests, 2, 'the failed request was not sent again');
    const before = loggedGroupIds(s.server);
    const retry = await vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories.retryRemaining');
    assert.strictEqual(retry.status, 'done');
    assert.deepStrictEqual(loggedGroupIds(s.server), Array.from({ length: 12 }, (_, i) => i));
    assert.ok(before.length < 12);
  });

  it('maps a 422 from the service to the line of the group it names', async () => {
    const uri = writeJsonl('refused.jsonl', 5);
    s.server.faults.add({
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

  it('uploads what the official training client writes, as it is: the service stores exactly the file, with no error diagnostics', async () => {
    const art = path.join(dir, '.art', 'weather', 'models', 'agent-001', 'trajectories', 'train');
    fs.mkdirSync(art, { recursive: true });
    const files: { uri: vscode.Uri; groups: unknown[] }[] = [];
    const write = (file: string, groups: unknown[], text: string) => {
      fs.writeFileSync(file, text);
      files.push({ uri: vscode.Uri.file(file), groups });
    };
    const dumped = [artGroup(0), artGroup(1, { unset: true }), artGroup(2)];
    write(path.join(dir, 'model_dump.jsonl'), dumped, dumped.map((g) => JSON.stringify(g)).join('\n') + '\n');
    for (const step of [1, 2]) {
      const groups = [artGroup(step * 10), artGroup(step * 10 + 1, { unset: true })];
      write(path.join(art, `000${step}.jsonl`), groups, groups.map((g) => JSON.stringify(g)).join('\n') + '\n');
    }
    const array = [artGroup(5), artGroup(6, { unset: true })];
    write(path.join(dir, 'art-groups.json'), array, JSON.stringify(array, null, 2));
    for (const { uri, groups } of files) {
      s.server.store.logs.length = 0;
      const report = await upload(uri, [uri], { modelId: 'agent-001', split: 'train' });
      assert.strictEqual(report.status, 'done', uri.fsPath);
      assert.deepStrictEqual(s.server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]), groups, `${uri.fsPath}: stored exactly, unknown fields and nulls included`);
      const errors = vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error);
      assert.deepStrictEqual(errors.map((d) => d.message), [], uri.fsPath);
    }
  });

  it('still refuses what the service refuses: a string reward, exchanges beside messages_and_choices, a choice without message, invalid JSON', async () => {
    const file = path.join(dir, 'art-bad.jsonl');
    const good = artGroup(0) as { trajectories: Record<string, unknown>[] };
    const t = good.trajectories[0]!;
    const lines = [
      JSON.stringify({ ...good, trajectories: [{ ...t, reward: 'high' }] }),
      JSON.stringify({ ...good, trajectories: [{ ...t, exchanges: { responses: [exchangeOf('responses')] } }] }),
      JSON.stringify({ ...good, trajectories: [{ ...t, messages_and_choices: [{ finish_reason: 'stop', index: 0 }] }] }),
      '{"trajectories": [}',
    ];
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const uri = vscode.Uri.file(file);
    const report = await upload(uri, [uri], { modelId: 'agent-001', split: 'train' });
    assert.strictEqual(report.status, 'invalid');
    const diags = vscode.languages.getDiagnostics(uri).sort((a, b) => a.range.start.line - b.range.start.line);
    assert.deepStrictEqual(
      diags.map((d) => [d.range.start.line + 1, d.range.start.character + 1, d.message.replace(/:.*$/, '')]),
      [
        [1, lines[0]!.indexOf('"high"') + 1, 'trajectories[0].reward'],
        [2, lines[1]!.indexOf('"trajectories":[') + '"trajectories":['.length + 1, 'trajectories[0]'],
        [3, lines[2]!.indexOf('{"finish_reason"') + 1, 'trajectories[0].messages_and_choices[0].message'],
        [4, 19, 'Invalid JSON'],
      ],
    );
  });

  it('the JSON schema of *.trajectories.json is as lenient as the service: an official-client file gets no squiggle but the one real mistake', async () => {
    const file = path.join(dir, 'art.trajectories.json');
    const groups = [artGroup(1), artGroup(2, { unset: true }), { trajectories: [{ messages_and_choices: [], reward: 'high' }] }];
    const text = JSON.stringify({ model_id: 'agent-001', split: 'train', trajectory_groups: groups }, null, 2);
    fs.writeFileSync(file, text);
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    // The deliberate mistake shows that the schema has run; it must be the only finding.
    await waitFor('JSON schema diagnostics', () => vscode.languages.getDiagnostics(doc.uri).length > 0, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const diags = vscode.languages.getDiagnostics(doc.uri);
    assert.deepStrictEqual(diags.map((d) => d.range.start.line), [text.split('\n').findIndex((l) => l.includes('"high"'))], diags.map((d) => d.message).join(' | '));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('lists a problem once: in an open *.trajectories.json, the upload leaves what the schema shows to it', async () => {
    const file = path.join(dir, 'once.trajectories.json');
    fs.writeFileSync(file, '{\n  "trajectory_groups": [\n    { "trajectories": [ { "messages_and_choices": [], "reward": "high" } ] }\n  ]\n}\n');
    const uri = vscode.Uri.file(file);
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
    await waitFor('JSON schema diagnostics', () => vscode.languages.getDiagnostics(uri).length > 0, 30_000);
    const report = await upload(uri, [uri], { modelId: 'model-x', split: 'train' });
    assert.strictEqual(report.status, 'invalid', 'the upload still refuses the file');
    await new Promise((r) => setTimeout(r, 300));
    const onLine3 = vscode.languages.getDiagnostics(uri).filter((d) => d.range.start.line === 2);
    assert.strictEqual(onLine3.length, 1, onLine3.map((d) => `${d.source}: ${d.message}`).join(' | '));
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a scripted upload or import never waits on a prompt: it rejects at once with the reason', async () => {
    const uri = writeJsonl('scripted.jsonl', 1);
    const noModel = await upload({ files: [uri.fsPath], split: 'train' }).then(() => 'resolved', (e: Error) => e.message);
    assert.match(noModel, /svc\.uploadTrajectories: no model: pass \{ modelId \}/);
    const noFiles = await vscode.commands.executeCommand('svc.importCalls', {}).then(() => 'resolved', (e: Error) => e.message);
    assert.match(noFiles, /svc\.importCalls: no files/);
    await signOut();
    try {
      const up = await upload({ modelId: 'model-x', split: 'train', files: [uri.fsPath] }).then(() => 'resolved', (e: Error) => e.message);
      assert.match(up, /svc\.uploadTrajectories: not signed in to 127\.0\.0\.1:\d+: run "svc: Sign In" first/);
      const imp = await vscode.commands.executeCommand('svc.importCalls', { files: [uri.fsPath] }).then(() => 'resolved', (e: Error) => e.message);
      assert.match(imp, /svc\.importCalls: not signed in to 127\.0\.0\.1:\d+/);
      assert.strictEqual(s.server.stats.count('/v1/preview/models/'), 0);
    } finally {
      await connect(s.server);
    }
  });

  it('gives completion and squiggles for *.trajectories.json through the generated JSON schema', async () => {
    const file = path.join(dir, 'edit.trajectories.json');
    fs.writeFileSync(file, '{\n  "trajectory_groups": [\n    { "trajectories": [ { "messages_and_choices": [], "reward": "high" } ] }\n  ]\n}\n');
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    await waitFor('JSON schema diagnostics', () => vscode.languages.getDiagnostics(doc.uri).some((d) => /number/i.test(d.message)), 30_000);
    const d = vscode.languages.getDiagnostics(doc.uri).find((x) => /number/i.test(x.message))!;
    assert.strictEqual(d.range.start.line, 2);
    // Completion inside a trajectory offers its fields from the schema.
    const at = new vscode.Position(2, doc.lineAt(2).text.indexOf('"messages_and_choices"'));
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, at);
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label).replace(/"/g, ''));
    for (const field of ['tools', 'additional_histories', 'metrics', 'start_time']) assert.ok(labels.includes(field), `completion offers ${field}: ${labels.join(', ')}`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
