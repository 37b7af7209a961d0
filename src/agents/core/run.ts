/**
 * svc_summarize_run: a run's health from its checkpoints' metrics or its history.jsonl. It states
 * what the numbers are (trend of the reward over the last points, best and latest, the spread of
 * rewards and the exception rate over time, metrics that vanished or went non-finite) and gives no
 * advice it cannot back. Pure: no vscode import.
 */
import { defaultBestMetric, guessDirection, orderedMetrics } from '../../dashboard/shared/metrics';
import { readablePath, type RunContext } from './access';
import { readCheckpoints } from './checkpoints';
import { count, num, signed, table } from './format';
import { readHistoryFile, type RunPoint } from './history';
import { ToolProblem, type ToolHost } from './host';
import type { SummarizeRunInput } from './schemas';
import { dict, hasOwn, own } from '../../api/dict';
import * as fs from 'fs';
import * as nodePath from 'path';
import { readStepShares, shareOf, TRAIN_SPLIT, type StepShares } from '../../files/stepShares';

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
    history = await readHistoryFile(real, { signal });
  } catch (e) {
    throw new ToolProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let text = summarizePoints(history.points, `${path} (${count(history.lines)} lines)`);
  if (history.problems.length) {
    const problems = history.problems.slice(0, 5).map((p) => `line ${p.line}: ${p.reason}`);
    text += `\nUnreadable lines (${count(history.problems.length)}, skipped): ${problems.join('; ')}${history.problems.length > 5 ? '; …' : ''}.`;
  }
  // The step files beside the history (the model folder): what each step would train on.
  let shares: StepShares;
  try {
    // The step files are read only inside the history's own folder (a linked trajectories/ folder
    // leading elsewhere could be outside the read roots).
    const runDir = nodePath.dirname(real);
    const split = nodePath.join(runDir, 'trajectories', TRAIN_SPLIT);
    const splitReal = await fs.promises.realpath(split).catch(() => split);
    if (!splitReal.startsWith(runDir + nodePath.sep)) return `${text}\nTrainable share per step: not read: ${nodePath.join(nodePath.dirname(path), 'trajectories', TRAIN_SPLIT)} leads outside the run's folder.`;
    shares = await readStepShares(runDir, { signal });
  } catch (e) {
    if (signal?.aborted) throw e;
    return `${text}\nTrainable share per step: could not read the step files (${e instanceof Error ? e.message : String(e)}).`;
  }
  const folder = nodePath.join(nodePath.dirname(path), 'trajectories', TRAIN_SPLIT);
  return `${text}\n${trainableText(shares, folder, history.points)}`;
}

/** A share as a percentage for a sentence. */
const pct = (x: number) => `${Math.round(x * 100)}%`;

/** How far a share must drop from the step before to count as a fall (10 percentage points). */
export const FALL = 0.1;

/** Steps whose share is FALL or more below the one before, or 0: with the share before. */
export function fallen(series: readonly { step: number; share: number }[]): { step: number; share: number; before?: { step: number; share: number } }[] {
  return series.flatMap((p, i) => {
    const before = i > 0 ? series[i - 1] : undefined;
    if (before && p.share <= before.share - FALL + 1e-12) return [{ ...p, before }];
    return p.share === 0 ? [{ ...p, ...(before ? { before } : {}) }] : [];
  });
}

const fallText = (f: ReturnType<typeof fallen>[number], what: (step: number) => string) => `step ${count(f.step)}: ${what(f.step)}${f.before ? ` (from ${pct(f.before.share)} at step ${count(f.before.step)})` : ''}`;

/** The history's own counts of ART (`data/step_num_groups_trainable` of `…_submitted`), any prefix. */
function artCounts(points: readonly RunPoint[]): { step: number; trainable: number; submitted: number; trajectories?: number; dropped?: number }[] {
  const find = (p: RunPoint, name: string) => {
    for (const [k, v] of Object.entries(p.metrics)) if ((k === name || k.endsWith(`/${name}`)) && typeof v === 'number' && Number.isFinite(v)) return v;
    return undefined;
  };
  return points.flatMap((p) => {
    const trainable = find(p, 'data/step_num_groups_trainable');
    const submitted = find(p, 'data/step_num_groups_submitted');
    if (trainable === undefined || submitted === undefined) return [];
    const trajectories = find(p, 'data/step_num_trajectories');
    const dropped = find(p, 'data/step_num_dropped_trajectories');
    return [{ step: p.step, trainable, submitted, ...(trajectories !== undefined ? { trajectories } : {}), ...(dropped !== undefined ? { dropped } : {}) }];
  });
}

/** Rows of the per-step table at most (the newest). */
export const MAX_SHARE_ROWS = 30;

/**
 * The trainable share per step: from the step files by ART's rules (verdicts.ts), and from ART's own
 * counts in the history where it logged them, with the steps where either fell named.
 */
