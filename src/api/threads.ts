import { CancelledError, NetworkError, ProtocolError, SvcError } from './errors';
import type { HttpClient, StreamResponse } from './http';
import { mapError } from './httpErrors';
import { DEFAULT_MAX_LINE_BYTES, JsonlError, decodeJsonlBatches } from './jsonl';
import { backoffDelay, sleep } from './retry';
import { ThreadRow, ThreadsQueryRequest } from './schemas';
import { isObject } from './json';
import { checkRequest, parseResponse } from './validate';

export interface ThreadsQueryOptions {
  signal?: AbortSignal;
  /** Longest line accepted from the stream. Default 1 MiB. */
  maxLineBytes?: number;
  /** How many times a stream that broke mid-way is resumed. Default: the client's maxAttempts - 1. */
  maxResumes?: number;
}

/** POST /threads/stream_query. */
export class ThreadsApi {
  constructor(private readonly http: HttpClient) {}

  /**
   * Streams thread rows as they arrive: the first row is yielded before the body ends and memory
   * does not grow with the result. A connection lost mid-stream is resumed from the next row (by
   * offset), so nothing is lost or repeated as long as the data does not change in between.
   */
  query(input: ThreadsQueryRequest, options: ThreadsQueryOptions = {}): AsyncIterable<ThreadRow> {
    const req = checkRequest(ThreadsQueryRequest, input, 'threads query');
    return this.rows(req, options);
  }

  /**
   * The same stream as `query`, a batch of rows at a time (the rows of one network chunk): one
   * async step per batch instead of one per row. A tree view's page is made of these.
   */
  queryBatches(input: ThreadsQueryRequest, options: ThreadsQueryOptions = {}): AsyncIterable<ThreadRow[]> {
    const req = checkRequest(ThreadsQueryRequest, input, 'threads query');
    return this.batches(req, options);
  }

  private async *rows(req: ThreadsQueryRequest, options: ThreadsQueryOptions): AsyncGenerator<ThreadRow> {
    for await (const batch of this.batches(req, options)) {
      for (const row of batch) {
        // Rows already decoded from a buffered chunk must not outlive a cancel.
        if (options.signal?.aborted) throw new CancelledError();
        yield row;
      }
    }
  }

  private async *batches(req: ThreadsQueryRequest, options: ThreadsQueryOptions): AsyncGenerator<ThreadRow[]> {
    const retry = this.http.retryOptions;
    const maxResumes = options.maxResumes ?? retry.maxAttempts - 1;
    let delivered = 0;
    for (let resume = 0; ; resume++) {
      const limit = req.limit === undefined || req.limit === null ? req.limit : req.limit - delivered;
      if (limit !== undefined && limit !== null && limit <= 0) return;
      const body: ThreadsQueryRequest = { ...req };
      if (delivered > 0) {
        body.offset = (req.offset ?? 0) + delivered;
        body.limit = limit;
      }
      const res: StreamResponse = await this.http.stream({
        method: 'POST',
        base: 'trace',
        path: '/threads/stream_query',
        auth: 'basic',
        json: body,
        retry: 'idempotent',
        accept: 'application/jsonl',
        signal: options.signal,
      });
      const lineOffset = delivered;
      try {
        for await (const batch of decodeJsonlBatches(res.body, { maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES })) {
          // Rows already decoded from a buffered chunk must not outlive a cancel.
          if (options.signal?.aborted) throw new CancelledError({ request: res.info });
          const rows: ThreadRow[] = new Array<ThreadRow>(batch.length);
          for (let i = 0; i < batch.length; i++) {
            const { line, value } = batch[i]!;
            // Most rows are plainly well formed; the schema speaks (and names the field) otherwise.
            rows[i] = isThreadRow(value) ? value : parseResponse(ThreadRow, value, res.info, res.status, [], line + lineOffset);
          }
          // A service that sends more rows than asked for is not followed: stop at the limit and
          // close the stream (the finally below), so the excess is never read or kept.
          const room = req.limit === undefined || req.limit === null ? rows.length : req.limit - delivered;
          if (rows.length > room) {
            rows.length = Math.max(0, room);
            delivered += rows.length;
            if (rows.length) yield rows;
            return;
          }
          delivered += rows.length;
          yield rows;
        }
        return;
      } catch (e) {
        const error = toStreamError(e, res, lineOffset, options.signal);
        if (!(error instanceof NetworkError) || resume >= maxResumes) throw error;
        const retryInMs = backoffDelay(resume + 1, retry);
        this.http.logEvent({
          ...res.info,
          status: res.status,
          durationMs: 0,
          attempt: resume + 1,
          error: `${error.message} after ${delivered} rows`,
          retryInMs,
        });
        await sleep(retryInMs, options.signal);
      } finally {
        if (!res.body.destroyed) res.body.destroy();
      }
    }
  }
}

const isNullableString = (v: unknown) => v === undefined || v === null || typeof v === 'string';
const isNullableNumber = (v: unknown) => v === undefined || v === null || (typeof v === 'number' && Number.isFinite(v));

/** Exactly the rules of the `ThreadRow` schema, as a cheap yes/no (test/unit/api/threadRow.test.ts keeps them equal). */
export function isThreadRow(v: unknown): v is ThreadRow {
  if (!isObject(v)) return false;
  const r = v;
  return (
    typeof r.thread_id === 'string' &&
    typeof r.turn_count === 'number' &&
    Number.isSafeInteger(r.turn_count) &&
    typeof r.start_time === 'string' &&
    typeof r.last_updated === 'string' &&
    isNullableString(r.first_turn_id) &&
    isNullableString(r.last_turn_id) &&
    isNullableNumber(r.p50_turn_duration_ms) &&
    isNullableNumber(r.p99_turn_duration_ms)
  );
}

function toStreamError(e: unknown, res: StreamResponse, lineOffset: number, signal?: AbortSignal): SvcError {
  if (signal?.aborted) return new CancelledError({ request: res.info });
  if (e instanceof JsonlError) {
    const line = e.line + lineOffset;
    return new ProtocolError(
      `The threads stream of ${res.info.method} ${res.info.path} is broken at line ${line}: ${e.message.replace(/^Line \d+ /, 'the line ')}`,
      { request: res.info, status: res.status, line },
    );
  }
  return mapError(e, res.info, signal);
}
