import { randomUUID } from 'node:crypto';
import { PayloadTooLargeError, ProtocolError } from './errors';
import type { HttpClient } from './http';
import { CallBatchItem, UpsertBatchResponse, type CallEndRes, type CallStartRes } from './schemas';
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
    // The validated items as given, not zod's output copy (which drops "__proto__" record keys).
    const encoded = filled.map((item) => JSON.stringify(item));
    const sizes = encoded.map((text) => Buffer.byteLength(text));
    const results: CallResult[] = [];
    let index = 0;
    while (index < encoded.length) {
      let end = index;
      let bytes = ENVELOPE_BYTES;
      while (end < encoded.length && (end === index || bytes + sizes[end]! + 1 <= budget)) {
        bytes += sizes[end]! + (end > index ? 1 : 0);
        end++;
      }
      results.push(...(await this.sendSplitting(encoded, index, end, options)));
      index = end;
    }
    return results;
  }

  private async sendSplitting(
    encoded: string[],
    start: number,
    end: number,
    options: UpsertBatchOptions,
  ): Promise<CallResult[]> {
    try {
      return await this.send(encoded, start, end, options);
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
      const left = await this.sendSplitting(encoded, start, mid, options);
      const right = await this.sendSplitting(encoded, mid, end, options);
      return [...left, ...right];
    }
  }

  private async send(encoded: string[], start: number, end: number, options: UpsertBatchOptions): Promise<CallResult[]> {
    const body = Buffer.from(`{"batch":[${encoded.slice(start, end).join(',')}]}`);
    const { value, info, status } = await this.http.json({
      method: 'POST',
      base: 'trace',
      path: '/call/upsert_batch',
      auth: 'basic',
      body,
      retry: 'idempotent',
      signal: options.signal,
    });
    const parsed = parseResponse(UpsertBatchResponse, value, info, status);
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

function fillIds(item: CallBatchItem): CallBatchItem {
  if (item && item.mode === 'start' && item.req?.start) {
    const start = item.req.start;
    if (start.id && start.trace_id) return item;
    return { ...item, req: { ...item.req, start: { ...start, id: start.id || randomUUID(), trace_id: start.trace_id || randomUUID() } } };
  }
  return item;
}
