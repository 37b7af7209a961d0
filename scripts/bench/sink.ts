// A benchmark-only stand-in for the service, run in its own process (its own core): it answers
// the five endpoints with precomputed or minimal work, so `npm run bench` measures the client and
// not the reference service's validation. It checks the Authorization header, reads every body
// byte, and reports its own CPU time at GET /__bench/cpu so the bench can show it was not busy.
//
//   tsx scripts/bench/sink.ts [--port 0] [--threads 100000] [--checkpoints 10000]
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { seedThreads } from '../../test/server/seed';
import { Store } from '../../test/server/store';
import { queryThreads, validateThreadsQuery } from '../../test/server/threads';

import { BENCH_KEY, METRICS30 } from './keys';
export { BENCH_KEY };
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

// Thread rows computed once by the reference implementation, served as one JSONL buffer.
const store = new Store();
seedThreads(store, 'bench/threads', arg('threads', 100_000), { turnsPerThread: 2 });
const rows = [...queryThreads(store.calls.get('bench/threads')!.values(), validateThreadsQuery({ project_id: 'bench/threads' }))];
const threadLines = rows.map((r) => Buffer.from(`${JSON.stringify(r)}\n`));
const threadsBody = Buffer.concat(threadLines);

const checkpoints = Array.from({ length: arg('checkpoints', 10_000) }, (_, i) => ({
  id: randomUUID(),
  step: (i + 1) * 10,
  metrics: { loss: 1 / (i + 2), reward: i / 10_000, accuracy: 0.5 + i / 40_000 },
}));
// `bench30`: the same count with 30 metrics each, for the training dashboard.
const checkpoints30 = checkpoints.map((c, i) => ({ id: randomUUID(), step: c.step, metrics: Object.fromEntries(METRICS30.map((m, k) => [m, Math.round((Math.sin(i / (50 + k)) + k) * 1e5) / 1e5])) }));
const lists: Record<string, { list: { id: string; step: number; metrics: Record<string, number> }[]; index: Map<string, number> }> = {
  bench: { list: checkpoints, index: new Map(checkpoints.map((c, i) => [c.id, i])) },
  bench30: { list: checkpoints30, index: new Map(checkpoints30.map((c, i) => [c.id, i])) },
};

const basic = `Basic ${Buffer.from(`api:${BENCH_KEY}`).toString('base64')}`;
const bearer = `Bearer ${BENCH_KEY}`;
let bodyBytes = 0;

function readAll(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      bodyBytes += c.length;
      parts.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}
function json(res: http.ServerResponse, status: number, value: unknown) {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
async function writeStream(res: http.ServerResponse, body: Buffer) {
  res.writeHead(200, { 'content-type': 'application/jsonl' });
  for (let i = 0; i < body.length; i += 64 * 1024) {
    if (!res.write(body.subarray(i, i + 64 * 1024))) await new Promise((r) => res.once('drain', r));
    if (res.destroyed) return;
  }
  res.end();
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://x');
  const auth = req.headers.authorization;
  try {
    if (url.pathname === '/__bench/cpu') return json(res, 200, { ...process.cpuUsage(), bodyBytes });
    if (url.pathname === '/threads/stream_query') {
      if (auth !== basic) return json(res, 401, { reason: 'bad credentials' });
      // Like the service: offset and limit are honoured (the view asks for one page); no limit streams all rows.
      const q = JSON.parse((await readAll(req)).toString('utf8') || '{}') as { limit?: number; offset?: number };
      if (q.limit === undefined && !q.offset) return writeStream(res, threadsBody);
      const from = q.offset ?? 0;
      return writeStream(res, Buffer.concat(threadLines.slice(from, q.limit === undefined ? undefined : from + q.limit)));
    }
    if (url.pathname === '/call/upsert_batch') {
      if (auth !== basic) return json(res, 401, { reason: 'bad credentials' });
      const body = JSON.parse((await readAll(req)).toString('utf8')) as { batch: { mode: string; req: { start?: { id: string; trace_id: string } } }[] };
      return json(res, 200, { res: body.batch.map((i) => (i.mode === 'start' ? { id: i.req.start!.id, trace_id: i.req.start!.trace_id } : {})) });
    }
    const modelPath = /^\/v1\/preview\/models\/([^/]+)\/(log|checkpoints)$/.exec(url.pathname);
    if (modelPath) {
      if (auth !== bearer) return json(res, 401, { detail: 'bad token' });
      if (modelPath[2] === 'log') {
        await readAll(req);
        return json(res, 200, { status: 'ok' });
      }
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const order = url.searchParams.get('order') ?? 'asc';
      const model = lists[decodeURIComponent(modelPath[1]!)] ?? lists.bench!;
      const list = order === 'desc' ? [...model.list].reverse() : model.list;
      const after = url.searchParams.get('after');
      let start = 0;
      if (after) {
        const i = model.index.get(after)!;
        start = order === 'desc' ? model.list.length - i : i + 1;
      }
      const data = list.slice(start, start + limit);
      return json(res, 200, { object: 'list', data, first_id: data[0]?.id ?? '', last_id: data.at(-1)?.id ?? '', has_more: start + limit < list.length });
    }
    json(res, 404, { reason: 'Not found' });
  } catch (e) {
    json(res, 500, { reason: String(e) });
  }
}

// handle() answers every error itself (a 500); a failure past that is a bug the bench must show.
const server = http.createServer((req, res) => {
  handle(req, res).catch((e: unknown) => {
    console.error('sink:', e);
    process.exit(1);
  });
});
server.listen(arg('port', 0), '127.0.0.1', () => {
  console.log(`sink listening on http://127.0.0.1:${(server.address() as AddressInfo).port} rows=${rows.length} threadsBytes=${threadsBody.length}`);
});
process.on('SIGTERM', () => process.exit(0));
