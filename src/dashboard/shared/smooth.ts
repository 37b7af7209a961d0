/** Chart smoothing. Pure, shared with the webview. */

/**
 * Exponential moving average with TensorBoard's debiasing (the first points are not pulled
 * toward 0). `weight` 0 returns the values; missing values stay missing and do not move it.
 */
export function smoothEma(values: readonly (number | null)[], weight: number): (number | null)[] {
  if (!(weight > 0)) return values.slice();
  const w = Math.min(weight, 0.999);
  const out = new Array<number | null>(values.length);
  let last = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      out[i] = null;
      continue;
    }
    last = last * w + (1 - w) * v;
    n++;
    out[i] = last / (1 - Math.pow(w, n));
  }
  return out;
}
