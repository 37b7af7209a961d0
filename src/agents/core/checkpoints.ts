/** svc_list_checkpoints: a model's checkpoints, with the best and the latest named. Pure: no vscode import. */
import type { Checkpoint } from '../../api';
import { defaultBestMetric, guessDirection, orderedMetrics, type Direction } from '../../dashboard/shared/metrics';
import { count, cutNote, num, table } from './format';
import { describeError, readyClient, ToolProblem, type ToolHost } from './host';
import type { ListCheckpointsInput } from './schemas';
import { hasOwn } from '../../api/dict';

/** Checkpoints read at most for one answer (pages of 100). */
export const CHECKPOINT_CAP = 5_000;
export const DEFAULT_CHECKPOINTS = 50;
/** Metric columns in the table; the rest are named. */
const MAX_COLUMNS = 8;

/** Every checkpoint of a model, oldest first, up to CHECKPOINT_CAP; `complete` false when cut there. */
export async function readCheckpoints(host: ToolHost, modelId: string, signal?: AbortSignal): Promise<{ checkpoints: Checkpoint[]; complete: boolean }> {
  const client = await readyClient(host, 'training');
  const checkpoints: Checkpoint[] = [];
  try {
    for await (const page of client.models.checkpointPages(modelId, { order: 'asc', pageSize: 100, signal })) {
      checkpoints.push(...page);
      if (checkpoints.length >= CHECKPOINT_CAP) return { checkpoints: checkpoints.slice(0, CHECKPOINT_CAP), complete: false };
    }
  } catch (e) {
    host.reportFailure?.(e);
    throw new ToolProblem(describeError(e, host, { model: modelId }));
  }
  return { checkpoints, complete: true };
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The checkpoint with the best finite value of `metric`; the earliest on a tie. */
export function bestOf(checkpoints: readonly Checkpoint[], metric: string, direction: Direction): Checkpoint | undefined {
  let best: Checkpoint | undefined;
  for (const c of checkpoints) {
    const v = c.metrics[metric];
    if (!finite(v)) continue;
    const b = best?.metrics[metric] as number | undefined;
    if (b === undefined || (direction === 'max' ? v > b : v < b)) best = c;
  }
  return best;
}

export async function listCheckpoints(host: ToolHost, input: ListCheckpointsInput, signal?: AbortSignal): Promise<string> {
  const { checkpoints, complete } = await readCheckpoints(host, input.modelId, signal);
  if (!checkpoints.length) return `Model "${input.modelId}" has no checkpoints yet.`;
  const names = orderedMetrics(checkpoints.flatMap((c) => Object.keys(c.metrics)));
  const metric = input.metric ?? defaultBestMetric(names) ?? names[0];
  const latest = checkpoints.reduce((a, b) => (b.step >= a.step ? b : a));
  const lines = [
    `Model "${input.modelId}": ${complete ? count(checkpoints.length) : `more than ${count(checkpoints.length)} (only the first ${count(CHECKPOINT_CAP)} read)`} checkpoints, steps ${count(checkpoints[0]!.step)}–${count(latest.step)}.`,
  ];
  const value = (c: Checkpoint) => (metric !== undefined ? ` (${metric} ${num(c.metrics[metric])})` : '');
  lines.push(`Latest: step ${count(latest.step)}${value(latest)}, id ${latest.id}.`);
  if (metric !== undefined) {
    const direction = guessDirection(metric);
    const best = bestOf(checkpoints, metric, direction);
    lines.push(
      best
        ? `Best by ${metric} (${direction === 'max' ? 'higher' : 'lower'} is better): step ${count(best.step)} (${num(best.metrics[metric])}), id ${best.id}.`
        : `No checkpoint has a finite value of ${metric}${names.includes(metric) ? '' : ` (the metrics are: ${names.join(', ')})`}.`,
    );
  }
  const order = input.order ?? 'desc';
  const limit = input.limit ?? DEFAULT_CHECKPOINTS;
  const ordered = order === 'desc' ? [...checkpoints].reverse() : checkpoints;
  const shown = ordered.slice(0, limit);
  const columns = metric !== undefined && names.includes(metric) ? [metric, ...names.filter((n) => n !== metric)] : names;
  const cols = columns.slice(0, MAX_COLUMNS);
  lines.push(
    '',
    table(
      ['step', ...cols, 'id'],
      shown.map((c) => [c.step, ...cols.map((m) => (hasOwn(c.metrics, m) ? num(c.metrics[m]) : '')), c.id]),
    ),
  );
  if (columns.length > cols.length) lines.push('', `Other metrics (not in the table): ${columns.slice(cols.length).join(', ')}.`);
  const cut = cutNote(shown.length, 0, checkpoints.length, 'checkpoints', `pass limit (up to 500) or order ${order === 'desc' ? 'asc' : 'desc'} to see others`);
  if (cut) lines.push('', cut);
  return lines.join('\n');
}
