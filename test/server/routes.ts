import { upsertBatch } from './calls';
import { listCheckpoints } from './checkpoints';
import type { Family } from './errors';
import { createFeedback } from './feedback';
import type { Reply } from './reply';
import type { Store } from './store';
import { queryThreads, validateThreadsQuery } from './threads';
import { logTrajectories } from './trajectories';

// The service's five endpoints (spec section 4) and how a request path maps onto them.

export interface ServerState {
  store: Store;
  /** Projects whose upserts answer 400 CALLS_COMPLETE_MODE_REQUIRED. */
  completeModeProjects: Set<string>;
}

export interface RouteContext {
  body: unknown;
  userId: string;
  /** Percent-decoded {model_id} path parameter (model endpoints only). */
  modelId: string;
  query: URLSearchParams;
  reply: Reply;
  state: ServerState;
}

export interface Route {
  method: 'GET' | 'POST';
  family: Family;
  /** Trace endpoints take only HTTP Basic, model endpoints only Bearer (spec section 5). */
  auth: 'basic' | 'bearer';
  hasBody: boolean;
  /** Answers JSONL; the stream-only faults apply to it. */
  stream: boolean;
  handle(ctx: RouteContext): void | Promise<void>;
}

const feedbackCreate: Route = {
  method: 'POST', family: 'trace', auth: 'basic', hasBody: true, stream: false,
  handle: ({ body, userId, reply, state }) => reply.json(200, createFeedback(body, userId, state.store)),
};

const callUpsertBatch: Route = {
  method: 'POST', family: 'trace', auth: 'basic', hasBody: true, stream: false,
  handle: ({ body, userId, reply, state }) =>
    reply.json(200, upsertBatch(body, userId, state.store, state.completeModeProjects)),
};

const threadsStreamQuery: Route = {
  method: 'POST', family: 'trace', auth: 'basic', hasBody: true, stream: true,
  handle: async ({ body, reply, state }) => {
    const query = validateThreadsQuery(body);
    const calls = state.store.calls.get(query.project_id)?.values() ?? [];
    await reply.jsonl(queryThreads(calls, query));
  },
};

const modelLog: Route = {
  method: 'POST', family: 'model', auth: 'bearer', hasBody: true, stream: false,
  handle: ({ body, modelId, reply, state }) => reply.json(200, logTrajectories(modelId, body, state.store)),
};

const modelCheckpoints: Route = {
  method: 'GET', family: 'model', auth: 'bearer', hasBody: false, stream: false,
  handle: ({ modelId, query, reply, state }) => reply.json(200, listCheckpoints(state.store, modelId, query)),
};

const FIXED: Record<string, Route> = {
  '/feedback/create': feedbackCreate,
  '/call/upsert_batch': callUpsertBatch,
  '/threads/stream_query': threadsStreamQuery,
};

const MODEL_PATH_RE = /^\/v1\/preview\/models\/([^/]+)\/(log|checkpoints)$/;

export type Resolution =
  | { kind: 'route'; route: Route; modelId: string }
  | { kind: 'not-found'; family: Family }
  | { kind: 'method-not-allowed'; family: Family; allow: string };

/** Maps a raw (still percent-encoded) path and a method onto a route. */
export function resolveRoute(method: string, rawPath: string): Resolution {
  let route: Route | undefined = FIXED[rawPath];
  let modelId = '';
  const m = MODEL_PATH_RE.exec(rawPath);
  if (m) {
    try {
      // Decoded after splitting, so `%2F` in a model id stays inside the id.
      modelId = decodeURIComponent(m[1]!);
      route = m[2] === 'log' ? modelLog : modelCheckpoints;
    } catch {
      route = undefined;
    }
  }
  const family: Family = rawPath.startsWith('/v1/') ? 'model' : 'trace';
  if (!route) return { kind: 'not-found', family };
  if (route.method !== method) return { kind: 'method-not-allowed', family, allow: route.method };
  return { kind: 'route', route, modelId };
}
