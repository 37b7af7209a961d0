// Which metric a checkpoint row shows (setting svc.checkpoints.metric), and how. No vscode import:
// plain-Node unit tests cover it (test/unit/checkpoints/metric.test.ts).
import { formatMetric } from '../common/format';
import { own } from '../api/dict';

/** A checkpoint's metrics, as the service sends them. */
type Metrics = Readonly<Record<string, unknown>>;

/** Every metric name of `checkpoints`, in the order they first appear. */
export function metricNames(checkpoints: readonly { metrics: Metrics }[]): string[] {
  const names = new Set<string>();
  for (const c of checkpoints) for (const k of Object.keys(c.metrics)) names.add(k);
  return [...names];
}

/**
 * The metric the rows of a model show: the setting when set; else the first name that contains
 * "reward" (any case); else the first name; undefined when the model has no metrics at all.
 */
export function pickMetric(setting: string, names: readonly string[]): string | undefined {
  const wanted = setting.trim();
  if (wanted) return wanted;
  return names.find((n) => /reward/i.test(n)) ?? names[0];
}

/**
 * The description of a checkpoint row: the picked metric and its value rounded for people
 * (`val/reward 0.8312`), or `val/reward —` when this checkpoint does not have it.
 */
export function metricDescription(metric: string | undefined, metrics: Metrics): string {
  if (metric === undefined) return '';
  const value = own(metrics, metric);
  return value === undefined || value === null ? `${metric} —` : `${metric} ${formatMetric(value)}`;
}

/** The model node's description once a page is loaded: "no checkpoints yet", "20+ checkpoints". */
export function countDescription(count: number, hasMore: boolean): string {
  if (count === 0 && !hasMore) return 'no checkpoints yet';
  return `${count}${hasMore ? '+' : ''} ${count === 1 && !hasMore ? 'checkpoint' : 'checkpoints'}`;
}
