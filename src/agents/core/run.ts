/**
 * svc_summarize_run: a run's health from its checkpoints' metrics or its history.jsonl. It states
 * what the numbers are (trend of the reward over the last points, best and latest, the spread of
 * rewards and the exception rate over time, metrics that vanished or went non-finite) and gives no
 * advice it cannot back. Pure: no vscode import.
 */
import { defaultBestMetric, guessDirection, orderedMetrics } from '../../dashboard/shared/metrics';
import { readablePath, type RunContext } from './access';
import { readCheckpoints } from './checkpoints';
import { count, num, signed } from './format';
import { readHistory, type RunPoint } from './history';
import { ToolProblem, type ToolHost } from './host';
import type { SummarizeRunInput } from './schemas';
import { dict, hasOwn, own } from '../../common/dict';

/** Points the trend is fitted over. */
export const TREND_WINDOW = 10;

type Trend = 'improving' | 'plateau' | 'falling';

const finiteValues = (points: readonly RunPoint[], metric: string) =>
  points.flatMap((p) => {
    const v = own(p.metrics, metric);
    return typeof v === 'number' && Number.isFinite(v) ? [{ step: p.step, v }] : [];
  });

/**
 * The trend of the last TREND_WINDOW values: the least-squares line's change over the window
 * against the residual spread. A change smaller than the spread (or than 1% of the mean level) is
 * a plateau; otherwise it is improving or falling by the metric's good direction.
 */
export function trendOf(series: readonly { step: number; v: number }[], higherIsBetter: boolean): { trend: Trend; change: number; noise: number; from: number; to: number; first: number; last: number; n: number } | undefined {
  const w = series.slice(-TREND_WINDOW);
  if (w.length < 3) return undefined;
  const n = w.length;
  const mx = w.reduce((a, p) => a + p.step, 0) / n;
  const my = w.reduce((a, p) => a + p.v, 0) / n;
  const sxx = w.reduce((a, p) => a + (p.step - mx) ** 2, 0);
  const slope = sxx === 0 ? 0 : w.reduce((a, p) => a + (p.step - mx) * (p.v - my), 0) / sxx;
  const change = slope * (w[n - 1]!.step - w[0]!.step);
  const residuals = w.map((p) => p.v - (my + slope * (p.step - mx)));
  const noise = Math.sqrt(residuals.reduce((a, r) => a + r * r, 0) / Math.max(1, n - 2));
  const flat = Math.abs(change) <= Math.max(noise, 0.01 * Math.abs(my));
  const trend: Trend = flat ? 'plateau' : change > 0 === higherIsBetter ? 'improving' : 'falling';
  return { trend, change, noise, from: w[0]!.step, to: w[n - 1]!.step, first: w[0]!.v, last: w[n - 1]!.v, n };
}

/** A metric over time in a few numbers: first, middle and last values, and the range. */
function overTime(points: readonly RunPoint[], metric: string): string | undefined {
  const s = finiteValues(points, metric);
  if (!s.length) return undefined;
  const mid = s[Math.floor((s.length - 1) / 2)]!;
  const min = s.reduce((a, p) => (p.v < a.v ? p : a));
  const max = s.reduce((a, p) => (p.v > a.v ? p : a));
  const zeros = s.filter((p) => p.v === 0).length;
  const last = s.slice(-3).map((p) => `${num(p.v)} (step ${count(p.step)})`);
  return `${metric}: first ${num(s[0]!.v)} (step ${count(s[0]!.step)}), middle ${num(mid.v)} (step ${count(mid.step)}), last three ${last.join(', ')}; min ${num(min.v)} at step ${count(min.step)}, max ${num(max.v)} at step ${count(max.step)}${zeros ? `; exactly 0 at ${count(zeros)} of ${count(s.length)} steps` : ''}.`;
}

/** Metrics absent from the last point whose last value is further back than twice their usual spacing. */
export function vanished(points: readonly RunPoint[]): { metric: string; lastStep: number; seen: number }[] {
  if (points.length < 2) return [];
  const last = points[points.length - 1]!;
  const out: { metric: string; lastStep: number; seen: number }[] = [];
  const names = orderedMetrics(points.flatMap((p) => Object.keys(p.metrics)));
  for (const metric of names) {
    if (hasOwn(last.metrics, metric)) continue;
    const steps = points.filter((p) => hasOwn(p.metrics, metric)).map((p) => p.step);
    const gaps = steps.slice(1).map((s, i) => s - steps[i]!).sort((a, b) => a - b);
    const usual = gaps.length ? gaps[Math.floor(gaps.length / 2)]! : 0;
    const lastStep = steps[steps.length - 1]!;
    const allGaps = points.slice(1).map((p, i) => p.step - points[i]!.step).sort((a, b) => a - b);
    const spacing = Math.max(usual, allGaps[Math.floor(allGaps.length / 2)] ?? 0);
    if (last.step - lastStep > 2 * spacing) out.push({ metric, lastStep, seen: steps.length });
  }
  return out;
}

/** Metrics with non-finite values (null, NaN, ±Infinity), with the steps where they were. */
export function nonFinite(points: readonly RunPoint[]): { metric: string; steps: number[] }[] {
  const found = new Map<string, number[]>();
  for (const p of points) {
    for (const [k, v] of Object.entries(p.metrics)) {
      if (v === null || (typeof v === 'number' && !Number.isFinite(v))) {
        const steps = found.get(k) ?? [];
        steps.push(p.step);
        found.set(k, steps);
      }
    }
  }
  return [...found].map(([metric, steps]) => ({ metric, steps }));
}

