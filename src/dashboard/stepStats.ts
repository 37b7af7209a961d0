/**
 * What the Runs view and the dashboard's reward distribution say about a step file, read from its
 * small columns only: a Parquet file's `group_index`, `trajectory_index` and `reward` (page by page,
 * never `trajectory_json` or `group_json`), a JSONL file line by line (one group a line). Memory:
 * one step's rewards at a time (8 bytes a trajectory), then a bounded summary. Summaries are cached
 * by (path, size, mtime). No `vscode` import.
 */
import { openArtParquet } from '../files/artParquet';
import { readLines } from '../files/lines';
import { formatOf } from '../files';
import { isObject } from '../api/json';
import { QUANTILES, quantile, sketchOf, type StepDistribution } from './shared/distribution';
import { zeroVariance } from '../files/verdicts';

/** What one step file holds, in numbers. */
export interface StepStats {
  groups: number;
  /** Trajectories (rows with a trajectory in Parquet; entries of `trajectories` in JSONL). */
  trajectories: number;
  /** Rewards that are finite numbers. */
  rewards: number;
  mean: number | null;
  /** QUANTILES of the rewards (empty without rewards). */
  quantiles: number[];
  /** At most SKETCH_SIZE order statistics of the rewards (distribution.ts). */
  sketch: number[];
  /**
   * Groups whose rewards vary (ART's data/step_num_groups_trainable: a zero-variance group gives
   * its trainer nothing to learn from). The full verdicts (logprobs, token ids) need the big
   * columns and are the viewer's and the dashboard's trainable/* metrics.
   */
  groupsVarying: number;
  /** Trajectories in those groups. */
  trajectoriesVarying: number;
}

/** JSONL lines longer than this are a fault (one line is one group). */
const MAX_LINE_BYTES = 256 * 1024 * 1024;

class Tally {
  groups = 0;
  trajectories = 0;
  groupsVarying = 0;
  trajectoriesVarying = 0;
  private values = new Float64Array(1024);
  private n = 0;

  group(rewards: number[], trajectories: number): void {
    this.groups++;
    this.trajectories += trajectories;
    if (trajectories > 1 && rewards.length === trajectories && !zeroVariance(rewards)) {
      this.groupsVarying++;
      this.trajectoriesVarying += trajectories;
    }
    for (const r of rewards) {
      if (this.n === this.values.length) {
        const grown = new Float64Array(this.values.length * 2);
        grown.set(this.values);
        this.values = grown;
      }
      this.values[this.n++] = r;
    }
  }

  stats(): StepStats {
    const sorted = this.values.subarray(0, this.n).sort();
    let sum = 0;
    for (const v of sorted) sum += v;
    return {
      groups: this.groups,
      trajectories: this.trajectories,
      rewards: this.n,
      mean: this.n ? sum / this.n : null,
      quantiles: this.n ? QUANTILES.map((p) => quantile(sorted, p)) : [],
      sketch: sketchOf(sorted),
      groupsVarying: this.groupsVarying,
      trajectoriesVarying: this.trajectoriesVarying,
    };
  }
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A Parquet step file's numbers from `group_index`, `trajectory_index` (version 2) and `reward`. */
async function parquetStats(path: string, signal?: AbortSignal): Promise<StepStats> {
  const { file, info } = await openArtParquet(path);
  try {
    const tally = new Tally();
    const v2 = info.version === 2;
    const hasReward = info.columns.includes('reward');
    const names = ['group_index', ...(v2 ? ['trajectory_index'] : []), ...(hasReward ? ['reward'] : [])];
    // Keyed by group_index: rows out of order still make their groups.
    const groups = new Map<unknown, { rewards: number[]; count: number }>();
    for await (const [, values] of file.rows(names, signal)) {
      const gi = values[0];
      const ti = v2 ? values[1] : 0;
      const reward = hasReward ? values[names.length - 1] : undefined;
      const key = typeof gi === 'bigint' ? Number(gi) : gi;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { rewards: [], count: 0 }));
      // Version 2: an empty group is one row with a null trajectory_index.
      if (ti === null || ti === undefined) continue;
      g.count++;
      if (finite(reward)) g.rewards.push(reward);
    }
    for (const g of groups.values()) tally.group(g.rewards, g.count);
    return tally.stats();
  } finally {
    await file.close();
  }
}

/** A JSONL step file's numbers, one group a line. A line that is not a group names its line. */
async function jsonlStats(path: string, signal?: AbortSignal): Promise<StepStats> {
  const tally = new Tally();
  for await (const line of readLines(path, { signal, maxLineBytes: MAX_LINE_BYTES })) {
    if (!line.text.trim()) continue;
    let group: unknown;
    try {
      group = JSON.parse(line.text);
    } catch (e) {
      throw new Error(`line ${line.line} is not JSON: ${(e as Error).message}`);
    }
    const trajectories = isObject(group) ? group.trajectories : undefined;
    if (!Array.isArray(trajectories)) throw new Error(`line ${line.line} is not a trajectory group (no "trajectories" list)`);
    const rewards: number[] = [];
    for (const t of trajectories) {
      const r = isObject(t) ? t.reward : undefined;
      if (finite(r)) rewards.push(r);
    }
    tally.group(rewards, trajectories.length);
  }
  return tally.stats();
}

/** The numbers of one step file (`.parquet` or `.jsonl`), from its small columns. */
export function readStepStats(path: string, signal?: AbortSignal): Promise<StepStats> {
  return formatOf(path) === 'parquet' ? parquetStats(path, signal) : jsonlStats(path, signal);
}

/** A step's stats, or why they could not be read. */
export type StepResult = { stats: StepStats; error?: undefined } | { stats?: undefined; error: string };

/**
 * Step stats by (path, size, mtime): a step file read once stays known until it changes. At most
 * `max` entries (the oldest go first); an entry is a few kilobytes.
 */
export class StepStatsCache {
  private readonly entries = new Map<string, { sig: string; result: StepResult }>();
  /** Step files read (not answered from the cache), for the tests and the bench. */
  reads = 0;

  constructor(private readonly max = 20_000) {}

  async get(file: { path: string; bytes: number; mtimeMs: number }, signal?: AbortSignal): Promise<StepResult> {
    const sig = `${file.bytes}:${file.mtimeMs}`;
    const had = this.entries.get(file.path);
    if (had?.sig === sig) return had.result;
    this.reads++;
    let result: StepResult;
    try {
      result = { stats: await readStepStats(file.path, signal) };
    } catch (e) {
      if (signal?.aborted) throw e;
      result = { error: e instanceof Error ? e.message : String(e) };
    }
    this.entries.delete(file.path);
    this.entries.set(file.path, { sig, result });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return result;
  }

  /** The cached result when the file has not changed, without reading. */
  peek(file: { path: string; bytes: number; mtimeMs: number }): StepResult | undefined {
    const had = this.entries.get(file.path);
    return had?.sig === `${file.bytes}:${file.mtimeMs}` ? had.result : undefined;
  }
}

/** A step's stats as the dashboard's message carries them. */
export function toDistribution(step: number, file: string, r: StepResult): StepDistribution {
  if (!r.stats) return { step, file, groups: 0, trajectories: 0, rewards: 0, mean: null, quantiles: [], sketch: [], error: r.error.slice(0, 2000) };
  const s = r.stats;
  return { step, file, groups: s.groups, trajectories: s.trajectories, rewards: s.rewards, mean: s.mean, quantiles: s.quantiles, sketch: s.sketch };
}
