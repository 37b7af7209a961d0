import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { schemeOf, type Credentials } from './auth';
import { drainBody, parseJsonBody, readBody } from './body';
import { familyError, HttpError, type Family } from './errors';
import type { Fault, Faults } from './faults';
import { Reply } from './reply';
import { resolveRoute, type ServerState } from './routes';
import type { Stats } from './stats';

// The request loop: stats, faults, routing, auth, body, handler, and the error answer.

export interface HandlerDeps {
  state: ServerState;
  stats: Stats;
  faults: Faults;
  credentials: Credentials;
  maxBodyBytes: number;
  /** Handles /__admin routes when enabled; they bypass stats, faults and service auth. */
  admin?: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;
  /** Serves the web UI's /ui/ pages when enabled (webUi.ts); like admin, outside stats, faults and auth. */
  webUi?: (method: string, path: string, query: string, res: ServerResponse) => void;
  /** Keeps a response that will never finish, so close() can end it. */
  hold: (res: ServerResponse) => void;
  /** Aborted by close(), so delayed requests stop waiting. */
  signal: AbortSignal;
}

export function createRequestListener(deps: HandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(deps, req, res).catch((e: unknown) => {
      // Only reachable if writing the error answer itself failed; nothing more can be said.
      console.error('reference server: unhandled error', e);
      res.destroy();
    });
  };
}

async function handle(deps: HandlerDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const method = req.method ?? 'GET';

  if (deps.admin && (path === '/__admin' || path.startsWith('/__admin/'))) {
    await deps.admin(req, res, path);
    return;
  }
  if (deps.webUi && path.startsWith('/ui/')) {
    deps.webUi(method, path, rawQuery, res);
    return;
  }

  const record = deps.stats.begin({ method, path, query: rawQuery, authScheme: schemeOf(req.headers.authorization), userAgent: req.headers['user-agent'] });
  const settle = () => {
    record.status = res.headersSent ? res.statusCode : 0;
    record.completed = res.writableFinished;
  };
  res.on('finish', settle);
  res.on('close', settle);
  const countBytes = (n: number) => {
    record.bodyBytes = n;
  };

  const resolution = resolveRoute(method, path);
  const family: Family = resolution.kind === 'route' ? resolution.route.family : resolution.family;
  const fault = deps.faults.take(method, path, resolution.kind === 'route' && resolution.route.stream);
  if (fault) record.fault = fault.kind;
  const reply = new Reply(res, fault, deps.hold);

  try {
    if (fault?.kind === 'delay') {
      await sleep(fault.ms, undefined, { signal: deps.signal });
      // A client that gave up while we waited never gets its request processed.
      if (req.socket.destroyed) return;
    }
    if (fault?.kind === 'status') {
      await drainBody(req, countBytes);
      sendStatusFault(res, fault, family);
      return;
    }
    if (fault?.kind === 'reset-before-response') {
      await drainBody(req, countBytes);
      req.socket.destroy();
      return;
    }
    if (resolution.kind === 'not-found') throw familyError(family, 404, family === 'trace' ? 'Not found' : 'Not Found');
    if (resolution.kind === 'method-not-allowed') {
      throw familyError(family, 405, 'Method not allowed', { allow: resolution.allow });
    }
    const { route, modelId } = resolution;
    const authorization = req.headers.authorization;
    const userId = route.auth === 'basic' ? deps.credentials.basicUser(authorization) : deps.credentials.bearerUser(authorization);
    const body = route.hasBody
      ? parseJsonBody(req, await readBody(req, deps.maxBodyBytes, family, countBytes), family)
      : undefined;
    await route.handle({ body, userId, modelId, query: new URLSearchParams(rawQuery), reply, state: deps.state });
  } catch (e) {
    if (deps.signal.aborted || res.destroyed) return;
    if (reply.sent) {
      // Failed mid-stream: the status is already out, so cutting the stream is the only signal left.
      res.destroy();
      return;
    }
    if (e instanceof HttpError) {
      reply.json(e.status, e.body, e.headers);
      return;
    }
    console.error('reference server: internal error', e);
    reply.json(500, family === 'trace' ? { reason: 'Internal server error' } : { detail: 'Internal server error' });
  }
}

function sendStatusFault(res: ServerResponse, fault: Extract<Fault, { kind: 'status' }>, family: Family): void {
  const message = STATUS_MESSAGES[fault.status] ?? `HTTP ${fault.status}`;
  const body = fault.body ?? (family === 'trace' ? { reason: message } : { detail: message });
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': payload.length };
  if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
  res.writeHead(fault.status, headers);
  res.end(payload);
}

const STATUS_MESSAGES: Record<number, string> = {
  400: 'Bad request',
  401: 'Invalid credentials',
  403: 'Forbidden',
  404: 'Not found',
  413: 'Request too large',
  429: 'Rate limit exceeded',
  500: 'Internal server error',
  502: 'Storage error',
  503: 'Service unavailable',
  504: 'Timeout',
};
