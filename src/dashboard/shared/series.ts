/**
 * The checkpoints of one model as columns (ids, steps, one array per metric), sorted by step.
 * Pure: no vscode and no DOM import, so the extension and the dashboard webview share it.
 *
 * Metric names are data: every record keyed by them is a null-prototype one (dict()), and a record
 * from outside is read by its own keys only (own()), so "__proto__", "constructor" or "toString"
 * are metrics like any other.
 */
import { dict, own } from '../../api/dict';

/** A checkpoint as the dashboard keeps it: numbers only (other metric values count as missing). */
export interface CheckpointRow {
  id: string;
  step: number;
  metrics: Record<string, number | null>;
}

/** Checkpoints as columns: the shape of the messages to the webview and of uPlot's data. */
export interface Columns {
  ids: string[];
  steps: number[];
  metrics: Record<string, (number | null)[]>;
}

/** What a merge did: rows added (indices after the merge, ascending) and rows updated in place. */
export interface MergeResult {
  added: number;
  updated: number;
  /** Whether an added row went before the last row (a late checkpoint): indices shifted. */
  inserted: boolean;
}

/** A finite number, or null for anything else (strings, booleans, NaN cannot be charted). */
export function numericOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Rows from the service's checkpoints (`metrics` is a free-form object). */
export function rowsFromCheckpoints(checkpoints: readonly { id: string; step: number; metrics: Record<string, unknown> }[]): CheckpointRow[] {
  return checkpoints.map((c) => {
    const metrics = dict<number | null>();
    for (const [k, v] of Object.entries(c.metrics)) metrics[k] = numericOrNull(v);
    return { id: c.id, step: c.step, metrics };
  });
}

/** The service's checkpoints as columns (what a page becomes before it is merged and sent). */
export function columnsFromCheckpoints(checkpoints: readonly { id: string; step: number; metrics: Record<string, unknown> }[]): Columns {
  const n = checkpoints.length;
  const metrics = dict<(number | null)[]>();
  checkpoints.forEach((c, i) => {
    for (const k in c.metrics) {
      if (!Object.prototype.hasOwnProperty.call(c.metrics, k)) continue;
      const col = (metrics[k] ??= new Array<number | null>(n).fill(null));
      col[i] = numericOrNull(c.metrics[k]); // k is an own key of c.metrics
    }
  });
  return { ids: checkpoints.map((c) => c.id), steps: checkpoints.map((c) => c.step), metrics };
}

/** Several column sets as one (a metric missing from a set is null for its rows). */
export function concatColumns(parts: readonly Columns[]): Columns {
  if (parts.length === 1) return parts[0]!;
  const names = new Set<string>();
  for (const p of parts) for (const k of Object.keys(p.metrics)) names.add(k);
  const metrics = dict<(number | null)[]>();
  for (const k of names) metrics[k] = parts.flatMap((p) => own(p.metrics, k) ?? new Array<number | null>(p.ids.length).fill(null));
  return { ids: parts.flatMap((p) => p.ids), steps: parts.flatMap((p) => p.steps), metrics };
}

/**
 * Columns as the dashboards' messages carry them: the steps and every metric as a Float64Array
 * (NaN where a value is missing), all views of one ArrayBuffer. VS Code passes a message's
 * ArrayBuffers to the webview as bytes; plain arrays of numbers would be JSON-encoded in the
 * extension host and decoded again on the way (300,000 numbers for a 10,000 × 30 dashboard).
 * Plain arrays (null where missing) are accepted as well.
 */
export interface WireColumns {
  ids: string[];
  steps: Float64Array | number[];
  metrics: Record<string, Float64Array | (number | null)[]>;
}

/** Several column sets as one message (what concatColumns does, straight into one buffer). */
export function columnsToWire(parts: readonly Columns[]): WireColumns {
  const names: string[] = [];
  const seen = new Set<string>();
  let n = 0;
  for (const p of parts) {
    n += p.ids.length;
    for (const k in p.metrics) {
      if (seen.has(k)) continue;
      seen.add(k);
      names.push(k);
    }
  }
  const buffer = new ArrayBuffer(8 * n * (names.length + 1));
  const column = (i: number) => new Float64Array(buffer, 8 * n * i, n);
  const steps = column(0);
  const metrics = dict<Float64Array>();
  names.forEach((k, i) => (metrics[k] = column(i + 1)));
  const ids: string[] = [];
  let at = 0;
  for (const p of parts) {
    const len = p.ids.length;
    for (let i = 0; i < len; i++) {
      ids.push(p.ids[i]!);
      steps[at + i] = p.steps[i]!;
    }
    for (const k of names) {
      const to = metrics[k]!;
      const from = own(p.metrics, k);
      if (!from) to.fill(NaN, at, at + len);
      else for (let i = 0; i < len; i++) to[at + i] = from[i] ?? NaN;
    }
    at += len;
  }
  return { ids, steps, metrics };
}

/** A message's columns as the series keeps them (NaN becomes null). */
export function columnsFromWire(wire: WireColumns): Columns {
  const plain = (v: Float64Array | (number | null)[]): (number | null)[] => {
    if (Array.isArray(v)) return v;
    const out = new Array<number | null>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = v[i] === v[i] ? v[i]! : null;
    return out;
  };
  const metrics = dict<(number | null)[]>();
  for (const k of Object.keys(wire.metrics)) metrics[k] = plain(wire.metrics[k]!);
  return { ids: wire.ids, steps: Array.isArray(wire.steps) ? wire.steps : Array.from(wire.steps), metrics };
}