export function trainableText(shares: StepShares, folder: string, points: readonly RunPoint[]): string {
  const lines: string[] = [];
  const read = shares.steps.filter((s) => s.summary);
  if (!shares.found) {
    lines.push(`Trainable share per step: no step files (<step>.parquet or <step>.jsonl) under ${folder}.`);
  } else {
    const series = read.map((s) => ({ s, x: shareOf(s.summary!) }));
    const groupSeries = series.flatMap(({ s, x }) => (x.groupShare === null ? [] : [{ step: s.step, share: x.groupShare }]));
    const bySteps = new Map(series.map(({ s, x }) => [s.step, x]));
    const describe = (step: number) => {
      const x = bySteps.get(step)!;
      return `groups ${count(x.groupsTraining)} of ${count(x.groups)} (${pct(x.groupShare ?? 0)}), trajectories ${count(x.training)} of ${count(x.trajectories)}${x.trajectoryShare === null ? '' : ` (${pct(x.trajectoryShare)})`}`;
    };
    lines.push(
      `Trainable share per step (what ART would train on at its default settings, by the same rules as svc_summarize_trajectories; ${count(read.length)} of ${count(shares.found)} step files under ${folder} read${shares.cut ? `; ${count(shares.cut.left)} older left out: ${shares.cut.why}` : ''}):`,
    );
    if (groupSeries.length) {
      const last = groupSeries[groupSeries.length - 1]!;
      const min = groupSeries.reduce((a, p) => (p.share < a.share ? p : a));
      const mean = groupSeries.reduce((a, p) => a + p.share, 0) / groupSeries.length;
      lines.push(`Latest, step ${count(last.step)}: ${describe(last.step)}. Group share over these steps: mean ${pct(mean)}, lowest ${pct(min.share)} at step ${count(min.step)}.`);
      const fell = fallen(groupSeries);
      lines.push(
        fell.length
          ? `Steps where the share of groups that train fell (${Math.round(FALL * 100)} percentage points or more below the step before, or to 0): ${fell.slice(0, 10).map((f) => fallText(f, describe)).join('; ')}${fell.length > 10 ? `; and ${count(fell.length - 10)} more` : ''}. For why, svc_summarize_trajectories on the step file.`
          : `The share of groups that train did not fall by ${Math.round(FALL * 100)} percentage points or more from one step to the next.`,
      );
      const raising = read.filter((s) => s.summary!.failing > 0);
      if (raising.length) lines.push(`Steps where ART would raise (the whole step fails): ${raising.slice(0, 10).map((s) => `step ${count(s.step)} (${count(s.summary!.failing)} trajectories)`).join(', ')}${raising.length > 10 ? ', …' : ''}.`);
      const rows = series.slice(-MAX_SHARE_ROWS).map(({ s, x }) => [s.step, s.file, `${x.groupsTraining} of ${x.groups}`, x.groupShare === null ? '' : pct(x.groupShare), `${x.training} of ${x.trajectories}`, x.trajectoryShare === null ? '' : pct(x.trajectoryShare), s.summary!.failing ? 'yes' : '']);
      lines.push(table(['step', 'file', 'groups that train', 'group share', 'trajectories that train', 'trajectory share', 'ART raises'], rows));
      if (series.length > MAX_SHARE_ROWS) lines.push(`(the newest ${MAX_SHARE_ROWS} of ${count(series.length)} steps read)`);
    }
    const bad = shares.steps.filter((s) => s.error);
    if (bad.length) lines.push(`Unreadable step files (${count(bad.length)}): ${bad.slice(0, 5).map((s) => `${s.file}: ${s.error}`).join('; ')}${bad.length > 5 ? '; …' : ''}.`);
  }
  const art = artCounts(points);
  if (art.length) {
    const share = art.filter((a) => a.submitted > 0).map((a) => ({ step: a.step, share: a.trainable / a.submitted }));
    const byStep = new Map(art.map((a) => [a.step, a]));
    const describe = (step: number) => {
      const a = byStep.get(step)!;
      return `${num(a.trainable)} of ${num(a.submitted)} groups (${pct(a.trainable / a.submitted)})${a.trajectories !== undefined && a.dropped !== undefined ? `, ${num(a.dropped)} of ${num(a.trajectories)} trajectories dropped` : ''}`;
    };
    const last = art[art.length - 1]!;
    const fell = fallen(share);
    lines.push(
      `ART's own counts in the history (data/step_num_groups_trainable of data/step_num_groups_submitted; it counts groups whose rewards vary) at ${count(art.length)} steps; latest, step ${count(last.step)}: ${last.submitted > 0 ? describe(last.step) : `${num(last.trainable)} of ${num(last.submitted)} groups`}. ` +
        (fell.length ? `It fell at ${fell.slice(0, 10).map((f) => fallText(f, describe)).join('; ')}${fell.length > 10 ? `; and ${count(fell.length - 10)} more` : ''}.` : `It did not fall by ${Math.round(FALL * 100)} percentage points or more from one step to the next.`),
    );
  } else {
    lines.push('The history has no data/step_num_groups_trainable and data/step_num_groups_submitted (ART logs them per step in newer versions).');
  }
  return lines.join('\n');
}
