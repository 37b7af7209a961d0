import { z } from 'zod';
import { DateTimeInput, JsonObject, ProjectId } from './common';

/** The start record of a call (spec 2.2; required fields from the behaviour note). */
export const CallStart = z.strictObject({
  project_id: ProjectId,
  op_name: z.string().min(1),
  started_at: DateTimeInput,
  attributes: JsonObject,
  inputs: JsonObject,
  // Filled with UUIDs by the client when absent: some servers require both.
  id: z.string().min(1).optional(),
  trace_id: z.string().min(1).optional(),
  display_name: z.string().optional(),
  parent_id: z.string().optional(),
  thread_id: z.string().optional(),
  turn_id: z.string().optional(),
  otel_dump: JsonObject.optional(),
  svc_user_id: z.string().optional(),
  svc_run_id: z.string().optional(),
  svc_run_step: z.number().int().optional(),
});
export type CallStart = z.infer<typeof CallStart>;

/** The end record of a call (not in the spec; from the behaviour note). */
export const CallEnd = z.strictObject({
  project_id: ProjectId,
  id: z.string().min(1),
  ended_at: DateTimeInput,
  summary: JsonObject,
  exception: z.string().optional(),
  output: z.unknown().optional(),
  svc_run_step_end: z.number().int().optional(),
});
export type CallEnd = z.infer<typeof CallEnd>;

export const CallBatchStartItem = z.strictObject({
  mode: z.literal('start'),
  req: z.strictObject({ start: CallStart }),
});
export const CallBatchEndItem = z.strictObject({
  mode: z.literal('end'),
  req: z.strictObject({ end: CallEnd }),
});
/** One item of POST /call/upsert_batch. */
export const CallBatchItem = z.discriminatedUnion('mode', [CallBatchStartItem, CallBatchEndItem]);
export type CallBatchItem = z.infer<typeof CallBatchItem>;

/** CallStartRes: id and trace_id of the started call. */
export const CallStartRes = z.looseObject({ id: z.string(), trace_id: z.string() });
export type CallStartRes = z.infer<typeof CallStartRes>;
/** CallEndRes: shape not shown by the spec; `{}` in practice. */
export const CallEndRes = z.looseObject({});
export type CallEndRes = z.infer<typeof CallEndRes>;

export const UpsertBatchResponse = z.looseObject({ res: z.array(z.union([CallStartRes, CallEndRes])) });
