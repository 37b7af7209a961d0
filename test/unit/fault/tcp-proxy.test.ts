import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { startReferenceServer, type ReferenceServer } from '../../server';
import { KEY, MODEL } from './harness';
import { sentRequests, startTcpProxy, type TcpProxy } from './tcp-proxy';

/** A raw HTTP/1.1 exchange over one socket: what came back, and whether the socket was reset. */
interface Exchange {
  received: Buffer;
  error?: string;
  socket: net.Socket;
  /** Resolves when the socket closes (or after `waitMs`, whichever is first). */
  closed: Promise<boolean>;
}

function exchange(port: number, request: string, waitMs = 2000): Exchange {
  const socket = net.connect({ host: '127.0.0.1', port });
  const ex: Exchange = { received: Buffer.alloc(0), socket, closed: Promise.resolve(false) };
  socket.on('data', (chunk: Buffer) => {
    ex.received = Buffer.concat([ex.received, chunk]);
  });
  socket.on('error', (e: NodeJS.ErrnoException) => {
    ex.error = e.code ?? e.message;
  });
  ex.closed = Promise.race([
    new Promise<boolean>((resolve) => socket.once('close', () => resolve(true))),
    delay(waitMs).then(() => false),
  ]);
  socket.write(request);
  return ex;
}

const checkpointsRequest = (keepAlive = false) =>
  `GET /v1/preview/models/${MODEL}/checkpoints HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n` +
  `Connection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`;

const feedbackBody = JSON.stringify({ project_id: 'acme/chatbot', svc_ref: 'svc:///acme/chatbot/call/c', feedback_type: 't', payload: {} });
const feedbackHead = (keepAlive = false) =>
  `POST /feedback/create HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${Buffer.from(`api:${KEY}`).toString('base64')}\r\n` +
  `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(feedbackBody)}\r\n` +
  `Connection: ${keepAlive ? 'keep-alive' : 'close'}\r\n\r\n`;
const feedbackRequest = feedbackHead() + feedbackBody;

describe('fault/tcp-proxy', () => {
  let server: ReferenceServer;
  let proxy: TcpProxy;
  beforeEach(async () => {
    server = await startReferenceServer({ apiKeys: [{ key: KEY, userId: 'u' }] });
    server.addCheckpoints(MODEL, 3);
    proxy = await startTcpProxy({ port: server.port });
  });
  afterEach(async () => {
    await proxy.close();
    await server.close();
  });

  it('passes traffic through unchanged and counts connections and bytes', async () => {
    const ex = exchange(proxy.port, checkpointsRequest());
    assert.equal(await ex.closed, true);
    const text = ex.received.toString();
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).data.length, 3);
    const stats = proxy.stats();
    assert.equal(stats.connections, 1);
    assert.equal(stats.bytesUp, Buffer.byteLength(checkpointsRequest()));
    assert.equal(stats.bytesDown, ex.received.length);
    assert.equal(stats.cutsFired, 0);
    assert.equal(server.stats.count(), 1);
  });

  it('resets mid-request after exactly N body bytes went upstream; the server sees N and does not process', async () => {
    proxy.next({ direction: 'request', action: 'reset', afterHead: true, afterBytes: 10 });
    const ex = exchange(proxy.port, feedbackRequest);
    assert.equal(await ex.closed, true);
    assert.equal(ex.error, 'ECONNRESET');
    assert.equal(ex.received.length, 0);
    // The server notices the cut once the upstream end arrives: bounded wait.
    for (let i = 0; i < 50 && server.stats.last()?.bodyBytes !== 10; i++) await delay(10);
    const rec = server.stats.last()!;
    assert.equal(rec.bodyBytes, 10);
    assert.equal(rec.completed, false);
    assert.equal(server.store.feedback.length, 0);
    assert.equal(proxy.connections[0]!.fired, true);
    assert.equal(sentRequests(proxy)[0]!.complete, true, 'the client sent everything; the proxy forwarded only part');
  });

  it('resets mid-response after exactly N bytes reached the client', async () => {
    proxy.next({ direction: 'response', action: 'reset', afterBytes: 25 });
    const ex = exchange(proxy.port, checkpointsRequest());
    assert.equal(await ex.closed, true);
    assert.equal(ex.received.length, 25);
    assert.equal(ex.received.toString(), 'HTTP/1.1 200 OK\r\ncontent-');
    // No assertion on ECONNRESET here: a RST right behind data the reader has not read yet may
    // surface as a plain end of stream (Linux reports the error once, to whoever asks first).
    assert.equal(proxy.connections[0]!.fired, true);
  });

  it('closes cleanly (FIN) after N body bytes when asked', async () => {
    proxy.next({ direction: 'response', action: 'close', afterHead: true, afterBytes: 5 });
    const ex = exchange(proxy.port, checkpointsRequest());
    assert.equal(await ex.closed, true);
    const text = ex.received.toString();
    assert.equal(text.slice(text.indexOf('\r\n\r\n') + 4), '{"obj');
    assert.equal(ex.error, undefined);
  });

  it('stalls one direction after N bytes, keeping the socket open, until close() destroys it', async () => {
    proxy.next({ direction: 'response', action: 'stall', afterHead: true, afterBytes: 3 });
    const ex = exchange(proxy.port, checkpointsRequest(true), 300);
    assert.equal(await ex.closed, false, 'still open after 300 ms');
    const text = ex.received.toString();
    assert.equal(text.slice(text.indexOf('\r\n\r\n') + 4), '{"o');
    assert.ok(proxy.stats().bytesDropped > 0, 'the rest of the body was dropped');
    const closed = new Promise<void>((resolve) => ex.socket.once('close', () => resolve()));
    await proxy.close();
    await proxy.close();
    await closed;
  });

  it('gives queued behaviours to request starts in order, also on a kept-alive connection, then passes', async () => {
    const ex = exchange(proxy.port, checkpointsRequest(true), 500);
    for (let i = 0; i < 100 && !ex.received.toString().endsWith('}'); i++) await delay(5);
    proxy.next({ direction: 'response', action: 'reset', afterBytes: 0 });
    assert.equal(proxy.pending(), 1);
    ex.socket.write(checkpointsRequest(true));
    assert.equal(await ex.closed, true);
    assert.equal(ex.error, 'ECONNRESET');
    assert.equal(proxy.pending(), 0);
    assert.equal(server.stats.count(), 2, 'the second request reached the server before its answer was cut');
    const next = exchange(proxy.port, checkpointsRequest());
    assert.equal(await next.closed, true);
    assert.match(next.received.toString(), /^HTTP\/1\.1 200 /);
    assert.deepEqual(
      proxy.connections.map((c) => [c.id, c.fired]),
      [
        [1, true],
        [2, false],
      ],
    );
  });

  it('takes one queued behaviour per request, even when a request arrives in several chunks', async () => {
    proxy.next('pass', { direction: 'response', action: 'reset', afterBytes: 0 });
    const ex = exchange(proxy.port, feedbackHead(true), 1000);
    await delay(30);
    ex.socket.write(feedbackBody);
    for (let i = 0; i < 100 && !ex.received.toString().endsWith('}'); i++) await delay(5);
    assert.match(ex.received.toString(), /^HTTP\/1\.1 200 /, 'the first request passed, body chunk included');
    assert.equal(proxy.pending(), 1);
    ex.socket.write(checkpointsRequest(true));
    assert.equal(await ex.closed, true, 'the second request took the reset');
    assert.equal(proxy.pending(), 0);
    assert.equal(proxy.connections[0]!.requests, 2);
    assert.equal(server.store.feedback.length, 1);
    assert.equal(server.stats.count(), 2);
  });
});