const stepList = (steps: readonly number[]) => `${steps.slice(0, 8).map(count).join(', ')}${steps.length > 8 ? `, … (${count(steps.length)} steps)` : ''}`;

/** The health summary of a run, from its points ordered by step. */
export function summarizePoints(points: readonly RunPoint[], source: string): string {
  if (!points.length) return `${source}: no metrics.`;
  const names = orderedMetrics(points.flatMap((p) => Object.keys(p.metrics)));
  const lines = [`${source}: ${count(points.length)} steps with metrics, steps ${count(points[0]!.step)}–${count(points[points.length - 1]!.step)}, ${count(names.length)} metrics.`];
  const reward = names.includes('train/reward') ? 'train/reward' : defaultBestMetric(names);
  if (!reward) {
    lines.push(`No reward metric (no name contains "reward"). Metrics: ${names.slice(0, 30).join(', ')}${names.length > 30 ? ', …' : ''}.`);
  } else {
    const direction = guessDirection(reward);
    const s = finiteValues(points, reward);
    const t = trendOf(s, direction === 'max');
    if (t) {
      lines.push(
        `Reward trend (${reward}, last ${t.n} values, steps ${count(t.from)}–${count(t.to)}): ${t.trend}. From ${num(t.first)} to ${num(t.last)}; the least-squares line changes by ${signed(t.change)} over these steps, against a residual standard deviation of ${num(t.noise)}${t.trend === 'plateau' ? ' (a change within the noise, or under 1% of the level, counts as a plateau)' : ''}.`,
      );
    } else {
      lines.push(`Reward (${reward}): ${count(s.length)} finite values, too few for a trend (3 needed).`);
    }
    if (s.length) {
      const best = s.reduce((a, p) => ((direction === 'max' ? p.v > a.v : p.v < a.v) ? p : a));
      const latest = s[s.length - 1]!;
      lines.push(`Best ${reward}: ${num(best.v)} at step ${count(best.step)}. Latest: ${num(latest.v)} at step ${count(latest.step)}. Over the whole run: ${num(s[0]!.v)} at step ${count(s[0]!.step)} to ${num(latest.v)} (${signed(latest.v - s[0]!.v)}).`);
    }
    // The training dashboard stars its best step by its default metric (val/reward when the run has
    // one): say that step too, so the agent and the chart name the same best checkpoint.
    const starred = defaultBestMetric(names);
    const v = starred && starred !== reward ? finiteValues(points, starred) : [];
    if (v.length) {
      const top = v.reduce((a, p) => (p.v > a.v ? p : a));
      lines.push(`Best ${starred} (the metric the training dashboard stars by default): ${num(top.v)} at step ${count(top.step)}.`);
    }
  }
  const spread = names.find((n) => /^train\/reward_std(_dev)?$/.test(n)) ?? names.find((n) => /reward_std/.test(n));
  const spreadText = spread && overTime(points, spread);
  lines.push(spreadText ? `Reward standard deviation within groups — ${spreadText} A group whose rewards are all equal gives no learning signal.` : 'No reward standard deviation metric (e.g. train/reward_std_dev).');
  const exceptions = names.find((n) => /^train\/exception_rate$/.test(n)) ?? names.find((n) => /exception_rate/.test(n));
  const exceptionText = exceptions && overTime(points, exceptions);
  lines.push(exceptionText ? `Exception rate — ${exceptionText}` : 'No exception rate metric (e.g. train/exception_rate).');
  const gone = vanished(points);
  lines.push(
    gone.length
      ? `Metrics that stopped: ${gone.slice(0, 20).map((g) => `${g.metric} (last at step ${count(g.lastStep)}, in ${count(g.seen)} steps)`).join('; ')}${gone.length > 20 ? `; and ${count(gone.length - 20)} more` : ''}.`
      : 'No metric stopped being logged.',
  );
  const bad = nonFinite(points);
  lines.push(bad.length ? `Non-finite values (NaN or infinite): ${bad.slice(0, 20).map((b) => `${b.metric} at steps ${stepList(b.steps)}`).join('; ')}.` : 'No non-finite values.');
  return lines.join('\n');
}

export async function summarizeRun(host: ToolHost, input: SummarizeRunInput, signal?: AbortSignal, context: RunContext = {}): Promise<string> {
  if (input.modelId !== undefined) {
    const { checkpoints, complete } = await readCheckpoints(host, input.modelId, signal);
    const points = checkpoints.map((c) => ({ step: c.step, metrics: dict(Object.entries(c.metrics).map(([k, v]): [string, number | null] => [k, typeof v === 'number' && Number.isFinite(v) ? v : null])) }));
    return summarizePoints(points, `Model "${input.modelId}" (checkpoint metrics from the service${complete ? '' : `, the first ${count(points.length)} checkpoints only`})`);
  }
  // Under the read roots or confirmed, a regular file (core/access.ts); read by its real path.
  const { shown: path, real } = await readablePath(host, input.historyFile!, context);
  let history;
  try {
    history = await readHistory(real, { signal });
  } catch (e) {
    throw new ToolProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = summarizePoints(history.points, `${path} (${count(history.lines)} lines)`);
  if (!history.problems.length) return text;
  const problems = history.problems.slice(0, 5).map((p) => `line ${p.line}: ${p.reason}`);
  return `${text}\nUnreadable lines (${count(history.problems.length)}, skipped): ${problems.join('; ')}${history.problems.length > 5 ? '; …' : ''}.`;
}
