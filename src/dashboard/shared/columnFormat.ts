/**
 * One number format per table column, picked from the column's values, so `1.000e-4` never
 * stands next to `0.0033`. Pure: shared by the dashboard webviews and the tests.
 */

/** Fixed decimals are used when every non-zero |value| is in [FIXED_MIN, FIXED_MAX). */
export const FIXED_MIN = 1e-3;
export const FIXED_MAX = 1e6;
/** Significant digits the smallest value keeps in fixed notation, and in exponent notation. */
const DIGITS = 4;
const MAX_DECIMALS = 6;

export type ColumnFormat = { kind: 'fixed'; decimals: number } | { kind: 'exponent'; digits: number };

/**
 * The format of a column: fixed with enough decimals for the smallest non-zero |value| to keep
 * four significant digits (integers get none), when all values are in [1e-3, 1e6); exponent
 * notation for every value otherwise.
 */
export function columnFormat(values: Iterable<number | null | undefined>): ColumnFormat {
  let min = Infinity;
  let max = 0;
  let integers = true;
  for (const v of values) {
    if (v === null || v === undefined || !Number.isFinite(v)) continue;
    if (!Number.isInteger(v)) integers = false;
    const a = Math.abs(v);
    if (a === 0) continue;
    if (a < min) min = a;
    if (a > max) max = a;
  }
  if (min === Infinity) return { kind: 'fixed', decimals: 0 };
  if (min < FIXED_MIN || max >= FIXED_MAX) return { kind: 'exponent', digits: DIGITS - 1 };
  if (integers) return { kind: 'fixed', decimals: 0 };
  // Digits before the point of the smallest value (0.0033 -> -2): decimals that keep DIGITS significant.
  const magnitude = Math.floor(Math.log10(min)) + 1;
  return { kind: 'fixed', decimals: Math.min(MAX_DECIMALS, Math.max(0, DIGITS - magnitude)) };
}

export function formatWith(format: ColumnFormat, v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '';
  return format.kind === 'fixed' ? v.toFixed(format.decimals) : v.toExponential(format.digits);
}

/** A formatter for a column's values. */
export function columnFormatter(values: Iterable<number | null | undefined>): (v: number | null | undefined) => string {
  const f = columnFormat(values);
  return (v) => formatWith(f, v);
}

/**
 * Where the table scrolls after a sort: the selected row's new position kept in view (centred
 * when it is out of view), else the top.
 */
export function scrollAfterSort(selectedPos: number | undefined, rowHeight: number, viewHeight: number, scrollTop: number): number {
  if (selectedPos === undefined || selectedPos < 0) return 0;
  const top = selectedPos * rowHeight;
  if (top >= scrollTop && top + rowHeight <= scrollTop + viewHeight) return scrollTop;
  return Math.max(0, top - Math.max(0, viewHeight - rowHeight) / 2);
}
