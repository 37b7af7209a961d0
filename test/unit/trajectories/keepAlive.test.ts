import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServiceClient, type ServiceClient } from '../../../src/api';
import type { GroupRecord } from '../../../src/files';
import { uploadGroups } from '../../../src/trajectories/upload';

/**
 * The failure: a service closes a keep-alive connection once it has been idle for its timeout (5 s,
 * uvicorn's default) and does not say so (uvicorn sends no `Keep-Alive: timeout=` header), so undici
 * keeps the connection in its pool for its own 10 s. A reader that held the event loop for seconds (a
 * Parquet page decoding) then sends the next log request on that connection just as the service
 * closes it: the request reaches a socket the service closed, and is lost (or, retried, sent twice).
 * (A close that already reached us is seen before the write: undici checks an idle socket first.)
 *
 * The service here is Node's http server in its own process (our held loop does not hold it) with
 * an exact idle timer of its own, behind a relay that delays every byte and close by LATENCY_MS each
 * way (a service across a network): a request written as the service closes reaches it LATENCY_MS
 * after the close (its kernel would answer RST: the relay resets our side), and the close reaches us
 * LATENCY_MS after the request was written. The service counts the log requests it read whole, the
 * groups in each, and the idle connections it closed (GET /count, straight to the service).
 *
 * Without the fix (upload.ts: `fresh`, a new connection after FRESH_CONNECTION_AFTER_MS) the upload
 * fails: "POST /v1/preview/models/m/log lost the connection".
 */
const IDLE_TIMEOUT_MS = 5_000;
const LATENCY_MS = 400;
const SERVER = `
const http = require('node:http');
const net = require('node:net');
const logged = [];
let closedIdle = 0;
const service = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (d) => chunks.push(d));
  req.on('end', () => {
    if (req.url === '/count') {
      res.setHeader('connection', 'close');
      res.end(JSON.stringify({ logged, closedIdle }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString());
    logged.push(body.trajectory_groups.map((g) => g.trajectories[0].messages_and_choices[0].content));
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
});
// Its own idle timer, exact, as uvicorn's (Node's own adds slack on recent versions).
service.keepAliveTimeout = 0;
service.on('connection', (socket) => {
  socket.on('data', () => clearTimeout(socket.svcIdle));
  socket.on('close', () => clearTimeout(socket.svcIdle));
});
service.on('request', (req, res) => res.on('finish', () => {
  clearTimeout(req.socket.svcIdle);
  req.socket.svcIdle = setTimeout(() => { closedIdle++; req.socket.destroy(); }, ${IDLE_TIMEOUT_MS});
}));
// The network: every byte and every close arrives LATENCY_MS later, each way.
const later = (f) => setTimeout(f, ${LATENCY_MS});
const relay = net.createServer((down) => {
  const up = net.connect(service.address().port, '127.0.0.1');
  let upClosed = false;
  down.on('data', (d) => later(() => { if (upClosed) down.resetAndDestroy(); else up.write(d); }));
  down.on('end', () => later(() => up.end()));
  down.on('close', () => later(() => up.destroy()));
  up.on('data', (d) => later(() => down.destroyed || down.write(d)));
  up.on('close', () => { upClosed = true; later(() => down.destroyed || down.end()); });
  down.on('error', () => {});
  up.on('error', () => {});
});
service.listen(0, '127.0.0.1', () => relay.listen(0, '127.0.0.1', () => console.log('ports ' + service.address().port + ' ' + relay.address().port)));
`;

function group(i: number): GroupRecord {
  const json = JSON.stringify({ trajectories: [{ messages_and_choices: [{ role: 'user', content: `q${i}` }], reward: 1 }] });
  return { index: i, line: i + 1, endLine: i + 1, bytes: Buffer.byteLength(json), trajectories: 1, json };
}

/** Holds the event loop, as a reader decoding a Parquet page does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // nothing: the loop is held
  }
}

describe('trajectories/upload: a service that closes an idle keep-alive connection while a reader holds the event loop', function () {
  this.timeout(30_000);
  let server: ChildProcess;
  let url: string;
  let direct: string;
  let client: ServiceClient;
  beforeEach(async () => {
    server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    [direct, url] = await new Promise<[string, string]>((resolve, reject) => {
      server.stdout!.on('data', (d: Buffer) => {
        const m = /ports (\d+) (\d+)/.exec(String(d));
        if (m) resolve([`http://127.0.0.1:${m[1]}`, `http://127.0.0.1:${m[2]}`]);
      });
      server.on('exit', (c) => reject(new Error(`server exited ${c}`)));
    });
    client = createServiceClient({ traceBaseUrl: url, credentials: async () => ({ accessToken: 'k' }), env: {} });
  });
  afterEach(async () => {
    await client.close();
    server.kill();
  });

  it('logs the group read after the service closed the idle connection once: not lost, not sent twice', async () => {
    const all = [group(0), group(1), group(2)];
    let firstAnswered!: () => void;
    const answered = new Promise<void>((r) => (firstAnswered = r));
    async function* reader(): AsyncGenerator<GroupRecord> {
      // One group a request: group 1 sends request 0 (group 0), group 2 sends request 1 (group 1).
      yield all[0]!;
      yield all[1]!;
      // Request 0 answered, LATENCY_MS after the service sent it and started its idle timer: the
      // connection is idle in undici's pool. The reader holds the loop until the moment the service
      // closes it: request 1 is written then, reaches the service LATENCY_MS after the close, and
      // the close reaches us LATENCY_MS after the request was written (a margin of LATENCY_MS each way).
      await answered;
      // One turn of the loop: undici puts the connection back in its pool (a request dispatched in
      // the same turn as the answer gets a connection of its own).
      await new Promise((r) => setImmediate(r));
      busy(IDLE_TIMEOUT_MS - LATENCY_MS);
      yield all[2]!;
    }
    const res = await uploadGroups(client, reader(), {
      modelId: 'm',
      split: 'train',
      maxRequestBytes: all[0]!.bytes + 64,
      onProgress: (p) => p.requests === 1 && firstAnswered(),
    });
    assert.equal(res.outcome.status, 'done', 'error' in res.outcome ? String((res.outcome.error as Error).message) : '');
    assert.equal(res.totals.requests, 3);
    await client.close();
    const seen = (await fetch(`${direct}/count`).then((r) => r.json())) as { logged: string[][]; closedIdle: number };
    assert.equal(seen.closedIdle, 1, 'the service closed the connection of request 0, idle for its timeout');
    assert.deepEqual(seen.logged, [['q0'], ['q1'], ['q2']], 'each group logged once, in order');
  });
});
