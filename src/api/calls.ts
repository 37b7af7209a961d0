import { randomUUID } from 'node:crypto';
import { PayloadTooLargeError, ProtocolError, ValidationError } from './errors';
import type { HttpClient } from './http';
import { CallBatchItem, UpsertBatchResponse, type CallEndRes, type CallStartRes } from './schemas';
import { isObject } from './json';
import { isPlainCallBatchItem } from './schemas/fastCheck';
import { checkRequest, parseResponse } from './validate';
import { z } from 'zod';

export type CallResult = CallStartRes | CallEndRes;

export interface UpsertBatchOptions {
  signal?: AbortSignal;
  /** Largest request body to send, in bytes. Default 10 MiB. */
  maxBatchBytes?: number;
  /** Called after each request succeeds, with the index of its first item and its results. */
  onChunk?: (firstIndex: number, results: CallResult[], bytes: number) => void;
}

export const DEFAULT_MAX_BATCH_BYTES = 10 * 1024 * 1024;

const BatchInput = z.array(CallBatchItem);
const ENVELOPE_BYTES = Buffer.byteLength('{"batch":[]}');
/** Items serialized between two turns of the event loop while a request is in flight. */
const ENCODE_SLICE = 1024;

/** POST /call/upsert_batch. */
export class CallsApi {
  constructor(private readonly http: HttpClient) {}

