// Keys go only where the user sent them (issue 9), in a trusted workspace: a workspace's settings
// that point the service URLs at a recording server, for each credential source; the key of one
// origin and another model-endpoints origin; sign-in that checks the key; and settings hygiene (no
// .vscode folder unless the user asks for one). Restricted Mode runs in its own host: restricted.test.ts.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { callRef } from '../../../src/api/refs';
import type { ReferenceServer } from '../../server';
import { api, configure, configureWorkspace, KEY, modelRow, PROJECT, resetSettings, signOut, startServer, waitFor } from './helpers';
import { Prompts, type Step } from './prompts';

const ALLOW = 'Allow';
const DONT_ALLOW = "Don't Allow";
const CREDENTIAL_VARIABLES = ['SVC_API_KEY', 'SVC_USERNAME', 'SVC_PASSWORD', 'SVC_ACCESS_TOKEN', 'NETRC', 'SVC_BASE_URL', 'SVC_TRAINING_BASE_URL'];

/** Requests a server received that carried credentials (any Authorization header). */
const credentialed = (s: ReferenceServer) => s.stats.requests.filter((r) => r.authScheme !== 'none').length;
const originOf = (s: ReferenceServer) => new URL(s.url).origin;

/** The rows of the table the issue asks for, printed at the end of the run. */
export const table: { arrival: string; source: string; received: number }[] = [];
function record(arrival: string, source: string, received: number): void {
  table.push({ arrival, source, received });
}

/** Every file under `dir`, relative. */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      out.push(path.relative(dir, full));
      if (e.isDirectory()) walk(full);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}

async function withPrompts<T>(p: Prompts, fn: () => PromiseLike<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    p.dispose();
  }
}

