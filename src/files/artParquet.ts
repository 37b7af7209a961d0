/**
 * ART's Parquet step files, over the page-by-page reader of parquet.ts. No `vscode` import.
 *
 * The official client (OpenPipe ART, `write_trajectory_groups_parquet`) writes each training step
 * to `.art/<project>/models/<model>/trajectories/<split>/<step:04d>.parquet` with pyarrow's
 * defaults: Zstd, one row group, data pages of about 1 MiB, no page index. One row group means that
 * reading "row group by row group" bounds nothing, so the columns are read here one data page at a
 * time, straight from the file: memory holds one page per column read, never the file.
 *
 * Two formats (docs/parquet.md):
 * - version 2: key-value metadata `art.trajectory_parquet.version = "2"`, one row per trajectory
 *   ordered by `group_index`, `trajectory_index` (ART's reader sorts them, and so does this one);
 *   an empty group is one row whose
 *   `trajectory_index` is null. `group_json` (the group without `trajectories`) and
 *   `trajectory_json` are the client's compact dumps and authoritative; the other columns are
 *   copies for analytics.
 * - version 1: no version key, only the analytics columns. A group cannot be rebuilt exactly from
 *   them (the choices' finish reasons and logprobs, `additional_histories`, the group's exceptions
 *   and every unknown field are gone), so this module never rebuilds one: it says the file is v1.
 *
 * Rows and groups are counted from 0, as `group_index` and pandas/DuckDB rows are.
 */
import { InvalidUtf8, ParquetError, ParquetFile, type ParquetInfo } from './parquet';
import { rowOrder } from './parquetOrder';

/** The key-value metadata key that marks ART's format version. */
export const ART_VERSION_KEY = 'art.trajectory_parquet.version';
/** The format this reader reads exactly. */
export const ART_PARQUET_VERSION = 2;

export interface ArtParquetInfo extends ParquetInfo {
  /** 2: `group_json` and `trajectory_json`, exact. 1: the analytics columns only, lossy. */
  version: 1 | 2;
}

/** A group of a version 2 file, as its rows hold it. */
export interface ArtGroup {
  /** `group_index`. */
  group: number;
  /** The first and last row of the group in the file (0-based, inclusive). */
  firstRow: number;
  lastRow: number;
  /**
   * The row of each trajectory, in `trajectory_index` order, when they are not `firstRow`,
   * `firstRow + 1`, … (rows out of order); see `rowOfTrajectory`.
   */
  rows?: number[];
  /** `group_json`: the group without `trajectories`. */
  groupJson: string;
  /** `trajectory_json` of each trajectory, in `trajectory_index` order (none for an empty group). */
  trajectories: string[];
  /** Rows whose `group_json` or `trajectory_json` is not valid UTF-8 (sent with U+FFFD there). */
  invalidUtf8?: number[];
}

/** The row of trajectory `i` of a group. */
export function rowOfTrajectory(g: Pick<ArtGroup, 'firstRow' | 'rows'>, i: number): number {
  return g.rows?.[i] ?? g.firstRow + i;
}

/** A group whose rows break the format: it is not yielded as a group. */
export interface ArtGroupFault {
  fault: ParquetError;
}

export interface ReadParquetOptions {
  signal?: AbortSignal;
  /** Groups whose JSON would be larger are a fault, not a group (memory stays bounded). Default 64 MiB. */
  maxGroupBytes?: number;
  /** Rows out of order: the texts held at once while gathering groups (at least `maxGroupBytes`). Default 64 MiB. */
  windowBytes?: number;
}

const DEFAULT_MAX_GROUP_BYTES = 64 * 1024 * 1024;

/**
 * The group's JSON as the client's `model_dump` gives it: `trajectories` is TrajectoryGroup's first
 * field, so it goes first, spliced into `group_json` as text. An empty group is `group_json` as
 * it is (a compact dump leaves the empty list out).
 */
