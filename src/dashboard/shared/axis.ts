/**
 * The y axis of a metric whose values are all the same (an exception rate that stayed 0, a
 * constant learning rate). uPlot gives such a line 0–100, which reads as a scale next to a sibling
 * chart of 0–0.1. Here it takes its group's scale (train/, val/, loss/, ...: the charts beside it)
 * when a sibling varies, and otherwise a range around the value. Pure: shared by the dashboard
 * webview and the tests.
 */

/** The data extent of each sibling metric (same group, at least two different values), [min, max]. */
export type Extent = readonly [number, number];

/** The y range of a flat line at `value`, given the extents of the charts beside it. */
export function flatAxis(value: number, siblings: readonly Extent[]): [number, number] {
  const varying = siblings.filter(([lo, hi]) => Number.isFinite(lo) && Number.isFinite(hi) && hi > lo);
  if (varying.length) {
    const lo = Math.min(value, ...varying.map((e) => e[0]));
    const hi = Math.max(value, ...varying.map((e) => e[1]));
    if (hi > lo) return [lo, hi];
  }
  if (value === 0) return [0, 1];
  return value > 0 ? [0, 2 * value] : [2 * value, 0];
}

/** The finite extent of values, or undefined when there are none. */
export function extentOf(values: Iterable<number | null | undefined>): Extent | undefined {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo === Infinity ? undefined : [lo, hi];
}
