import { invalidRequest } from './errors';
import type { CallRecord } from './store';
import { Checker, usToIso } from './validate';

// POST /threads/stream_query: thread statistics aggregated from turn calls only, exactly as the
// behaviour note describes production (turn detection, strict started_at filter, quantiles).

export const SORT_FIELDS = [
  'thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms',
] as const;
export type SortField = (typeof SORT_FIELDS)[number];
export type SortDirection = 'asc' | 'desc';

export interface ThreadsQuery {
  project_id: string;
  afterUs?: number;
  beforeUs?: number;
  threadIds?: ReadonlySet<string>;
  limit: number | null;
  offset: number | null;
  sortBy: { field: SortField; direction: SortDirection }[];
}

export interface ThreadRow {
  thread_id: string;
  turn_count: number;
  start_time: string;
  last_updated: string;
  first_turn_id: string;
  last_turn_id: string;
  p50_turn_duration_ms: number;
  p99_turn_duration_ms: number;
}

/** A thread's aggregate with numeric times, sorted before being turned into rows. */
interface ThreadAgg {
  threadId: string;
  turnCount: number;
  startUs: number;
  firstTurnId: string;
  lastUpdatedUs: number;
  lastTurnId: string;
  p50: number;
  p99: number;
}

export function validateThreadsQuery(body: unknown): ThreadsQuery {
  const c = new Checker();
  const o = c.object(body, []);
  if (!o) throw invalidRequest(c.issues);
  c.noExtraKeys(o, [], ['project_id', 'filter', 'limit', 'offset', 'sort_by']);
  const projectId = c.required(o, 'project_id', [], (v, p) => c.projectId(v, p));
  const nonNegative = (v: unknown, p: readonly (string | number)[]) => {
    const n = c.integer(v, p);
    return n === undefined || n >= 0 ? n : c.fail(p, 'greater_than_equal', 'Input should be greater than or equal to 0');
  };
  const limit = c.optional(o, 'limit', [], nonNegative, true) ?? null;
  const offset = c.optional(o, 'offset', [], nonNegative, true) ?? null;

  const query: ThreadsQuery = { project_id: projectId ?? '', limit, offset, sortBy: [] };
  // `filter` and its fields are not nullable in the spec (unlike limit/offset/sort_by).
  const filter = c.optional(o, 'filter', [], (v, p) => c.object(v, p));
  if (filter) {
    const path = ['filter'];
    c.noExtraKeys(filter, path, ['after_datetime', 'before_datetime', 'thread_ids']);
    query.afterUs = c.optional(filter, 'after_datetime', path, (v, p) => c.dateTime(v, p)) ?? undefined;
    query.beforeUs = c.optional(filter, 'before_datetime', path, (v, p) => c.dateTime(v, p)) ?? undefined;
    const ids = c.optional(filter, 'thread_ids', path, (v, p) => c.list(v, p));
    if (ids) {
      ids.forEach((id, i) => c.string(id, [...path, 'thread_ids', i]));
      query.threadIds = new Set(ids as string[]);
    }
  }
  const sortBy = c.optional(o, 'sort_by', [], (v, p) => c.list(v, p), true);
  sortBy?.forEach((raw, i) => {
    const path = ['sort_by', i];
    const item = c.object(raw, path);
    if (!item) return;
    c.noExtraKeys(item, path, ['field', 'direction']);
    const field = c.required(item, 'field', path, (v, p) => c.literal(v, p, SORT_FIELDS));
    const direction = c.required(item, 'direction', path, (v, p) => c.literal(v, p, ['asc', 'desc'] as const));
    if (field && direction) query.sortBy.push({ field, direction });
  });
  if (!c.ok) throw invalidRequest(c.issues);
  return query;
}

/** Aggregates, sorts and pages; the rows are produced lazily so they can be streamed. */
export function* queryThreads(calls: Iterable<CallRecord>, q: ThreadsQuery): Generator<ThreadRow> {
  const threads = aggregate(calls, q);
  threads.sort(comparator(q.sortBy));
  const from = q.offset ?? 0;
  const to = q.limit === null ? threads.length : Math.min(threads.length, from + q.limit);
  for (let i = from; i < to; i++) yield toRow(threads[i]!);
}

