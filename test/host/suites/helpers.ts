// Shared helpers of the in-host suites: the extension's live objects, a reference server started
// inside the extension host process, and settings written where the extension's own commands
// write them (the workspace when one is open).
import * as assert from 'assert';
import * as vscode from 'vscode';
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
  'threads.sortBy',
  'checkpoints.pageSize',
  'checkpoints.order',
  'requestTimeoutSeconds',
  'allowInsecureHttp',
];

export async function api(): Promise<SvcExtensionApi> {
  const ext = vscode.extensions.getExtension<SvcExtensionApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not loaded`);
  const exports = ext.isActive ? ext.exports : await ext.activate();
  assert.ok(exports, 'the extension hands its objects to tests only outside production mode');
  return exports;
}

export function startServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return startReferenceServer({ apiKeys: [{ key: KEY, userId: USER }], ...options });
}

// Machine-scoped settings cannot be set by a workspace (that is the point: a workspace must not
// send the API key over plain http), so they go to the user settings.
const MACHINE_SCOPED = new Set(['allowInsecureHttp']);

function target(key: string): vscode.ConfigurationTarget {
  if (MACHINE_SCOPED.has(key)) return vscode.ConfigurationTarget.Global;
  return vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}

/** Sets svc.* settings (keys without the `svc.` prefix). */
export async function configure(values: Record<string, unknown>): Promise<void> {
  const c = vscode.workspace.getConfiguration('svc');
  for (const [k, v] of Object.entries(values)) await c.update(k, v, target(k));
}

/** Clears every svc.* setting in both the user and workspace settings. */
export async function resetSettings(): Promise<void> {
  const c = vscode.workspace.getConfiguration('svc');
  for (const k of SVC_KEYS) {
    await c.update(k, undefined, vscode.ConfigurationTarget.Global);
    if (vscode.workspace.workspaceFolders?.length && !MACHINE_SCOPED.has(k)) await c.update(k, undefined, vscode.ConfigurationTarget.Workspace);
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
