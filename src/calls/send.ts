/**
 * The import's send pass: a validated JSONL file of call records to POST /call/upsert_batch, sent
 * as the file's bytes, as the trajectory upload sends its groups. No `vscode` import.
 *
 * The validation pass (reader.ts, with `plan`) says per item whether it goes as written, inside a
 * `{"mode": ..., "req": ...}` frame (a bare record), or must change (ids filled in, `null`
 * optional fields dropped, a line that is not valid UTF-8): only those are parsed and serialized
 * again here. A file changed since it was validated (size or modification time), or a line whose
 * length is not the validated one, is read the old way: parsed, normalized, serialized.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import type { CallBatchItem } from '../api';
import type { CallsApi } from '../api/calls';
import { chunksOf, FileBytes } from '../files/bytes';
import * as reader from './reader';
import { trustedItemOf, type CallsSendPlan } from './reader';

// Read once: the loop below runs per line, and a module's export can be a getter (CommonJS output).
const { MAX_PLANNED_THREADS, SEND_AS_IS, SEND_REWRITE, SEND_START, SEND_WRAP_START } = reader;

/**
 * A start without id or trace_id gets ids derived from the file, the line and its content, so
 * importing the same file again upserts the same calls instead of creating new ones.
 */
export function withStableIds(item: CallBatchItem, file: string, line: number): CallBatchItem {
  if (item.mode !== 'start' || (item.req.start.id && item.req.start.trace_id)) return item;
  const seed = `${file}\n${line}\n${JSON.stringify(item.req.start)}`;
  const start = { ...item.req.start, id: item.req.start.id || stableUuid(`id\n${seed}`), trace_id: item.req.start.trace_id || stableUuid(`trace\n${seed}`) };
  return { ...item, req: { ...item.req, start } };
}

