/** Retry policy: exponential backoff with full jitter, honouring `Retry-After`. */

import { CancelledError } from './errors';

export interface RetryOptions {
  /** Total attempts including the first. Default 4. */
  maxAttempts: number;
  /** Backoff base. Default 500 ms. */
  baseDelayMs: number;
  /** Cap of any single wait, including one asked for by `Retry-After`. Default 30 000 ms. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * The wait before retry number `attempt` (1 = first retry): a uniform draw from
 * [0, min(maxDelay, base * 2^(attempt-1))], raised to the server's `Retry-After` when it gave one.
 */
export function backoffDelay(
  attempt: number,
  options: RetryOptions,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.floor(random() * ceiling);
  if (retryAfterMs === undefined) return jittered;
  return Math.min(options.maxDelayMs, Math.max(retryAfterMs, jittered));
}

/** Parses a `Retry-After` header: delta seconds or an HTTP date. Returns milliseconds, or undefined. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Waits `ms`, or rejects with CancelledError as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(new CancelledError());
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
