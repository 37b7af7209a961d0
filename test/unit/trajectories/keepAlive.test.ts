import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServiceClient, type ServiceClient } from '../../../src/api';
import type { GroupRecord } from '../../../src/files';
import { FRESH_CONNECTION_AFTER_MS, uploadGroups } from '../../../src/trajectories/upload';

/**
 * A service in its own process that answers every request 200 and counts the requests it read
 * whole and the connections they came on (GET /count).
 */
const SERVER = `
const net = require('node:net');
let logged = 0;
let connections = 0;
const on = [];
const server = net.createServer((socket) => {
  const id = ++connections;
  let buf = Buffer.alloc(0);
  socket.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const end = buf.indexOf('\\r\\n\\r\\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString();
      const length = Number(/content-length: *(\\d+)/i.exec(head)?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      buf = buf.subarray(end + 4 + length);
      if (head.startsWith('GET /count')) {
        const body = JSON.stringify({ logged, on });
        socket.write('HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: ' + body.length + '\\r\\n\\r\\n' + body);
      } else {
        logged++;
        on.push(id);
        socket.write('HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\n\\r\\n{}');
      }
    }
  });
  socket.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
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

describe('trajectories/upload: keep-alive connections and a reader that holds the event loop', () => {
  let server: ChildProcess;
  let url: string;
  let client: ServiceClient;
  beforeEach(async () => {
    server = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
    url = await new Promise<string>((resolve, reject) => {
      server.stdout!.on('data', (d: Buffer) => {
        const m = /port (\d+)/.exec(String(d));
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      });
      server.on('exit', (c) => reject(new Error(`server exited ${c}`)));
    });
    client = createServiceClient({ traceBaseUrl: url, credentials: async () => ({ accessToken: 'k' }), env: {} });
  });
  afterEach(async () => {
    await client.close();
    server.kill();
  });

  it('sends a request on a new connection when the reader held the event loop for seconds since the last request went out, and reuses it otherwise', async () => {
    const all = Array.from({ length: 4 }, (_, i) => group(i));
    async function* reader(): AsyncGenerator<GroupRecord> {
      for (const g of all) {
        // Each request is answered before the next group comes (the connection is idle). Before
        // group 2 the loop is also held past FRESH_CONNECTION_AFTER_MS, and request 1 goes out
        // after it; request 2 follows request 1 within 100 ms.
        if (g.index >= 2) await new Promise((r) => setTimeout(r, 100));
        if (g.index === 2) busy(FRESH_CONNECTION_AFTER_MS + 300);
        yield g;
      }
    }
    const res = await uploadGroups(client, reader(), { modelId: 'm', split: 'train', maxRequestBytes: all[0]!.bytes + 64 });
    assert.equal(res.outcome.status, 'done', 'error' in res.outcome ? String((res.outcome.error as Error).message) : '');
    assert.equal(res.totals.requests, 4);
    await client.close();
    const seen = (await fetch(`${url}/count`).then((r) => r.json())) as { logged: number; on: number[] };
    assert.equal(seen.logged, 4, 'the service read every request once');
    assert.equal(seen.on.length, 4);
    assert.notEqual(seen.on[1], seen.on[0], 'request 1, after the held loop, on a new connection');
    assert.equal(seen.on[2], seen.on[1], 'request 2 on the connection of request 1');
  });
});
