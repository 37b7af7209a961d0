/**
 * The order of a version 2 step file's rows, from its two small columns alone (`group_index`,
 * `trajectory_index`). ART's writer puts the rows in (group, trajectory) order, but ART's reader
 * (`read_trajectory_groups_parquet`, docs/parquet.md) sorts them, so a file filtered or shuffled
 * in pandas or pyarrow and written back is still one of ART's files. This index says whether the
 * rows are already in order (then they are read as they lie, one page at a time), and otherwise
 * gives the rows of each group in order, so that the groups can be read in order with memory
 * bounded by these arrays (a few bytes per row), never by the file. No `vscode` import.
 */
import { ParquetError, type ParquetFile } from './parquet';
import { f64 } from './columns';

/** The rows of a file whose rows are not in (group, trajectory) order, group by group. */
export interface RowGroups {
  rows: number;
  /** Rows in (group_index, trajectory_index, row) order; a null `trajectory_index` sorts first. */
  perm: Uint32Array;
  /** Group g's rows are `perm[start[g]]` … `perm[start[g + 1] - 1]`; `start` has `groups + 1` entries. */
  start: Uint32Array;
  /** Group g's `group_index` (groups ascending, each once). */
  groupIndex: Float64Array;
  groups: number;
  /** The group (0-based, in order) of each row. */
  groupOfRow: Uint32Array;
  /** Whether each row's `trajectory_index` is null (an empty group's row). */
  sentinel: Uint8Array;
}

export type RowOrder = { rows: number; inOrder: true } | ({ inOrder: false } & RowGroups);

const show = (v: unknown): string => (v === null || v === undefined ? 'null' : typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? typeof v));
const isIndex = (v: unknown): v is number | bigint => typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));

/**
 * Reads `group_index` and `trajectory_index` of every row and sorts the rows when they are not in
 * order. A `group_index` that is not an integer is a ParquetError naming its row (nothing can be
 * placed without it); a bad `trajectory_index` is placed first in its group, for the group's own
 * checks to name.
 */
export async function rowOrder(file: ParquetFile, signal?: AbortSignal): Promise<RowOrder> {
  const gis = f64();
  const tis = f64();
  let inOrder = true;
  let prevG = -Infinity;
  let prevT = -Infinity;
  for await (const [row, [gi, ti]] of file.rows(['group_index', 'trajectory_index'], signal)) {
    if (!isIndex(gi)) throw new ParquetError(`row ${row}: group_index is ${show(gi)}, not an integer`, row);
    const g = Number(gi);
    // Null first, a value that is not an integer next, then the indexes.
    const t = ti === null || ti === undefined ? -Infinity : isIndex(ti) ? Number(ti) : -Number.MAX_VALUE;
    if (g < prevG || (g === prevG && t < prevT)) inOrder = false;
    prevG = g;
    prevT = t;
    gis.push(g);
    tis.push(t);
  }
  const rows = gis.length;
  if (inOrder) return { rows, inOrder: true };
  signal?.throwIfAborted();
  const g = gis.view();
  const t = tis.view();
  const perm = await sortRows(rows, (a, b) => g[a]! - g[b]! || (t[a] === t[b] ? 0 : t[a]! < t[b]! ? -1 : 1) || a - b, signal);
  const groupOfRow = new Uint32Array(rows);
  const sentinel = new Uint8Array(rows);
  const starts: number[] = [];
  const indexes: number[] = [];
  for (let p = 0; p < rows; p++) {
    const r = perm[p]!;
    if (p === 0 || g[r] !== g[perm[p - 1]!]) {
      starts.push(p);
      indexes.push(g[r]!);
    }
    groupOfRow[r] = starts.length - 1;
    if (t[r] === -Infinity) sentinel[r] = 1;
  }
  starts.push(rows);
  return { rows, inOrder: false, perm, start: Uint32Array.from(starts), groupIndex: Float64Array.from(indexes), groups: indexes.length, groupOfRow, sentinel };
}

/** The rows of group `g` in order. */
export function rowsOfGroup(order: RowGroups, g: number): Uint32Array {
  return order.perm.subarray(order.start[g]!, order.start[g + 1]!);
}

/** Rows sorted in runs of this many, then merged. */
const RUN = 4096;
/** The longest stretch of sorting between two yields to the event loop. */
const SLICE_MS = 20;

/**
 * 0 … n-1 sorted by `cmp`, stable: a merge sort in slices that gives the event loop back every
 * 20 ms (a million rows take about a second to sort: the extension host must not freeze for it).
 */
export async function sortRows(n: number, cmp: (a: number, b: number) => number, signal?: AbortSignal): Promise<Uint32Array> {
  let from = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  let since = performance.now();
  const pause = async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    since = performance.now();
  };
  for (let i = 0; i < n; i += RUN) {
    from.subarray(i, Math.min(n, i + RUN)).sort(cmp);
    await pause();
  }
  let to = new Uint32Array(n);
  for (let width = RUN; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(n, lo + width);
      const hi = Math.min(n, lo + 2 * width);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        to[k++] = cmp(from[j]!, from[i]!) < 0 ? from[j++]! : from[i++]!;
        if ((k & 0x1fff) === 0) await pause();
      }
      while (i < mid) to[k++] = from[i++]!;
      while (j < hi) to[k++] = from[j++]!;
      await pause();
    }
    [from, to] = [to, from];
  }
  return from;
}
