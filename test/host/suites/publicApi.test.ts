// The public API as another extension sees it: activate()'s exports, getApi(1), against the
// reference server. Nothing in the object graph it hands out may lead to a key or a live object.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SvcApi, UploadSummary, CheckpointsFound } from '../../../api/svc';
import type { ReferenceServer } from '../../server';
import { api, connect, endSuite, exportsOf, KEY, PROJECT, signIn, signOut, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

const MODEL = 'm-api';

/**
 * Every value reachable from `root` through own properties (enumerable or not), prototypes other
 * than the built-in ones, and the values of Maps and Sets: what a consumer could get at.
 */
function reachable(root: unknown): unknown[] {
  const seen = new Set<unknown>();
  const builtins = new Set<unknown>([Object.prototype, Function.prototype, Array.prototype, Promise.prototype, Error.prototype, Map.prototype, Set.prototype]);
  const stack = [root];
  while (stack.length) {
    const v = stack.pop();
    if ((typeof v !== 'object' && typeof v !== 'function') || v === null || seen.has(v) || builtins.has(v)) {
      if (typeof v === 'string') seen.add(v);
      continue;
    }
    seen.add(v);
    for (const key of Reflect.ownKeys(v)) {
      const d = Object.getOwnPropertyDescriptor(v, key) as { value?: unknown; get?: unknown; set?: unknown };
      // Getters are not called: a getter that leaked would show as a property of the API itself.
      stack.push(d.value, d.get, d.set);
      if (typeof key === 'string') seen.add(key);
    }
    stack.push(Object.getPrototypeOf(v));
    if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
    if (v instanceof Set) for (const x of v) stack.push(x);
  }
  return [...seen];
}

async function assertNothingSecret(root: unknown, what: string): Promise<void> {
  const a = await api();
  const live = new Set<unknown>([a.connection, a.credentials, a.approvals, a.connection.client, a.log, a.globalState, a.workspaceState, a.uploads, a.threads, a.checkpoints, a.dashboards]);
  for (const v of reachable(root)) {
    assert.ok(!live.has(v), `${what} reaches a live object of the extension`);
    if (typeof v === 'string') {
      assert.ok(!v.includes(KEY), `${what} holds the key`);
      assert.ok(!/^(authorization|cookie|x-api-key)$/i.test(v), `${what} holds a header named ${v}`);
    }
  }
}

describe('public API (getApi(1))', () => {
  let server: ReferenceServer;
  let svc: SvcApi;
  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 7, { start: '2026-11-01T00:00:00Z', spacingMs: 60_000 });
    server.addCheckpoints(MODEL, 12, { stepSize: 10, metrics: (step) => ({ 'train/reward': step / 120 }) });
    await connect(server, { models: [MODEL], 'checkpoints.pollSeconds': 1 });
    svc = (await exportsOf()).getApi(1);
  });
  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await endSuite(server);
  });

  it('is versioned: getApi(1) is version 1, another version is refused by name', async () => {
    const exports = await exportsOf();
    assert.strictEqual(svc.version, 1);
    assert.strictEqual(exports.getApi(1), svc, 'one object per version');
    assert.throws(() => (exports.getApi as (v: number) => SvcApi)(2), /API version 2 is not offered; use getApi\(1\)/);
    assert.ok(Object.isFrozen(svc));
    assert.deepStrictEqual(Object.keys(svc).sort(), ['listCheckpoints', 'listThreads', 'onDidFindCheckpoints', 'onDidFinishUpload', 'summarizeRun', 'summarizeTrajectories', 'uploadTrajectories', 'version']);
  });

  it('lists checkpoints from the reference server, pages by lastId', async () => {
    const first = await svc.listCheckpoints({ modelId: MODEL, order: 'desc', limit: 5 });
    assert.strictEqual(first.modelId, MODEL);
    assert.deepStrictEqual(first.checkpoints.map((c) => c.step), [120, 110, 100, 90, 80]);
    assert.strictEqual(first.checkpoints[0]!.metrics['train/reward'], 1);
    assert.strictEqual(first.hasMore, true);
    const next = await svc.listCheckpoints({ modelId: MODEL, order: 'desc', limit: 5, after: first.lastId });
    assert.deepStrictEqual(next.checkpoints.map((c) => c.step), [70, 60, 50, 40, 30]);
    const all = await svc.listCheckpoints({ modelId: MODEL });
    assert.strictEqual(all.checkpoints.length, 12);
    assert.strictEqual(all.hasMore, false);
    assert.strictEqual(all.lastId, '');
    await assertNothingSecret([first, next, all], 'a checkpoint page');
  });

  it('lists threads of the selected project, sorted, paged, with turn refs', async () => {
    const page = await svc.listThreads({ sortBy: 'thread_id', direction: 'asc', limit: 3 });
    assert.strictEqual(page.projectId, PROJECT);
    assert.deepStrictEqual(page.threads.map((t) => t.threadId), ['thread-0', 'thread-1', 'thread-2']);
    assert.strictEqual(page.hasMore, true);
    const t = page.threads[0]!;
    assert.strictEqual(typeof t.turnCount, 'number');
    assert.match(t.firstTurnRef ?? '', /^svc:\/\/\/acme\/chatbot\/call\/thread-0-turn-0$/);
    const rest = await svc.listThreads({ sortBy: 'thread_id', direction: 'asc', offset: 3 });
    assert.deepStrictEqual(rest.threads.map((x) => x.threadId), ['thread-3', 'thread-4', 'thread-5', 'thread-6']);
    assert.strictEqual(rest.hasMore, false);
    const one = await svc.listThreads({ threadIds: ['thread-4'] });
    assert.deepStrictEqual(one.threads.map((x) => x.threadId), ['thread-4']);
    await assertNothingSecret([page, rest, one], 'a thread page');
  });

  it('summarizes a run (from its checkpoints and from a history.jsonl) and a trajectory file as the agents\' tools do', async () => {
    const fromService = await svc.summarizeRun({ modelId: MODEL });
    assert.match(fromService, /Model "m-api".*12 steps with metrics, steps 10–120/s);
    assert.match(fromService, /Best train\/reward: 1 at step 120/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-api-summary-'));
    const history = path.join(dir, 'history.jsonl');
    fs.writeFileSync(history, [1, 2, 3].map((step) => JSON.stringify({ 'train/reward': step / 10, step, recorded_at: '2026-11-01T00:00:00' })).join('\n') + '\n');
    const fromFile = await svc.summarizeRun({ historyFile: history });
    assert.match(fromFile, /3 steps with metrics, steps 1–3/);
    const file = path.join(dir, 'groups.jsonl');
    const trajectory = (reward: number) => ({ reward, messages_and_choices: [{ role: 'user', content: 'hi' }] });
    fs.writeFileSync(file, JSON.stringify({ trajectories: [trajectory(1), trajectory(0)] }) + '\n' + JSON.stringify({ trajectories: [trajectory(0.5), trajectory(0.5)] }) + '\n');
    const groups = await svc.summarizeTrajectories({ file });
    assert.match(groups, /2 groups/);
    assert.match(groups, /zero[- ]variance/i);
    await assert.rejects(svc.summarizeRun({ modelId: 'no-such-model' }), (e: Error) => e.constructor === Error && /svc summarizeRun: .*no-such-model/.test(e.message));
    await assertNothingSecret([fromService, fromFile, groups], 'a summary');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('rejects bad options with a plain Error naming the field, before any request', async () => {
    server.stats.clear();
    await assert.rejects(svc.listCheckpoints({} as never), (e: Error) => e.constructor === Error && /svc listCheckpoints: modelId: /.test(e.message));
    await assert.rejects(svc.listCheckpoints({ modelId: MODEL, limit: 1000 }), /svc listCheckpoints: limit: /);
    await assert.rejects(svc.listThreads({ sortBy: 'cost' } as never), /svc listThreads: sortBy: /);
    await assert.rejects(svc.listThreads({ baseUrl: 'http://evil.test' } as never), /svc listThreads: .*baseUrl/);
    await assert.rejects(svc.uploadTrajectories({ files: [], modelId: MODEL, split: 'train' }), /svc uploadTrajectories: files: /);
    assert.strictEqual(server.stats.count(), 0);
  });

  it('holds no key, header, credential or live object anywhere in its object graph, nor in its errors', async () => {
    const exports = await exportsOf();
    await assertNothingSecret(svc, 'getApi(1)');
    // Everything activate() returns, but the test-only entry (absent outside a harness host).
    await assertNothingSecret(Object.fromEntries(Object.entries(exports).filter(([k]) => k !== 'getTestApi')), 'the exports');
    // A refusal of the service: the error is a plain Error with the message only.
    server.faults.add({ path: /checkpoints/, kind: 'status', status: 404, times: 1 });
    const error = await svc.listCheckpoints({ modelId: MODEL }).then(
      () => undefined,
      (e: unknown) => e,
    );
    server.faults.clear();
    assert.ok(error instanceof Error && error.constructor === Error, 'a plain Error');
    assert.match(error.message, /^svc listCheckpoints: /);
    assert.deepStrictEqual(Object.keys(error), []);
    assert.strictEqual((error as { cause?: unknown }).cause, undefined);
    await assertNothingSecret(error, 'an error of the API');
  });

  // Issue 28, item 7: a service that echoes the key or the Basic header reached these errors.
  it('redacts a key the service echoes (the key, its Basic header values) in its errors, as the log does', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const echo = `got ${KEY} in Basic ${b64(`api:${KEY}`)}`;
    const errorOf = (p: Promise<unknown>) => p.then(() => assert.fail('resolved'), (e: Error) => e.message);
    server.faults.add({ path: /checkpoints/, kind: 'status', status: 500, body: { message: echo }, times: 20 });
    const viaTool = await errorOf(svc.summarizeRun({ modelId: MODEL }));
    server.faults.clear();
    server.faults.add({ path: /checkpoints/, kind: 'status', status: 422, body: { message: echo }, times: 20 });
    const direct = await errorOf(svc.listCheckpoints({ modelId: MODEL }));
    server.faults.clear();
    for (const message of [viaTool, direct]) {
      assert.match(message, /got \*\*\* in Basic \*\*\*/, message);
      assert.ok(!message.includes(KEY) && !message.includes(b64(`api:${KEY}`)), message);
    }
  });

  it('uploads trajectories through the scripted path and tells the upload to onDidFinishUpload listeners', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-api-upload-'));
    const file = path.join(dir, 'groups.jsonl');
    const group = (i: number) => ({
      trajectories: [{ messages_and_choices: [{ role: 'user', content: `q${i}` }, { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: `a${i}` } }], reward: i }],
    });
    fs.writeFileSync(file, [0, 1, 2].map((i) => JSON.stringify(group(i))).join('\n') + '\n');
    const heard: UploadSummary[] = [];
    const sub = svc.onDidFinishUpload((e) => heard.push(e));
    const prompts = new Prompts();
    try {
      const summary = await svc.uploadTrajectories({ files: [file], modelId: MODEL, split: 'train' });
      assert.strictEqual(summary.status, 'done');
      assert.deepStrictEqual(
        summary.files.map((f) => [path.basename(f.file), f.status, f.groupsSent, f.trajectoriesSent]),
        [['groups.jsonl', 'done', 3, 3]],
      );
      assert.strictEqual(server.store.logs.length, 1);
      await waitFor('the upload event', () => heard.length === 1);
      assert.deepStrictEqual(heard[0], summary);
      await assertNothingSecret(summary, 'an upload summary');
      assert.deepStrictEqual(prompts.prompts(), [], 'a scripted upload never prompts');
    } finally {
      sub.dispose();
      prompts.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tells onDidFindCheckpoints listeners about checkpoints a dashboard poll found', async () => {
    const heard: CheckpointsFound[] = [];
    const sub = svc.onDidFindCheckpoints((e) => heard.push(e));
    try {
      await vscode.commands.executeCommand('svc.dashboard.open', { modelId: MODEL });
      const a = await api();
      await waitFor('the first load', () => !!a.dashboards.panel(MODEL)?.sync.loaded, 20_000);
      const added = server.addCheckpoints(MODEL, 2);
      await waitFor('a poll to find them', () => heard.length > 0, 15_000);
      assert.strictEqual(heard[0]!.modelId, MODEL);
      assert.deepStrictEqual(heard.flatMap((e) => e.checkpoints.map((c) => c.id)), added.map((c) => c.id));
      await assertNothingSecret(heard, 'a checkpoints event');
    } finally {
      sub.dispose();
    }
  });

  it('rejects when not signed in, naming the command that fixes it, and never prompts', async () => {
    const prompts = new Prompts();
    try {
      await signOut();
      await assert.rejects(svc.listThreads(), /svc listThreads: not signed in: run "svc: Sign In"/);
      assert.deepStrictEqual(prompts.prompts(), []);
      assert.deepStrictEqual(prompts.modals(), []);
    } finally {
      prompts.dispose();
      await signIn();
    }
  });
});
