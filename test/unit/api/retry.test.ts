import assert from 'node:assert/strict';
import { backoffDelay, parseRetryAfter, sleep, DEFAULT_RETRY } from '../../../src/api/retry';
import { CancelledError } from '../../../src/api/errors';

describe('api/retry', () => {
  describe('backoffDelay', () => {
    it('draws uniformly below an exponentially growing ceiling (full jitter)', () => {
      const opts = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 30_000 };
      assert.equal(backoffDelay(1, opts, undefined, () => 0.999999), 499);
      assert.equal(backoffDelay(2, opts, undefined, () => 0.999999), 999);
      assert.equal(backoffDelay(3, opts, undefined, () => 0.999999), 1999);
      assert.equal(backoffDelay(3, opts, undefined, () => 0), 0);
    });

    it('never exceeds maxDelayMs', () => {
      const opts = { maxAttempts: 20, baseDelayMs: 500, maxDelayMs: 3000 };
      for (let attempt = 1; attempt < 20; attempt++) {
        assert.ok(backoffDelay(attempt, opts, undefined, () => 0.9999) < 3000);
      }
    });

    it('waits at least as long as Retry-After asks, capped at maxDelayMs', () => {
      assert.equal(backoffDelay(1, DEFAULT_RETRY, 2000, () => 0), 2000);
      assert.equal(backoffDelay(1, { ...DEFAULT_RETRY, maxDelayMs: 1500 }, 2000, () => 0), 1500);
    });
  });

  describe('parseRetryAfter', () => {
    it('reads delta seconds', () => {
      assert.equal(parseRetryAfter('3'), 3000);
      assert.equal(parseRetryAfter(' 0 '), 0);
      assert.equal(parseRetryAfter('1.5'), 1500);
    });
    it('reads an HTTP date relative to now', () => {
      const now = Date.parse('2026-11-21T12:00:00Z');
      assert.equal(parseRetryAfter('Sat, 21 Nov 2026 12:00:05 GMT', now), 5000);
      assert.equal(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now), 0);
    });
    it('ignores garbage and absence', () => {
      assert.equal(parseRetryAfter(undefined), undefined);
      assert.equal(parseRetryAfter('soon'), undefined);
    });
  });

  describe('sleep', () => {
    it('rejects with CancelledError as soon as the signal aborts', async () => {
      const ac = new AbortController();
      const t0 = Date.now();
      setTimeout(() => ac.abort(), 20);
      await assert.rejects(sleep(10_000, ac.signal), CancelledError);
      assert.ok(Date.now() - t0 < 5000);
    });
    it('rejects at once when already aborted', async () => {
      await assert.rejects(sleep(10, AbortSignal.abort()), CancelledError);
    });
  });
});
