/**
 * A loopback TCP proxy in front of the reference server, for faults the server cannot inject on
 * itself: a connection cut while the request is still being uploaded, a response cut after an
 * exact number of bytes, a direction that simply stops (a stall, with the socket left open).
 *
 * Behaviours are taken per request: each request the client starts (on a new connection or a
 * kept-alive one; the proxy follows the HTTP/1.1 framing) takes the next queued behaviour, or,
 * when nothing is queued, the default if it is the first request of its connection. A
 * connection that took a cut keeps it: the cut ends it (reset/close) or stops it (stall/freeze)
 * until the client gives up.
 *
 * Every byte the client sent is kept (up to a cap) so tests can see what each attempt carried.
 */
import net from 'node:net';

export type Direction = 'request' | 'response';

/**
 * - `reset`: forward the first `afterBytes`, then reset the client connection (RST) and close
 *   the upstream one (the server sees whatever was forwarded, then the end). A RST right behind
 *   data the client has not read yet may reach it as a plain end of stream (Linux);
 * - `close`: forward the first `afterBytes`, then close the client connection cleanly (FIN);
 * - `stall`: forward the first `afterBytes`, then drop everything else in that direction while
 *   both sockets stay open (the other direction keeps flowing);
 * - `freeze`: forward the first `afterBytes`, then stop reading that direction at all, so the
 *   sender's socket fills up and its writes block (TCP backpressure), sockets left open.
 */
export type CutAction = 'reset' | 'close' | 'stall' | 'freeze';

export interface Cut {
  /** `request`: client to server bytes; `response`: server to client bytes. */
  direction: Direction;
  action: CutAction;
  /** Bytes let through in that direction before the cut: counted from the request start that
   *  took the behaviour (request) or from the first response byte after it (response). */
  afterBytes: number;
  /** Count only the bytes after the first HTTP head (`\r\n\r\n`) in that direction: the body. */
  afterHead?: boolean;
}

export type Behaviour = 'pass' | Cut;

export interface ConnectionRecord {
  /** 1-based, in accept order. */
  id: number;
  /** The cut this connection took, if any. */
  cut?: Cut;
  /** Whether the cut fired. */
  fired: boolean;
  /** Bytes forwarded client to server / server to client. */
  bytesUp: number;
  bytesDown: number;
  /** Bytes dropped by a stall (or read and dropped when a freeze fired mid-chunk). */
  bytesDropped: number;
  /** Requests the client started on this connection. */
  requests: number;
  /** Every byte read from the client on this connection (capped at CAPTURE_CAP), forwarded or
   *  not: all it sent, except what a request freeze left unread. */
  sent: Buffer;
  closed: boolean;
}

export interface ProxyStats {
  connections: number;
  bytesUp: number;
  bytesDown: number;
  bytesDropped: number;
  cutsFired: number;
}

export interface TcpProxy {
  /** http://127.0.0.1:PORT, without a trailing slash. */
  readonly url: string;
  readonly port: number;
  /** Queues behaviours for the next requests, in order ('pass' lets one through untouched). */
  next(...behaviours: Behaviour[]): void;
  /** What a new connection gets when nothing is queued; default `pass`. */
  setDefault(behaviour: Behaviour): void;
  /** Behaviours queued and not yet taken. */
  pending(): number;
  readonly connections: readonly ConnectionRecord[];
  stats(): ProxyStats;
  /** Stops listening and destroys every socket, both sides. Idempotent. */
  close(): Promise<void>;
}

const CAPTURE_CAP = 1024 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