export function groupText(g: Pick<ArtGroup, 'groupJson' | 'trajectories'>): string {
  if (g.trajectories.length === 0) return g.groupJson;
  const rest = g.groupJson.replace(/^\s*\{\s*/, '');
  const list = `{"trajectories":[${g.trajectories.join(',')}]`;
  return rest.startsWith('}') ? `${list}}` : `${list},${rest}`;
}

/** Which of ART's formats the file is; a file that is neither is a ParquetError. */
export function artVersion(info: ParquetInfo): 1 | 2 {
  const raw = info.keyValue[ART_VERSION_KEY];
  const canonical = info.columns.includes('group_json') || info.columns.includes('trajectory_json');
  if (raw !== undefined) {
    if (raw.trim() !== String(ART_PARQUET_VERSION)) throw new ParquetError(`has ART trajectory format version "${raw}" (${ART_VERSION_KEY}); this extension reads version ${ART_PARQUET_VERSION} (and 1)`);
    for (const c of ['group_index', 'trajectory_index', 'group_json', 'trajectory_json']) {
      if (!info.columns.includes(c)) throw new ParquetError(`is ART's trajectory format version 2 but has no "${c}" column`);
    }
    return 2;
  }
  if (canonical) throw new ParquetError(`has group_json/trajectory_json columns but no ${ART_VERSION_KEY} metadata: it is not a file ART wrote`);
  if (!info.columns.includes('group_index') || !info.columns.includes('messages')) {
    throw new ParquetError(`is not an ART trajectory file: it has neither ${ART_VERSION_KEY} metadata nor ART's columns (group_index, messages, reward, …)`);
  }
  return 1;
}

/** Opens an ART step file and tells its format; the caller closes it. */
export async function openArtParquet(path: string): Promise<{ file: ParquetFile; info: ArtParquetInfo }> {
  const file = await ParquetFile.open(path);
  try {
    const info = file.info();
    return { file, info: { ...info, version: artVersion(info) } };
  } catch (e) {
    await file.close();
    throw e;
  }
}

const show = (v: unknown): string => (v === null || v === undefined ? 'null' : typeof v === 'bigint' ? v.toString() : (JSON.stringify(v) ?? typeof v));
const isIndex = (v: unknown): v is number | bigint => (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v)));

/**
 * Rows in (group, trajectory) order make groups: the row checks of ART's reader, group by group.
 * A fault keeps the group from being yielded; its texts are not kept.
 */
class GroupAssembler {
  private cur: (ArtGroup & { fault?: ParquetError; bytes: number; count: number; sentinel: boolean; head: number }) | undefined;
  private expected = 0;
  constructor(private readonly maxBytes: number) {}

