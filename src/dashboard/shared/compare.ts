/**
 * Compare Runs: several runs' series on one step axis, and each run's best and latest value per
 * metric. Pure: shared by the extension, the compare webview and the tests.
 */
import { columnFormatter } from './columnFormat';
import { guessDirection, orderedMetrics, type Direction } from './metrics';
import type { CheckpointSeries } from './series';

/** What a compared run exposes: its steps and metric columns (a CheckpointSeries fits). */
export type RunSeries = Pick<CheckpointSeries, 'steps' | 'columns' | 'length'>;

/** One metric of several runs on a shared axis: `steps` is the union of every run's steps, ascending. */
export interface AlignedMetric {
  steps: number[];
  /** One array per run, one value per step of `steps` (null where the run has no value there). */
  values: (number | null)[][];
}

/**
 * Aligns one metric of several runs by step. A run with more than one row at a step (a repeated
 * step after a resume) keeps its last value there.
 */
export function alignByStep(runs: readonly RunSeries[], metric: string): AlignedMetric {
  const all = new Set<number>();
  for (const r of runs) {
    const col = r.columns.get(metric);
    if (!col) continue;
    for (let i = 0; i < r.length; i++) if (col[i] !== null && col[i] !== undefined) all.add(r.steps[i]!);
  }
  const steps = [...all].sort((a, b) => a - b);
  const at = new Map<number, number>();
  steps.forEach((s, i) => at.set(s, i));
  const values = runs.map((r) => {
    const out = new Array<number | null>(steps.length).fill(null);
    const col = r.columns.get(metric);
    if (col) {
      for (let i = 0; i < r.length; i++) {
        const v = col[i];
        if (v !== null && v !== undefined) out[at.get(r.steps[i]!)!] = v;
      }
    }
    return out;
  });
  return { steps, values };
}

export interface RunPoint {
  step: number;
  value: number;
}

/** One run's best and latest value of a metric; undefined when the run never logged it. */
export interface RunSummary {
  best?: RunPoint;
  latest?: RunPoint;
}

/**
 * The best value (by `direction`; on a tie the earliest step, which reached it first) and the
 * value at the latest step that has one.
 */
export function summarize(run: RunSeries, metric: string, direction: Direction): RunSummary {
  const col = run.columns.get(metric);
  if (!col) return {};
  let best: RunPoint | undefined;
  let latest: RunPoint | undefined;
  for (let i = 0; i < run.length; i++) {
    const v = col[i];
    if (v === null || v === undefined) continue;
    const step = run.steps[i]!;
    if (!best || (direction === 'max' ? v > best.value : v < best.value)) best = { step, value: v };
    if (!latest || step >= latest.step) latest = { step, value: v };
  }
  return { best, latest };
}

export interface CompareRow {
  metric: string;
  direction: Direction;
  runs: RunSummary[];
  /** The index of the run with the best value (none on a tie of all, or with fewer than two values). */
  leader?: number;
}

/**
 * The table of a comparison: every metric any run logged (in the dashboard's group order), each
 * run's best and latest value, the direction that decides "best" (the dashboard's guess from the
 * name: rewards up, losses down), and the run that leads.
 */
export function compareTable(runs: readonly RunSeries[], directionOf: (metric: string) => Direction = guessDirection): CompareRow[] {
  const names = new Set<string>();
  for (const r of runs) for (const k of r.columns.keys()) names.add(k);
  return orderedMetrics(names).map((metric) => {
    const direction = directionOf(metric);
    const summaries = runs.map((r) => summarize(r, metric, direction));
    let leader: number | undefined;
    let count = 0;
    summaries.forEach((s, i) => {
      if (!s.best) return;
      count++;
      const lead = leader === undefined ? undefined : summaries[leader]!.best!.value;
      if (lead === undefined || (direction === 'max' ? s.best.value > lead : s.best.value < lead)) leader = i;
    });
    const tied = leader !== undefined && summaries.filter((s) => s.best && s.best.value === summaries[leader!]!.best!.value).length > 1;
    return { metric, direction, runs: summaries, leader: count >= 2 && !tied ? leader : undefined };
  });
}

/**
 * The table's cell texts, row by row: each run's best and latest as "value (step)". One number
 * format per metric across every run (its best and latest values together), so one metric never
 * reads `0.86130` for one run and `8.584e-1` for another, and a tiny loss does not turn a reward
 * into exponent notation.
 */
export function compareCellTexts(rows: readonly CompareRow[]): { best: string; latest: string }[][] {
  return rows.map((row) => {
    const fmt = columnFormatter(row.runs.flatMap((s) => [s.best?.value, s.latest?.value]));
    return row.runs.map((s) => ({ best: s.best ? `${fmt(s.best.value)} (${s.best.step})` : '', latest: s.latest ? `${fmt(s.latest.value)} (${s.latest.step})` : '' }));
  });
}

/**
 * The one step range of every chart of a comparison: the first and last step any run has. A metric
 * one run logged only early (a val metric every tenth step, stopped at 50) is drawn on the same
 * x axis as the others (to 300), not on an axis of its own; undefined with no steps.
 */
export function stepRange(runs: readonly RunSeries[]): [number, number] | undefined {
  let min = Infinity;
  let max = -Infinity;
  for (const r of runs) {
    for (let i = 0; i < r.length; i++) {
      const s = r.steps[i]!;
      if (s < min) min = s;
      if (s > max) max = s;
    }
  }
  if (min === Infinity) return undefined;
  // One step alone still gets an axis with some width.
  return min === max ? [min - 1, max + 1] : [min, max];
}