export function rowsFromColumns(cols: Columns): CheckpointRow[] {
  const names = Object.keys(cols.metrics);
  return cols.ids.map((id, i) => {
    const metrics = dict<number | null>();
    for (const k of names) {
      const v = cols.metrics[k]![i];
      if (v !== null && v !== undefined) metrics[k] = v;
    }
    return { id, step: cols.steps[i]!, metrics };
  });
}

export class CheckpointSeries {
  readonly ids: string[] = [];
  readonly steps: number[] = [];
  /** Metric name -> one value per row (null where that checkpoint lacks it). */
  readonly columns = new Map<string, (number | null)[]>();
  private index: Map<string, number> | undefined = new Map();

  get length(): number {
    return this.ids.length;
  }

  /** Metric names in the order they were first seen. */
  metricNames(): string[] {
    return [...this.columns.keys()];
  }

  indexOf(id: string): number {
    if (!this.index) {
      this.index = new Map();
      this.ids.forEach((x, i) => this.index!.set(x, i));
    }
    return this.index.get(id) ?? -1;
  }

  value(metric: string, row: number): number | null {
    return this.columns.get(metric)?.[row] ?? null;
  }

  row(i: number): CheckpointRow {
    const metrics = dict<number | null>();
    for (const [k, col] of this.columns) metrics[k] = col[i] ?? null;
    return { id: this.ids[i]!, step: this.steps[i]!, metrics };
  }

  clear(): void {
    this.ids.length = 0;
    this.steps.length = 0;
    this.columns.clear();
    this.index = new Map();
  }

  /**
   * Merges checkpoints in any order, repeated or not: a known id gets its non-null values
   * updated (a validation metric may arrive later), a new id goes to its place by step (after
   * rows of the same step). The usual case, new steps after the last, only appends.
   */
  merge(rows: readonly CheckpointRow[]): MergeResult {
    const result: MergeResult = { added: 0, updated: 0, inserted: false };
    for (const r of rows) {
      const at = this.indexOf(r.id);
      if (at >= 0) {
        let changed = false;
        for (const [k, v] of Object.entries(r.metrics)) {
          if (v === null) continue;
          const col = this.column(k);
          if (col[at] !== v) {
            col[at] = v;
            changed = true;
          }
        }
        if (changed) result.updated++;
        continue;
      }
      const n = this.ids.length;
      const pos = n === 0 || this.steps[n - 1]! <= r.step ? n : upperBound(this.steps, r.step);
      if (pos < n) result.inserted = true;
      this.insertAt(pos, r);
      result.added++;
    }
    return result;
  }

  /**
   * Merges checkpoints sent as columns. The common case (every id new, steps ascending and not
   * before the last row) appends the columns as they are; anything else goes row by row.
   */
  mergeColumns(cols: Columns): MergeResult {
    const n = cols.ids.length;
    const last = this.steps.length ? this.steps[this.steps.length - 1]! : -Infinity;
    let appendable = n === 0 || cols.steps[0]! >= last;
    for (let i = 1; appendable && i < n; i++) if (cols.steps[i]! < cols.steps[i - 1]!) appendable = false;
    if (appendable) {
      const ids = new Set<string>();
      for (const id of cols.ids) {
        if (ids.has(id) || this.indexOf(id) >= 0) {
          appendable = false;
          break;
        }
        ids.add(id);
      }
    }
    if (!appendable) return this.merge(rowsFromColumns(cols));
    const before = this.ids.length;
    for (const name of Object.keys(cols.metrics)) this.column(name);
    for (const [name, col] of this.columns) {
      const add = own(cols.metrics, name);
      if (add) for (let i = 0; i < n; i++) col.push(add[i] ?? null);
      else for (let i = 0; i < n; i++) col.push(null);
    }
    for (let i = 0; i < n; i++) {
      this.ids.push(cols.ids[i]!);
      this.steps.push(cols.steps[i]!);
      this.index?.set(cols.ids[i]!, before + i);
    }
    return { added: n, updated: 0, inserted: false };
  }

  /** Columns of rows [from, to), for a message. */
  slice(from = 0, to = this.length): Columns {
    const metrics = dict<(number | null)[]>();
    for (const [k, col] of this.columns) metrics[k] = col.slice(from, to);
    return { ids: this.ids.slice(from, to), steps: this.steps.slice(from, to), metrics };
  }

  private column(name: string): (number | null)[] {
    let col = this.columns.get(name);
    if (!col) {
      col = new Array<number | null>(this.ids.length).fill(null);
      this.columns.set(name, col);
    }
    return col;
  }

  private insertAt(pos: number, r: CheckpointRow): void {
    for (const k of Object.keys(r.metrics)) this.column(k);
    const append = pos === this.ids.length;
    if (append) {
      this.ids.push(r.id);
      this.steps.push(r.step);
      for (const [k, col] of this.columns) col.push(own(r.metrics, k) ?? null);
      this.index?.set(r.id, pos);
      return;
    }
    this.ids.splice(pos, 0, r.id);
    this.steps.splice(pos, 0, r.step);
    for (const [k, col] of this.columns) col.splice(pos, 0, own(r.metrics, k) ?? null);
    this.index = undefined; // every later row moved
  }
}

/** First index whose value is greater than `x` in an ascending array. */
function upperBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
