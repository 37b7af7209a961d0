/**
 * The trajectory viewer's view model, its ground floor: a parsed group read leniently (whatever a
 * producer wrote: our own files, ART's `model_dump(mode="json")`, whole OpenAI-SDK choices, vLLM
 * extras), its rewards and stats, and JSON values as text. messages.ts turns conversations into
 * bubbles, views.ts builds the panes, search.ts finds text. Lenient on purpose: it is for reading,
 * so unknown fields and nulls anywhere are shown, never refused (validation is src/files/'s job).
 * No `vscode` import.
 */
import { isObject } from '../api/json';
import { isBareTrajectory } from '../api/schemas/models';
import { TOO_DEEP } from '../files/problems';
import type { GroupStats } from './shapes';
import { dict } from '../api/dict';

export type Obj = Record<string, unknown>;

/**
 * A group as found in the file: `{trajectories: [...]}` (left out of a compact dump when empty), or
 * a bare trajectory shown as a group of one.
 */
export interface GroupValue {
  trajectories: unknown[];
  /** The file held a single trajectory where a group was expected. */
  bare: boolean;
  raw: unknown;
}

export const GROUP_FIELDS = new Set(['trajectories', 'metadata', 'metrics', 'logs', 'exceptions']);

/** Reads a parsed group leniently; undefined when it is neither a group nor a trajectory. */
export function asGroup(value: unknown): GroupValue | undefined {
  if (!isObject(value)) return undefined;
  if (Array.isArray(value.trajectories)) return { trajectories: value.trajectories, bare: false, raw: value };
  if (isBareTrajectory(value)) return { trajectories: [value], bare: true, raw: value };
  // A compact empty group: `{}`, or only the group's own fields.
  if (value.trajectories === null || Object.keys(value).every((k) => GROUP_FIELDS.has(k))) return { trajectories: [], bare: false, raw: value };
  return undefined;
}

/** The reward of a trajectory: a number, `null`/absent (the service's default 0), or something else. */
export function rewardOf(t: unknown): { value: number | undefined; missing: boolean } {
  const r = isObject(t) ? t.reward : undefined;
  if (typeof r === 'number' && Number.isFinite(r)) return { value: r, missing: false };
  if (r === undefined || r === null) return { value: 0, missing: true };
  return { value: undefined, missing: false };
}

/** Rewards that count for a group's stats (invalid rewards are left out; a missing one is 0). */
export function groupRewards(trajectories: readonly unknown[]): number[] {
  const out: number[] = [];
  for (const t of trajectories) {
    const r = rewardOf(t).value;
    if (r !== undefined) out.push(r);
  }
  return out;
}

/**
 * Mean, population standard deviation (as GRPO normalises advantages), min and max. `zeroVariance`
 * when there are at least two rewards and all are equal: such a group gives no learning signal. A
 * group of one is not flagged: it has no variance to learn from by construction, and the badge would
 * say nothing about the rollouts (the viewer says so on the row instead).
 */
export function groupStats(rewards: readonly number[], exceptions = 0): GroupStats {
  const n = rewards.length;
  if (n === 0) return { count: 0, mean: null, std: null, min: null, max: null, zeroVariance: false, exceptions };
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const r of rewards) {
    sum += r;
    if (r < min) min = r;
    if (r > max) max = r;
  }
  const mean = sum / n;
  let sq = 0;
  for (const r of rewards) sq += (r - mean) * (r - mean);
  const std = Math.sqrt(sq / n);
  // Exact equality, with room for the rounding of values that were written as the same decimal.
  const zeroVariance = n > 1 && max - min <= 1e-12 * Math.max(1, Math.abs(max));
  return { count: n, mean, std: zeroVariance ? 0 : std, min, max, zeroVariance, exceptions };
}

/** `exceptions` of an ART group: rollouts that raised. */
export function exceptionsOf(group: unknown): { type: string; message: string; traceback: string }[] {
  const list = isObject(group) && Array.isArray(group.exceptions) ? group.exceptions : [];
  return list.map((e) =>
    isObject(e)
      ? { type: str(e.type) ?? 'exception', message: str(e.message) ?? '', traceback: str(e.traceback) ?? '' }
      : { type: 'exception', message: typeof e === 'string' ? e : JSON.stringify(e), traceback: '' },
  );
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A JSON value as text for a table cell or code block (strings as they are). */
export function jsonText(v: unknown, pretty = false): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v, null, pretty ? 2 : undefined) ?? typeof v; // undefined only for functions and symbols
  } catch (e) {
    // Nesting deep enough to exhaust the stack: the validation names the line; say so, not "Maximum call stack".
    if (e instanceof RangeError) return `(not shown: this value ${TOO_DEEP}; see the problems of this group)`;
    throw e;
  }
}

/** Metric-like maps (`metrics`, `auto_metrics`, `metadata`) as rows; nulls and non-objects give none. */
export function entries(v: unknown): [string, string][] {
  return isObject(v) ? Object.entries(v).map(([k, x]) => [k, jsonText(x)]) : [];
}

/** Numeric (and boolean, as 0/1) metrics of a trajectory, `metrics` and then `auto_metrics`. */
export function numericMetrics(t: unknown): Record<string, number> {
  const out = dict<number>();
  if (!isObject(t)) return out;
  for (const source of [t.auto_metrics, t.metrics]) {
    if (!isObject(source)) continue;
    for (const [k, v] of Object.entries(source)) {
      if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
      else if (typeof v === 'boolean') out[k] = v ? 1 : 0;
    }
  }
  return out;
}