interface Acc {
  turnCount: number;
  startUs: number;
  firstTurnId: string;
  lastUpdatedUs: number;
  lastTurnId: string;
  durationsMs: number[];
}

function aggregate(calls: Iterable<CallRecord>, q: ThreadsQuery): ThreadAgg[] {
  const byThread = new Map<string, Acc>();
  for (const call of calls) {
    // Filters select calls (by started_at, strictly), then threads are built from what is left.
    const started = call.startedUs;
    if (started === undefined) continue; // an end whose start has not arrived yet
    if (q.afterUs !== undefined && !(started > q.afterUs)) continue;
    if (q.beforeUs !== undefined && !(started < q.beforeUs)) continue;
    const threadId = call.thread_id;
    if (!threadId || call.id !== call.turn_id) continue; // only turn calls count
    if (q.threadIds && !q.threadIds.has(threadId)) continue;

    let acc = byThread.get(threadId);
    if (!acc) {
      acc = { turnCount: 0, startUs: Infinity, firstTurnId: '', lastUpdatedUs: -Infinity, lastTurnId: '', durationsMs: [] };
      byThread.set(threadId, acc);
    }
    acc.turnCount += 1;
    // Ties go to the smaller id, so the result does not depend on insertion order.
    if (started < acc.startUs || (started === acc.startUs && call.id < acc.firstTurnId)) {
      acc.startUs = started;
      acc.firstTurnId = call.id;
    }
    const ended = call.endedUs;
    if (ended !== undefined) {
      acc.durationsMs.push((ended - started) / 1000);
      if (ended > acc.lastUpdatedUs || (ended === acc.lastUpdatedUs && call.id < acc.lastTurnId)) {
        acc.lastUpdatedUs = ended;
        acc.lastTurnId = call.id;
      }
    }
  }

  const out: ThreadAgg[] = [];
  for (const [threadId, acc] of byThread) {
    if (acc.durationsMs.length === 0) continue; // every turn unfinished: left out
    const sorted = acc.durationsMs.sort((a, b) => a - b);
    out.push({
      threadId,
      turnCount: acc.turnCount,
      startUs: acc.startUs,
      firstTurnId: acc.firstTurnId,
      lastUpdatedUs: acc.lastUpdatedUs,
      lastTurnId: acc.lastTurnId,
      p50: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
    });
  }
  return out;
}

/** numpy's default quantile: linear interpolation between the closest ranks of sorted data. */
export function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

const KEY_OF: Record<SortField, (t: ThreadAgg) => number | string> = {
  thread_id: (t) => t.threadId,
  turn_count: (t) => t.turnCount,
  start_time: (t) => t.startUs,
  last_updated: (t) => t.lastUpdatedUs,
  p50_turn_duration_ms: (t) => t.p50,
  p99_turn_duration_ms: (t) => t.p99,
};

/** The requested keys (default last_updated desc), then thread_id asc so pages are stable. */
function comparator(sortBy: ThreadsQuery['sortBy']): (a: ThreadAgg, b: ThreadAgg) => number {
  const keys = sortBy.length > 0 ? sortBy : [{ field: 'last_updated' as const, direction: 'desc' as const }];
  const all = [...keys, { field: 'thread_id' as const, direction: 'asc' as const }];
  return (a, b) => {
    for (const { field, direction } of all) {
      const ka = KEY_OF[field](a);
      const kb = KEY_OF[field](b);
      if (ka !== kb) return (ka < kb ? -1 : 1) * (direction === 'asc' ? 1 : -1);
    }
    return 0;
  };
}

function toRow(t: ThreadAgg): ThreadRow {
  return {
    thread_id: t.threadId,
    turn_count: t.turnCount,
    start_time: usToIso(t.startUs),
    last_updated: usToIso(t.lastUpdatedUs),
    first_turn_id: t.firstTurnId,
    last_turn_id: t.lastTurnId,
    p50_turn_duration_ms: t.p50,
    p99_turn_duration_ms: t.p99,
  };
}
