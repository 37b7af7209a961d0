/** Thread filters: presets, custom ranges and id lists. Pure: no vscode import. */
import { THREAD_SORT_FIELDS, type ThreadsQueryFilter, type SortBy } from '../api';

export type ThreadFilter =
  | { kind: 'relative'; preset: RelativePreset }
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
    case 'range':
      if (filter.after && filter.before) return `${filter.after} – ${filter.before}`;
      return filter.after ? `after ${filter.after}` : `before ${filter.before}`;
    case 'ids':
      return filter.threadIds.length === 1 ? `thread ${filter.threadIds[0]}` : `${filter.threadIds.length} thread ids`;
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

/** Checks an ISO date-time with a zone; returns a message for users, or undefined. */
export function checkDateTime(value: string): string | undefined {
  const v = value.trim();
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v) || Number.isNaN(Date.parse(v))) {
    return 'Use an ISO 8601 date-time with a zone, e.g. 2026-11-20T09:00:00Z';
  }
  return undefined;
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
