import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { FeedbackCreateResponse } from '../../../src/api';
import { callRef } from '../../../src/api/refs';
import { UUID_SHAPE } from '../../../src/api/schemas/common';
import type { ThreadNode } from '../../../src/threads/provider';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, endSuite, PROJECT, startServer, USER, waitFor } from './helpers';


type Thread = Extract<ThreadNode, { kind: 'thread' }>;

function attach(...args: unknown[]): Promise<FeedbackCreateResponse | undefined> {
  return Promise.resolve(vscode.commands.executeCommand<FeedbackCreateResponse | undefined>('svc.attachFeedback', ...args));
}

let scratch = 0;
/**
 * Opens a document with the given text in an editor: a new file under the temp folder, not an
 * untitled document, whose name ("Untitled-1") the workbench reuses as soon as one is closed, so a
 * hover or cursor request could reach a closed document's model and find nothing (seen on a busy
 * machine).
 */
async function openUntitled(content: string): Promise<vscode.TextEditor> {
  const file = path.join(os.tmpdir(), `svc-feedback-${process.pid}-${++scratch}.txt`);
  fs.writeFileSync(file, content);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  return vscode.window.showTextDocument(doc);
}

/** Closes a document's editor without a save prompt. */
async function closeWithoutSaving(doc: vscode.TextDocument): Promise<void> {
  if (doc.isClosed) return;
  await vscode.window.showTextDocument(doc);
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  if (doc.uri.scheme === 'file' && path.basename(doc.uri.fsPath).startsWith('svc-feedback-')) fs.rmSync(doc.uri.fsPath, { force: true });
}

function markdownText(h: vscode.Hover): string {
  return h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')).join('\n');
}