  /**
   * Upserts calls; returns one result per item, aligned with `items`. Start items without `id` or
   * `trace_id` get UUIDs. Items are sent in requests under the byte budget, sequentially; a 413
   * splits the request in half and retries both halves. Upserts are idempotent, so transient
   * failures are retried.
   */
  async upsertBatch(items: CallBatchItem[], options: UpsertBatchOptions = {}): Promise<CallResult[]> {
    const filled = items.map(fillIds);
    // Plainly valid items pass a cheap check; otherwise the schema names every issue.
    if (!filled.every(isPlainCallBatchItem)) checkRequest(BatchInput, filled, 'call batch');
    const budget = options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
    // The validated items as given, not zod's output copy (which drops "__proto__" record keys),
    // serialized one request ahead: the next request is encoded while one is in flight. The
    // encoder gives the event loop a turn every ENCODE_SLICE items, so the request in flight keeps
    // moving. Requests still go one after another, in order.
    const encoded: string[] = new Array<string>(filled.length);
    const sizes: number[] = new Array<number>(filled.length);
    let encodedUpTo = 0;
    const requestEnd = async (index: number): Promise<number> => {
      let end = index;
      let bytes = ENVELOPE_BYTES;
      while (end < filled.length) {
        if (end >= encodedUpTo) {
          const text = JSON.stringify(filled[end]);
          encoded[end] = text;
          sizes[end] = Buffer.byteLength(text);
          encodedUpTo = end + 1;
          if (encodedUpTo % ENCODE_SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (end > index && bytes + sizes[end]! + 1 > budget) break;
        bytes += sizes[end]! + (end > index ? 1 : 0);
        end++;
      }
      return end;
    };
    const results: CallResult[] = [];
    let index = 0;
    let end = await requestEnd(0);
    while (index < filled.length) {
      const sending = this.sendSplitting(frameText(encoded), index, end, options);
      const next = end < filled.length ? requestEnd(end) : Promise.resolve(end);
      // Its failure (if any) is reported after the request in flight settles, below.
      next.catch(() => undefined);
      for (const r of await sending) results.push(r);
      index = end;
      end = await next;
    }
    return results;
  }

  /**
   * POST /call/upsert_batch with items given as their JSON bytes, so the service receives a file's
   * bytes unchanged (no parse and re-serialization: numbers, key order and unknown fields arrive
   * as written). Each item must be a `{mode, req}` batch item that passed `CallBatchItem`, with its
   * start's `id` and `trace_id` set — the import's validation pass over the file is that check, so
   * it is not repeated here; what is checked is the framing (one JSON object per item). Requests
   * under the byte budget, one after another; a 413 splits the request in half, as `upsertBatch`.
   */
  async upsertBatchJson(items: readonly Uint8Array[], options: UpsertBatchOptions = {}): Promise<CallResult[]> {
    items.forEach((bytes, i) => {
      if (bytes[0] !== 0x7b || bytes[bytes.length - 1] !== 0x7d) {
        throw new ValidationError(`Invalid call batch: item ${i} is not a JSON object`, {
          issues: [{ loc: ['body', 'batch', i], msg: 'expected a JSON object', type: 'dict_type' }],
          source: 'client',
        });
      }
    });
    const budget = options.maxBatchBytes ?? DEFAULT_MAX_BATCH_BYTES;
    const frame = frameBytes(items);
    const results: CallResult[] = [];
    for (let index = 0; index < items.length; ) {
      let end = index + 1;
      let bytes = ENVELOPE_BYTES + items[index]!.length;
      while (end < items.length && bytes + items[end]!.length + 1 <= budget) bytes += items[end++]!.length + 1;
      for (const r of await this.sendSplitting(frame, index, end, options)) results.push(r);
      index = end;
    }
    return results;
  }

  private async sendSplitting(
    frame: Frame,
    start: number,
    end: number,
    options: UpsertBatchOptions,
  ): Promise<CallResult[]> {
    try {
      return await this.send(frame, start, end, options);
    } catch (e) {
      if (!(e instanceof PayloadTooLargeError) || end - start < 2) {
        if (e instanceof PayloadTooLargeError) {
          throw new PayloadTooLargeError(`${e.message} (item ${start} alone is too large)`, {
            request: { method: e.method ?? 'POST', path: e.path ?? '/call/upsert_batch' },
            status: e.status,
            serverMessage: e.serverMessage,
          });
        }
        throw e;
      }
      const mid = start + Math.floor((end - start) / 2);
      const left = await this.sendSplitting(frame, start, mid, options);
      const right = await this.sendSplitting(frame, mid, end, options);
      return [...left, ...right];
    }
  }

  private async send(frame: Frame, start: number, end: number, options: UpsertBatchOptions): Promise<CallResult[]> {
    const body = frame(start, end);
    const { value, info, status } = await this.http.json({
      method: 'POST',
      base: 'trace',
      path: '/call/upsert_batch',
      auth: 'basic',
      body,
      retry: 'idempotent',
      signal: options.signal,
    });
    // A plain well-formed answer passes a cheap check; otherwise the schema names the field at fault.
    const parsed = isUpsertBatchResponse(value) ? value : parseResponse(UpsertBatchResponse, value, info, status);
    if (parsed.res.length !== end - start) {
      throw new ProtocolError(
        `The service answered ${parsed.res.length} results for a batch of ${end - start} items.`,
        { request: info, status, fieldPath: 'res' },
      );
    }
    options.onChunk?.(start, parsed.res, body.length);
    return parsed.res;
  }
}

/** The request body of items [start, end). */
type Frame = (start: number, end: number) => Buffer;

const frameText =
  (encoded: readonly string[]): Frame =>
  (start, end) =>
    Buffer.from(`{"batch":[${encoded.slice(start, end).join(',')}]}`);

const OPEN = Buffer.from('{"batch":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** One copy of the items' bytes into the body, with the framing around and between them. */
const frameBytes =
  (items: readonly Uint8Array[]): Frame =>
  (start, end) => {
    const parts: Uint8Array[] = [OPEN];
    for (let i = start; i < end; i++) {
      if (i > start) parts.push(COMMA);
      parts.push(items[i]!);
    }
    parts.push(CLOSE);
    return Buffer.concat(parts);
  };

function fillIds(item: CallBatchItem): CallBatchItem {
  if (item && item.mode === 'start' && item.req?.start) {
    const start = item.req.start;
    if (start.id && start.trace_id) return item;
    return { ...item, req: { ...item.req, start: { ...start, id: start.id || randomUUID(), trace_id: start.trace_id || randomUUID() } } };
  }
  return item;
}

/**
 * Exactly the rules of the `UpsertBatchResponse` schema, as a cheap yes/no: `res` is a list of
 * objects (a start's `{id, trace_id}` or an end's `{}`, which takes any object), unknown fields kept.
 * test/unit/api/upsertResponse.test.ts keeps the two equal.
 */
export function isUpsertBatchResponse(v: unknown): v is { res: CallResult[] } {
  if (!isObject(v) || !Array.isArray(v.res)) return false;
  for (const r of v.res) if (!isObject(r)) return false;
  return true;
}
