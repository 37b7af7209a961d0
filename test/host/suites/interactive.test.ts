// The commands as a user runs them from the palette, the explorer and the views: no scripting
// arguments, every question answered through the quick picks, input boxes, dialogs and
// notification buttons the extension shows (see prompts.ts). Each test checks what the prompts
// offered and refused, and what the service received.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { callRef } from '../../../src/api/refs';
import type { ThreadNode } from '../../../src/threads/provider';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, endSuite, KEY, PROJECT, signIn, signOut, startServer, storeRevokedKey, USER, waitFor } from './helpers';
import { Prompts, type Step } from './prompts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-interactive-'));
type Thread = Extract<ThreadNode, { kind: 'thread' }>;

/**
 * Runs a command with its prompts answered by `steps`; asserts every answer was used. Summaries
 * are notifications shown after the command returns: `until` waits for what the test needs.
 */
async function run<T>(
  command: string,
  steps: Step[],
  options: { setup?: (p: Prompts) => void; until?: (p: Prompts) => boolean } = {},
  ...args: unknown[]
): Promise<{ result: T; p: Prompts }> {
  const p = new Prompts().script(...steps);
  options.setup?.(p);
  try {
    const result = await vscode.commands.executeCommand<T>(command, ...args);
    if (options.until) await waitFor(`the notifications of ${command}`, () => options.until!(p));
    p.assertDone();
    return { result, p };
  } finally {
    p.dispose();
  }
}

function trajectoryFile(name: string, groups: number): vscode.Uri {
  const file = path.join(dir, name);
  const lines = Array.from({ length: groups }, (_, i) =>
    JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: `q${i}` }], reward: i, metadata: { i } }] }),
  );
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return vscode.Uri.file(file);
}

