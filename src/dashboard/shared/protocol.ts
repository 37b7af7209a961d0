/**
 * The messages between the extension and the dashboard webview, checked on arrival at both ends.
 * zod/mini keeps the webview bundle small (about 18 KB here against several hundred for the
 * full zod API). Pure: shared by both sides.
 */
import * as z from 'zod/mini';
import { dictOf } from '../../common/dictSchema';
import { StepDistribution } from './distribution';

// Columns carry up to hundreds of thousands of values: one plain loop per array checks them
// (a schema per element costs tens of milliseconds at 10,000 × 30). The extension sends them as
// Float64Arrays (NaN where missing: see WireColumns); plain arrays (null where missing) are accepted too.
const arrayOf = <T>(what: string, ok: (v: unknown) => boolean) =>
  z.custom<T[]>((v) => Array.isArray(v) && v.every(ok), { message: `expected an array of ${what}` });
const isFloat64Array = (v: unknown): v is Float64Array => ArrayBuffer.isView(v) && Object.prototype.toString.call(v) === '[object Float64Array]';
/** Every element passes `ok`, in a plain array or a Float64Array. */
const numbers = <T>(what: string, plainOk: (v: unknown) => boolean, floatOk: (v: number) => boolean) =>
  z.custom<T>((v) => (isFloat64Array(v) ? v.every(floatOk) : Array.isArray(v) && v.every(plainOk)), { message: `expected an array or a Float64Array of ${what}` });
// `x - x === 0` is Number.isFinite for a number; `x !== x` is NaN (missing, in a Float64Array).
const Values = numbers<Float64Array | (number | null)[]>('numbers (null or NaN where missing)', (x) => x === null || (typeof x === 'number' && x - x === 0), (x) => x - x === 0 || x !== x);
const Steps = numbers<Float64Array | number[]>('integers', (x) => Number.isSafeInteger(x), (x) => Number.isSafeInteger(x));

/** Appended checkpoints as columns; every column has one value per id. */
export const ColumnsMessage = z.object({
  ids: arrayOf<string>('strings', (x) => typeof x === 'string'),
  steps: Steps,
  metrics: dictOf(Values, 'columns'),
}).check(
  z.refine((c) => c.steps.length === c.ids.length && Object.values(c.metrics).every((v) => v.length === c.ids.length), {
    message: 'every column must have one value per checkpoint',
  }),
);

export const Direction = z.enum(['max', 'min']);

/** The metric and direction that pick the best checkpoint; no metric: none chosen yet. */
export const BestChoice = z.object({
  metric: z.optional(z.string()),
  direction: Direction,
});
export type BestChoice = z.infer<typeof BestChoice>;

export const MAX_SMOOTHING = 0.99;

/** What the user set in a dashboard, kept per model across hide, reopen and reload. */
export const UiState = z.object({
  /** Metrics with a chart; null until the user picks (the defaults apply). */
  metrics: z.nullable(z.array(z.string())),
  smoothing: z.number().check(z.minimum(0), z.maximum(MAX_SMOOTHING)),
  sort: z.object({ key: z.string(), direction: z.enum(['asc', 'desc']) }),
  /** Ids of the selected checkpoints: two make a diff. */
  selected: z.array(z.string()).check(z.maxLength(2)),
});
export type UiState = z.infer<typeof UiState>;

export const DEFAULT_UI: UiState = { metrics: null, smoothing: 0, sort: { key: 'step', direction: 'desc' }, selected: [] };