interface Source {
  name: string;
  /** Makes the key available for `origins` (the servers' origins). */
  set(origins: string[]): Promise<void>;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-trust-'));
const SOURCES: Source[] = [
  {
    name: 'SecretStorage',
    // What an earlier Sign In stored: a key for the first origin only.
    set: async (origins) => {
      const a = await api();
      await a.credentials.store(origins[0]!, { username: 'api', password: KEY, accessToken: KEY });
    },
  },
  { name: 'SVC_API_KEY', set: async () => void (process.env.SVC_API_KEY = KEY) },
  {
    name: 'netrc exact',
    set: async () => {
      const file = path.join(dir, 'netrc-exact');
      fs.writeFileSync(file, `machine 127.0.0.1 login user password ${KEY}\n`);
      process.env.NETRC = file;
    },
  },
  {
    name: 'netrc default',
    set: async () => {
      const file = path.join(dir, 'netrc-default');
      fs.writeFileSync(file, `machine svc.elsewhere.example login user password other\ndefault login user password ${KEY}\n`);
      process.env.NETRC = file;
    },
  },
];

describe('trust: keys go only where the user sent them', function () {
  this.timeout(60_000);
  let trace: ReferenceServer;
  let models: ReferenceServer;
  const saved = { ...process.env };
  const workspace = process.env.SVC_HOST_WORKSPACE ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';

  async function clean(): Promise<void> {
    const a = await api();
    for (const k of CREDENTIAL_VARIABLES) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    for (const s of [trace, models]) await a.credentials.clear(originOf(s));
    await a.approvals.forget();
    await resetSettings();
    a.connection.reload();
    await a.connection.refreshAuth(true);
    trace.stats.clear();
    models.stats.clear();
  }

  before(async () => {
    trace = await startServer();
    models = await startServer();
    trace.seedThreads(PROJECT, 3);
    trace.addCheckpoints('m', 2);
    // Models the settings test adds (Add Model checks that the service knows them).
    trace.addCheckpoints('m-view', 0);
    trace.addCheckpoints('m-scripted', 0);
    models.addCheckpoints('m', 4);
  });
  afterEach(() => clean());
  after(async () => {
    await signOut();
    // The simulated repository's settings file, written by the tests below.
    fs.rmSync(path.join(workspace, '.vscode'), { recursive: true, force: true });
    await trace.close();
    await models.close();
    console.log('\n      Credentials received by the recording server (trusted workspace):');
    console.log('      | URL arrives through | credential source | credentials received |');
    console.log('      | --- | --- | --- |');
    for (const r of table) console.log(`      | ${r.arrival} | ${r.source} | ${r.received} |`);
  });

  it('creates no file under the workspace folder when the views are used: sort, filter, order, models, project, URL', async () => {
    assert.ok(workspace && fs.existsSync(workspace), 'the host opened a workspace folder');
    const before = listing(workspace);
    assert.ok(!before.includes('.vscode'), `the workspace starts without .vscode: ${before.join(', ')}`);
    const a = await api();
    await configure({ baseUrl: trace.url, project: PROJECT });
    await vscode.commands.executeCommand('svc.signIn', { apiKey: KEY });
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    // As a user does it: the palette, the quick picks, the default (first) scope.
    const p = new Prompts().script(
      { pick: /^turns ↑ ascending$/ },
      { pick: 'Last 24 hours' },
      { type: 'm-view', title: 'svc: Add a model' },
      { pick: 'User settings', title: 'svc: Save svc.models in…' },
      { pick: PROJECT },
      { pick: 'User settings', title: 'svc: Save svc.project in…' },
      { type: trace.url },
      { pick: 'User settings', title: 'svc: Save svc.baseUrl in…' },
    );
    await withPrompts(p, async () => {
      await vscode.commands.executeCommand('svc.threads.sortBy');
      await vscode.commands.executeCommand('svc.threads.filter');
      await vscode.commands.executeCommand('svc.checkpoints.toggleOrder');
      await vscode.commands.executeCommand('svc.checkpoints.addModel');
      await vscode.commands.executeCommand('svc.selectProject');
      await vscode.commands.executeCommand('svc.setBaseUrl');
      p.assertDone();
    });
    // And scripted.
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'thread_id', direction: 'desc' });
    await vscode.commands.executeCommand('svc.checkpoints.toggleOrder', { order: 'asc' });
    await vscode.commands.executeCommand('svc.checkpoints.addModel', { modelId: 'm-scripted' });
    await vscode.commands.executeCommand('svc.selectProject', { projectId: PROJECT });
    await vscode.commands.executeCommand('svc.threads.clearFilter');
    await a.threadsProvider.getChildren();
    await new Promise((r) => setTimeout(r, 300));
    assert.deepStrictEqual(listing(workspace), before, 'no file or folder was created');
    // The settings went to the user's settings; view state to workspaceState.
    const svc = vscode.workspace.getConfiguration('svc');
    assert.deepStrictEqual(svc.inspect('models')!.globalValue, ['m-view', 'm-scripted']);
    assert.strictEqual(svc.inspect('models')!.workspaceValue, undefined);
    assert.deepStrictEqual(a.workspaceState.get('svc.threads.sort'), { field: 'thread_id', direction: 'desc' });
    assert.strictEqual(a.workspaceState.get('svc.checkpoints.order'), 'asc');
    await vscode.commands.executeCommand('svc.checkpoints.toggleOrder', { order: 'desc' });
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'last_updated', direction: 'desc' });
  });

  it('writes this workspace\'s settings only when the user picks "This workspace only"', async () => {
    const a = await api();
    await configure({ baseUrl: trace.url, project: PROJECT });
    await withPrompts(new Prompts().script({ type: 'acme/here' }, { pick: 'This workspace only' }), () => vscode.commands.executeCommand('svc.selectProject'));
    await waitFor('project', () => a.connection.config.project === 'acme/here');
    const file = path.join(workspace, '.vscode', 'settings.json');
    assert.strictEqual(JSON.parse(fs.readFileSync(file, 'utf8'))['svc.project'], 'acme/here');
    // A user value would change nothing now: the command says so instead of silently doing nothing.
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('svc.selectProject', { projectId: 'acme/there' })),
      /svc\.project is set in .*settings\.json, which overrides your user settings/,
    );
    await vscode.commands.executeCommand('svc.selectProject', { projectId: 'acme/there', scope: 'workspace' });
    await waitFor('project', () => a.connection.config.project === 'acme/there');
    await configureWorkspace({ project: undefined });
    fs.rmSync(path.join(workspace, '.vscode'), { recursive: true, force: true });
  });

  for (const source of SOURCES) {
    it(`asks before sending the ${source.name} key to a URL the workspace settings set; no sends nothing, yes sends only there`, async () => {
      const a = await api();
      // The repository's .vscode/settings.json: both URLs at recording servers (two origins).
      await configure({ project: PROJECT, models: ['m'] });
      await configureWorkspace({ baseUrl: trace.url, trainingBaseUrl: models.url });
      await source.set([originOf(trace), originOf(models)]);
      a.connection.reload();
      await waitFor('workspace URLs in use', () => a.connection.config.baseUrlFrom.source === 'workspace' && a.connection.originOf('training') === originOf(models));
      await a.connection.refreshAuth(true);
      const file = path.join(workspace, '.vscode', 'settings.json');

      // Scripted: no prompt, a readable rejection, nothing sent.
      const quiet = new Prompts();
      await withPrompts(quiet, async () => {
        await assert.rejects(
          Promise.resolve(vscode.commands.executeCommand('svc.attachFeedback', { ref: callRef(PROJECT, 'c1'), kind: 'note', note: 'hi' })),
          /svc did not send your key to http:\/\/127\.0\.0\.1:\d+: that needs your approval, and a command called with arguments does not ask/,
        );
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.signIn', { apiKey: KEY })), /needs your approval/);
        await vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'm' });
        assert.match(a.checkpoints.state('m').error instanceof Error ? (a.checkpoints.state('m').error as Error).message : '', /needs your approval/);
      });
      assert.deepStrictEqual(quiet.modals(), [], 'a scripted command opened no prompt');

      // The user opens the views: one question per origin, naming it and the settings file. No.
      const no = new Prompts().answer(/^svc: (Send|Use)/, DONT_ALLOW);
      await withPrompts(no, async () => {
        await a.threadsProvider.getChildren();
        // The scripted refresh above left an error item; clicking it retries (with the model's node).
        await vscode.commands.executeCommand('svc.checkpoints.refreshModel', modelRow(a, 'm'));
      });
      const asked = no.modals();
      assert.strictEqual(asked.length, 2, JSON.stringify(asked));
      assert.match(asked[0]!.title, new RegExp(`^svc: Send .* to ${originOf(trace)}\\?$`));
      assert.ok(asked[0]!.detail!.includes(file) && asked[0]!.detail!.includes(`svc.baseUrl to ${originOf(trace)}`), asked[0]!.detail);
      assert.ok(asked[1]!.title.includes(originOf(models)) && asked[1]!.detail!.includes(`svc.trainingBaseUrl to ${originOf(models)}`), JSON.stringify(asked[1]));
      assert.deepStrictEqual(asked[0]!.items, [ALLOW, DONT_ALLOW]);
      a.statusBar.update();
      assert.match((a.statusBar.item.tooltip as vscode.MarkdownString).value, /svc\.baseUrl comes from .*settings\\?\.json: you refused sending your key there/);
      const node = a.threadsProvider.nodes()[0] as { kind: string; message: string };
      assert.strictEqual(node.kind, 'error');
      assert.match(node.message, /svc did not send your key to .*: you refused it/);
      // Remembered: the next load asks nothing and sends nothing.
      const again = new Prompts();
      await withPrompts(again, () => vscode.commands.executeCommand('svc.threads.refresh'));
      assert.deepStrictEqual(again.modals(), []);
      record('workspace settings (trusted), answered no', source.name, credentialed(trace) + credentialed(models));
      assert.strictEqual(credentialed(trace) + credentialed(models), 0);

      // Asked again, the user allows the trace origin only: the key goes there and nowhere else.
      await a.approvals.forget();
      const yes = new Prompts().answer(new RegExp(`to ${originOf(trace)}\\?$`), ALLOW).answer(/^svc: (Send|Use)/, DONT_ALLOW);
      await withPrompts(yes, async () => {
        await vscode.commands.executeCommand('svc.threads.refresh');
        await vscode.commands.executeCommand('svc.checkpoints.refreshModel', modelRow(a, 'm'));
      });
      assert.strictEqual(a.threads.rows.length, 3, 'the threads loaded from the approved origin');
      assert.ok(credentialed(trace) > 0);
      assert.ok(trace.stats.requests.every((r) => r.authScheme === 'basic' && r.path === '/threads/stream_query'), JSON.stringify(trace.stats.requests));
      record('workspace settings (trusted), answered yes', source.name, credentialed(trace));
      record('workspace svc.trainingBaseUrl, another origin, answered no', source.name, credentialed(models));
      assert.strictEqual(credentialed(models), 0, 'approving one origin approves no other');
    });
  }

  for (const source of SOURCES) {
    it(`sends the ${source.name} key to a URL from user settings or SVC_BASE_URL${source.name === 'netrc default' ? ' only after asking' : ' without asking'}`, async () => {
      const a = await api();
      for (const arrival of ['user settings', 'SVC_BASE_URL'] as const) {
        if (arrival === 'user settings') await configure({ baseUrl: trace.url, project: PROJECT });
        else {
          await resetSettings();
          await configure({ project: PROJECT });
          process.env.SVC_BASE_URL = trace.url;
        }
        await source.set([originOf(trace)]);
        a.connection.reload();
        await waitFor('the URL in use', () => a.connection.config.baseUrl === trace.url);
        await a.connection.refreshAuth(true);
        trace.stats.clear();
        const p = new Prompts().answer(/^svc: Send/, DONT_ALLOW);
        await withPrompts(p, () => vscode.commands.executeCommand('svc.threads.refresh'));
        if (source.name === 'netrc default') {
          assert.strictEqual(p.modals().length, 1, 'the netrc default entry names no host: asked');
          assert.match(p.modals()[0]!.detail!, /has no "machine 127\.0\.0\.1" entry; its "default" entry names no host/);
          assert.strictEqual(credentialed(trace), 0);
        } else {
          assert.deepStrictEqual(p.modals(), [], 'the user named this origin: nothing to ask');
          assert.strictEqual(a.threads.rows.length, 3);
        }
        record(source.name === 'netrc default' ? `${arrival}, asked, answered no` : `${arrival} (the user's own, not asked)`, source.name, credentialed(trace));
        await a.approvals.forget();
      }
    });
  }

  it('does not send the key stored for the trace origin to another model-endpoints origin without asking; no is remembered, yes sends it there', async () => {
    const a = await api();
    // The user's own settings: traces at A, models at B. Signed in at A only.
    await configure({ baseUrl: trace.url, trainingBaseUrl: models.url, project: PROJECT, models: ['m'] });
    await waitFor('two origins', () => a.connection.originOf('training') === originOf(models));
    await vscode.commands.executeCommand('svc.signIn', { apiKey: KEY });
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    assert.strictEqual(await a.credentials.stored(originOf(models)), undefined, 'no key stored for B');
    assert.strictEqual(credentialed(models), 0, 'signing in at A sent nothing to B');

    const quiet = new Prompts();
    await withPrompts(quiet, () => vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'm' }));
    assert.deepStrictEqual(quiet.modals(), []);
    assert.match(String((a.checkpoints.state('m').error as Error)?.message), /svc did not send your key to .*: that needs your approval/);

    const no = new Prompts().answer(/^svc: Use the key of/, DONT_ALLOW);
    await withPrompts(no, async () => {
      await a.checkpointsProvider.getChildren({ kind: 'model', modelId: 'm' });
      await vscode.commands.executeCommand('svc.checkpoints.refreshModel', modelRow(a, 'm'));
    });
    assert.strictEqual(no.modals().length, 1, 'asked once, the answer remembered');
    assert.strictEqual(no.modals()[0]!.title, `svc: Use the key of ${originOf(trace)} for ${originOf(models)}?`);
    assert.strictEqual(credentialed(models), 0);
    record('svc.trainingBaseUrl (user settings), key stored for the trace origin, answered no', 'SecretStorage', credentialed(models));

    await a.approvals.forget();
    const yes = new Prompts().answer(/^svc: Use the key of/, ALLOW);
    await withPrompts(yes, () => vscode.commands.executeCommand('svc.checkpoints.refreshModel', modelRow(a, 'm')));
    assert.strictEqual(yes.modals().length, 1);
    assert.strictEqual(a.checkpointsProvider.childrenOf('m').filter((n) => n.kind === 'checkpoint').length, 4);
    const sent = models.stats.filter('/v1/preview/models/m/checkpoints');
    assert.ok(sent.length > 0 && sent.every((r) => r.authScheme === 'bearer' && r.status === 200));
    record('svc.trainingBaseUrl (user settings), key stored for the trace origin, answered yes', 'SecretStorage', credentialed(models));

    // Scripted sign-in decides it through its arguments, never a prompt.
    await a.approvals.forget();
    models.stats.clear();
    const scripted = new Prompts();
    await withPrompts(scripted, async () => {
      await vscode.commands.executeCommand('svc.signIn', { apiKey: KEY, useForModels: false });
      assert.strictEqual(credentialed(models), 0);
      await vscode.commands.executeCommand('svc.signIn', { apiKey: KEY, useForModels: true });
    });
    assert.deepStrictEqual(scripted.modals(), []);
    assert.strictEqual(models.stats.count('/v1/preview/models/m/checkpoints'), 1, 'the sign-in checked the key at B once');
    assert.match(scripted.messages('info').at(-1)!.title, new RegExp(`The model endpoints at ${originOf(models)} accepted the key`));
  });

  it('signs in only with a key the service accepts: a wrong key is not stored and the message says rejected', async () => {
    const a = await api();
    await configure({ baseUrl: trace.url, project: PROJECT });
    await waitFor('client', () => a.connection.config.baseUrl === trace.url);
    const origin = originOf(trace);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.signIn', { apiKey: 'wrong-key-0000' })), new RegExp(`svc: ${origin} rejected the key \\(401\\)\\. Nothing was stored\\.`));
    assert.strictEqual(await a.credentials.stored(origin), undefined);
    assert.strictEqual(a.connection.state, 'signedOut');
    const steps: Step[] = [{ pick: 'Paste an API key' }, { type: 'another-wrong-key' }];
    const p = new Prompts().script(...steps);
    // A refused sign-in throws and the one presenter shows it (issue 23): registerCommand turns a
    // user's failed action into the notification and resolves undefined (a cancel resolves false,
    // a sign-in true).
    const result = await withPrompts(p, () => vscode.commands.executeCommand<boolean | undefined>('svc.signIn'));
    assert.strictEqual(result, undefined);
    assert.match(p.messages('error')[0]!.title, /rejected the key \(401\)\. Nothing was stored\./);
    assert.strictEqual(await a.credentials.stored(origin), undefined);
    assert.strictEqual(a.connection.state, 'signedOut');
    assert.strictEqual(trace.stats.count('/threads/stream_query'), 2, 'one check per sign-in');
  });

  it('stores a key it could not check while the service is down, and says it is not verified yet', async () => {
    const a = await api();
    const down = await startServer();
    const url = down.url;
    await down.close();
    await configure({ baseUrl: url, project: PROJECT });
    await waitFor('client', () => a.connection.config.baseUrl === url);
    const p = new Prompts();
    const stored = await withPrompts(p, () => vscode.commands.executeCommand<boolean>('svc.signIn', { apiKey: KEY }));
    assert.strictEqual(stored, true);
    assert.strictEqual((await a.credentials.stored(new URL(url).origin))?.password, KEY);
    assert.strictEqual(a.connection.state, 'signedIn');
    const warning = p.messages('warning')[0]!.title;
    assert.match(warning, /the key for http:\/\/127\.0\.0\.1:\d+ is stored, but not verified yet: .* could not be reached to check the key \(.*connection refused\)/);
    await a.credentials.clear(new URL(url).origin);
  });
});
