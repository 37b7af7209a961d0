// Shared helpers of the in-host suites: the extension's live objects, a reference server started
// inside the extension host process, and settings written where the extension's own commands
// write them by default: the user's settings (a workspace-level value is a repository's, and
// needs the user's approval before a key goes where it points: see trust.test.ts).
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { BootApi, Exports } from '../../../src/boot/main';
import type { SvcExtensionApi } from '../../../src/extension';
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../server';

export const EXTENSION_ID = 'svc.svc-vscode';
export const KEY = 'host-test-key-6f1c2e9a7b3d4c5e8f9a0b1c2d3e4f5a';
export const USER = 'host-user';
export const PROJECT = 'acme/chatbot';

const SVC_KEYS = [
  'baseUrl',
  'trainingBaseUrl',
  'project',
  'models',
  'threads.pageSize',
  'checkpoints.pageSize',
  'checkpoints.metric',
  'requestTimeoutSeconds',
  'allowInsecureHttp',
  'feedback.creator',
  'webUiUrl',
];

/** What activate() returns (activates the extension if needed). */
export async function exportsOf(): Promise<Exports> {
  const ext = vscode.extensions.getExtension<Exports>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  return ext.isActive ? ext.exports : await ext.activate();
}

/** The activation bundle's test API (activates the extension if needed): the test-only entry. */
export async function boot(): Promise<BootApi> {
  const exports = await exportsOf();
  const { getTestApi } = exports as { getTestApi?: () => BootApi };
  assert.ok(getTestApi, 'the extension hands its objects to tests only in a test host with SVC_HOST_TEST=1');
  return getTestApi();
}

/** The extension's live objects: activates it and loads its core if needed. */
export async function api(): Promise<SvcExtensionApi> {
  return (await boot()).core();
}

/**
 * The Checkpoints view's own node of a model, as VS Code passes it to the row's commands (the
 * inline Refresh, an error row's click). Commands tell such nodes from scripting objects by
 * identity, so a literal `{ kind: 'model', modelId }` would be a script.
 */
export function modelRow(a: SvcExtensionApi, modelId: string) {
  return a.checkpointsProvider.getParent({ kind: 'empty', modelId })!;
}

export function startServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return startReferenceServer({ apiKeys: [{ key: KEY, userId: USER }], ...options });
}

/** A reference service with `checkpoints` checkpoints of `modelId`, the extension connected to it (signed in). */
export async function startWithModel(modelId = 'agent-7b', checkpoints = 3): Promise<ReferenceServer> {
  const server = await startServer();
  server.addCheckpoints(modelId, checkpoints);
  await connect(server);
  return server;
}

// Machine-scoped settings cannot be set by a workspace (that is the point: a workspace must not
// send the API key over plain http).
const MACHINE_SCOPED = new Set(['allowInsecureHttp']);

/** Sets svc.* settings (keys without the `svc.` prefix) in the user's settings. */
export async function configure(values: Record<string, unknown>): Promise<void> {
  const c = vscode.workspace.getConfiguration('svc');
  for (const [k, v] of Object.entries(values)) await c.update(k, v, vscode.ConfigurationTarget.Global);
}

/** Sets svc.* settings in the workspace's settings, as a cloned repository would. */
export async function configureWorkspace(values: Record<string, unknown>): Promise<void> {
  const c = vscode.workspace.getConfiguration('svc');
  for (const [k, v] of Object.entries(values)) await c.update(k, v, vscode.ConfigurationTarget.Workspace);
}

/** Clears every svc.* setting in both the user and workspace settings. */
export async function resetSettings(): Promise<void> {
  const c = vscode.workspace.getConfiguration('svc');
  for (const k of SVC_KEYS) {
    await c.update(k, undefined, vscode.ConfigurationTarget.Global);
    // Only where a value is: removing a key from a settings file that does not exist could create it.
    if (!MACHINE_SCOPED.has(k) && c.inspect(k)?.workspaceValue !== undefined) await c.update(k, undefined, vscode.ConfigurationTarget.Workspace);
  }
}

export async function waitFor(what: string, predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!(await predicate())) {
    if (Date.now() - t0 > timeoutMs) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Signs in with the test key through the real command, against the configured base URL. */
export async function signIn(key = KEY): Promise<void> {
  await vscode.commands.executeCommand('svc.signIn', { apiKey: key });
}

/**
 * Stores a key for the trace origin without checking it: a key the service accepted at sign-in
 * and no longer accepts (revoked since). Sign In itself refuses a key the service rejects.
 */
export async function storeRevokedKey(key: string): Promise<void> {
  const a = await api();
  const origin = a.connection.originOf('trace');
  assert.ok(origin, 'a base URL is configured');
  await a.credentials.store(origin, { username: 'api', password: key, accessToken: key });
  await a.connection.refreshAuth();
}

export async function signOut(): Promise<void> {
  await vscode.commands.executeCommand('svc.signOut');
}

/** Points the extension at a server, signed in, with a project. */
export async function connect(server: ReferenceServer, extra: Record<string, unknown> = {}): Promise<SvcExtensionApi> {
  const a = await api();
  await configure({ baseUrl: server.url, project: PROJECT, ...extra });
  await waitFor('the client to use the server', () => a.connection.config.baseUrl === server.url && !!a.connection.client);
  await signIn();
  await waitFor('signed in', () => a.connection.state === 'signedIn');
  return a;
}

/** The end of a suite that connected to its own servers: signed out, settings reset, servers closed. */
export async function endSuite(...servers: ReferenceServer[]): Promise<void> {
  await signOut();
  await resetSettings();
  for (const server of servers) await server.close();
}
