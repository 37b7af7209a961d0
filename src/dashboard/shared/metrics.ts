/** Metric names, the best checkpoint and the diff of two. Pure, shared with the webview. */
import type { CheckpointSeries } from './series';

/** The prefixes the official training client logs, in the order the dashboard shows them. */
export const KNOWN_GROUPS = ['train', 'val', 'loss', 'data', 'time'] as const;
/** The group of metrics without a prefix. */
export const OTHER_GROUP = '';

export type Direction = 'max' | 'min';

export interface MetricGroup {
  /** The prefix before the first `/`, or '' for names without one. */
  group: string;
  label: string;
  metrics: string[];
}

export function metricGroup(name: string): string {
  const slash = name.indexOf('/');
  return slash > 0 ? name.slice(0, slash) : OTHER_GROUP;
}

/**
 * Groups names by prefix: train/, val/, loss/, data/, time/ first, then other prefixes
 * alphabetically, then names without a prefix ("other"). Within a group the official client's main
 * metrics come first (train/reward before its spread), then the rest alphabetically.
 */
export function groupMetrics(names: Iterable<string>): MetricGroup[] {
  const groups = new Map<string, string[]>();
  for (const name of new Set(names)) {
    const g = metricGroup(name);
    let list = groups.get(g);
    if (!list) groups.set(g, (list = []));
    list.push(name);
  }
  const rank = (g: string) => {
    const known = (KNOWN_GROUPS as readonly string[]).indexOf(g);
    return known >= 0 ? known : g === OTHER_GROUP ? KNOWN_GROUPS.length + 1 : KNOWN_GROUPS.length;
  };
  return [...groups.entries()]
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([group, metrics]) => ({ group, label: group === OTHER_GROUP ? 'other' : `${group}/`, metrics: metrics.sort(compareNames) }));
}

/** The official training client's main metrics, first in their group in this order. */
const PRIORITY = [
  'train/reward',
  'train/reward_std_dev',
  'train/exception_rate',
  'val/reward',
  'loss/train',
  'loss/kl_div',
  'loss/entropy',
  'loss/grad_norm',
  'loss/learning_rate',
  'data/step_num_trajectories',
  'time/step_wall_s',
];

function compareNames(a: string, b: string): number {
  const pa = PRIORITY.indexOf(a);
  const pb = PRIORITY.indexOf(b);
  if (pa >= 0 || pb >= 0) return pa < 0 ? 1 : pb < 0 ? -1 : pa - pb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Names in group order (what the picker and the table show). */
export function orderedMetrics(names: Iterable<string>): string[] {
  return groupMetrics(names).flatMap((g) => g.metrics);
}

const SPREAD = /(std|dev|var|rate|min|max)/i;

/**
 * The default metric of the best checkpoint: `val/reward` when it exists, else the first
 * reward-like metric in group order (a name ending in "reward" before one only containing it;
 * spreads such as `reward_std_dev` last), else none.
 */
export function defaultBestMetric(names: Iterable<string>): string | undefined {
  const ordered = orderedMetrics(names);
  if (ordered.includes('val/reward')) return 'val/reward';
  const last = (n: string) => n.slice(n.lastIndexOf('/') + 1).toLowerCase();
  return (
    ordered.find((n) => last(n) === 'reward') ??
    ordered.find((n) => /reward/i.test(n) && !SPREAD.test(last(n).replace(/reward/i, ''))) ??
    ordered.find((n) => /reward/i.test(n))
  );
}

/** The share of a step's groups that ART would train on (a history's step files, src/files/stepShares.ts). */
export const TRAINABLE_SHARE = 'trainable/group_share';

/**
 * Charts shown until the user picks: the train/, val/ and loss/ metrics, else the first ones, and
 * the share of groups that would train where the run's step files give it; at most 12.
 */
export function defaultCharts(names: Iterable<string>): string[] {
  const ordered = orderedMetrics(names);
  const share = ordered.includes(TRAINABLE_SHARE) ? [TRAINABLE_SHARE] : [];
  const core = ordered.filter((n) => ['train', 'val', 'loss'].includes(metricGroup(n)));
  return [...(core.length ? core : ordered.filter((n) => n !== TRAINABLE_SHARE)).slice(0, 12 - share.length), ...share];
}

/** The metric and direction in force: the user's choice, else the default metric, maximised. */
export function resolveBest(choice: { metric?: string; direction: Direction } | undefined, names: Iterable<string>): { metric: string | undefined; direction: Direction } {
  if (choice?.metric) return { metric: choice.metric, direction: choice.direction };
  return { metric: defaultBestMetric(names), direction: 'max' };
}

/** A first guess of a metric's good direction: losses, divergences, errors and times go down. */
export function guessDirection(name: string): Direction {
  return knownDirection(name) ?? (/(loss|entropy|grad_norm)/i.test(name) ? 'min' : 'max');
}

/**
 * The direction that is better for a metric when it is plain from the name (rewards up; loss,
 * KL, errors and times down), else undefined: a learning rate or a trajectory count is neither.
 */
export function knownDirection(name: string): Direction | undefined {
  const last = name.slice(name.lastIndexOf('/') + 1);
  if (/(std|dev|var|learning_rate|lr$)/i.test(last)) return undefined;
  if (/(reward|accuracy|score|success|pass)/i.test(last)) return 'max';
  if (/(kl|err|exception|wall|latency|perplexity)/i.test(last) || name === 'loss/train' || /^(train_|val_)?loss$/i.test(last)) return 'min';
  return undefined;
}

/**
 * The row of the best checkpoint by `metric`, or undefined when no checkpoint has a value for
 * it. Checkpoints without the metric are skipped. On a tie the earliest step wins: it reached
 * that value first.
 */
export function bestRow(series: CheckpointSeries, metric: string, direction: Direction): number | undefined {
  const col = series.columns.get(metric);
  if (!col) return undefined;
  let best: number | undefined;
  let bestValue = 0;
  for (let i = 0; i < col.length; i++) {
    const v = col[i];
    if (v === null || v === undefined) continue;
    // Rows are in step order, so a strict comparison keeps the earliest of equal values.
    if (best === undefined || (direction === 'max' ? v > bestValue : v < bestValue)) {
      best = i;
      bestValue = v;
    }
  }
  return best;
}

export interface DiffRow {
  metric: string;
  a: number | null;
  b: number | null;
  /** b - a, when both exist. */
  delta: number | null;
  /** delta / |a| * 100, when both exist and a is not 0. */
  percent: number | null;
}

/** The metrics of two checkpoints side by side, `a` the earlier (the baseline of Δ and %). */
export function diffRows(series: CheckpointSeries, rowA: number, rowB: number, metrics: string[] = orderedMetrics(series.metricNames())): DiffRow[] {
  return metrics.map((metric) => {
    const a = series.value(metric, rowA);
    const b = series.value(metric, rowB);
    const delta = a !== null && b !== null ? b - a : null;
    const percent = delta !== null && a !== 0 ? (delta / Math.abs(a!)) * 100 : null;
    return { metric, a, b, delta, percent };
  });
}

/** Two selected rows as (earlier, later) by step, then by position. */
export function orderPair(series: CheckpointSeries, x: number, y: number): [number, number] {
  const sx = series.steps[x]!;
  const sy = series.steps[y]!;
  return sx < sy || (sx === sy && x < y) ? [x, y] : [y, x];
}
