import { startReferenceServer, type ReferenceServer, type ReferenceServerOptions } from '../../server';

// Shared by the reference server's own tests: one server per suite, reset between tests.

export const API_KEY = 'test-key-0123456789abcdef';
export const USER_ID = 'test-user';
export const PROJECT = 'acme/chat';

export const basic = (user: string, pass: string): string => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
export const BASIC = basic('api', API_KEY);
export const BEARER = `Bearer ${API_KEY}`;

/** Starts a server for the enclosing describe() and resets it before each test. */
export function useServer(opts: ReferenceServerOptions = {}): () => ReferenceServer {
  let server: ReferenceServer | undefined;
  before(async () => {
    server = await startReferenceServer({ apiKeys: [{ key: API_KEY, userId: USER_ID }], ...opts });
  });
  beforeEach(() => server!.reset());
  after(async () => {
    await server?.close();
  });
  return () => server!;
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs JSON with the given Authorization header (Basic by default). */
export async function postJson(
  server: ReferenceServer,
  path: string,
  body: unknown,
  authorization: string | null = BASIC,
  extraHeaders: Record<string, string> = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extraHeaders };
  if (authorization !== null) headers.authorization = authorization;
  const res = await fetch(server.url + path, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await parseBody(res) };
}

export async function getJson(server: ReferenceServer, path: string, authorization: string | null = BEARER): Promise<JsonResponse> {
  const headers: Record<string, string> = authorization === null ? {} : { authorization };
  const res = await fetch(server.url + path, { headers });
  return { status: res.status, headers: res.headers, body: await parseBody(res) };
}

async function parseBody(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Runs a threads query and parses the JSONL answer. */
export async function queryThreads(server: ReferenceServer, body: unknown): Promise<{ status: number; rows: any[]; contentType: string | null }> {
  const res = await fetch(`${server.url}/threads/stream_query`, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const rows = res.status === 200 ? text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l)) : [JSON.parse(text)];
  return { status: res.status, rows, contentType: res.headers.get('content-type') };
}
