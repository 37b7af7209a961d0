import assert from 'node:assert/strict';
import type { SeedCall } from '../../server';
import { BASIC, postJson, PROJECT, queryThreads, useServer } from './helpers';

const T = (s: string) => `2026-11-01T${s}Z`;

/**
 * t1: turns A (1000 ms), B (3000 ms), C (unfinished), D (2000 ms) and a nested call X under A.
 * t2: every turn unfinished (left out). t3: one 500 ms turn. t4: only a nested call (no turns).
 * Plus a turn-shaped call with an empty thread_id, which is not a turn.
 */
const DATASET: SeedCall[] = [
  { id: 'A', thread_id: 't1', turn_id: 'A', started_at: T('10:00:00.000'), ended_at: T('10:00:01.000') },
  { id: 'X', thread_id: 't1', turn_id: 'A', parent_id: 'A', started_at: T('10:00:00.100'), ended_at: T('10:00:09.000') },
  { id: 'B', thread_id: 't1', turn_id: 'B', started_at: T('10:01:00.000'), ended_at: T('10:01:03.000') },
  { id: 'C', thread_id: 't1', turn_id: 'C', started_at: T('10:02:00.000') },
  { id: 'D', thread_id: 't1', turn_id: 'D', started_at: T('10:03:00.000'), ended_at: T('10:03:02.000') },
  { id: 'E', thread_id: 't2', turn_id: 'E', started_at: T('09:00:00.000') },
  { id: 'F', thread_id: 't3', turn_id: 'F', started_at: T('11:00:00.000'), ended_at: T('11:00:00.500') },
  { id: 'G', thread_id: 't4', turn_id: 'not-G', started_at: T('08:00:00.000'), ended_at: T('08:00:01.000') },
  { id: 'H', thread_id: '', turn_id: 'H', started_at: T('08:00:00.000'), ended_at: T('08:00:01.000') },
];

