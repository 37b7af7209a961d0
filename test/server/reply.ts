import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Fault } from './faults';

/** Rows are batched into writes of about this size: progressive, without one write per row. */
const CHUNK_CHARS = 16 * 1024;

/** A line that is certainly not JSON, for the `malformed-line` fault. */
const MALFORMED_LINE = '{"thread_id": <<this line is not JSON>>\n';

/**
 * Writes a response, applying the output faults (resets, stalls, broken streams) so the
 * handlers never need to know about them.
 */
export class Reply {
  constructor(
    private readonly res: ServerResponse,
    private readonly fault: Fault | undefined,
    /** Registers a response that will never finish, so close() can end it. */
    private readonly hold: (res: ServerResponse) => void,
  ) {}

  get sent(): boolean {
    return this.res.headersSent || this.res.destroyed;
  }

  json(status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    if (this.fault?.kind === 'reset-after-processing') {
      this.res.socket?.destroy();
      return;
    }
    if (this.fault?.kind === 'status-after-processing') {
      const gateway = Buffer.from(JSON.stringify({ detail: `HTTP ${this.fault.status} from the gateway` }), 'utf8');
      this.res.writeHead(this.fault.status, { 'content-type': 'application/json', 'content-length': gateway.length });
      this.res.end(gateway);
      return;
    }
    this.res.writeHead(status, { 'content-type': 'application/json', 'content-length': payload.length, ...headers });
    if (this.fault?.kind === 'stall') {
      this.stall(payload.subarray(0, this.fault.afterBytes ?? 0));
      return;
    }
    this.res.end(payload);
  }

  /** Streams one JSON object per line, waiting for 'drain' whenever the socket is full. */
  async jsonl(rows: Iterable<unknown>): Promise<void> {
    const fault = this.fault;
    if (fault?.kind === 'reset-after-processing') {
      this.res.socket?.destroy();
      return;
    }
    this.res.writeHead(200, { 'content-type': 'application/jsonl' });
    if (fault?.kind === 'stall') {
      this.stallStream(rows, fault.afterBytes ?? 0);
      return;
    }
    this.res.flushHeaders();
    let pending = '';
    let index = 0;
    for (const row of rows) {
      let line = JSON.stringify(row) + '\n';
      if (fault?.kind === 'malformed-line' && fault.atRow === index) line = MALFORMED_LINE;
      if (fault?.kind === 'reset-mid-stream' && fault.afterRows === index) {
        await this.flushThenDestroy(pending);
        return;
      }
      if (fault?.kind === 'truncate-jsonl' && fault.afterRows === index) {
        this.res.end(pending + line.slice(0, Math.floor((line.length - 1) / 2)));
        return;
      }
      pending += line;
      index += 1;
      if (pending.length >= CHUNK_CHARS) {
        if (!(await this.write(pending))) return;
        pending = '';
      }
    }
    // Fewer rows than the fault's position: a reset still cuts the stream (no clean end).
    if (fault?.kind === 'reset-mid-stream') {
      await this.flushThenDestroy(pending);
      return;
    }
    this.res.end(pending);
  }

  /** Resolves true when more may be written, false when the client has gone. */
  private write(chunk: string): Promise<boolean> {
    if (this.res.destroyed) return Promise.resolve(false);
    if (this.res.write(chunk)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => () => {
        this.res.off('drain', onDrain);
        this.res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = done(true);
      const onClose = done(false);
      this.res.once('drain', onDrain);
      this.res.once('close', onClose);
    });
  }

  /** Destroys only once the rows already produced have reached the socket. */
  private flushThenDestroy(pending: string): Promise<void> {
    return new Promise((resolve) => {
      const destroy = () => {
        this.res.socket?.destroy();
        resolve();
      };
      if (pending === '' || this.res.destroyed) destroy();
      else this.res.write(pending, destroy);
    });
  }

  private stallStream(rows: Iterable<unknown>, afterBytes: number): void {
    const parts: Buffer[] = [];
    let size = 0;
    for (const row of rows) {
      if (size >= afterBytes) break;
      const line = Buffer.from(JSON.stringify(row) + '\n', 'utf8');
      parts.push(line);
      size += line.length;
    }
    this.stall(Buffer.concat(parts).subarray(0, afterBytes));
  }

  private stall(prefix: Buffer): void {
    if (prefix.length > 0) this.res.write(prefix);
    else this.res.flushHeaders();
    this.hold(this.res);
  }
}
