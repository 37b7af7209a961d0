/**
 * The reward distribution of a step: quantiles, a bounded sketch of the sorted rewards, and the
 * histogram bins the dashboard draws over a range shared by every step of a split. Pure: the
 * extension computes the summaries from the step files' small columns (src/dashboard/stepStats.ts), the
 * webview bins them for the heat map, and both use these functions.
 */
import * as z from 'zod/mini';

/** The quantiles a step carries, in this order (0 and 1 are the minimum and the maximum). */
export const QUANTILES = [0, 0.05, 0.25, 0.5, 0.75, 0.95, 1] as const;
/** At most this many order statistics stand for a step's rewards (all of them when there are fewer). */
export const SKETCH_SIZE = 256;
/** Histogram bins per step. */
export const BINS = 20;

/**
 * The p-quantile of ascending values, interpolated linearly between order statistics (the
 * definition of numpy's default and R's type 7). NaN for no values.
 */
export function quantile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (!n) return NaN;
  const h = (n - 1) * Math.min(1, Math.max(0, p));
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** The sketch of ascending values: all of them up to SKETCH_SIZE, else SKETCH_SIZE evenly spaced quantiles. */
export function sketchOf(sorted: ArrayLike<number>, size = SKETCH_SIZE): number[] {
  const n = sorted.length;
  if (n <= size) return Array.from(sorted);
  const out: number[] = [];
  for (let i = 0; i < size; i++) out.push(quantile(sorted, i / (size - 1)));
  return out;
}

/**
 * A step's `count` rewards, as its sketch gives them, in `bins` equal bins over [lo, hi] (the last
 * bin closed). Each sketch value stands for count / sketch.length rewards, so the bins add up to
 * `count` (exactly when the sketch holds every reward).
 */
export function binsOf(sketch: readonly number[], count: number, lo: number, hi: number, bins = BINS): number[] {
  const out = new Array<number>(bins).fill(0);
  if (!sketch.length) return out;
  const weight = count / sketch.length;
  const width = hi - lo;
  for (const v of sketch) {
    const b = width > 0 ? Math.min(bins - 1, Math.max(0, Math.floor(((v - lo) / width) * bins))) : 0;
    out[b]! += weight;
  }
  return out;
}

/** The bounds of bin `b` of `bins` over [lo, hi]. */
export function binBounds(b: number, lo: number, hi: number, bins = BINS): { min: number; max: number } {
  const width = (hi - lo) / bins;
  return width > 0 ? { min: lo + b * width, max: b === bins - 1 ? hi : lo + (b + 1) * width } : { min: lo, max: hi };
}

/**
 * The reward band to open for bin `b`: its bounds, both included, widened by a billionth of the
 * range, so that every reward binsOf counted in the bin passes the viewer's `min ≤ reward ≤ max`
 * (0.3 is in bin 6 of 20 over [0, 1], whose lower edge computes as 0.30000000000000004). A reward
 * on an edge shows in both cells' bands.
 */
export function bandOf(b: number, lo: number, hi: number, bins = BINS): { min: number; max: number } {
  const { min, max } = binBounds(b, lo, hi, bins);
  const tol = (hi - lo) * 1e-9;
  return { min: b === 0 ? lo : min - tol, max: b === bins - 1 ? hi : max + tol };
}

const num = z.number().check(z.refine((x) => Number.isFinite(x), { message: 'expected a finite number' }));
const count = z.int().check(z.minimum(0));

/** One step's distribution, as the dashboard receives it. */
export const StepDistribution = z.object({
  step: count,
  /** The step file's name (`0030.parquet`). */
  file: z.string().check(z.maxLength(300)),
  groups: count,
  trajectories: count,
  /** Rewards that are numbers (the others are left out and counted in trajectories only). */
  rewards: count,
  mean: z.nullable(num),
  /** QUANTILES of the rewards, in order; empty when the step has no reward. */
  quantiles: z.array(num).check(z.maxLength(QUANTILES.length)),
  sketch: z.array(num).check(z.maxLength(SKETCH_SIZE)),
  /** Why the file could not be read (then no numbers). */
  error: z.optional(z.string().check(z.maxLength(2000))),
});
export type StepDistribution = z.infer<typeof StepDistribution>;