  /** The next row in order; gives the group it ends, if any. */
  *push(row: number, gi: unknown, ti: unknown, rawGj: unknown, rawTj: unknown, fv: unknown): Generator<ArtGroup | ArtGroupFault> {
    const invalid = rawGj instanceof InvalidUtf8 || rawTj instanceof InvalidUtf8;
    const gj = rawGj instanceof InvalidUtf8 ? rawGj.text : rawGj;
    const tj = rawTj instanceof InvalidUtf8 ? rawTj.text : rawTj;
    if (!isIndex(gi)) throw new ParquetError(`row ${row}: group_index is ${show(gi)}, not an integer`, row);
    const group = Number(gi);
    if (!this.cur || group !== this.cur.group) {
      yield* this.finish();
      if (group > this.expected) yield { fault: new ParquetError(`row ${row}, group ${group}: ${group - this.expected === 1 ? `group ${this.expected} is missing` : `groups ${this.expected}–${group - 1} are missing`} (group_index jumps from ${this.expected - 1} to ${group})`, row, group) };
      const negative = group < this.expected;
      this.expected = Math.max(this.expected, group + 1);
      if (typeof gj !== 'string') throw new ParquetError(`row ${row}, group ${group}: group_json is null`, row, group);
      this.cur = { group, firstRow: row, lastRow: row, head: row, groupJson: gj, trajectories: [], bytes: gj.length, count: 0, sentinel: false };
      if (negative) this.cur.fault = new ParquetError(`row ${row}, group ${group}: group_index ${group} is negative: ART numbers the groups from 0`, row, group);
    }
    const g = this.cur;
    g.firstRow = Math.min(g.firstRow, row);
    g.lastRow = Math.max(g.lastRow, row);
    if (invalid) (g.invalidUtf8 ??= []).push(row);
    const at = `row ${row}, group ${group}`;
    const fault = (message: string) => (g.fault ??= new ParquetError(`${at}: ${message}`, row, group));
    if (fv !== undefined && fv !== null && Number(fv) !== ART_PARQUET_VERSION) fault(`format_version is ${show(fv)}, not ${ART_PARQUET_VERSION}`);
    if (gj !== g.groupJson) fault(`group_json differs from row ${g.head}'s: the rows of one group must carry the same group`);
    if (ti === null || ti === undefined) {
      if (tj !== null && tj !== undefined) fault('trajectory_index is null (an empty group) but trajectory_json is set');
      if (g.sentinel || g.count) fault('an empty-group row (trajectory_index null) beside other rows of the group');
      g.sentinel = true;
      return;
    }
    if (!isIndex(ti)) {
      fault(`trajectory_index is ${show(ti)}, not an integer`);
      return;
    }
    if (g.sentinel) fault('an empty-group row (trajectory_index null) beside other rows of the group');
    const index = Number(ti);
    if (index !== g.count) {
      fault(index < 0 ? `trajectory_index ${index} is negative` : index < g.count ? `trajectory_index ${index} is repeated` : `trajectory_index ${index} where ${g.count} was expected: trajectory ${g.count} is missing`);
      return;
    }
    g.count++;
    if (typeof tj !== 'string') fault('trajectory_json is null');
    else if ((g.bytes += tj.length + 1) > this.maxBytes) fault(`the group is larger than ${Math.round(this.maxBytes / 1024 / 1024)} MiB`);
    if (g.fault) g.trajectories = [];
    else {
      g.trajectories.push(tj as string);
      if (row !== g.head + g.count - 1 || g.rows) (g.rows ??= Array.from({ length: g.count - 1 }, (_, i) => g.head + i)).push(row);
    }
  }

  /** A group refused whole (too large to hold): a fault at its first row in order. */
  *refuse(row: number, group: number, message: string): Generator<ArtGroup | ArtGroupFault> {
    yield* this.finish();
    if (group > this.expected) yield { fault: new ParquetError(`row ${row}, group ${group}: ${group - this.expected === 1 ? `group ${this.expected} is missing` : `groups ${this.expected}–${group - 1} are missing`} (group_index jumps from ${this.expected - 1} to ${group})`, row, group) };
    this.expected = Math.max(this.expected, group + 1);
    yield { fault: new ParquetError(`row ${row}, group ${group}: ${message}`, row, group) };
  }

  /** The group in progress, finished. */
  *finish(): Generator<ArtGroup | ArtGroupFault> {
    const g = this.cur;
    if (!g) return;
    this.cur = undefined;
    if (g.fault) {
      yield { fault: g.fault };
      return;
    }
    const { group, firstRow, lastRow, groupJson, trajectories, invalidUtf8, rows } = g;
    yield { group, firstRow, lastRow, groupJson, trajectories, ...(rows ? { rows } : {}), ...(invalidUtf8 ? { invalidUtf8 } : {}) };
  }
}

/** Texts held at once while the groups of a file whose rows are out of order are gathered (at least one group's limit). */
const WINDOW_BYTES = 64 * 1024 * 1024;

/**
 * The groups of a version 2 file, in `group_index` order, with a fault for each group whose rows
 * break the format (ART's own reader refuses the same things): a wrong `format_version`, a
 * `group_json` that differs between a group's rows, a missing or repeated `trajectory_index`, an
 * empty-group row beside trajectories (or two), a null `trajectory_json`. A missing group (the
 * indexes are not contiguous from 0) is a fault too. A damaged file ends the reading with a thrown
 * ParquetError.
 *
 * Rows out of order are read as ART reads them, sorted by group and trajectory index. The small
 * columns are indexed first (parquetOrder.ts); rows already in order (ART's writer's) are then
 * read as they lie, one page per column at a time. Otherwise the groups are gathered in windows:
 * each pass over the file keeps the texts of the next groups in order, up to 64 MiB (or the
 * group limit, if larger), and stops after the last row they need. A large shuffled file is read
 * once per window.
 */
