import { z } from 'zod';
import { DateTimeInput, DateTimeOutput, ProjectId } from './common';

/** The six sortable fields of spec 2.3. */
export const THREAD_SORT_FIELDS = [
  'thread_id',
  'turn_count',
  'start_time',
  'last_updated',
  'p50_turn_duration_ms',
  'p99_turn_duration_ms',
] as const;
export const ThreadSortField = z.enum(THREAD_SORT_FIELDS);
export type ThreadSortField = z.infer<typeof ThreadSortField>;
export const SortDirection = z.enum(['asc', 'desc']);
export type SortDirection = z.infer<typeof SortDirection>;

export const SortBy = z.strictObject({ field: ThreadSortField, direction: SortDirection });
export type SortBy = z.infer<typeof SortBy>;

export const ThreadsQueryFilter = z.strictObject({
  after_datetime: DateTimeInput.optional(),
  before_datetime: DateTimeInput.optional(),
  thread_ids: z.array(z.string()).optional(),
});
export type ThreadsQueryFilter = z.infer<typeof ThreadsQueryFilter>;

/** Request of POST /threads/stream_query. */
export const ThreadsQueryRequest = z.strictObject({
  project_id: ProjectId,
  filter: ThreadsQueryFilter.optional(),
  limit: z.number().int().min(0).nullable().optional(),
  offset: z.number().int().min(0).nullable().optional(),
  sort_by: z.array(SortBy).nullable().optional(),
});
export type ThreadsQueryRequest = z.infer<typeof ThreadsQueryRequest>;

const nullableNumber = z.number().nullable().optional();

/** One row of the threads stream (fields from the behaviour note); unknown fields are kept. */
export const ThreadRow = z.looseObject({
  thread_id: z.string(),
  turn_count: z.number().int(),
  start_time: DateTimeOutput,
  last_updated: DateTimeOutput,
  first_turn_id: z.string().nullable().optional(),
  last_turn_id: z.string().nullable().optional(),
  // Some backends send -1 for "not computed".
  p50_turn_duration_ms: nullableNumber,
  p99_turn_duration_ms: nullableNumber,
});
export type ThreadRow = z.infer<typeof ThreadRow>;
