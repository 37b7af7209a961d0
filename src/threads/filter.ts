/** Thread filters: presets, custom ranges and id lists. Pure: no vscode import. */
import { DATE_TIME_HELP, isCalendarDateTime, isZonedDateTime, THREAD_SORT_FIELDS, type ThreadsQueryFilter, type SortBy } from '../api';
import { formatLocalDateTime, plural } from '../common/format';

export type ThreadFilter =
  | { kind: 'relative'; preset: RelativePreset }
  /** Bounds as instants for the query (see parseDateBound). */
  | { kind: 'range'; after?: string; before?: string }
  | { kind: 'ids'; threadIds: string[] };

export const RELATIVE_PRESETS = {
  hour: { label: 'Last hour', ms: 3_600_000 },
  day: { label: 'Last 24 hours', ms: 86_400_000 },
  week: { label: 'Last 7 days', ms: 7 * 86_400_000 },
  month: { label: 'Last 30 days', ms: 30 * 86_400_000 },
} as const;
export type RelativePreset = keyof typeof RELATIVE_PRESETS;

/** The query filter for a thread filter, with relative presets computed against `now`. */
export function toQueryFilter(filter: ThreadFilter | undefined, now: number = Date.now()): ThreadsQueryFilter | undefined {
  if (!filter) return undefined;
  switch (filter.kind) {
    case 'relative':
      return { after_datetime: new Date(now - RELATIVE_PRESETS[filter.preset].ms).toISOString() };
    case 'range':
      return {
        ...(filter.after ? { after_datetime: filter.after } : {}),
        ...(filter.before ? { before_datetime: filter.before } : {}),
      };
    case 'ids':
      return { thread_ids: filter.threadIds };
  }
}

/** A short description of a filter for the view's description. */
export function describeFilter(filter: ThreadFilter | undefined): string {
  if (!filter) return '';
  switch (filter.kind) {
    case 'relative':
      return RELATIVE_PRESETS[filter.preset].label.toLowerCase();
    case 'range': {
      const local = (iso: string) => formatLocalDateTime(iso, { dateOnlyAtMidnight: true });
      if (filter.after && filter.before) return `${local(filter.after)} – ${local(filter.before)}`;
      return filter.after ? `after ${local(filter.after)}` : `before ${local(filter.before!)}`;
    }
    case 'ids':
      return filter.threadIds.length === 1 ? `thread ${filter.threadIds[0]}` : plural(filter.threadIds.length, 'thread id');
  }
}

const SORT_LABELS: Record<SortBy['field'], string> = {
  thread_id: 'thread id',
  turn_count: 'turns',
  start_time: 'start',
  last_updated: 'last update',
  p50_turn_duration_ms: 'p50 duration',
  p99_turn_duration_ms: 'p99 duration',
};

export function describeSort(sort: SortBy): string {
  return `${SORT_LABELS[sort.field]} ${sort.direction === 'asc' ? '↑' : '↓'}`;
}

export function sortLabel(field: SortBy['field']): string {
  return SORT_LABELS[field];
}

export const DATE_BOUND_HELP = 'Use a date (2026-11-15, from local midnight), a local date-time (2026-11-15 09:30) or a date-time with a zone (2026-11-15T09:30:00Z)';

const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?$/;

export type DateBound = { ok: true; iso: string } | { ok: false; reason: string };

/**
 * A bound of the date filter, as the instant the query sends:
 * - a plain date `2026-11-15` is local midnight;
 * - a date-time without a zone (`2026-11-15 09:30`, `2026-11-15T09:30:15`) is local time;
 * - a date-time with a zone (`…Z`, `…+02:00`) is sent as written, so it passes the check every
 *   request date-time passes (isZonedDateTime): a real date, seconds, a zone.
 */
export function parseDateBound(value: string): DateBound {
  const v = value.trim();
  const fail: DateBound = { ok: false, reason: DATE_BOUND_HELP };
  if (/(Z|[+-]\d{2}:\d{2})$/i.test(v) && /T/i.test(v)) return isZonedDateTime(v) ? { ok: true, iso: v } : fail;
  const plain = PLAIN_DATE.exec(v);
  const local = plain ?? LOCAL_DATE_TIME.exec(v);
  if (!local) return fail;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(local[i] ?? 0)) as [number, number, number, number, number, number];
  if (!isCalendarDateTime(y, mo, d, h, mi, s)) return fail;
  const ms = local[7] ? Math.floor(Number(`0.${local[7]}`) * 1000) : 0;
  // setFullYear, not the constructor: it would read years 0-99 as 1900-1999.
  const t = new Date(2000, 0, 1);
  t.setFullYear(y, mo - 1, d);
  t.setHours(h, mi, s, ms);
  return { ok: true, iso: t.toISOString() };
}

/** Checks an ISO date-time with a zone (a stored bound); returns a message for users, or undefined. */
export function checkDateTime(value: string): string | undefined {
  return isZonedDateTime(value.trim()) ? undefined : `Use ${DATE_TIME_HELP}`;
}

/** For input boxes: a message when the text is not a date bound, else undefined. */
export function checkDateBound(value: string): string | undefined {
  const r = parseDateBound(value);
  return r.ok ? undefined : r.reason;
}

/** Parses a free-text list of thread ids (commas, spaces or new lines). */
export function parseThreadIds(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean))];
}

export const DEFAULT_SORT: SortBy = { field: 'last_updated', direction: 'desc' };

/** A sort read back from workspaceState: anything unknown gives the default. */
export function parseStoredSort(value: unknown): SortBy {
  const v = (value && typeof value === 'object' ? value : {}) as { field?: unknown; direction?: unknown };
  const field = (THREAD_SORT_FIELDS as readonly unknown[]).includes(v.field) ? (v.field as SortBy['field']) : DEFAULT_SORT.field;
  return { field, direction: v.direction === 'asc' ? 'asc' : 'desc' };
}

/** A filter read back from workspaceState; undefined for none or anything malformed. */
export function parseStoredFilter(value: unknown): ThreadFilter | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const v = value as Record<string, unknown>;
  const iso = (x: unknown) => (typeof x === 'string' && checkDateTime(x) === undefined ? x : undefined);
  switch (v.kind) {
    case 'relative':
      return typeof v.preset === 'string' && v.preset in RELATIVE_PRESETS ? { kind: 'relative', preset: v.preset as RelativePreset } : undefined;
    case 'range': {
      const after = iso(v.after);
      const before = iso(v.before);
      return after || before ? { kind: 'range', ...(after ? { after } : {}), ...(before ? { before } : {}) } : undefined;
    }
    case 'ids': {
      const ids = Array.isArray(v.threadIds) ? v.threadIds.filter((x): x is string => typeof x === 'string' && x !== '') : [];
      return ids.length ? { kind: 'ids', threadIds: ids } : undefined;
    }
    default:
      return undefined;
  }
}
