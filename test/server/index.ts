import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminHandler } from './admin';
import { Credentials, type ApiKey, type BasicUser, type BearerToken } from './auth';
import { addCheckpoints, type CheckpointOptions } from './checkpoints';
import { Faults } from './faults';
import { applyFixture, loadFixture, type Fixture } from './fixture';
import { createRequestListener } from './handler';
import type { ServerState } from './routes';
import { addCalls, seedThreads, type SeedCall, type SeedThreadsOptions } from './seed';
import { Stats } from './stats';
import { Store, type Checkpoint } from './store';
import { serveWebUi } from './webUi';

// The reference implementation of the service (spec: /work/shared/spec/service-interface.md,
// behaviour beyond it: /work/shared/notes/service-behaviour.md). It serves the client's contract
// tests and the demo; it must never be more lenient than the spec.

export type { ApiKey, BasicUser, BearerToken } from './auth';
export type { CheckpointOptions } from './checkpoints';
export type { Fault, FaultKind, FaultMatch, FaultSpec, Faults } from './faults';
export type { Fixture } from './fixture';
export type { SeedCall, SeedThreadsOptions } from './seed';
export type { PathMatch, RequestRecord, Stats } from './stats';
export type { CallRecord, Checkpoint, FeedbackRow, Store, TrajectoryLog } from './store';
export type { ThreadRow } from './threads';
export { WEB_UI_PATH, webUiTemplate } from './webUi';

export interface ReferenceServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Bodies over this answer 413 `{"reason":"Request too large"}`; default 32 MiB. */
  maxBodyBytes?: number;
  /** Each key works as Basic `api:<key>` and as `Bearer <key>`. */
  apiKeys?: ApiKey[];
  /** Extra Basic credentials (trace endpoints). */
  basicUsers?: BasicUser[];
  /** Extra Bearer tokens (model endpoints). */
  bearerTokens?: BearerToken[];
  /** Initial data: a fixture object or the path of a JSON fixture file. */
  fixture?: Fixture | string;
  /** Enables the /__admin routes (they do not exist in production); default false. */
  admin?: boolean;
  /** Serves a stand-in for the service's web UI under /ui/ (webUi.ts; for svc.webUiUrl in the demo); default false. */
  webUi?: boolean;
  /** Projects whose upserts answer 400 with error_code CALLS_COMPLETE_MODE_REQUIRED. */
  projectsRequiringCompleteMode?: string[];
}

export interface ReferenceServer {
  /** e.g. http://127.0.0.1:PORT, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly store: Store;
  readonly stats: Stats;
  readonly faults: Faults;
  /** Mutable: projects whose upserts answer CALLS_COMPLETE_MODE_REQUIRED. */
  readonly completeModeProjects: Set<string>;
  /** The first configured API key (the demo key when serving demo.json). */
  readonly apiKey: string | undefined;
  /** Stops listening and destroys every open connection, stalled ones included. Idempotent. */
  close(): Promise<void>;
  /** Appends n checkpoints (increasing steps, UUID ids, metrics) to a model, creating it. */
  addCheckpoints(modelId: string, n: number, opts?: CheckpointOptions): Checkpoint[];
  /** Stores calls as if started (and ended, when ended_at is given) through the API. */
  addCalls(projectId: string, calls: readonly SeedCall[]): void;
  /** Fast synthetic threads (e.g. 100 000 threads with one finished turn each). */
  seedThreads(projectId: string, n: number, opts?: SeedThreadsOptions): void;
  /** Clears data, stats and faults, then reloads the fixture (if any). */
  reset(): void;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

export async function startReferenceServer(opts: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const fixture = opts.fixture === undefined ? undefined : loadFixture(opts.fixture);
  const credentials = new Credentials();
  credentials.add(opts);
  if (fixture) credentials.add(fixture);

  const store = new Store();
  const stats = new Stats();
  const faults = new Faults();
  const state: ServerState = { store, completeModeProjects: new Set(opts.projectsRequiringCompleteMode ?? []) };
  const held = new Set<ServerResponse>();
  const closing = new AbortController();
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (fixture) applyFixture(fixture, store);

  const reset = () => {
    store.clear();
    stats.clear();
    faults.clear();
    if (fixture) applyFixture(fixture, store);
  };
  const addCheckpointsTo = (modelId: string, n: number, o?: CheckpointOptions) => addCheckpoints(store, modelId, n, o);

  const server = createServer(
    createRequestListener({
      state,
      stats,
      faults,
      credentials,
      maxBodyBytes,
      admin: opts.admin ? createAdminHandler({ stats, faults, reset, addCheckpoints: addCheckpointsTo }, maxBodyBytes) : undefined,
      webUi: opts.webUi ? (method, path, query, res) => serveWebUi(store, method, path, query, res) : undefined,
      hold: (res) => {
        held.add(res);
        res.on('close', () => held.delete(res));
      },
      signal: closing.signal,
    }),
  );
  // Big uploads and slow streams are the point of some tests: no server-side timeouts.
  server.requestTimeout = 0;
  server.headersTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  let closed: Promise<void> | undefined;
  const closeServer = () =>
    new Promise<void>((resolve, reject) => {
      closing.abort();
      for (const res of held) res.destroy();
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });

  const { port, address, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;

  return {
    url: `http://${host}:${port}`,
    port,
    store,
    stats,
    faults,
    completeModeProjects: state.completeModeProjects,
    apiKey: credentials.firstApiKey,
    close: () => (closed ??= closeServer()),
    addCheckpoints: addCheckpointsTo,
    addCalls: (projectId, calls) => addCalls(store, projectId, calls),
    seedThreads: (projectId, n, o) => seedThreads(store, projectId, n, o),
    reset,
  };
}
