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
 *   ordered by `group_index`, `trajectory_index`; an empty group is one row whose
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
  /** The rows the group spans (0-based, inclusive); trajectory i is row `firstRow + i`. */
  firstRow: number;
  lastRow: number;
  /** `group_json`: the group without `trajectories`. */
  groupJson: string;
  /** `trajectory_json` of each trajectory, in `trajectory_index` order (none for an empty group). */
  trajectories: string[];
  /** Rows whose `group_json` or `trajectory_json` is not valid UTF-8 (sent with U+FFFD there). */
  invalidUtf8?: number[];
}

/** A group whose rows break the format: it is not yielded as a group. */
export interface ArtGroupFault {
  fault: ParquetError;
}

export interface ReadParquetOptions {
  signal?: AbortSignal;
  /** Groups whose JSON would be larger are a fault, not a group (memory stays bounded). Default 64 MiB. */
  maxGroupBytes?: number;
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
 * The groups of a version 2 file, in order, with a fault for each group whose rows break the
 * format (ART's own reader refuses the same things): a wrong `format_version`, a `group_json`
 * that differs between a group's rows, a missing or repeated `trajectory_index`, an empty-group
 * row beside trajectories, a null `trajectory_json`. A missing group is a fault too. Rows out of
 * order (ART writes them sorted) and a damaged file end the reading with a thrown ParquetError.
 */
export async function* readArtGroups(file: ParquetFile, opts: ReadParquetOptions = {}): AsyncGenerator<ArtGroup | ArtGroupFault> {
  const maxBytes = opts.maxGroupBytes ?? DEFAULT_MAX_GROUP_BYTES;
  const info = file.info();
  const cols = ['group_index', 'trajectory_index', 'group_json', 'trajectory_json', ...(info.columns.includes('format_version') ? ['format_version'] : [])];
  let cur: (ArtGroup & { fault?: ParquetError; bytes: number; count: number; sentinel: boolean }) | undefined;
  let expected = 0;
  const finish = (): ArtGroup | ArtGroupFault | undefined => {
    if (!cur) return undefined;
    const g = cur;
    cur = undefined;
    if (g.fault) return { fault: g.fault };
    const { group, firstRow, lastRow, groupJson, trajectories, invalidUtf8 } = g;
    return { group, firstRow, lastRow, groupJson, trajectories, ...(invalidUtf8 ? { invalidUtf8 } : {}) };
  };
  for await (const [row, [gi, ti, rawGj, rawTj, fv]] of file.rows(cols, opts.signal)) {
    const invalid = rawGj instanceof InvalidUtf8 || rawTj instanceof InvalidUtf8;
    const gj = rawGj instanceof InvalidUtf8 ? rawGj.text : rawGj;
    const tj = rawTj instanceof InvalidUtf8 ? rawTj.text : rawTj;
    if (!isIndex(gi)) throw new ParquetError(`row ${row}: group_index is ${show(gi)}, not an integer`, row);
    const group = Number(gi);
    if (!cur || group !== cur.group) {
      if (cur && group < cur.group) throw new ParquetError(`row ${row}, group ${group}: comes after group ${cur.group}; ART writes the rows in group_index order`, row, group);
      const done = finish();
      if (done) yield done;
      if (group > expected) yield { fault: new ParquetError(`row ${row}, group ${group}: ${group - expected === 1 ? `group ${expected} is missing` : `groups ${expected}–${group - 1} are missing`} (group_index jumps from ${expected - 1} to ${group})`, row, group) };
      expected = group + 1;
      if (typeof gj !== 'string') throw new ParquetError(`row ${row}, group ${group}: group_json is null`, row, group);
      cur = { group, firstRow: row, lastRow: row, groupJson: gj, trajectories: [], bytes: gj.length, count: 0, sentinel: false };
    }
    const g = cur;
    g.lastRow = row;
    if (invalid) (g.invalidUtf8 ??= []).push(row);
    const at = `row ${row}, group ${group}`;
    const fault = (message: string) => (g.fault ??= new ParquetError(`${at}: ${message}`, row, group));
    if (fv !== undefined && fv !== null && Number(fv) !== ART_PARQUET_VERSION) fault(`format_version is ${show(fv)}, not ${ART_PARQUET_VERSION}`);
    if (gj !== g.groupJson) fault(`group_json differs from row ${g.firstRow}'s: the rows of one group must carry the same group`);
    if (ti === null || ti === undefined) {
      if (tj !== null && tj !== undefined) fault('trajectory_index is null (an empty group) but trajectory_json is set');
      if (g.sentinel || g.count) fault('an empty-group row (trajectory_index null) beside other rows of the group');
      g.sentinel = true;
      continue;
    }
    if (!isIndex(ti)) {
      fault(`trajectory_index is ${show(ti)}, not an integer`);
      continue;
    }
    if (g.sentinel) fault('an empty-group row (trajectory_index null) beside other rows of the group');
    const index = Number(ti);
    if (index !== g.count) {
      fault(index < g.count ? `trajectory_index ${index} is repeated` : `trajectory_index ${index} where ${g.count} was expected: trajectory ${g.count} is missing`);
      continue;
    }
    g.count++;
    if (typeof tj !== 'string') fault('trajectory_json is null');
    else if ((g.bytes += tj.length + 1) > maxBytes) fault(`the group is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB`);
    // A group with a fault is not yielded: its texts are not kept.
    if (g.fault) g.trajectories = [];
    else g.trajectories.push(tj as string);
  }
  const done = finish();
  if (done) yield done;
}