/** Per-direction progress of an active cut. */
interface CutState {
  cut: Cut;
  /** Bytes counted towards afterBytes. */
  counted: number;
  /** For afterHead: whether the head end was seen, and the last bytes of the head so far. */
  headSeen: boolean;
  tail: Buffer;
  /** For response cuts: counting starts with the first response byte after the cut was taken. */
  armed: boolean;
}

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const host = target.host ?? '127.0.0.1';
  const queue: Behaviour[] = [];
  let fallback: Behaviour = 'pass';
  const records: ConnectionRecord[] = [];
  const sockets = new Set<net.Socket>();
  let cutsFired = 0;

  const server = net.createServer((client) => {
    const rec: ConnectionRecord = {
      id: records.length + 1,
      fired: false,
      bytesUp: 0,
      bytesDown: 0,
      bytesDropped: 0,
      requests: 0,
      sent: Buffer.alloc(0),
      closed: false,
    };
    records.push(rec);
    // Nothing is read from the client before the upstream connection is up, so a cut prefix is
    // never left in a buffer that the teardown would discard.
    client.pause();
    const upstream = net.connect({ host, port: target.port }, () => client.resume());
    sockets.add(client);
    sockets.add(upstream);
    const framer = new RequestFramer();
    let state: CutState | undefined;
    const stalled = { request: false, response: false };
    const frozen = { request: false, response: false };
    let ended = false;

    /** Normal teardown: either side closing or failing closes the other. A cut tears down itself. */
    const finish = () => {
      if (ended) return;
      ended = true;
      rec.closed = true;
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      s.on('error', () => finish());
      s.on('close', () => {
        sockets.delete(s);
        finish();
      });
    }
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());

    /** Writes with backpressure: the source pauses until the destination drains. */
    const forward = (from: net.Socket, to: net.Socket, chunk: Buffer, dir: Direction) => {
      if (chunk.length === 0 || to.destroyed) return;
      if (dir === 'request') rec.bytesUp += chunk.length;
      else rec.bytesDown += chunk.length;
      if (!to.write(chunk)) {
        from.pause();
        to.once('drain', () => {
          if (!frozen[dir]) from.resume();
        });
      }
    };

    const fire = (dir: Direction, prefix: Buffer, action: CutAction) => {
      rec.fired = true;
      cutsFired++;
      if (action === 'stall' || action === 'freeze') {
        const from = dir === 'request' ? client : upstream;
        forward(from, dir === 'request' ? upstream : client, prefix, dir);
        stalled[dir] = true;
        if (action === 'freeze') {
          frozen[dir] = true;
          from.pause();
        }
        return;
      }
      // From here on the cut owns the teardown, so the usual close-the-other-side cannot race it.
      ended = true;
      rec.closed = true;
      if (dir === 'request') {
        // The server gets exactly the prefix, then a clean end (not destroy, which could drop the
        // prefix): it sees the request cut short and closes its side; close() destroys it anyway.
        rec.bytesUp += prefix.length;
        upstream.end(prefix);
        if (action === 'reset') client.resetAndDestroy();
        else client.end();
        return;
      }
      rec.bytesDown += prefix.length;
      upstream.destroy();
      if (action === 'close') {
        client.end(prefix);
      } else if (prefix.length === 0) {
        client.resetAndDestroy();
      } else {
        // Reset only once the prefix has left, so the client really receives it.
        client.write(prefix, () => client.resetAndDestroy());
      }
    };

    /** Applies the active cut (if it is on this direction) to a chunk. */
    const pass = (dir: Direction, chunk: Buffer) => {
      const from = dir === 'request' ? client : upstream;
      const to = dir === 'request' ? upstream : client;
      if (stalled[dir]) {
        rec.bytesDropped += chunk.length;
        return;
      }
      if (ended && dir === 'response') return;
      const s = state && state.cut.direction === dir && !rec.fired ? state : undefined;
      if (!s || !s.armed) {
        forward(from, to, chunk, dir);
        return;
      }
      let offset = 0;
      if (s.cut.afterHead && !s.headSeen) {
        const joined = Buffer.concat([s.tail, chunk]);
        const i = joined.indexOf(HEAD_END);
        if (i < 0) {
          s.tail = Buffer.from(joined.subarray(Math.max(0, joined.length - 3)));
          forward(from, to, chunk, dir);
          return;
        }
        s.headSeen = true;
        offset = i + HEAD_END.length - s.tail.length;
      }
      const room = s.cut.afterBytes - s.counted;
      const available = chunk.length - offset;
      if (available <= room) {
        s.counted += available;
        forward(from, to, chunk, dir);
        return;
      }
      s.counted += room;
      fire(dir, chunk.subarray(0, offset + room), s.cut.action);
      if (s.cut.action === 'stall' || s.cut.action === 'freeze') rec.bytesDropped += chunk.length - offset - room;
    };

    client.on('data', (chunk: Buffer) => {
      if (rec.sent.length < CAPTURE_CAP) {
        rec.sent = Buffer.concat([rec.sent, chunk.subarray(0, CAPTURE_CAP - rec.sent.length)]);
      }
      // A request start takes a behaviour: the queued one, else (first request of a connection)
      // the default. Requests after a cut are not looked at: the cut ends the connection.
      const starts = framer.next(chunk);
      rec.requests = framer.requests;
      if (starts && !state) {
        const behaviour = queue.length > 0 ? queue.shift()! : rec.requests === 1 ? fallback : 'pass';
        if (behaviour !== 'pass') {
          rec.cut = behaviour;
          state = {
            cut: behaviour,
            counted: 0,
            headSeen: false,
            tail: Buffer.alloc(0),
            armed: behaviour.direction === 'request',
          };
        }
      }
      pass('request', chunk);
      // Response bytes are counted from the first one after this request started.
      if (state && state.cut.direction === 'response') state.armed = true;
    });
    upstream.on('data', (chunk: Buffer) => pass('response', chunk));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as net.AddressInfo).port;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    next: (...behaviours) => {
      for (const b of behaviours) validate(b);
      queue.push(...behaviours);
    },
    setDefault: (behaviour) => {
      validate(behaviour);
      fallback = behaviour;
    },
    pending: () => queue.length,
    connections: records,
    stats: () => ({
      connections: records.length,
      bytesUp: records.reduce((n, r) => n + r.bytesUp, 0),
      bytesDown: records.reduce((n, r) => n + r.bytesDown, 0),
      bytesDropped: records.reduce((n, r) => n + r.bytesDropped, 0),
      cutsFired,
    }),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        sockets.clear();
      })),
  };
}

