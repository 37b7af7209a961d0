import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { FeedbackCreateResponse } from '../../../src/api';
import { callRef } from '../../../src/api/refs';
import type { ThreadNode } from '../../../src/threads/provider';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, EXTENSION_ID, endSuite, KEY, PROJECT, startServer, waitFor } from './helpers';

type Thread = Extract<ThreadNode, { kind: 'thread' }>;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-webui-'));

function markdownText(h: vscode.Hover): string {
  return h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')).join('\n');
}

describe('tracing is write-only: the web UI and the feedback record', () => {
  let server: ReferenceServer;
  const opened: string[] = [];

  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 3, { turnsPerThread: 2, start: '2026-11-01T00:00:00Z' });
    const a = await connect(server);
    a.webUi.open = (url) => {
      opened.push(url);
      return Promise.resolve(true);
    };
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.view.explorer');
    await endSuite(server);
  });

  it('Open in Web UI builds the URL from the template: a thread row, { threadId }, and a ref, each value encoded, no key in it', async () => {
    const a = await api();
    await configure({ webUiUrl: 'https://ui.example.com/{entity}/{project}/threads/{threadId}?call={callId}' });
    await waitFor('the setting read', () => a.connection.config.webUiUrl !== '');
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes().find((n): n is Thread => n.kind === 'thread')!;
    await vscode.commands.executeCommand('svc.openInWebUi', node);
    const [entity, project] = PROJECT.split('/');
    assert.strictEqual(opened.at(-1), `https://ui.example.com/${entity}/${project}/threads/${node.row.thread_id}?call=${node.row.last_turn_id}`);

    const url = await vscode.commands.executeCommand<string>('svc.openInWebUi', { threadId: 'a b/c?d', project: PROJECT });
    assert.strictEqual(url, `https://ui.example.com/${entity}/${project}/threads/a%20b%2Fc%3Fd?call=`);
    assert.strictEqual(opened.at(-1), url);

    const byRef = await vscode.commands.executeCommand<string>('svc.openInWebUi', { ref: callRef(PROJECT, 'call-1') });
    assert.strictEqual(byRef, `https://ui.example.com/${entity}/${project}/threads/?call=call-1`);
    for (const u of opened) assert.ok(!u.includes(KEY), 'no key in a URL');
  });

  it('Open in Web UI, not configured: a scripted call rejects naming the setting and opens nothing', async () => {
    const a = await api();
    await configure({ webUiUrl: undefined });
    await waitFor('the setting cleared', () => a.connection.config.webUiUrl === '');
    const before = opened.length;
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.openInWebUi', { threadId: 't', project: PROJECT })), /svc\.webUiUrl is not set/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.openInWebUi', { ref: callRef(PROJECT, 'x') })), /svc\.webUiUrl/);
    assert.strictEqual(opened.length, before);
  });

  it("shows the feedback this user attached, in the thread details and in the ref's hover, as the user's own record", async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes().find((n): n is Thread => n.kind === 'thread')!;
    const res = await vscode.commands.executeCommand<FeedbackCreateResponse>('svc.attachFeedback', node, { turn: 'first', kind: 'note', note: 'the first turn was good' });
    assert.ok(res);
    await vscode.commands.executeCommand('svc.threads.openDetails', node);
    await waitFor('the details show the record', () => (a.threadDetailsPanel.lastPosted?.type === 'show' ? a.threadDetailsPanel.lastPosted.thread.feedback ?? [] : []).some((f) => f.id === res.id));
    const shown = a.threadDetailsPanel.lastPosted!;
    assert.ok(shown.type === 'show');
    const entry = shown.thread.feedback!.find((f) => f.id === res.id)!;
    assert.deepStrictEqual({ turn: entry.turn, kind: entry.kind, content: entry.content }, { turn: 'First turn', kind: 'note', content: 'the first turn was good' });

    const ref = callRef(PROJECT, node.row.first_turn_id!);
    const file = path.join(dir, 'refs.txt');
    fs.writeFileSync(file, `see ${ref}\n`);
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await vscode.window.showTextDocument(doc);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(0, 8));
    const text = hovers.map(markdownText).join('\n');
    assert.match(text, /Attached from this editor/);
    assert.match(text, /not read from the service/);
    assert.match(text, /note: the first turn was good/);
    assert.match(text, /Open in Web UI/);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it("after an import, Show Thread filters the Threads view by the file's thread and opens its details", async () => {
    const a = await api();
    const id = 'webui-imported-t0';
    const file = path.join(dir, 'calls.jsonl');
    const start = { project_id: PROJECT, op_name: 'chat', started_at: '2026-11-20T10:00:00Z', attributes: {}, inputs: {}, id, trace_id: id, thread_id: 'webui-imported', turn_id: id };
    fs.writeFileSync(file, [JSON.stringify({ mode: 'start', req: { start } }), JSON.stringify({ end: { project_id: PROJECT, id, ended_at: '2026-11-20T10:00:02Z', summary: {} } })].join('\n'));
    const uri = vscode.Uri.file(file);
    const report = await vscode.commands.executeCommand<{ status: string; threadIds?: string[] }>('svc.importCalls', { files: [file] });
    assert.strictEqual(report.status, 'done');
    assert.deepStrictEqual(report.threadIds, ['webui-imported']);
    // What the notification's Show Thread runs.
    await vscode.commands.executeCommand('svc.threads.show', { project: PROJECT, threadIds: report.threadIds });
    assert.deepStrictEqual(a.threads.filter, { kind: 'ids', threadIds: ['webui-imported'] });
    await waitFor('the details of the imported thread', () => a.threadDetailsPanel.current?.threadId === 'webui-imported');
    await vscode.commands.executeCommand('svc.threads.clearFilter');
    void uri;
  });

  it('the explorer menu offers Upload and Import by what the file holds; history.jsonl offers neither', async () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when: string }[]> } };
    const explorer = pkg.contributes.menus['explorer/context']!;
    const upload = explorer.find((m) => m.command === 'svc.uploadTrajectories' && /!explorerResourceIsFolder/.test(m.when))!;
    const importCalls = explorer.find((m) => m.command === 'svc.importCalls')!;
    // The host hands the clauses back normalized (values quoted). Evaluates the clauses this test cares about for a file (the rest are true for a file on disk).
    const offered = (when: string, file: string, lists: { calls: string[]; trajectories: string[] }) => {
      const name = path.basename(file);
      if (/resourceFilename != '?history\.jsonl/.test(when) && name === 'history.jsonl') return false;
      if (/resourcePath not in '?svc\.callsFiles/.test(when) && lists.calls.includes(file)) return false;
      if (/resourcePath not in '?svc\.trajectoryFiles/.test(when) && lists.trajectories.includes(file)) return false;
      const ext = /resourceFilename =~ \/(.+)\/ /.exec(when)?.[1];
      if (ext && !new RegExp(ext).test(name)) return false;
      if (/resourceExtname == '?\.jsonl/.test(when) && path.extname(name) !== '.jsonl') return false;
      return true;
    };
    // The sniff of open files sets the lists: open a calls file and a trajectory file.
    const calls = path.join(dir, 'sniff-calls.jsonl');
    const trajectories = path.join(dir, 'sniff-rollouts.jsonl');
    const history = path.join(dir, 'history.jsonl');
    fs.writeFileSync(calls, JSON.stringify({ mode: 'start', req: { start: { project_id: PROJECT, op_name: 'x', started_at: '2026-11-20T10:00:00Z', attributes: {}, inputs: {} } } }) + '\n');
    fs.writeFileSync(trajectories, JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1 }] }) + '\n');
    fs.writeFileSync(history, JSON.stringify({ step: 1, 'train/reward': 0.5 }) + '\n');
    const a = await api();
    for (const f of [calls, trajectories]) await vscode.window.showTextDocument(vscode.Uri.file(f), { preview: false });
    const sniffer = a.fileKinds;
    await sniffer.update();
    assert.strictEqual(sniffer.kindOf(calls), 'calls');
    assert.strictEqual(sniffer.kindOf(trajectories), 'trajectories');
    const lists = { calls: [calls], trajectories: [trajectories] };
    assert.deepStrictEqual([offered(upload.when, calls, lists), offered(importCalls.when, calls, lists)], [false, true], `a calls file: Import only (${upload.when})`);
    assert.deepStrictEqual([offered(upload.when, trajectories, lists), offered(importCalls.when, trajectories, lists)], [true, false], 'a trajectory file: Upload only');
    assert.deepStrictEqual([offered(upload.when, history, lists), offered(importCalls.when, history, lists)], [false, false], 'history.jsonl: neither');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});