export const SyncStatus = z.object({
  loading: z.boolean(),
  count: z.int(),
  error: z.optional(z.string()),
  /** svc.checkpoints.pollSeconds; 0 = off. */
  pollSeconds: z.number(),
  /** Epoch ms of the next poll, when one is scheduled. */
  nextPollAt: z.optional(z.number()),
  /** Epoch ms of the last successful request. */
  updatedAt: z.optional(z.number()),
  /** A file dashboard (ART's history.jsonl): the file, whether it is watched, its bad lines, the splits with step files. */
  file: z.optional(
    z.object({
      name: z.string(),
      watching: z.boolean(),
      /** Epoch ms of the last line's recorded_at (when the run last wrote). */
      recordedAt: z.optional(z.number()),
      problems: z.int(),
      problem: z.optional(z.string()),
      splits: z.array(z.string()),
      /** The steps that have a step file, per split (the step links go only to these). */
      steps: z.optional(dictOf(z.array(z.int()), 'step lists')),
    }),
  ),
});
export type SyncStatus = z.infer<typeof SyncStatus>;

export const ToWebview = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('init'),
    modelId: z.string(),
    ui: UiState,
    best: BestChoice,
    focus: z.optional(z.string()),
    /** The heading, when not the model id (a file dashboard). */
    title: z.optional(z.string()),
  }),
  /**
   * Checkpoints to merge. `done`: nothing more is on its way right now, so draw at once (while
   * more is coming the webview redraws at most a few times a second). `fresh`: found by a poll.
   */
  z.object({ type: z.literal('data'), columns: ColumnsMessage, done: z.boolean(), fresh: z.boolean() }),
  z.object({ type: z.literal('status'), status: SyncStatus }),
  /** Select this checkpoint and bring it into view (opened from a tree row). */
  z.object({ type: z.literal('focus'), checkpointId: z.string() }),
  /** The data is gone (another service or account): wait for new data messages. */
  z.object({ type: z.literal('reset') }),
  /** Steps' reward distributions of a split (a file dashboard), as they are read; `done`: the split is read. */
  z.object({ type: z.literal('distribution'), split: z.string().check(z.minLength(1), z.maxLength(200)), steps: z.array(StepDistribution), done: z.boolean() }),
]);
export type ToWebview = z.infer<typeof ToWebview>;

export const FromWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('ui'), ui: UiState }),
  z.object({ type: z.literal('best'), best: BestChoice }),
  z.object({ type: z.literal('copy'), what: z.enum(['id', 'step']), checkpointId: z.string() }),
  z.object({ type: z.literal('exportCsv') }),
  z.object({ type: z.literal('refresh') }),
  /** Open the trajectory step file of `split` at `step` (a file dashboard). */
  z.object({
    type: z.literal('openStep'),
    step: z.int().check(z.minimum(0)),
    split: z.string().check(z.minLength(1), z.maxLength(200)),
    /** Only the trajectories whose reward is in this band (a cell of the reward distribution). */
    reward: z.optional(z.object({ min: z.number(), max: z.number() })),
  }),
  /**
   * After drawing the reward distribution: per split, its range, steps and each step's bins, and
   * `done` once the split's last step file was read and drawn (the tests and the bench wait on it).
   */
  z.object({
    type: z.literal('distributionRendered'),
    splits: z.array(z.object({ split: z.string(), lo: z.number(), hi: z.number(), steps: z.array(z.int()), bins: z.array(z.array(z.number())), errors: z.int(), done: z.boolean() })),
  }),
  /**
   * After drawing what arrived: how many checkpoints and charts the page shows, the starred and
   * selected checkpoints, and `ms` from the arrival of the last data message to the painted frame.
   */
  z.object({
    type: z.literal('rendered'),
    count: z.int(),
    charts: z.int(),
    ms: z.number(),
    best: z.optional(z.string()),
    /** The row of the latest step. */
    latest: z.optional(z.string()),
    selected: z.array(z.string()),
    /** A file dashboard's step-file line as shown ("Trajectories: ★ best step 3: train …"), and its links (step/split). */
    stepFiles: z.optional(z.string()),
    stepLinks: z.optional(z.array(z.string())),
    /** Each chart's y axis as drawn, [min, max]. */
    yRanges: z.optional(dictOf(z.array(z.number()), 'axis ranges')),
  }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type FromWebview = z.infer<typeof FromWebview>;
