/** The text of a thread row in the Threads view. Pure: no vscode import. */
import type { SortBy } from '../api/schemas/threads';
import { formatDuration, formatRelative, plural } from '../common/format';

interface RowFields {
  turn_count: number;
  start_time?: string | null;
  last_updated?: string | null;
  p50_turn_duration_ms?: number | null;
  p99_turn_duration_ms?: number | null;
}

/**
 * A row's description: a time, turns and a turn duration, with the value of the sort field FIRST,
 * so it survives when the sidebar cuts the row (at its default width, about 30 characters after
 * the thread id). The time is the last update unless sorting by start time (`started …`); the
 * duration is p50 unless sorting by p99. Sorting by thread id (the label) leads with the time.
 */
export function threadDescription(row: RowFields, sortField: SortBy['field'] = 'last_updated', now: number = Date.now()): string {
  const turns = plural(row.turn_count, 'turn');
  const duration = sortField === 'p99_turn_duration_ms' ? `p99 ${formatDuration(row.p99_turn_duration_ms)}` : `p50 ${formatDuration(row.p50_turn_duration_ms)}`;
  const time = sortField === 'start_time' ? `started ${formatRelative(row.start_time, now)}` : formatRelative(row.last_updated, now);
  const parts =
    sortField === 'turn_count'
      ? [turns, time, duration]
      : sortField === 'p50_turn_duration_ms' || sortField === 'p99_turn_duration_ms'
        ? [duration, time, turns]
        : [time, turns, duration];
  return parts.join(' · ');
}