/**
 * Follows HTTP/1.1 request framing on the client's bytes (heads, content-length bodies: what the
 * service client sends), to tell which chunk starts a request. A chunk holding the end of one
 * request and the start of the next (pipelining, which the client does not do) counts as the
 * start of neither.
 */
class RequestFramer {
  requests = 0;
  private head = Buffer.alloc(0);
  private bodyLeft = 0;

  /** Consumes a chunk; true when it starts a new request. */
  next(chunk: Buffer): boolean {
    let starts = false;
    let at = 0;
    // Bounded: every pass consumes body bytes, or a head, or the rest of the chunk.
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const n = Math.min(this.bodyLeft, chunk.length - at);
        this.bodyLeft -= n;
        at += n;
        continue;
      }
      if (this.head.length === 0) {
        this.requests++;
        if (at === 0) starts = true;
      }
      const before = this.head.length;
      this.head = Buffer.concat([this.head, chunk.subarray(at)]);
      const end = this.head.indexOf(HEAD_END);
      if (end < 0) {
        // Not HTTP after all (or an absurd head): stop following rather than grow without bound.
        if (this.head.length > 64 * 1024) this.head = Buffer.alloc(0);
        break;
      }
      const text = this.head.subarray(0, end).toString('latin1');
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(text);
      at += end + HEAD_END.length - before;
      this.head = Buffer.alloc(0);
      this.bodyLeft = length ? Number(length[1]) : 0;
    }
    return starts;
  }
}

function validate(b: Behaviour): void {
  if (b === 'pass') return;
  if (!Number.isSafeInteger(b.afterBytes) || b.afterBytes < 0) {
    throw new TypeError(`invalid proxy behaviour ${JSON.stringify(b)}: afterBytes must be a non-negative integer`);
  }
}

/** One HTTP request as the client sent it on a connection, possibly cut short. */
export interface SentRequest {
  connection: number;
  method: string;
  target: string;
  body: Buffer;
  /** The whole body (per content-length) was sent. */
  complete: boolean;
}

/**
 * Splits what clients sent into HTTP/1.1 requests (content-length bodies only, which is what the
 * service client sends), in connection order. A head cut short yields nothing.
 */
export function sentRequests(proxy: TcpProxy): SentRequest[] {
  const out: SentRequest[] = [];
  for (const rec of proxy.connections) {
    let at = 0;
    // Bounded: each pass consumes a head, or stops.
    while (at < rec.sent.length) {
      const headEnd = rec.sent.indexOf(HEAD_END, at);
      if (headEnd < 0) break;
      const head = rec.sent.subarray(at, headEnd).toString('latin1');
      const [requestLine, ...headerLines] = head.split('\r\n');
      const [method = '', target = ''] = (requestLine ?? '').split(' ');
      const lengthLine = headerLines.find((l) => /^content-length:/i.test(l));
      const length = lengthLine ? Number(lengthLine.slice(lengthLine.indexOf(':') + 1).trim()) : 0;
      const bodyStart = headEnd + HEAD_END.length;
      const body = rec.sent.subarray(bodyStart, bodyStart + length);
      out.push({ connection: rec.id, method, target, body: Buffer.from(body), complete: body.length === length });
      at = bodyStart + length;
    }
  }
  return out;
}