describe('interactive prompts (the commands as a user answers them)', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer({
      basicUsers: [{ username: 'alice', password: 'pw-alice', userId: 'alice-id' }],
      bearerTokens: [{ token: 'tok-alice', userId: 'alice-id' }],
    });
    server.seedThreads(PROJECT, 6, { turnsPerThread: 3, start: '2026-11-01T00:00:00Z', spacingMs: 60_000 });
    server.addCheckpoints('m-int', 3);
    server.addCheckpoints('m-typed', 1); // Add Model checks that the service knows it
    await connect(server);
  });
  beforeEach(() => server.faults.clear());
  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(async () => {
    await endSuite(server);
  });

  it('signs in by pasting an API key; the box refuses an empty key and one with spaces', async () => {
    const a = await api();
    await signOut();
    await waitFor('signed out', () => a.connection.state === 'signedOut');
    const { result, p } = await run<boolean>('svc.signIn', [
      { pick: 'Paste an API key', title: /^svc: Sign in to http:\/\/127\.0\.0\.1:\d+$/ },
      { type: KEY, invalid: ['', 'two words'], title: 'svc: API key' },
    ]);
    assert.strictEqual(result, true);
    assert.deepStrictEqual(p.prompts()[1]!.refusals, ['The API key is empty.', 'The API key must not contain spaces or line breaks.']);
    assert.strictEqual(a.connection.state, 'signedIn');
    assert.strictEqual(a.connection.source, 'secretStorage');
    assert.match(p.messages('info')[0]!.title, /^svc: signed in to http:\/\/127\.0\.0\.1:\d+: the service accepted the key\.$/);
    assert.ok(!JSON.stringify(p.shown).includes(KEY), 'the key is in no prompt or message');
  });

  it('signs in on the advanced path: Basic username and password for traces, a separate Bearer token for models', async () => {
    const a = await api();
    const { p } = await run<boolean>('svc.signIn', [
      { pick: 'Advanced…' },
      { type: 'alice', title: 'svc: Username (Basic auth)' },
      { type: 'pw-alice', invalid: [''], title: /Password/ },
      { type: 'tok-alice', invalid: ['tok alice'], title: /Access token/ },
    ]);
    assert.strictEqual(p.prompts()[1]!.value, 'api', 'the username box starts at "api"');
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    // Basic alice:pw-alice on a trace endpoint: the service records alice as the author.
    const res = await vscode.commands.executeCommand<{ svc_user_id: string }>('svc.attachFeedback', {
      ref: callRef(PROJECT, 'thread-0-turn-0'),
      kind: 'note',
      note: 'from alice',
    });
    assert.strictEqual(res.svc_user_id, 'alice-id');
    // Bearer tok-alice on a model endpoint.
    server.stats.clear();
    await configure({ models: ['m-int'] });
    await waitFor('models', () => a.checkpoints.models.includes('m-int'));
    const children = await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm-int' });
    assert.strictEqual(children.filter((c) => c.kind === 'checkpoint').length, 3);
    const [req] = server.stats.filter('/v1/preview/models/m-int/checkpoints');
    assert.strictEqual(req!.authScheme, 'bearer');
    assert.strictEqual(req!.status, 200);
    await signIn();
    await waitFor('signed in with the key', () => a.connection.state === 'signedIn');
  });

  it('turns a 401 into one "Sign In Again" prompt; pressing it signs in and the view loads', async () => {
    const a = await api();
    // First a prompt nobody answers (it went to the notification center: it never settles).
    await storeRevokedKey('a-key-the-service-does-not-know');
    await waitFor('signed in (bad key)', () => a.connection.state === 'signedIn');
    const ignored = new Prompts().answer(/./, () => new Promise<undefined>(() => undefined));
    try {
      await vscode.commands.executeCommand('svc.threads.refresh');
      assert.strictEqual(ignored.messages('error').length, 1);
    } finally {
      ignored.dispose();
    }
    // The next sign-in that fails asks again.
    await storeRevokedKey('another-key-the-service-does-not-know');
    await waitFor('signed in (bad key)', () => a.connection.state === 'signedIn');
    const p = new Prompts().script({ pick: 'Paste an API key' }, { type: KEY }).answer(/./, 'Sign In Again');
    try {
      await vscode.commands.executeCommand('svc.threads.refresh');
      await waitFor('signed in again through the prompt', () => a.connection.state === 'signedIn' && p.prompts().length === 2);
      p.assertDone();
      const offers = p.messages('error').filter((m) => m.items.includes('Sign In Again'));
      assert.strictEqual(offers.length, 1, JSON.stringify(p.messages()));
      assert.match(offers[0]!.title, /401/);
    } finally {
      p.dispose();
      await signIn();
    }
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 6);
  });

  it('a 401 while attaching feedback asks to sign in once, not twice', async () => {
    const a = await api();
    await storeRevokedKey('a-key-the-service-does-not-know');
    await waitFor('signed in (bad key)', () => a.connection.state === 'signedIn');
    const p = new Prompts();
    try {
      await assert.rejects(
        Promise.resolve(vscode.commands.executeCommand('svc.attachFeedback', { ref: callRef(PROJECT, 'thread-1-turn-0'), kind: 'note', note: 'x' })),
        /401/,
      );
      await new Promise((r) => setTimeout(r, 100));
      const offers = p.messages().filter((m) => m.items.some((i) => /^Sign In/.test(i)));
      assert.strictEqual(offers.length, 1, JSON.stringify(p.messages()));
      assert.strictEqual(a.connection.state, 'authFailed');
    } finally {
      p.dispose();
      await signIn();
    }
    await waitFor('signed in', () => a.connection.state === 'signedIn');
  });

  it('attaches a note from the palette: the ref box refuses bad and foreign refs, the note box long notes; the creator comes from svc.feedback.creator, unasked', async () => {
    await vscode.env.clipboard.writeText('not a ref');
    await configure({ 'feedback.creator': 'alice' });
    const ref = callRef(PROJECT, 'thread-2-turn-1');
    const { result, p } = await run<{ id: string }>(
      'svc.attachFeedback',
      [
        { type: ref, invalid: ['', 'svc:///acme/other/call/x', 'https://example.com'], title: 'svc: Attach feedback to' },
        { pick: 'Note' },
        { type: 'the answer cites the right doc', invalid: ['', ' ', 'x'.repeat(1025)], title: /^svc: Note on / },
      ],
      { setup: (pr) => pr.answer(/^svc: feedback .* created at /, 'Copy Id') },
    );
    assert.strictEqual(p.prompts().length, 3, `no creator prompt: ${JSON.stringify(p.prompts().map((x) => x.title))}`);
    assert.match(p.messages('info')[0]!.title, / by alice\.$/, 'the notification names the creator');
    const [refBox, kind, noteBox] = p.prompts();
    assert.strictEqual(refBox!.value, `svc:///${PROJECT}/`, 'the box starts at the project prefix (the clipboard held no ref)');
    assert.match(refBox!.refusals![1]!, /acme\/other/);
    assert.match(refBox!.refusals![1]!, /acme\/chatbot/);
    assert.deepStrictEqual(kind!.items.map((i) => i.replace(/\$\([\w-]+\) /, '')), ['Note', 'Reaction', 'Custom…']);
    assert.match(noteBox!.refusals![2]!, /1025 characters long; at most 1024/);
    const [row] = server.store.feedback.filter((r) => r.id === result.id);
    assert.ok(row);
    assert.strictEqual(row.svc_ref, ref);
    assert.deepStrictEqual(row.payload, { note: 'the answer cites the right doc' });
    assert.strictEqual(row.creator, 'alice');
    assert.strictEqual(row.svc_user_id, USER);
    await waitFor('the id copied', async () => (await vscode.env.clipboard.readText()) === result.id);
  });

  it('reacts to the last turn of a thread item with a typed emoji; an empty svc.feedback.creator sends no creator', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes().find((n): n is Thread => n.kind === 'thread')!;
    await configure({ 'feedback.creator': '' });
    const { result, p } = await run<{ id: string }>(
      'svc.attachFeedback',
      [
        { pick: 'Last turn', title: `svc: Attach feedback to which turn of ${node.row.thread_id}?` },
        { pick: 'Reaction' },
        { pick: 'Other emoji…' },
        { type: '🚀', invalid: ['', 'ab', '👍👍', ' 👍'], title: 'svc: Reaction' },
      ],
      {},
      node,
    );
    assert.strictEqual(p.prompts().length, 4, 'no creator prompt');
    const [row] = server.store.feedback.filter((r) => r.id === result.id);
    assert.strictEqual(row!.svc_ref, callRef(PROJECT, node.row.last_turn_id!));
    assert.strictEqual((row!.payload as { emoji: string }).emoji, '🚀');
    assert.strictEqual(row!.creator, null, 'an empty creator setting sends none');
  });

  it('sends a custom payload written in an untitled JSON document; a broken payload asks to fix it first', async () => {
    await vscode.env.clipboard.writeText(callRef(PROJECT, 'thread-3-turn-0'));
    let sends = 0;
    const write = async (text: string) => {
      const editor = vscode.window.activeTextEditor!;
      assert.strictEqual(editor.document.languageId, 'json');
      await editor.edit((e) => e.replace(new vscode.Range(0, 0, editor.document.lineCount, 0), text));
    };
    const { result, p } = await run<{ id: string }>(
      'svc.attachFeedback',
      [{ type: callRef(PROJECT, 'thread-3-turn-0') }, { pick: 'Custom…' }, { type: 'score', invalid: ['', 'svc.score'] }],
      {
        setup: (pr) =>
          pr.answer(/payload/, async () => {
            await write(++sends === 1 ? '{ "value": 0.9, }x' : '{ "value": 0.9, "rubric": "v2" }');
            return 'Send';
          }),
      },
    );
    assert.strictEqual(p.prompts()[0]!.value, callRef(PROJECT, 'thread-3-turn-0'), 'a ref on the clipboard is offered');
    assert.strictEqual(sends, 2);
    assert.strictEqual(p.messages('error').length, 1, 'the broken payload was refused once');
    const [row] = server.store.feedback.filter((r) => r.id === result.id);
    assert.strictEqual(row!.feedback_type, 'score');
    assert.deepStrictEqual(row!.payload, { value: 0.9, rubric: 'v2' });
    assert.ok(!vscode.workspace.textDocuments.some((d) => d.isUntitled && d.languageId === 'json' && !d.isClosed && d.getText().includes('rubric')), 'the payload document was closed');
  });

  it('uploads a file from the explorer to a typed model and a custom split; the next upload offers both first', async () => {
    server.store.logs.length = 0;
    const uri = trajectoryFile('explorer.jsonl', 4);
    const first = await run<{ status: string }>(
      'svc.uploadTrajectories',
      [{ type: 'typed-model', title: 'svc: Upload to which model?' }, { pick: 'Custom…', title: 'svc: Split for explorer.jsonl' }, { type: 'holdout', invalid: ['', '   '] }],
      { until: (p) => p.messages('info').length > 0 },
      uri,
      [uri],
    );
    assert.strictEqual(first.result.status, 'done');
    assert.deepStrictEqual(
      server.store.logs.map((l) => [l.modelId, l.split, (l.body.trajectory_groups as unknown[]).length]),
      [['typed-model', 'holdout', 4]],
    );
    // Plurals as people write them, and durations rounded for people (never "0.0 s").
    assert.match(first.p.messages('info')[0]!.title, /^svc: uploaded 1 file to typed-model \(holdout\): 4 groups, \d+ trajector(y|ies), [\d.]+ (bytes|KiB|MiB) in (< 1 ms|\d+ ms|\d+(\.\d+)? s)\./);
    assert.doesNotMatch(first.p.messages('info')[0]!.title, /\(s\)|0\.0 s/);

    // The same content to the same model and split: asked first, saying when it was sent.
    const second = await run<{ status: string }>(
      'svc.uploadTrajectories',
      [{ pick: 'typed-model' }, { pick: 'holdout' }],
      { setup: (pr) => pr.answer(/already uploaded/, 'Upload Again'), until: (p) => p.messages('info').length > 0 },
      uri,
      [uri],
    );
    assert.strictEqual(second.result.status, 'done');
    const asked = second.p.messages('warning').find((m) => /already uploaded/.test(m.title))!;
    assert.strictEqual(asked.title, 'svc: explorer.jsonl was already uploaded to typed-model (holdout).');
    assert.strictEqual(asked.modal, true);
    assert.deepStrictEqual(asked.items, ['Upload Again']);
    assert.match(asked.detail ?? '', /^explorer\.jsonl \(this content\) was already uploaded to typed-model \(holdout\) on \d{4}-\d\d-\d\d \d\d:\d\d UTC: 4 groups\./);
    const [models, splits] = second.p.prompts();
    assert.ok(models!.items.includes('typed-model'), 'the model is remembered');
    assert.strictEqual(splits!.items[0], 'holdout', 'the split used last for this file comes first');
    assert.strictEqual(server.store.logs.length, 2);
  });

  it('the same content again, answered by closing the question: nothing is sent', async () => {
    server.store.logs.length = 0;
    const uri = trajectoryFile('twice.jsonl', 5);
    const first = await run<{ status: string }>('svc.uploadTrajectories', [{ type: 'm-twice' }, { pick: 'train' }], { until: (p) => p.messages('info').length > 0 }, uri, [uri]);
    assert.strictEqual(first.result.status, 'done');
    const second = await run<{ status: string }>('svc.uploadTrajectories', [{ pick: 'm-twice' }, { pick: 'train' }], { setup: (pr) => pr.answer(/already uploaded/, () => undefined) }, uri, [uri]);
    assert.strictEqual(second.result.status, 'aborted');
    assert.strictEqual(server.store.logs.length, 1, 'sent once');
  });

  it("a model named only by the file's folder is preselected, and the pick says it is not in the Checkpoints view", async () => {
    server.store.logs.length = 0;
    const folder = path.join(dir, '.art', 'proj', 'models', 'folder-model', 'trajectories', 'train');
    fs.mkdirSync(folder, { recursive: true });
    const file = path.join(folder, '0001.jsonl');
    fs.writeFileSync(file, JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'folder' }], reward: 1 }] }) + '\n');
    const uri = vscode.Uri.file(file);
    const { result, p } = await run<{ status: string }>(
      'svc.uploadTrajectories',
      [{ pick: 'folder-model', title: 'svc: Upload to which model?' }, { pick: 'train' }],
      { until: (p) => p.messages('info').length > 0 },
      uri,
      [uri],
    );
    assert.strictEqual(result.status, 'done');
    const pick = p.prompts()[0]!;
    assert.strictEqual(pick.items[0], 'folder-model', 'preselected: the first item');
    assert.strictEqual(pick.descriptions![0], "from the file's folder (models/<model>/…); not in the Checkpoints view: check it is the model to log to");
    assert.deepStrictEqual(server.store.logs.map((l) => l.modelId), ['folder-model']);
  });

  it("the editor title's Upload button (the file plus the editor's context object) asks for the model, as a click does, instead of refusing as a script", async () => {
    server.store.logs.length = 0;
    const uri = trajectoryFile('editor-title.jsonl', 2);
    // What VS Code passes an editor/title command: the resource, then { groupId, editorIndex }.
    const { result, p } = await run<{ status: string }>(
      'svc.uploadTrajectories',
      [{ type: 'title-model', title: 'svc: Upload to which model?' }, { pick: 'train' }],
      { until: (p) => p.messages('info').length > 0 },
      uri,
      { groupId: 1, editorIndex: 0 },
    );
    assert.strictEqual(result.status, 'done');
    assert.deepStrictEqual(p.messages('error'), []);
    assert.deepStrictEqual(server.store.logs.map((l) => l.modelId), ['title-model']);
  });

  it('uploads from the palette through the open dialog; a refused request is resumed from the "Retry Remaining" button', async () => {
    server.store.logs.length = 0;
    const uri = trajectoryFile('palette.jsonl', 3);
    server.faults.add({ path: '/v1/preview/models/m-int/log', kind: 'status', status: 429 });
    const { result, p } = await run<{ status: string }>(
      'svc.uploadTrajectories',
      [{ open: [uri] }, { pick: 'm-int' }, { pick: 'train' }],
      { setup: (pr) => pr.answer(/failed/, 'Retry Remaining'), until: (p) => p.messages('info').some((m) => /uploaded/.test(m.title)) },
    );
    assert.strictEqual(result.status, 'failed');
    const failure = p.messages('error')[0]!;
    assert.deepStrictEqual(failure.items, ['Retry Remaining', 'Show Log']);
    assert.match(failure.title, /were not logged/);
    assert.match(p.messages('info').at(-1)!.title, /uploaded 1 file to m-int \(train\)/);
    const logged = server.store.logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { i: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.i));
    assert.deepStrictEqual(logged, [0, 1, 2], 'every group once');
    assert.strictEqual(server.stats.count('/v1/preview/models/m-int/log'), 2);
  });

  it('a 503 after the service stored the request: Retry Remaining names the lines and skips them by default, or sends them when asked', async () => {
    server.store.logs.length = 0;
    const uri = trajectoryFile('maybe.jsonl', 3);
    const ids = () => server.store.logs.flatMap((l) => (l.body.trajectory_groups as { trajectories: { metadata: { i: number } }[] }[]).map((g) => g.trajectories[0]!.metadata.i));
    server.faults.add({ path: '/v1/preview/models/m-503/log', kind: 'status-after-processing', status: 503 });
    const first = await run<{ status: string }>('svc.uploadTrajectories', [], { until: (p) => p.messages('error').length > 0 }, uri, [uri], { modelId: 'm-503', split: 'train' });
    assert.strictEqual(first.result.status, 'failed');
    assert.match(first.p.messages('error')[0]!.title, /Lines 1–3 may already be logged \(the service answered 503 after receiving them\)/);
    assert.deepStrictEqual(ids(), [0, 1, 2], 'the service stored them before the 503');

    // The user is asked, in a modal naming the lines and why; Skip is offered first.
    const skip = await run<{ status: string }>('svc.uploadTrajectories.retryRemaining', [], { setup: (pr) => pr.answer(/may already be logged/, 'Skip Them') });
    const ask = skip.p.messages('warning')[0]!;
    assert.strictEqual(ask.title, 'svc: lines 1–3 of maybe.jsonl may already be logged: the service answered 503 after receiving them.');
    assert.deepStrictEqual(ask.items, ['Skip Them', 'Send Them Too']);
    assert.strictEqual(skip.result.status, 'done');
    assert.deepStrictEqual(ids(), [0, 1, 2], 'skipped: nothing twice');

    // The same failure again, and this time the user chooses to send them.
    server.store.logs.length = 0;
    server.faults.add({ path: '/v1/preview/models/m-503/log', kind: 'status', status: 503 });
    await run('svc.uploadTrajectories', [], { until: (p) => p.messages('error').length > 0 }, uri, [uri], { modelId: 'm-503', split: 'train' });
    assert.deepStrictEqual(ids(), [], 'this 503 came before storing');
    const send = await run<{ status: string }>('svc.uploadTrajectories.retryRemaining', [], { setup: (pr) => pr.answer(/may already be logged/, 'Send Them Too') });
    assert.strictEqual(send.result.status, 'done');
    assert.deepStrictEqual(ids(), [0, 1, 2], 'sent on the explicit choice');
  });

  it('proposes the model and split of the official client\'s folder layout, and uploads step files in step order', async () => {
    server.store.logs.length = 0;
    const art = path.join(dir, '.art', 'weather', 'models', 'agent-007', 'trajectories', 'val');
    fs.mkdirSync(art, { recursive: true });
    const step = (n: number) => {
      const file = path.join(art, `000${n}.jsonl`);
      fs.writeFileSync(file, JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: `step ${n}` }], reward: n, metadata: { step: n } }], exceptions: [] }) + '\n');
      return vscode.Uri.file(file);
    };
    const [s2, s1] = [step(2), step(1)];
    const { result, p } = await run<{ status: string; files: { step?: number }[] }>(
      'svc.uploadTrajectories',
      [{ pick: 'agent-007' }, { pick: 'val' }],
      { until: (pr) => pr.messages('info').length > 0 },
      s2,
      [s2, s1],
    );
    assert.strictEqual(result.status, 'done');
    const [models, splits] = p.prompts();
    assert.strictEqual(models!.items[0], 'agent-007', 'the folder\'s model is offered first');
    assert.strictEqual(splits!.items[0], 'val', 'the folder\'s split is offered first');
    assert.deepStrictEqual(result.files.map((f) => f.step), [1, 2], 'step order, whatever the selection order');
    assert.deepStrictEqual(server.store.logs.map((l) => [l.modelId, l.split, (l.body.trajectory_groups as { trajectories: { metadata: { step: number } }[] }[])[0]!.trajectories[0]!.metadata.step]), [['agent-007', 'val', 1], ['agent-007', 'val', 2]]);
    assert.match(p.messages('info')[0]!.title, /Steps: step 1 \(1 group\), step 2 \(1 group\)\./);
  });

  it('imports calls chosen in the open dialog and reports what was started and ended', async () => {
    const file = path.join(dir, 'calls.jsonl');
    const start = { project_id: PROJECT, op_name: 'chat', started_at: '2026-11-20T10:00:00Z', attributes: {}, inputs: {}, id: 'imp-1', trace_id: 'imp-1', thread_id: 'imported-thread', turn_id: 'imp-1' };
    fs.writeFileSync(file, [JSON.stringify({ start }), JSON.stringify({ end: { project_id: PROJECT, id: 'imp-1', ended_at: '2026-11-20T10:00:03Z', summary: {} } })].join('\n') + '\n');
    const { p } = await run('svc.importCalls', [{ open: [vscode.Uri.file(file)] }], { until: (p) => p.messages('info').length > 0 });
    assert.strictEqual(p.prompts()[0]!.title, 'svc: Import calls');
    assert.match(p.messages('info')[0]!.title, /^svc: imported 2 call records \(1 started, 1 ended\) from 1 file in (\d+ ms|\d+(\.\d+)? s)\.$/);
    assert.ok(server.store.calls.get(PROJECT)!.has('imp-1'));
  });

  it('sorts and filters threads through the quick picks; the range box takes plain dates and refuses what is not a date', async () => {
    const a = await api();
    const sort = await run('svc.threads.sortBy', [{ pick: /^thread id ↑ ascending$/, title: 'svc: Sort threads by' }]);
    assert.strictEqual(sort.p.prompts()[0]!.items[0], '$(check) last update ↓ descending', 'the current order first, marked');
    await waitFor('sorted', () => a.threads.sort.field === 'thread_id' && a.threads.sort.direction === 'asc');
    const range = await run('svc.threads.filter', [
      { pick: 'Custom range…' },
      { type: '2026-11-01T00:02:30Z', invalid: ['yesterday', '2026-13-01T00:00:00Z'] },
      { type: '2026-11-02', invalid: ['2026-11-31', '11/02/2026'] },
    ]);
    assert.strictEqual(range.p.prompts()[1]!.refusals!.length, 2);
    assert.match(range.p.prompts()[2]!.refusals![0]!, /Use a date \(2026-11-15, from local midnight\)/);
    assert.deepStrictEqual(a.threads.filter, { kind: 'range', after: '2026-11-01T00:02:30Z', before: new Date(2026, 10, 2).toISOString() }, 'a plain date is local midnight');
    await a.threads.ensureLoaded();
    // Threads with calls between 00:02:30 and the next day: the last three seeded, by id.
    assert.deepStrictEqual(a.threads.rows.map((r) => r.thread_id), ['thread-3', 'thread-4', 'thread-5']);
    await run('svc.threads.filter', [{ pick: 'Thread ids…' }, { type: 'thread-1, thread-4', invalid: ['', ' , '] }]);
    await a.threads.ensureLoaded();
    assert.deepStrictEqual(a.threads.rows.map((r) => r.thread_id), ['thread-1', 'thread-4']);
    await vscode.commands.executeCommand('svc.threads.clearFilter');
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'last_updated', direction: 'desc' });
  });

  it('selects a project and adds and removes a model by typing, refusing a malformed project id', async () => {
    const a = await api();
    const USER_SCOPE = { pick: 'User settings', title: /^svc: Save svc\.(project|models) in…$/ };
    await run('svc.selectProject', [{ type: 'acme/other', title: 'svc: Select a project' }, USER_SCOPE]);
    await waitFor('project', () => a.connection.config.project === 'acme/other');
    const bad = await run('svc.selectProject', [{ type: 'no-slash' }]);
    assert.match(bad.p.messages('error')[0]!.title, /"no-slash" is not a project id of the form <entity>\/<project>/);
    const back = await run('svc.selectProject', [{ pick: PROJECT }, USER_SCOPE]);
    assert.ok(back.p.prompts()[0]!.items.includes('acme/other'), 'recent projects are offered');
    await waitFor('project back', () => a.connection.config.project === PROJECT);

    await run('svc.checkpoints.addModel', [{ type: 'm-typed', title: 'svc: Add a model' }, USER_SCOPE]);
    await waitFor('added', () => a.checkpoints.models.includes('m-typed'));
    await run('svc.checkpoints.removeModel', [{ pick: 'm-typed', title: 'svc: Remove a model' }, USER_SCOPE]);
    await waitFor('removed', () => !a.checkpoints.models.includes('m-typed'));
  });

  it('sets the base URL through a box that refuses other schemes, credentials in the URL and non-URLs', async () => {
    const a = await api();
    const { p } = await run('svc.setBaseUrl', [
      { type: `${server.url}/`, invalid: ['ftp://svc.example.com', 'https://u:p@svc.example.com', 'svc.example.com'] },
      { pick: 'User settings', title: 'svc: Save svc.baseUrl in…' },
    ]);
    assert.deepStrictEqual(p.prompts()[1]!.items, ['$(account) User settings', '$(folder) This workspace only'], 'user settings first');
    assert.deepStrictEqual(p.prompts()[0]!.refusals, [
      'Use an http or https URL.',
      'Do not put credentials in the URL; sign in instead.',
      'Enter a URL such as https://svc.example.com',
    ]);
    await waitFor('base URL without the trailing slash', () => a.connection.config.baseUrl === server.url);
  });

  it('compares runs from the palette: the pick lists the known models and "Add history.jsonl file…", whose dialog adds the files', async () => {
    const runDir = (name: string, rewards: number[]) => {
      const d = path.join(dir, 'compare', name);
      fs.mkdirSync(d, { recursive: true });
      const lines = rewards.map((r, i) => JSON.stringify({ 'val/reward': r, step: (i + 1) * 10, recorded_at: `2026-11-19T10:0${i}:00.000000` }));
      fs.writeFileSync(path.join(d, 'history.jsonl'), lines.join('\n') + '\n');
      return vscode.Uri.file(path.join(d, 'history.jsonl'));
    };
    await configure({ models: ['m-int'] });
    await waitFor('the model configured', async () => (await api()).connection.config.models.includes('m-int'));
    const a = runDir('run-a', [0.1, 0.4, 0.3]);
    const b = runDir('run-b', [0.2, 0.5]);
    const { result, p } = await run<string[]>('svc.dashboard.compare', [{ pick: 'Add history.jsonl file…', title: 'svc: Compare Runs' }, { open: [a, b] }]);
    assert.deepStrictEqual(result, [`file:${a.fsPath}`, `file:${b.fsPath}`]);
    const pick = p.prompts()[0]!;
    assert.ok(pick.items.includes('m-int'), `the pick offers the configured model: ${pick.items.join(' | ')}`);
    assert.strictEqual(pick.items.at(-1), 'Add history.jsonl file…');
    assert.strictEqual(p.prompts()[1]!.kind, 'openDialog');
  });
});
