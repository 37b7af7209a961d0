/**
 * The real Connection (with the real CredentialManager and KeyApprovals) over the fake `vscode`
 * module, talking to the reference service (test/server) in-process: what the models and
 * managers are built on in extension.ts, with nothing of the host but its API surface faked.
 */
import * as path from 'node:path';
import * as os from 'node:os';
import type * as vscode from 'vscode';
import { KeyApprovals } from '../../src/auth/approvals';
import { CredentialManager } from '../../src/auth/credentials';
import { Logger } from '../../src/common/logger';
import { Connection } from '../../src/service/connection';
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../server';
import { ScriptedContextKeys, ScriptedPrompts } from './prompts';
import { fake, FakeMemento, FakeSecretStorage } from './vscode';

export const KEY = 'test-key-0123456789abcdef0123456789abcdef';
export const PROJECT = 'acme/chatbot';

export interface Service {
  server: ReferenceServer;
  connection: Connection;
  credentials: CredentialManager;
  log: Logger;
  workspaceState: vscode.Memento;
  globalState: vscode.Memento;
  /** The window's prompts every manager built on this service takes (the key approvals ask here). */
  prompts: ScriptedPrompts;
  /** The context keys the Connection (and the models) set. */
  contextKeys: ScriptedContextKeys;
  /** Stores the key for the service's origin, as Sign In does, and waits for the Connection to see it. */
  signIn(): Promise<void>;
  /** Removes the stored key, as Sign Out does, and waits for the Connection to see it. */
  signOut(): Promise<void>;
  close(): Promise<void>;
}

/** A signed-in Connection to a fresh reference service, with `settings` (full keys) as user settings. */
export async function connect(settings: Record<string, unknown> = {}, serverOptions: ReferenceServerOptions = {}): Promise<Service> {
  fake.reset();
  const server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: 'user-1' }], ...serverOptions });
  fake.user.set('svc.baseUrl', server.url);
  fake.user.set('svc.project', PROJECT);
  for (const [k, v] of Object.entries(settings)) fake.user.set(k, v);
  const log = new Logger('svc');
  // No netrc file of the machine running the tests may leak in.
  const credentials = new CredentialManager(new FakeSecretStorage() as unknown as vscode.SecretStorage, log, { NETRC: path.join(os.tmpdir(), 'svc-no-netrc') });
  const globalState = new FakeMemento() as unknown as vscode.Memento;
  const workspaceState = new FakeMemento() as unknown as vscode.Memento;
  const prompts = new ScriptedPrompts();
  const contextKeys = new ScriptedContextKeys();
  const connection = new Connection(credentials, new KeyApprovals(globalState, prompts), log, 'svc-vscode/test', contextKeys);
  const origin = new URL(server.url).origin;
  const settled = () => connection.refreshAuth();
  const service: Service = {
    server,
    connection,
    credentials,
    log,
    workspaceState,
    globalState,
    prompts,
    contextKeys,
    signIn: async () => {
      await credentials.store(origin, { username: 'api', password: KEY, accessToken: KEY });
      await settled();
    },
    signOut: async () => {
      await credentials.clear(origin);
      await settled();
    },
    close: async () => {
      connection.dispose();
      credentials.dispose();
      await server.close();
    },
  };
  await service.signIn();
  return service;
}

/** Resolves after every pending promise callback and I/O turn (the fake fires synchronously). */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
