import * as assert from 'assert';
import { hostContextKeys } from '../../../src/ui/prompts';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { FeedbackCreateResponse } from '../../../src/api';
import { callRef } from '../../../src/api/refs';
import { FileKindContext, WORKSPACE_FILES } from '../../../src/calls/fileKindContext';
import type { ThreadNode } from '../../../src/threads/provider';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, EXTENSION_ID, endSuite, KEY, PROJECT, startServer, waitFor } from './helpers';

type Thread = Extract<ThreadNode, { kind: 'thread' }>;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-webui-'));

function markdownText(h: vscode.Hover): string {
  return h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')).join('\n');
}

/** The explorer menu's Upload (for a file) and Import Calls entries, as the host hands them back. */
function explorerMenus(): { upload: { when: string }; importCalls: { when: string } } {
  const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { contributes: { menus: Record<string, { command: string; when: string }[]> } };
  const explorer = pkg.contributes.menus['explorer/context']!;
  return { upload: explorer.find((m) => m.command === 'svc.uploadTrajectories' && /!explorerResourceIsFolder/.test(m.when))!, importCalls: explorer.find((m) => m.command === 'svc.importCalls')! };
}

// The host hands the clauses back normalized (values quoted). Evaluates the clauses this test cares about for a file (the rest are true for a file on disk).
function offered(when: string, file: string, lists: { calls: string[]; trajectories: string[] }): boolean {
  const name = path.basename(file);
  if (/resourceFilename != '?history\.jsonl/.test(when) && name === 'history.jsonl') return false;
  if (/resourcePath not in '?svc\.callsFiles/.test(when) && lists.calls.includes(file)) return false;
  if (/resourcePath not in '?svc\.trajectoryFiles/.test(when) && lists.trajectories.includes(file)) return false;
  const ext = /resourceFilename =~ \/(.+)\/ /.exec(when)?.[1];
  if (ext && !new RegExp(ext).test(name)) return false;
  if (/resourceExtname == '?\.jsonl/.test(when) && path.extname(name) !== '.jsonl') return false;
  return true;
}

const callsLine = (id: string) => JSON.stringify({ mode: 'start', req: { start: { project_id: PROJECT, id, op_name: 'x', started_at: '2026-11-20T10:00:00Z', attributes: {}, inputs: { text: 'x'.repeat(2000) } } } });
const trajectoryLine = () => JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'x'.repeat(2000) }], reward: 1 }] });

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
    const { upload, importCalls } = explorerMenus();
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
  it('the explorer menu of a .jsonl never opened offers only the command its first line fits (the workspace is sniffed)', async function () {
    this.timeout(120_000);
    const { upload, importCalls } = explorerMenus();
    const folder = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'sniffed');
    fs.mkdirSync(folder, { recursive: true });
    const calls = path.join(folder, 'never-opened-calls.jsonl');
    const trajectories = path.join(folder, 'never-opened-rollouts.jsonl');
    const other = path.join(folder, 'notes.jsonl');
    fs.writeFileSync(calls, callsLine('c0') + '\n');
    fs.writeFileSync(trajectories, trajectoryLine() + '\n');
    fs.writeFileSync(other, '{"note": 1}\n');
    fs.writeFileSync(path.join(folder, 'history.jsonl'), JSON.stringify({ step: 1, 'train/reward': 0.5 }) + '\n');
    const a = await api();
    const sniffer = a.fileKinds;
    // The background scan (2 s after the core loads) sniffs what the workspace holds; the watcher
    // keeps it current afterwards (next test). Here the scan runs now.
    await sniffer.scan();
    const open = vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => (t.input as { uri?: vscode.Uri }).uri?.fsPath);
    assert.ok(![calls, trajectories].some((f) => open.includes(f)), 'never opened');
    const lists = sniffer.lists;
    assert.deepStrictEqual([offered(upload.when, calls, lists), offered(importCalls.when, calls, lists)], [false, true], 'a calls file: Import only');
    assert.deepStrictEqual([offered(upload.when, trajectories, lists), offered(importCalls.when, trajectories, lists)], [true, false], 'a trajectory file: Upload only');
    assert.deepStrictEqual([offered(upload.when, other, lists), offered(importCalls.when, other, lists)], [true, true], 'neither kind: both, each command says what it expected');
    assert.strictEqual(sniffer.kindOf(path.join(folder, 'history.jsonl')), undefined, 'a history.jsonl is not read');
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('the workspace sniff reads each .jsonl once, its first 4 KiB, at most 1,000 files; a watcher sees files created, rewritten and deleted', async function () {
    this.timeout(120_000);
    const folder = path.join(vscode.workspace.workspaceFolders![0]!.uri.fsPath, 'bulk');
    fs.mkdirSync(folder, { recursive: true });
    const n = WORKSPACE_FILES + 50;
    for (let i = 0; i < n; i++) fs.writeFileSync(path.join(folder, `f${String(i).padStart(4, '0')}.jsonl`), (i % 2 ? trajectoryLine() : callsLine(`c${i}`)) + '\n' + trajectoryLine().repeat(20) + '\n');
    // The extension's own sniffer takes them in through its watcher: each file's creation, or (VS
    // Code folds the events of files created with their folder into the folder's) the folder's,
    // which it looks into, bounded like the scan.
    const live = (await api()).fileKinds;
    const inBulk = () => [...live.lists.calls, ...live.lists.trajectories].filter((f) => f.startsWith(folder + path.sep)).length;
    await waitFor(`the watcher to report the new files (${inBulk()} of ${n} so far)`, () => inBulk() >= WORKSPACE_FILES - 50, 60_000);
    // A file rewritten as the other kind moves list.
    const first = live.lists.calls.find((f) => f.startsWith(folder + path.sep))!;
    assert.ok(first, 'a calls file of the folder is listed');
    fs.writeFileSync(first, trajectoryLine() + '\n');
    await waitFor('the rewritten file sniffed again', () => live.lists.trajectories.includes(first) && !live.lists.calls.includes(first), 30_000);
    // A sniffer of its own, scanning now (the extension's starts 2 s after the core loads).
    const sniffer = new FileKindContext(hostContextKeys(), { scanDelayMs: 60_000 });
    try {
      const started = performance.now();
      await sniffer.scan();
      const ms = performance.now() - started;
      const found = sniffer.lists.calls.length + sniffer.lists.trajectories.length;
      console.log(`      workspace sniff: ${sniffer.reads} files read (4 KiB each at most) in ${ms.toFixed(0)} ms for ${n} .jsonl files`);
      // The workspace may hold a few other .jsonl files (other suites' history.jsonl are not read).
      assert.ok(sniffer.reads <= WORKSPACE_FILES && sniffer.reads > WORKSPACE_FILES - 20, `one read per file, at most ${WORKSPACE_FILES} (${sniffer.reads})`);
      assert.ok(found <= sniffer.reads && found > WORKSPACE_FILES - 20, `the files read are listed by their kind (${found})`);
      // The second scan (findFiles may return another 1,000 of the 1,050) reads only files not sniffed yet.
      const before = sniffer.reads;
      await sniffer.scan();
      assert.ok(sniffer.reads - before <= n - WORKSPACE_FILES + 20, `a second scan reads nothing already sniffed (${sniffer.reads - before} read)`);
    } finally {
      sniffer.dispose();
      fs.rmSync(folder, { recursive: true, force: true });
      await waitFor('the deleted folder forgotten', () => inBulk() === 0, 30_000);
    }
  });

  it('a folder of .jsonl files moved into the workspace in one go is sniffed (the watcher reports the folder only)', async () => {
    const live = (await api()).fileKinds;
    await live.scan(); // the workspace scan is done: what comes next is the watcher's alone
    const workspace = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    // Beside the workspace folder (the same file system, so the move is one rename), not in it.
    const outside = fs.mkdtempSync(path.join(path.dirname(workspace), 'svc-moved-'));
    fs.writeFileSync(path.join(outside, 'a.jsonl'), callsLine('moved-a') + '\n');
    fs.writeFileSync(path.join(outside, 'b.jsonl'), trajectoryLine() + '\n');
    const inside = path.join(workspace, `moved-${Date.now()}`);
    fs.renameSync(outside, inside);
    try {
      await waitFor('the moved folder\'s files sniffed', () => live.lists.calls.includes(path.join(inside, 'a.jsonl')) && live.lists.trajectories.includes(path.join(inside, 'b.jsonl')), 30_000);
    } finally {
      fs.rmSync(inside, { recursive: true, force: true });
    }
  });
});