describe('feedback', () => {
  let server: ReferenceServer;
  const opened: vscode.TextDocument[] = [];
  const rowsFor = (ref: string) => server.store.feedback.filter((r) => r.svc_ref === ref);

  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 5, { turnsPerThread: 3, start: '2026-11-01T00:00:00Z' });
    await connect(server);
  });
  beforeEach(() => server.faults.clear());
  afterEach(async () => {
    while (opened.length) await closeWithoutSaving(opened.pop()!);
  });
  after(async () => {
    await endSuite(server);
  });

  it('attaches feedback to the first and the last turn of a thread item', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes().find((n): n is Thread => n.kind === 'thread');
    assert.ok(node, 'a thread item');
    const { first_turn_id: first, last_turn_id: last } = node.row;
    assert.ok(first && last && first !== last, 'the thread has distinct first and last turns');

    const res = await attach(node, { turn: 'first', kind: 'note', note: 'first turn was good' });
    assert.ok(res);
    assert.match(res.id, UUID_SHAPE);
    assert.strictEqual(res.svc_user_id, USER);
    assert.deepStrictEqual(res.payload, { note: 'first turn was good' });
    const [row] = rowsFor(callRef(PROJECT, first));
    assert.ok(row, 'stored for the first turn');
    assert.strictEqual(row.id, res.id);
    assert.strictEqual(row.project_id, PROJECT);
    assert.strictEqual(row.feedback_type, 'svc.note.1');
    assert.strictEqual(row.creator, null);

    const res2 = await attach(node, { turn: 'last', kind: 'reaction', emoji: '👍' });
    assert.ok(res2);
    const [row2] = rowsFor(callRef(PROJECT, last));
    assert.ok(row2, 'stored for the last turn');
    assert.strictEqual(row2.id, res2.id);
    assert.strictEqual(row2.feedback_type, 'svc.reaction.1');
  });

  it('takes the ref under the cursor, or in the selection, of an editor', async () => {
    const ref = callRef(PROJECT, 'editor-call-1');
    const other = callRef(PROJECT, 'editor-call-2');
    const editor = await openUntitled(`Look at ${ref}, please.\nAnd then at ${other}.\n`);
    opened.push(editor.document);
    editor.selection = new vscode.Selection(0, 20, 0, 20); // inside the first ref
    const res = await attach({ kind: 'note', note: 'from the editor' });
    assert.ok(res);
    assert.deepStrictEqual(
      rowsFor(ref).map((r) => [r.id, r.payload]),
      [[res.id, { note: 'from the editor' }]],
    );

    // A selection that contains the second ref wins over the cursor position.
    editor.selection = new vscode.Selection(1, 0, 1, editor.document.lineAt(1).text.length);
    const res2 = await attach({ kind: 'note', note: 'from the selection' });
    assert.ok(res2);
    assert.strictEqual(rowsFor(other).length, 1);
    assert.strictEqual(rowsFor(other)[0]!.id, res2.id);
  });

  it('sends a reaction and returns the payload as the server enriched it', async () => {
    const ref = callRef(PROJECT, 'reaction-call');
    const res = await attach({ ref, kind: 'reaction', emoji: '🎉' });
    assert.ok(res);
    assert.deepStrictEqual(res.payload, { emoji: '🎉', detoned: '🎉', detoned_alias: ':party_popper:', alias: ':party_popper:' });
    assert.deepStrictEqual(rowsFor(ref)[0]!.payload, res.payload);

    const toned = await attach({ ref: callRef(PROJECT, 'reaction-call-2'), emoji: '👍🏽' });
    assert.ok(toned);
    assert.strictEqual(toned.payload.alias, ':thumbs_up_medium_skin_tone:');
  });

  it('sends a custom payload with a creator, as an object or as JSON text', async () => {
    const ref = `svc:///${PROJECT}/object/dataset:v3abc`;
    const res = await attach({ ref, kind: 'custom', feedbackType: 'score', payload: { score: 0.9, tags: ['a', 'b'] }, creator: 'Host Tester' });
    assert.ok(res);
    const [row] = rowsFor(ref);
    assert.ok(row);
    assert.strictEqual(row.feedback_type, 'score');
    assert.strictEqual(row.creator, 'Host Tester');
    assert.deepStrictEqual(row.payload, { score: 0.9, tags: ['a', 'b'] });

    const op = `svc:///${PROJECT}/op/predict:deadbeef`;
    const res2 = await attach({ ref: op, feedbackType: 'correction', payload: '{"expected": "42"}' });
    assert.ok(res2);
    assert.deepStrictEqual(rowsFor(op)[0]!.payload, { expected: '42' });

    // A payload that is not an object is refused before any request.
    server.stats.clear();
    await assert.rejects(attach({ ref: op, feedbackType: 'x', payload: '[1]' }), /payload: The payload must be a JSON object/);
    assert.strictEqual(server.stats.count('/feedback/create'), 0);
  });

  it('refuses a ref of another project, naming both projects, and sends nothing', async () => {
    server.stats.clear();
    const foreign = 'svc:///other-team/elsewhere/call/abc123';
    await assert.rejects(attach({ ref: foreign, kind: 'note', note: 'x' }), (e: Error) => {
      assert.match(e.message, /"other-team\/elsewhere"/);
      assert.match(e.message, new RegExp(`"${PROJECT}"`));
      return true;
    });
    // From a link (the ref given, via: 'link') the refusal is shown instead, before any prompt.
    assert.strictEqual(await attach({ ref: foreign, via: 'link' }), undefined);
    // A script that gives only the ref is not asked the rest: it is told what is missing.
    await assert.rejects(attach({ ref: callRef(PROJECT, 'only-a-ref') }), /give the feedback: \{ note \}, \{ emoji \}/);
    await assert.rejects(attach({ kind: 'note', ref: callRef(PROJECT, 'only-a-ref') }), /kind "note" needs note/);
    // The same for the ref under the cursor.
    const editor = await openUntitled(`see ${foreign}`);
    opened.push(editor.document);
    editor.selection = new vscode.Selection(0, 8, 0, 8);
    await assert.rejects(attach({ kind: 'note', note: 'x' }), /other-team\/elsewhere.*acme\/chatbot/);
    assert.strictEqual(server.stats.count('/feedback/create'), 0);
    assert.strictEqual(server.store.feedback.filter((r) => r.svc_ref === foreign).length, 0);
  });

  it('refuses when no project is selected', async () => {
    const a = await api();
    server.stats.clear();
    await configure({ project: '' });
    try {
      await waitFor('no project', () => a.connection.config.project === '');
      await assert.rejects(attach({ ref: callRef(PROJECT, 'x'), kind: 'note', note: 'x' }), /No project is selected/);
      assert.strictEqual(server.stats.count('/feedback/create'), 0);
    } finally {
      await configure({ project: PROJECT });
      await waitFor('project back', () => a.connection.config.project === PROJECT);
    }
  });

  it('refuses bad scripted arguments with the argument named', async () => {
    server.stats.clear();
    const ref = callRef(PROJECT, 'bad-args');
    await assert.rejects(attach({ ref, kind: 'note', note: 'x'.repeat(1025) }), /note: .*1025 characters/);
    await assert.rejects(attach({ ref, kind: 'reaction', emoji: '👍👍' }), /emoji: .*exactly one emoji/);
    await assert.rejects(attach({ ref, kind: 'note', note: 'x', colour: 'red' }), /Unknown argument "colour"/);
    assert.strictEqual(server.stats.count('/feedback/create'), 0);
  });

  it('retries a 503 with the same id: exactly one row', async () => {
    const ref = callRef(PROJECT, 'retry-503');
    server.stats.clear();
    server.faults.add({ path: '/feedback/create', kind: 'status', status: 503, retryAfter: '0' });
    const res = await attach({ ref, kind: 'note', note: 'survives a 503' });
    assert.ok(res);
    assert.deepStrictEqual(
      server.stats.filter('/feedback/create').map((r) => r.status),
      [503, 200],
    );
    assert.deepStrictEqual(
      rowsFor(ref).map((r) => r.id),
      [res.id],
    );
  });

  it('running the same feedback again after a failure reuses the id: no duplicate row', async () => {
    const ref = callRef(PROJECT, 'retry-after-failure');
    // Every attempt is stored by the server, then the connection drops before the answer.
    server.faults.add({ path: '/feedback/create', kind: 'reset-after-processing', times: 4 });
    await assert.rejects(attach({ ref, kind: 'note', note: 'sent twice' }));
    assert.strictEqual(rowsFor(ref).length, 1, 'the first attempt reached the server');
    const storedId = rowsFor(ref)[0]!.id;

    const res = await attach({ ref, kind: 'note', note: 'sent twice' });
    assert.ok(res);
    assert.strictEqual(res.id, storedId, 'the retry reused the id');
    assert.strictEqual(rowsFor(ref).length, 1);

    // After the success the same feedback again is a new row.
    const again = await attach({ ref, kind: 'note', note: 'sent twice' });
    assert.ok(again);
    assert.notStrictEqual(again.id, storedId);
    assert.strictEqual(rowsFor(ref).length, 2);
  });

  it('takes a caller-given id', async () => {
    const ref = callRef(PROJECT, 'given-id');
    const id = '0193e6c4-5c2a-7b1e-9a00-00000000f00d';
    const res = await attach({ ref, kind: 'note', note: 'with an id', id });
    assert.strictEqual(res?.id, id);
    assert.strictEqual(rowsFor(ref)[0]!.id, id);
  });

  it('makes refs in documents links that attach feedback', async () => {
    const ref = callRef(PROJECT, 'link-call');
    const editor = await openUntitled(`first line\n  ref: ${ref}.\n`);
    opened.push(editor.document);
    const links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', editor.document.uri);
    const link = links.find((l) => l.target?.scheme === 'command');
    assert.ok(link, `a command link among ${links.length}`);
    assert.ok(link.range.isEqual(new vscode.Range(1, 7, 1, 7 + ref.length)), `range ${JSON.stringify(link.range)}`);
    assert.strictEqual(link.target!.path, 'svc.attachFeedback');
    assert.deepStrictEqual(JSON.parse(link.target!.query), [{ ref, via: 'link' }]);
    assert.strictEqual(link.tooltip, 'Attach feedback to this call');

    // A thread's JSON document gets links for its turn refs.
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes().find((n): n is Thread => n.kind === 'thread');
    assert.ok(node);
    const uri = await vscode.commands.executeCommand<string>('svc.threads.openJson', node);
    const details = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
    assert.ok(details);
    const detailLinks = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', details.uri);
    const targets = detailLinks.filter((l) => l.target?.scheme === 'command').map((l) => JSON.parse(l.target!.query)[0].ref);
    assert.deepStrictEqual(targets, [callRef(PROJECT, node.row.first_turn_id!), callRef(PROJECT, node.row.last_turn_id!)]);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('shows the parts of a ref on hover, with links trusted for their two commands (attach feedback, open in the web UI)', async () => {
    const ref = callRef(PROJECT, 'c0ffee42');
    const editor = await openUntitled(`hover ${ref} here`);
    opened.push(editor.document);
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(0, 12));
    const hover = hovers.find((h) => /Call id/.test(markdownText(h)));
    assert.ok(hover, `our hover among ${hovers.length}`);
    const [parts, action] = hover.contents as vscode.MarkdownString[];
    assert.ok(parts && action);
    assert.match(parts.value, /\| Kind \| call \|/);
    assert.match(parts.value, /\| Entity \| acme \|/);
    assert.match(parts.value, /\| Project \| chatbot \|/);
    assert.match(parts.value, /\| Call id \| c0ffee42 \|/);
    assert.ok(!parts.isTrusted, 'the parts are not trusted');
    assert.match(action.value, /\(command:svc\.attachFeedback\?/);
    assert.deepStrictEqual(action.isTrusted, { enabledCommands: ['svc.attachFeedback', 'svc.openInWebUi'] });

    // No hover of ours off the ref.
    const none = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(0, 2));
    assert.ok(!none.some((h) => /Call id/.test(markdownText(h))));
  });
});