describe('reference server: POST /threads/stream_query', () => {
  const server = useServer();
  const query = (body: Record<string, unknown> = {}) => queryThreads(server(), { project_id: PROJECT, ...body });
  beforeEach(() => server().addCalls(PROJECT, DATASET));

  describe('aggregation over turn calls', () => {
    it('answers application/jsonl with one row per thread that has a finished turn', async () => {
      const res = await query();
      assert.equal(res.status, 200);
      assert.equal(res.contentType, 'application/jsonl');
      assert.deepEqual(res.rows.map((r) => r.thread_id), ['t3', 't1']);
    });

    it('computes every field of the row exactly', async () => {
      const t1 = (await query()).rows.find((r) => r.thread_id === 't1');
      assert.deepEqual(t1, {
        thread_id: 't1',
        turn_count: 4, // the unfinished turn C counts; the nested call X does not
        start_time: '2026-11-01T10:00:00.000Z',
        last_updated: '2026-11-01T10:03:02.000Z', // latest turn end; X's later end is ignored
        first_turn_id: 'A',
        last_turn_id: 'D',
        p50_turn_duration_ms: 2000,
        p99_turn_duration_ms: 2980, // 2000 + 0.98 * (3000 - 2000), numpy's linear interpolation
      });
    });

    it('gives a single-turn thread equal p50 and p99', async () => {
      const t3 = (await query()).rows.find((r) => r.thread_id === 't3');
      assert.equal(t3.p50_turn_duration_ms, 500);
      assert.equal(t3.p99_turn_duration_ms, 500);
    });

    it('interpolates p99 between the two closest ranks', async () => {
      server().addCalls(PROJECT, [
        { id: 'P', thread_id: 't5', turn_id: 'P', started_at: T('12:00:00.000'), ended_at: T('12:00:00.100') },
        { id: 'Q', thread_id: 't5', turn_id: 'Q', started_at: T('12:01:00.000'), ended_at: T('12:01:00.200') },
      ]);
      const t5 = (await query()).rows.find((r) => r.thread_id === 't5');
      assert.equal(t5.p50_turn_duration_ms, 150);
      assert.equal(t5.p99_turn_duration_ms, 199);
    });

    it('answers an empty stream for a project without calls', async () => {
      const res = await queryThreads(server(), { project_id: 'nobody/nothing' });
      assert.equal(res.status, 200);
      assert.deepEqual(res.rows, []);
    });
  });

  describe('filter', () => {
    it('compares started_at strictly with after_datetime and aggregates what is left', async () => {
      const res = await query({ filter: { after_datetime: T('10:00:00.000') } });
      const t1 = res.rows.find((r) => r.thread_id === 't1');
      assert.equal(t1.turn_count, 3);
      assert.equal(t1.first_turn_id, 'B');
      assert.equal(t1.start_time, '2026-11-01T10:01:00.000Z');
    });

    it('compares started_at strictly with before_datetime', async () => {
      const res = await query({ filter: { before_datetime: T('10:03:00.000') } });
      assert.deepEqual(res.rows.map((r) => r.thread_id), ['t1']);
      assert.equal(res.rows[0].last_turn_id, 'B');
      assert.equal(res.rows[0].turn_count, 3);
    });

    it('restricts to thread_ids', async () => {
      assert.deepEqual((await query({ filter: { thread_ids: ['t1', 't2'] } })).rows.map((r) => r.thread_id), ['t1']);
      assert.deepEqual((await query({ filter: { thread_ids: [] } })).rows, []);
    });
  });

  describe('sort, limit and offset', () => {
    beforeEach(() => {
      // Three more one-turn threads with the same last_updated, to show the thread_id tie-break.
      server().addCalls(
        PROJECT,
        ['z', 'y', 'x'].map((t) => ({ id: `${t}1`, thread_id: t, turn_id: `${t}1`, started_at: T('12:00:00.000'), ended_at: T('12:00:01.000') })),
      );
    });

    it('orders by last_updated descending, then thread_id ascending, by default', async () => {
      assert.deepEqual((await query()).rows.map((r) => r.thread_id), ['x', 'y', 'z', 't3', 't1']);
    });

    it('applies sort_by keys in order, with thread_id ascending as the last tie-break', async () => {
      const res = await query({ sort_by: [{ field: 'turn_count', direction: 'desc' }] });
      assert.deepEqual(res.rows.map((r) => r.thread_id), ['t1', 't3', 'x', 'y', 'z']);
      const byId = await query({ sort_by: [{ field: 'thread_id', direction: 'desc' }] });
      assert.deepEqual(byId.rows.map((r) => r.thread_id), ['z', 'y', 'x', 't3', 't1']);
      const byP99 = await query({ sort_by: [{ field: 'p99_turn_duration_ms', direction: 'asc' }, { field: 'start_time', direction: 'desc' }] });
      assert.deepEqual(byP99.rows.map((r) => r.thread_id), ['t3', 'x', 'y', 'z', 't1']);
    });

    it('applies offset and limit after sorting, so pages do not overlap', async () => {
      const page1 = await query({ limit: 2, offset: 0 });
      const page2 = await query({ limit: 2, offset: 2 });
      const page3 = await query({ limit: 2, offset: 4 });
      assert.deepEqual([...page1.rows, ...page2.rows, ...page3.rows].map((r) => r.thread_id), ['x', 'y', 'z', 't3', 't1']);
      assert.deepEqual((await query({ limit: 0 })).rows, []);
      assert.equal((await query({ limit: null, offset: null })).rows.length, 5);
    });
  });

  describe('validation', () => {
    const invalid: [string, Record<string, unknown>, RegExp][] = [
      ['an unsupported sort field', { sort_by: [{ field: 'op_name', direction: 'asc' }] }, /sort_by\[0\]\.field: Input should be 'thread_id'/],
      ['an unsupported direction', { sort_by: [{ field: 'thread_id', direction: 'ASC' }] }, /sort_by\[0\]\.direction: Input should be 'asc' or 'desc'/],
      ['a sort item without direction', { sort_by: [{ field: 'thread_id' }] }, /sort_by\[0\]\.direction: Field required/],
      ['a negative limit', { limit: -1 }, /limit: Input should be greater than or equal to 0/],
      ['a negative offset', { offset: -5 }, /offset: Input should be greater than or equal to 0/],
      ['a fractional limit', { limit: 1.5 }, /limit: Input should be a valid integer/],
      ['a string limit', { limit: '10' }, /limit: Input should be a valid integer/],
      ['a bad after_datetime', { filter: { after_datetime: 'last week' } }, /filter\.after_datetime: Input should be a valid datetime/],
      ['thread_ids that are not strings', { filter: { thread_ids: [1] } }, /filter\.thread_ids\[0\]: Input should be a valid string/],
      ['an unknown filter field', { filter: { op_name: 'x' } }, /filter\.op_name: Extra inputs are not permitted/],
      ['a null filter', { filter: null }, /filter: Input should be a valid dictionary/],
      ['an unknown top-level field', { columns: [] }, /columns: Extra inputs are not permitted/],
      ['a bad project_id', { project_id: 'no-slash' }, /project_id: must have the form/],
    ];
    for (const [what, patch, reason] of invalid) {
      it(`answers 400 {reason} for ${what}`, async () => {
        const res = await query(patch);
        assert.equal(res.status, 400);
        assert.match(res.rows[0].reason, reason);
      });
    }

    it('answers 400 when project_id is missing', async () => {
      const res = await postJson(server(), '/threads/stream_query', {}, BASIC);
      assert.equal(res.status, 400);
      assert.match(res.body.reason, /project_id: Field required/);
    });
  });
});

describe('reference server: streaming a large thread list', () => {
  const server = useServer();

  it('streams 100 000 rows progressively, waiting for the client (backpressure)', async function () {
    this.timeout(20_000);
    server().seedThreads('big/project', 100_000);
    const res = await fetch(`${server().url}/threads/stream_query`, {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: 'big/project' }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    // The first rows are here while the server is still waiting for the client to read on.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(server().stats.last('/threads')!.completed, false);
    let text = decoder.decode(first.value, { stream: true });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const lines = text.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 100_000);
    assert.equal(JSON.parse(lines[0]!).thread_id, 'thread-99999');
    assert.equal(JSON.parse(lines[99_999]!).thread_id, 'thread-00000');
    assert.equal(server().stats.last('/threads')!.completed, true);
  });
});
