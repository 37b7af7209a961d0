/** Per-group numbers of the viewer's indexes, in typed arrays: memory grows with groups, not bytes. */
import type { GroupStats } from './shapes';

/** A typed array that grows by doubling. */
export class Column<T extends Float64Array | Uint32Array | Uint8Array> {
  length = 0;
  constructor(
    private data: T,
    private readonly make: (n: number) => T,
  ) {}
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = this.make(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
  get(i: number): number {
    return this.data[i]!;
  }
  /** The values pushed, without a copy. */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }
}
export const f64 = () => new Column(new Float64Array(1024), (n) => new Float64Array(n));
export const u32 = () => new Column(new Uint32Array(1024), (n) => new Uint32Array(n));
export const u8 = () => new Column(new Uint8Array(1024), (n) => new Uint8Array(n));

/** Flag bits of a group: its rewards give no learning signal; the next ones are the index's own. */
export const ZERO_VARIANCE = 1;
/** Reward ticks a group row carries for its strip. */
const MAX_TICKS = 256;

/**
 * The per-group numbers both viewer indexes keep (JSON/JSONL and Parquet): trajectory count,
 * exceptions, flags, reward stats and the rewards themselves, and the file's reward range.
 */
export class GroupStatsColumns {
  rewardMin: number | null = null;
  rewardMax: number | null = null;
  private readonly count = u32();
  private readonly exceptions = u32();
  private readonly flagBits = u8();
  private readonly mean = f64();
  private readonly std = f64();
  private readonly min = f64();
  private readonly max = f64();
  private readonly rewardsAt = u32();
  private readonly rewards = f64();

  constructor() {
    this.rewardsAt.push(0);
  }

  /** Adds the next group: `count` trajectories, the valid `rewards` among them, their stats, extra flag bits. */
  add(count: number, rewards: readonly number[], stats: GroupStats, flags = 0): void {
    this.count.push(count);
    this.exceptions.push(stats.exceptions);
    this.flagBits.push((stats.zeroVariance ? ZERO_VARIANCE : 0) | flags);
    this.mean.push(stats.mean ?? NaN);
    this.std.push(stats.std ?? NaN);
    this.min.push(stats.min ?? NaN);
    this.max.push(stats.max ?? NaN);
    for (const r of rewards) this.rewards.push(r);
    this.rewardsAt.push(this.rewards.length);
    if (stats.min !== null && (this.rewardMin === null || stats.min < this.rewardMin)) this.rewardMin = stats.min;
    if (stats.max !== null && (this.rewardMax === null || stats.max > this.rewardMax)) this.rewardMax = stats.max;
  }

  flags(i: number): number {
    return this.flagBits.get(i);
  }

  /** Trajectories of group `i`, valid rewards or not. */
  trajectories(i: number): number {
    return this.count.get(i);
  }

  /** Group `i`'s stats; `count` defaults to its trajectories. */
  stats(i: number, count = this.count.get(i)): GroupStats {
    const n = (c: Column<Float64Array>) => (Number.isNaN(c.get(i)) ? null : c.get(i));
    return { count, mean: n(this.mean), std: n(this.std), min: n(this.min), max: n(this.max), zeroVariance: (this.flagBits.get(i) & ZERO_VARIANCE) !== 0, exceptions: this.exceptions.get(i) };
  }

  /** How many valid rewards group `i` has. */
  rewardCount(i: number): number {
    return this.rewardsAt.get(i + 1) - this.rewardsAt.get(i);
  }

  /** Up to 256 of group `i`'s rewards, evenly spread, for its reward strip. */
  ticks(i: number): number[] {
    const a = this.rewardsAt.get(i);
    const n = this.rewardsAt.get(i + 1) - a;
    const step = Math.max(1, n / MAX_TICKS);
    const ticks: number[] = [];
    for (let k = 0; k < n && ticks.length < MAX_TICKS; k = Math.floor(ticks.length * step)) ticks.push(this.rewards.get(a + k));
    return ticks;
  }
}
