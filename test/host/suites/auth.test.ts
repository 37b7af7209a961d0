import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { CredentialManager, SESSION_ONLY_HINT } from '../../../src/auth/credentials';
import { Logger } from '../../../src/common/logger';
import { Connection } from '../../../src/service/connection';
import { hostContextKeys } from '../../../src/ui/prompts';
import { StatusBar } from '../../../src/status/statusBar';
import type { ReferenceServer } from '../../server';
import { api, configure, KEY, PROJECT, resetSettings, signIn, signOut, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

describe('auth: sign-in, sign-out and credential sources', () => {
  let server: ReferenceServer;
  const savedEnv = { ...process.env };
  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 3);
  });
  afterEach(async () => {
    for (const k of ['SVC_API_KEY', 'SVC_USERNAME', 'SVC_PASSWORD', 'SVC_ACCESS_TOKEN', 'NETRC']) {
      if (savedEnv[k] === undefined) delete process.env[k];
      else process.env[k] = savedEnv[k];
    }
    await signOut();
  });
  after(async () => {
    await resetSettings();
    await server.close();
  });

  it('shows the no-base-URL welcome state until svc.baseUrl is set', async () => {
    const a = await api();
    await resetSettings();
    await waitFor('unconfigured', () => a.connection.state === 'unconfigured');
    assert.strictEqual(a.connection.contextKeys['svc.hasBaseUrl'], false);
    assert.deepStrictEqual(await a.threadsProvider.getChildren(), [], 'an empty tree shows the welcome view');
    assert.deepStrictEqual(await a.checkpointsProvider.getChildren(), []);
    await configure({ baseUrl: server.url });
    await waitFor('signed out', () => a.connection.state === 'signedOut');
    assert.strictEqual(a.connection.contextKeys['svc.hasBaseUrl'], true);
    assert.strictEqual(a.connection.contextKeys['svc.signedIn'], false);
  });

  it('says it is reading the credentials while SecretStorage is slow: no "not configured", no sign-in welcome', async () => {
    const a = await api();
    await configure({ baseUrl: server.url, project: PROJECT });
    await waitFor('configured', () => a.connection.config.baseUrl === server.url);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const changed = new vscode.EventEmitter<void>();
    const slow = {
      onDidChange: changed.event,
      setOrigins: () => false,
      traceOrigin: new URL(server.url).origin,
      trainingOrigin: new URL(server.url).origin,
      find: async () => {
        await gate;
        return { credentials: { username: 'api', password: KEY, accessToken: KEY }, source: 'secretStorage' as const, approvals: [] };
      },
    };
    const connection = new Connection(slow as unknown as CredentialManager, a.approvals, a.log, 'test', hostContextKeys());
    const bar = new StatusBar(connection);
    try {
      assert.strictEqual(connection.state, 'checking');
      await waitFor('context keys', () => connection.contextKeys['svc.checkingAuth'] === true);
      assert.strictEqual(connection.contextKeys['svc.hasBaseUrl'], true);
      assert.strictEqual(connection.contextKeys['svc.signedIn'], false);
      assert.strictEqual(bar.item.text, '$(sync~spin) svc: acme/chatbot');
      // The sign-in welcome waits for the answer.
      const welcome = vscode.extensions.getExtension('svc.svc-vscode')!.packageJSON.contributes.viewsWelcome as { view: string; contents: string; when: string }[];
      for (const w of welcome.filter((v) => v.contents.startsWith('Sign in'))) assert.match(w.when, /!svc\.checkingAuth/, w.view);
      const pending = connection.refreshAuth();
      release();
      await pending;
      assert.strictEqual(connection.state, 'signedIn');
      assert.strictEqual(connection.contextKeys['svc.checkingAuth'], false);
      assert.strictEqual(bar.item.text, '$(cloud) svc: acme/chatbot');
    } finally {
      release();
      bar.dispose();
      connection.dispose();
      changed.dispose();
      await a.connection.refreshAuth(); // the context keys are global: give them back
    }
  });

  it('signs in with one API key into SecretStorage, used as Basic api:<key> and as Bearer', async () => {
    const a = await api();
    await configure({ baseUrl: server.url, project: PROJECT, models: ['m1'] });
    server.addCheckpoints('m1', 2);
    await signIn();
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    assert.strictEqual(a.connection.source, 'secretStorage');
    assert.strictEqual(a.connection.contextKeys['svc.signedIn'], true);
    assert.strictEqual(a.connection.contextKeys['svc.hasProject'], true);
    assert.strictEqual(a.connection.contextKeys['svc.hasModels'], true);
    server.stats.clear();
    await vscode.commands.executeCommand('svc.threads.refresh');
    await vscode.commands.executeCommand('svc.checkpoints.refresh', { modelId: 'm1' });
    assert.strictEqual(server.stats.last('/threads/stream_query')!.status, 200);
    assert.strictEqual(server.stats.last('/threads/stream_query')!.authScheme, 'basic');
    assert.strictEqual(server.stats.last('/v1/preview/models/m1/checkpoints')!.status, 200);
    assert.strictEqual(server.stats.last('/v1/preview/models/m1/checkpoints')!.authScheme, 'bearer');
    assert.match(a.statusBar.item.text, /svc: acme\/chatbot/);
  });

  it('signs in with a separate username, password and access token (advanced)', async () => {
    const user = await startServer({ basicUsers: [{ username: 'alice', password: 'pw-alice-123', userId: 'alice' }], bearerTokens: [{ token: 'tok-alice-456', userId: 'alice' }] });
    user.seedThreads(PROJECT, 2);
    const a = await api();
    await configure({ baseUrl: user.url, project: PROJECT });
    await waitFor('client', () => a.connection.config.baseUrl === user.url);
    await vscode.commands.executeCommand('svc.signIn', { username: 'alice', password: 'pw-alice-123', accessToken: 'tok-alice-456' });
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 2);
    await signOut();
    await configure({ baseUrl: server.url });
    await user.close();
  });

  it('signs out: SecretStorage is emptied and the views go back to the welcome state', async () => {
    const a = await api();
    await configure({ baseUrl: server.url, project: PROJECT });
    await signIn();
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    await signOut();
    await waitFor('signed out', () => a.connection.state === 'signedOut');
    assert.strictEqual(a.connection.contextKeys['svc.signedIn'], false);
    assert.deepStrictEqual(await a.threadsProvider.getChildren(), []);
    assert.match(a.statusBar.item.text, /signed out/);
  });

  it('finds SVC_API_KEY in the environment when SecretStorage is empty', async () => {
    const a = await api();
    await configure({ baseUrl: server.url, project: PROJECT });
    process.env.SVC_API_KEY = KEY;
    await a.connection.refreshAuth(true);
    assert.strictEqual(a.connection.state, 'signedIn');
    assert.strictEqual(a.connection.source, 'environment');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 3);
    const tooltip = a.statusBar.item.tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /environment variables/);
  });

  it('finds SVC_USERNAME / SVC_PASSWORD / SVC_ACCESS_TOKEN in the environment', async () => {
    const a = await api();
    await configure({ baseUrl: server.url, project: PROJECT });
    process.env.SVC_USERNAME = 'api';
    process.env.SVC_PASSWORD = KEY;
    process.env.SVC_ACCESS_TOKEN = KEY;
    await a.connection.refreshAuth(true);
    assert.strictEqual(a.connection.source, 'environment');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 3);
  });

  it('finds the key in the netrc file named by $NETRC for the base URL host', async () => {
    const a = await api();
    await configure({ baseUrl: server.url, project: PROJECT });
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-netrc-')), 'netrc');
    fs.writeFileSync(file, `machine 127.0.0.1 login api password ${KEY}\n`);
    process.env.NETRC = file;
    await a.connection.refreshAuth(true);
    assert.strictEqual(a.connection.source, 'netrc');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 3);
    assert.match((a.statusBar.item.tooltip as vscode.MarkdownString).value, /netrc/);
  });

  it('prefers SecretStorage over the environment', async () => {
    const a = await api();
    await configure({ baseUrl: server.url, project: PROJECT });
    process.env.SVC_API_KEY = 'env-key-that-is-wrong';
    await signIn();
    await waitFor('secret storage', () => a.connection.source === 'secretStorage');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 3);
  });

  it('keeps the key for the session when SecretStorage fails, reports it without a dialog, and the sign-in says how to fix it', async () => {
    const failing: vscode.SecretStorage = {
      get: () => Promise.reject(new Error('Cannot create an item in a locked collection')),
      store: () => Promise.reject(new Error('org.freedesktop.secrets was not provided by any .service files')),
      delete: () => Promise.reject(new Error('no keyring')),
      keys: () => Promise.reject(new Error('no keyring')),
      onDidChange: new vscode.EventEmitter<vscode.SecretStorageChangeEvent>().event,
    } as unknown as vscode.SecretStorage;
    const log = new Logger('svc-test-secrets');
    const creds = new CredentialManager(failing, log, {});
    const origin = new URL(server.url).origin;
    creds.setOrigins(origin, origin);
    assert.strictEqual(await creds.find('trace'), undefined);
    const p = new Prompts();
    const where = await creds.store(origin, { username: 'api', password: KEY, accessToken: KEY }).finally(() => p.dispose());
    assert.strictEqual(where, 'session');
    assert.deepStrictEqual(p.messages(), [], 'the credential store reports; the sign-in tells the user');
    assert.match(SESSION_ONLY_HINT, /kept for this session only.*install a keyring.*password-store/);
    const resolved = await creds.find('trace');
    assert.strictEqual(resolved?.source, 'session');
    assert.strictEqual(resolved?.credentials.password, KEY);
    await creds.clear(origin);
    assert.strictEqual(await creds.find('trace'), undefined);
    creds.dispose();
    log.dispose();
  });

  it('stores credentials per base-URL origin', async () => {
    const other = await startServer();
    const a = await api();
    await configure({ baseUrl: server.url });
    await signIn();
    await waitFor('signed in', () => a.connection.state === 'signedIn');
    await configure({ baseUrl: other.url });
    await waitFor('signed out at the other origin', () => a.connection.config.baseUrl === other.url && a.connection.state === 'signedOut');
    await configure({ baseUrl: server.url });
    await waitFor('signed in again at the first origin', () => a.connection.state === 'signedIn');
    await other.close();
  });

  it('refuses an API key with whitespace', async () => {
    await configure({ baseUrl: server.url });
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.signIn', { apiKey: 'has space' })), /must not contain spaces/);
  });
});