/** A UUID-shaped id (version 5 layout) from a SHA-256 of `text`. */
function stableUuid(text: string): string {
  const h = createHash('sha256').update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

export interface SendCallsOptions {
  signal?: AbortSignal;
  /** Items handed to one upsertBatchJson call (it splits further by bytes). Default 1000. */
  itemsPerBatch?: number;
  /** Byte budget of one request. Default: the client's (10 MiB). */
  maxBatchBytes?: number;
  /** The validation pass's plan for this file; without one, every item is parsed. */
  plan?: CallsSendPlan;
  /** Collect the thread ids of this project's starts (up to 50). */
  threadsOf?: string;
  /** After each acknowledged request: the starts and ends it stored, and its body's bytes. */
  onChunk?: (stored: { starts: number; ends: number; bytes: number }) => void;
  /** A request failed: the first and last file line of its upsertBatchJson call (the error is thrown as it is). */
  onFailedLines?: (first: number, last: number) => void;
}

const FRAME_START = Buffer.from('{"mode":"start","req":');
const FRAME_END = Buffer.from('{"mode":"end","req":');
const FRAME_CLOSE = Buffer.from('}');
const CHUNK_BYTES = 1024 * 1024;

/**
 * Sends the items of a validated file, in order, `itemsPerBatch` at a time, with one request in
 * flight while the next batch is read. Returns the thread ids of the project's starts.
 */
export async function sendCallsFile(calls: CallsApi, file: string, options: SendCallsOptions = {}): Promise<{ threadIds: string[] }> {
  const perBatch = options.itemsPerBatch ?? 1000;
  let plan = options.plan;
  if (plan) {
    const now = await stat(file);
    if (now.size !== plan.size || now.mtimeMs !== plan.mtimeMs) plan = undefined;
  }
  const threadIds = new Set<string>(plan && options.threadsOf !== undefined ? plan.threadIds : []);

  let items: Uint8Array[] = [];
  let starts: boolean[] = [];
  let lines: number[] = [];
  let inFlight: Promise<void> | undefined;
  // Set when the request in flight failed: reading stops, and awaiting it throws its error.
  let failed = false;
  const flush = () => {
    if (!items.length) return undefined;
    const batch = { items, starts, first: lines[0]!, last: lines.at(-1)! };
    items = [];
    starts = [];
    lines = [];
    return calls
      .upsertBatchJson(batch.items, {
        signal: options.signal,
        maxBatchBytes: options.maxBatchBytes,
        onChunk: (first, results, bytes) => {
          let s = 0;
          for (let i = first; i < first + results.length; i++) if (batch.starts[i]) s++;
          options.onChunk?.({ starts: s, ends: results.length - s, bytes });
        },
      })
      .then(
        () => undefined,
        (e: unknown) => {
          failed = true;
          options.onFailedLines?.(batch.first, batch.last);
          throw e;
        },
      );
  };

  try {
    for await (const batch of fileLines(file, options.signal)) for (const { bytes, line, index } of batch) {
      const code = plan && index < plan.items && plan.lengths[index] === bytes.length ? plan.codes[index]! : SEND_REWRITE;
      if (code === SEND_REWRITE) {
        const item = rewrite(file, line, bytes);
        if (item.mode === 'start') {
          const start = item.req.start;
          if (start.thread_id && threadIds.size < MAX_PLANNED_THREADS && start.project_id === options.threadsOf) threadIds.add(start.thread_id);
        }
        items.push(Buffer.from(JSON.stringify(item)));
        starts.push(item.mode === 'start');
      } else {
        const body = trim(bytes);
        const how = code & ~SEND_START;
        items.push(how === SEND_AS_IS ? body : Buffer.concat([how === SEND_WRAP_START ? FRAME_START : FRAME_END, body, FRAME_CLOSE]));
        starts.push((code & SEND_START) !== 0);
      }
      lines.push(line);
      if (items.length >= perBatch || failed) {
        await inFlight;
        inFlight = flush();
        // Its failure is thrown where it is awaited: at the next batch, or below.
        inFlight?.catch(() => undefined);
      }
    }
  } catch (e) {
    // What the request in flight stored is counted (and its failure, if any, reported) first.
    await inFlight;
    throw e;
  }
  await inFlight;
  await flush();
  return { threadIds: [...threadIds] };
}

/** The item a line holds, normalized, with stable ids and without null optional fields (the line validated). */
function rewrite(file: string, line: number, bytes: Uint8Array): CallBatchItem {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return withStableIds(trustedItemOf(file, { line, text, byteStart: 0, byteEnd: bytes.length }), file, line);
}

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;

/** Without JSON whitespace at either end. */
function trim(bytes: Uint8Array): Uint8Array {
  let s = 0;
  let e = bytes.length;
  while (s < e && isSpace(bytes[s])) s++;
  while (e > s && isSpace(bytes[e - 1])) e--;
  return s === 0 && e === bytes.length ? bytes : bytes.subarray(s, e);
}

/**
 * The non-blank lines of a file as bytes (no decoding), a chunk's lines at a time, numbered as readLines numbers them: a UTF-8
 * byte order mark at the start belongs to no line, a `\r` before the `\n` is not part of the line.
 */
async function* fileLines(file: string, signal?: AbortSignal): AsyncGenerator<{ bytes: Uint8Array; line: number; index: number }[]> {
  const source = await FileBytes.open(file);
  let lineNo = 0;
  let index = 0;
  const line = (b: Uint8Array) => {
    lineNo++;
    let bytes = b.length > 0 && b[b.length - 1] === 0x0d ? b.subarray(0, b.length - 1) : b;
    if (lineNo === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    return bytes;
  };
  try {
    // The start of a line that continues in the next chunk(s).
    let carry: Buffer[] = [];
    // One batch per chunk read: an async step per chunk, not per line.
    for await (const chunk of chunksOf(source, CHUNK_BYTES, signal)) {
      const batch: { bytes: Uint8Array; line: number; index: number }[] = [];
      let pos = 0;
      for (;;) {
        const nl = chunk.indexOf(0x0a, pos);
        if (nl < 0) break;
        let bytes: Uint8Array = chunk.subarray(pos, nl);
        if (carry.length) {
          bytes = Buffer.concat([...carry, bytes]);
          carry = [];
        }
        bytes = line(bytes);
        pos = nl + 1;
        if (!isBlankBytes(bytes)) batch.push({ bytes, line: lineNo, index: index++ });
      }
      if (pos < chunk.length) carry.push(chunk.subarray(pos));
      if (batch.length) yield batch;
    }
    if (carry.length) {
      const bytes = line(Buffer.concat(carry));
      if (!isBlankBytes(bytes)) yield [{ bytes, line: lineNo, index: index++ }];
    }
  } finally {
    await source.close();
  }
}

/** As isBlank on the decoded text: only whitespace (an object line, starting with `{`, never is). */
function isBlankBytes(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length && isSpace(bytes[i])) i++;
  if (i === bytes.length) return true;
  if (bytes[i] === 0x7b) return false;
  return !/\S/.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}
