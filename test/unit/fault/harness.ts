import assert from 'node:assert/strict';
import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../server';
import {
  createServiceClient,
  SvcError,
  type RequestLogEvent,
  type ServiceClient,
  type ServiceClientOptions,
  type Trajectory,
} from '../../../src/api';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

export const KEY = 'fault-key-5f0c1d2e3a4b5c6d7e8f90a1b2c3d4e5';
export const USER = 'fault-user';
export const PROJECT = 'acme/chatbot';
export const MODEL = 'm';

/** Every spelling of the API key that could leak: raw, and inside a Basic header. */
export const SECRETS = [KEY, Buffer.from(`api:${KEY}`).toString('base64')];

export interface FaultHarness {
  server: ReferenceServer;
  /** In front of the server; `client` goes through it. */
  proxy: TcpProxy;
  /** Client through the proxy, fast retries, `timeoutMs` as asked (default 5 s). */
  client: ServiceClient;
  /** Client straight to the server, for baselines. */
  direct: ServiceClient;
  /** What `client` logged, in order. */
  events: RequestLogEvent[];
  close(): Promise<void>;
}

export interface FaultHarnessOptions {
  server?: ReferenceServerOptions;
  client?: Partial<ServiceClientOptions>;
  timeoutMs?: number;
}

export async function faultHarness(opts: FaultHarnessOptions = {}): Promise<FaultHarness> {
  const server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: USER }], ...opts.server });
  const proxy = await startTcpProxy({ port: server.port });
  const events: RequestLogEvent[] = [];
  const base: ServiceClientOptions = {
    traceBaseUrl: proxy.url,
    credentials: async () => ({ username: 'api', password: KEY, accessToken: KEY }),
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 2000 },
    timeoutMs: opts.timeoutMs ?? 5000,
    logger: (e) => events.push(e),
    env: {},
  };
  const client = createServiceClient({ ...base, ...opts.client });
  const direct = createServiceClient({ ...base, traceBaseUrl: server.url, logger: undefined });
  let closing: Promise<void> | undefined;
  return {
    server,
    proxy,
    client,
    direct,
    events,
    close: () =>
      (closing ??= (async () => {
        await Promise.all([client.close(), direct.close()]);
        await proxy.close();
        await server.close();
      })()),
  };
}

/** Runs `fn`, which must fail; returns the error. */
export async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected a failure, but it succeeded');
}

/**
 * The error is of the class, names the request (method and path) and says what happened, and
 * neither it, its causes nor the request log contain the API key.
 */
export function assertClearError(
  e: unknown,
  cls: abstract new (...args: never[]) => SvcError,
  expected: { method: string; path: string; says: RegExp },
  events: readonly RequestLogEvent[] = [],
): void {
  assert.ok(e instanceof cls, `expected ${cls.name}, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  assert.ok(
    e.message.includes(`${expected.method} ${expected.path}`),
    `the message names "${expected.method} ${expected.path}": ${e.message}`,
  );
  assert.match(e.message, expected.says);
  assertNoSecrets(e, events);
}

/** Neither the error (message, stack, causes) nor the log events contain the key. */
export function assertNoSecrets(e: unknown, events: readonly RequestLogEvent[] = []): void {
  const texts: string[] = [JSON.stringify(events)];
  let cur: unknown = e;
  for (let depth = 0; cur && depth < 6; depth++) {
    if (cur instanceof Error) texts.push(cur.message, cur.stack ?? '', String(cur));
    if (cur instanceof SvcError) texts.push(cur.serverMessage ?? '', cur.path ?? '');
    cur = (cur as { cause?: unknown }).cause;
  }
  const all = texts.join('\n');
  for (const secret of SECRETS) assert.ok(!all.includes(secret), `leaked the API key (${secret.slice(0, 6)}…)`);
}

export async function collect<T>(it: AsyncIterable<T>, limit = 100_000): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) {
    out.push(x);
    if (out.length > limit) throw new Error(`more than ${limit} items`);
  }
  return out;
}

export function trajectory(group: number, extra: Partial<Trajectory> = {}): Trajectory {
  return {
    messages_and_choices: [
      { role: 'user', content: 'What is 2+2?' },
      { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: '4' } },
    ],
    reward: 1,
    metadata: { group },
    ...extra,
  };
}

/**
 * The next request to `path` (a prefix) fails with EHOSTUNREACH once its body is written and the
 * service had `afterMs` to process it: a route lost after the upload, as the kernel reports it
 * (an ICMP host unreachable on an established connection). Uses undici's diagnostics channels.
 */
export function unreachableAfterBody(path: string, afterMs = 150): () => void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- node:diagnostics_channel, loaded only by the tests that arm this
  const dc = require('node:diagnostics_channel') as typeof import('node:diagnostics_channel');
  const sockets = new WeakMap<object, import('node:net').Socket>();
  let armed = true;
  const onHeaders = (m: unknown) => {
    const { request, socket } = m as { request: { path: string }; socket: import('node:net').Socket };
    if (armed && request.path.startsWith(path)) sockets.set(request, socket);
  };
  const onBody = (m: unknown) => {
    const { request } = m as { request: object };
    const socket = sockets.get(request);
    if (!armed || !socket) return;
    armed = false;
    disarm();
    setTimeout(() => socket.destroy(Object.assign(new Error(`write EHOSTUNREACH`), { code: 'EHOSTUNREACH', errno: -113, syscall: 'write' })), afterMs);
  };
  const disarm = () => {
    dc.unsubscribe('undici:client:sendHeaders', onHeaders);
    dc.unsubscribe('undici:request:bodySent', onBody);
  };
  dc.subscribe('undici:client:sendHeaders', onHeaders);
  dc.subscribe('undici:request:bodySent', onBody);
  return disarm;
}
