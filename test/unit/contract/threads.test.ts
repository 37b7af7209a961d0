import assert from 'node:assert/strict';
import { CancelledError, NetworkError, ProtocolError, ValidationError, type ThreadRow } from '../../../src/api';
import { collect, harness, PROJECT, type Harness } from './helpers';

describe('contract: threads.query', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('aggregates turn calls only, skipping nested calls and all-unfinished threads', async () => {
    h = await harness();
    h.server.addCalls(PROJECT, [
      // Thread A: two finished turns (1 s and 3 s) and a nested call that must not count.
      { id: 'a1', turn_id: 'a1', thread_id: 'A', started_at: '2026-11-20T10:00:00.000Z', ended_at: '2026-11-20T10:00:01.000Z' },
      { id: 'a1-child', turn_id: 'a1', thread_id: 'A', parent_id: 'a1', started_at: '2026-11-20T10:00:00.100Z', ended_at: '2026-11-20T10:00:09.000Z' },
      { id: 'a2', turn_id: 'a2', thread_id: 'A', started_at: '2026-11-20T10:01:00.000Z', ended_at: '2026-11-20T10:01:03.000Z' },
      // Thread B: one finished turn and one unfinished (counted in turn_count).
      { id: 'b1', turn_id: 'b1', thread_id: 'B', started_at: '2026-11-20T11:00:00.000Z', ended_at: '2026-11-20T11:00:00.500Z' },
      { id: 'b2', turn_id: 'b2', thread_id: 'B', started_at: '2026-11-20T11:05:00.000Z' },
      // Thread C: only unfinished turns: left out.
      { id: 'c1', turn_id: 'c1', thread_id: 'C', started_at: '2026-11-20T12:00:00.000Z' },
    ]);
    const rows = await collect(h.client.threads.query({ project_id: PROJECT }));
    assert.deepEqual(rows.map((r) => r.thread_id), ['B', 'A'], 'default order: last_updated desc');
    const a = rows.find((r) => r.thread_id === 'A')!;
    assert.equal(a.turn_count, 2);
    assert.equal(a.first_turn_id, 'a1');
    assert.equal(a.last_turn_id, 'a2');
    assert.equal(a.p50_turn_duration_ms, 2000);
    assert.equal(a.p99_turn_duration_ms, 2980);
    const b = rows.find((r) => r.thread_id === 'B')!;
    assert.equal(b.turn_count, 2);
    assert.equal(b.p50_turn_duration_ms, 500);
  });

  it('passes sort, limit, offset and filters to the service', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 30, { start: '2026-11-01T00:00:00Z', spacingMs: 60_000 });
    const sorted = await collect(h.client.threads.query({ project_id: PROJECT, sort_by: [{ field: 'thread_id', direction: 'asc' }], limit: 5, offset: 10 }));
    assert.deepEqual(sorted.map((r) => r.thread_id), ['thread-10', 'thread-11', 'thread-12', 'thread-13', 'thread-14']);
    const filtered = await collect(h.client.threads.query({ project_id: PROJECT, filter: { after_datetime: '2026-11-01T00:25:00Z' } }));
    assert.deepEqual(filtered.map((r) => r.thread_id).sort(), ['thread-26', 'thread-27', 'thread-28', 'thread-29']);
    const byId = await collect(h.client.threads.query({ project_id: PROJECT, filter: { thread_ids: ['thread-03'] } }));
    assert.deepEqual(byId.map((r) => r.thread_id), ['thread-03']);
  });

  it('refuses an unsupported sort field before sending', async () => {
    h = await harness();
    assert.throws(() => h.client.threads.query({ project_id: PROJECT, sort_by: [{ field: 'cost' as never, direction: 'asc' }] }), ValidationError);
    assert.equal(h.server.stats.count(), 0);
  });

  it('yields the first of 100 000 rows before the body ends', async function () {
    this.timeout(60_000);
    h = await harness();
    h.server.seedThreads(PROJECT, 100_000);
    let first: ThreadRow | undefined;
    let completedAtFirstRow: boolean | undefined;
    let count = 0;
    const ids = new Set<string>();
    for await (const row of h.client.threads.query({ project_id: PROJECT })) {
      if (!first) {
        first = row;
        completedAtFirstRow = h.server.stats.last('/threads/stream_query')!.completed;
      }
      ids.add(row.thread_id);
      count++;
    }
    assert.equal(first!.thread_id, 'thread-99999');
    assert.equal(completedAtFirstRow, false, 'the response was still streaming when the first row arrived');
    assert.equal(count, 100_000);
    assert.equal(ids.size, 100_000);
  });

  it('resumes a stream reset mid-way from the next row: nothing lost, nothing repeated', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 500);
    h.server.faults.add({ path: '/threads/stream_query', kind: 'reset-mid-stream', afterRows: 123 });
    const rows = await collect(h.client.threads.query({ project_id: PROJECT }));
    assert.equal(rows.length, 500);
    assert.equal(new Set(rows.map((r) => r.thread_id)).size, 500);
    assert.equal(h.server.stats.count('/threads/stream_query'), 2);
  });

  it('retries a 503 before the stream starts', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 10);
    h.server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 503, retryAfter: '0', times: 2 });
    const rows = await collect(h.client.threads.query({ project_id: PROJECT }));
    assert.equal(rows.length, 10);
    assert.equal(h.server.stats.count('/threads/stream_query'), 3);
  });

  it('names the line of a malformed row', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 20);
    h.server.faults.add({ path: '/threads/stream_query', kind: 'malformed-line', atRow: 7 });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const r of h.client.threads.query({ project_id: PROJECT })) seen.push(r.thread_id);
      })(),
      (e: unknown) => {
        assert.ok(e instanceof ProtocolError);
        assert.equal(e.line, 8);
        assert.match(e.message, /line 8/);
        return true;
      },
    );
    assert.equal(seen.length, 7, 'rows before the bad line were delivered');
  });

  it('names the line of a truncated stream', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 20);
    h.server.faults.add({ path: '/threads/stream_query', kind: 'truncate-jsonl', afterRows: 5 });
    await assert.rejects(collect(h.client.threads.query({ project_id: PROJECT })), (e: unknown) => e instanceof ProtocolError && e.line === 6);
  });

  it('refuses a line longer than the cap', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 5);
    await assert.rejects(collect(h.client.threads.query({ project_id: PROJECT }, { maxLineBytes: 50 })), (e: unknown) => {
      assert.ok(e instanceof ProtocolError);
      assert.match(e.message, /longer than the limit of 50 bytes/);
      return true;
    });
  });

  it('cancels mid-stream and closes the connection', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 50_000);
    const ac = new AbortController();
    let n = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of h.client.threads.query({ project_id: PROJECT }, { signal: ac.signal })) {
          if (++n === 10) ac.abort();
        }
      })(),
      CancelledError,
    );
    assert.equal(n, 10);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(h.server.stats.last('/threads/stream_query')!.completed, false);
  });

  it('times out a stalled stream with a NetworkError when no retry is left', async () => {
    h = await harness({}, { timeoutMs: 300, retry: { maxAttempts: 1 } });
    h.server.seedThreads(PROJECT, 5);
    h.server.faults.add({ path: '/threads/stream_query', kind: 'stall', afterBytes: 10 });
    await assert.rejects(collect(h.client.threads.query({ project_id: PROJECT })), (e: unknown) => e instanceof NetworkError && e.timeout);
  });

  it('resumes a stalled stream after the timeout, delivering every row once', async () => {
    h = await harness({}, { timeoutMs: 300 });
    h.server.seedThreads(PROJECT, 5);
    h.server.faults.add({ path: '/threads/stream_query', kind: 'stall', afterBytes: 10 });
    const rows = await collect(h.client.threads.query({ project_id: PROJECT }));
    assert.equal(rows.length, 5);
    assert.equal(h.server.stats.count('/threads/stream_query'), 2);
  });
});