export async function* readArtGroups(file: ParquetFile, opts: ReadParquetOptions = {}): AsyncGenerator<ArtGroup | ArtGroupFault> {
  const maxBytes = opts.maxGroupBytes ?? DEFAULT_MAX_GROUP_BYTES;
  const info = file.info();
  const cols = ['group_index', 'trajectory_index', 'group_json', 'trajectory_json', ...(info.columns.includes('format_version') ? ['format_version'] : [])];
  const order = await rowOrder(file, opts.signal);
  const assembler = new GroupAssembler(maxBytes);
  if (order.inOrder) {
    for await (const [row, [gi, ti, gj, tj, fv]] of file.rows(cols, opts.signal)) yield* assembler.push(row, gi, ti, gj, tj, fv);
    yield* assembler.finish();
    return;
  }
  const budget = Math.max(opts.windowBytes ?? WINDOW_BYTES, maxBytes);
  const { perm, start, groupOfRow, groups } = order;
  const position = new Uint32Array(order.rows);
  const groupLast = new Uint32Array(groups);
  for (let p = 0; p < order.rows; p++) {
    const row = perm[p]!;
    position[row] = p;
    const g = groupOfRow[row]!;
    groupLast[g] = Math.max(groupLast[g]!, row);
  }
  const groupBytes = new Float64Array(groups);
  const size = (v: unknown) => (typeof v === 'string' ? v.length : v instanceof InvalidUtf8 ? v.text.length : 8);
  for (let s = 0; s < groups; ) {
    // The window: groups s … e-1; their rows' values by position in `perm`, until the last row they need.
    let e = groups;
    const base = start[s]!;
    const held = new Array<unknown[] | undefined>(start[e]! - base);
    let last = 0;
    for (let g = s; g < e; g++) last = Math.max(last, groupLast[g]!);
    let bytes = 0;
    let tooLarge = false;
    /** One text per distinct group_json of a group: a group's rows share it. */
    const shared = new Map<number, string[]>();
    for await (const [row, values] of file.rows(cols, opts.signal)) {
      if (row > last) break;
      const g = groupOfRow[row]!;
      if (g < s || g >= e) continue;
      let added = size(values[3]);
      const gj = values[2];
      if (typeof gj === 'string') {
        const texts = shared.get(g) ?? [];
        const same = texts.find((t) => t === gj);
        if (same === undefined) {
          texts.push(gj);
          shared.set(g, texts);
          added += gj.length;
        } else values[2] = same;
      } else added += size(gj);
      groupBytes[g] = groupBytes[g]! + added;
      bytes += added;
      held[position[row]! - base] = values;
      if (bytes <= budget) continue;
      if (groupBytes[s]! > budget) {
        // Group s alone is larger than a window, so larger than the limit of one group.
        tooLarge = true;
        break;
      }
      // Keep the first groups of the window, up to half of it, and let the rest wait for the next window.
      let keep = s + 1;
      let kept = groupBytes[s]!;
      last = groupLast[s]!;
      while (keep < e && kept + groupBytes[keep]! <= budget / 2) {
        kept += groupBytes[keep]!;
        last = Math.max(last, groupLast[keep]!);
        keep++;
      }
      for (let p = start[keep]!; p < start[e]!; p++) held[p - base] = undefined;
      for (let d = keep; d < e; d++) {
        groupBytes[d] = 0;
        shared.delete(d);
      }
      e = keep;
      bytes = kept;
    }
    for (let g = s; g < e; g++) groupBytes[g] = 0;
    if (tooLarge) {
      yield* assembler.refuse(perm[base]!, order.groupIndex[s]!, `the group is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
      s++;
      continue;
    }
    for (let p = base; p < start[e]!; p++) {
      const values = held[p - base];
      if (!values) throw new ParquetError(`is damaged: row ${perm[p]} was not read`, perm[p]);
      held[p - base] = undefined;
      const [gi, ti, gj, tj, fv] = values;
      yield* assembler.push(perm[p]!, gi, ti, gj, tj, fv);
    }
    s = e;
  }
  yield* assembler.finish();
}
