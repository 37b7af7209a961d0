/**
 * The messages between the extension and the Compare Runs webview, checked on arrival at both
 * ends (zod/mini, as the dashboard's protocol). Pure: shared by both sides.
 */
import * as z from 'zod/mini';
import { dictOf } from '../../common/dictSchema';
import { ColumnsMessage, SyncStatus } from './protocol';

export const MAX_RUNS = 8;
const Run = z.int().check(z.minimum(0), z.maximum(MAX_RUNS - 1));

/**
 * What the webview keeps across a window reload (setState), for the panel serializer to open the
 * same runs again: each a model id, or a history.jsonl's path on this machine.
 */
export const CompareState = z.object({
  runs: z.array(z.union([z.object({ modelId: z.string().check(z.minLength(1)) }), z.object({ file: z.string().check(z.minLength(1)) })])).check(z.minLength(2), z.maxLength(MAX_RUNS)),
});
export type CompareState = z.infer<typeof CompareState>;

export const ToCompare = z.discriminatedUnion('type', [
  /**
   * The runs, in legend order: a label for each (a model id, or a history file's run name); `state`
   * is what the webview keeps for a window reload.
   */
  z.object({ type: z.literal('init'), runs: z.array(z.object({ label: z.string(), kind: z.enum(['model', 'file']) })).check(z.minLength(2), z.maxLength(MAX_RUNS)), state: CompareState }),
  /** Rows of one run to merge; `done`: nothing more is on its way right now. */
  z.object({ type: z.literal('data'), run: Run, columns: ColumnsMessage, done: z.boolean() }),
  z.object({ type: z.literal('status'), run: Run, status: SyncStatus }),
  /** One run's data is gone (reloaded): wait for its data messages. */
  z.object({ type: z.literal('reset'), run: Run }),
]);
export type ToCompare = z.infer<typeof ToCompare>;

const Point = z.optional(z.object({ step: z.number(), value: z.number() }));

export const FromCompare = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('refresh') }),
  /** After drawing: rows per run, the charts shown, and the best/latest table as drawn. */
  z.object({
    type: z.literal('rendered'),
    counts: z.array(z.int()),
    charts: z.int(),
    /** Per chart: the number of runs with a line on it. */
    lines: dictOf(z.int(), 'line counts'),
    /** Per chart: its x axis (steps) as drawn, [min, max]: one range for every chart of a comparison. */
    xRanges: z.optional(dictOf(z.array(z.number()), 'step ranges')),
    /** Per chart: its y axis as drawn, [min, max]. */
    yRanges: z.optional(dictOf(z.array(z.number()), 'axis ranges')),
    table: z.array(z.object({ metric: z.string(), direction: z.enum(['max', 'min']), runs: z.array(z.object({ best: Point, latest: Point })) })),
  }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type FromCompare = z.infer<typeof FromCompare>;
