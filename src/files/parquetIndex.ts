/**
 * The viewer's index of an ART Parquet step file: its groups by row range, built in one pass over
 * the small columns (group_index, trajectory_index, reward, and group_json for the exceptions),
 * never decoding trajectory_json for the whole file. A group on screen is read from its rows alone
 * (src/files/parquetPages.ts): a 1 GiB file opens as fast as a small one. Same surface as
 * TrajectoryIndex (groupIndex.ts), so the session and the view model treat both alike.
 *
 * Version 2 groups are rebuilt exactly as the upload sends them (group_json + trajectory_json).
 * A version 1 file is shown from its analytics columns, with `notice` saying what is lost; its
 * groups are never uploaded. Faults of the rows (missing or repeated indexes, a damaged page) are
 * the validator's to report (src/files/parquetGroups.ts): the index only groups the rows. A
 * version 2 file whose rows are out of order is shown as ART reads it: the rows sorted by group and
 * trajectory index (parquetOrder.ts), each group read from its own rows.
 * No `vscode` import.
 */
import { parquetReadObjects } from 'hyparquet';
import type { Problem } from './problems';
import { groupText, openArtParquet, readArtGroups, type ArtParquetInfo } from './artParquet';
import { compressors, ParquetError, type ParquetFile } from './parquet';
import { ParquetPages } from './parquetPages';
import { rowOrder, rowsOfGroup, type RowGroups } from './parquetOrder';
import { exceptionsOf, groupStats } from './model';
import { f64 } from './columns';
import { IndexBase, type BuildOptions, type ReadGroup } from './groupIndex';
import type { GroupRow } from './shapes';
import { dict } from '../api/dict';

/** Above a version 1 file: what it is, and what is not in it. */
export const V1_NOTICE =
  "ART's Parquet format version 1, the lossy one: shown from its analytics columns (messages, reward, metrics, metadata, tools, logs). Not in the file: the choices' finish reasons and logprobs, additional histories, the group's exceptions and any field ART did not copy to a column. It is not the group as the client dumped it, and it cannot be uploaded.";

/** Rows between two progress reports (and before the first paint's gate). */
const PROGRESS_ROWS = 2048;

type Obj = Record<string, unknown>;

export class ParquetIndex extends IndexBase {
  readonly format = 'parquet' as const;
  /** A banner above the groups (version 1: the lossy format). */
  notice: string | undefined;
  info: ArtParquetInfo | undefined;
  readonly source: { size: number; close(): Promise<void> };

  private readonly firstRow = f64();
  private readonly lastRow = f64();
  private readonly groupIndex = f64();
  /** A version 2 file whose rows are out of order: each group's rows (parquetOrder.ts). */
  private order: RowGroups | undefined;

  private constructor(
    readonly path: string,
    size: number,
    private readonly file: ParquetFile | undefined,
    private readonly pages: ParquetPages | undefined,
  ) {
    super();
    this.source = { size, close: async () => void (await Promise.all([file?.close(), pages?.close()])) };
  }

  /** Opens the file; a file that is not one of ART's gives an index with its `shapeError`. */
  static async open(path: string): Promise<ParquetIndex> {
    let opened: Awaited<ReturnType<typeof openArtParquet>>;
    try {
      opened = await openArtParquet(path);
    } catch (e) {
      if (!(e instanceof ParquetError)) throw e;
      const index = new ParquetIndex(path, 0, undefined, undefined);
      index.shapeError = `The file ${e.message}`;
      index.done = true;
      return index;
    }
    let pages: ParquetPages;
    try {
      pages = await ParquetPages.open(path, opened.file.metadata);
    } catch (e) {
      await opened.file.close();
      throw e;
    }
    const index = new ParquetIndex(path, opened.file.size, opened.file, pages);
    index.info = opened.info;
    if (opened.info.version === 1) index.notice = V1_NOTICE;
    return index;
  }

  /** One pass over the small columns; the rest waits for the first paint after the first rows. */
  async build(opts: BuildOptions = {}): Promise<void> {
    const file = this.file;
    const info = this.info;
    if (!file || !info) return;
    let last = 0;
    let gated = false;
    const progress = async (force = false) => {
      const now = performance.now();
      if (force || now - last >= (opts.progressMs ?? 50)) {
        last = now;
        opts.onProgress?.();
      }
      if (!gated && opts.firstChunkGate) {
        gated = true;
        opts.onProgress?.();
        await opts.firstChunkGate;
      }
    };
    const v2 = info.version === 2;
    if (v2) {
      // ART's reader sorts the rows by group and trajectory index, and so does the viewer: the two
      // small columns first, then the groups in order when the rows are not.
      let order: Awaited<ReturnType<typeof rowOrder>> | undefined;
      try {
        order = await rowOrder(file, opts.signal);
      } catch (e) {
        if (!(e instanceof ParquetError) || opts.signal?.aborted) throw e;
        // Indexed as runs of rows below, up to the damage the validator names.
      }
      if (order && !order.inOrder) {
        await this.buildSorted(file, order, opts, progress);
        return;
      }
    }
    const names = v2 ? ['group_index', 'trajectory_index', 'reward', 'group_json'] : ['group_index', ...(info.columns.includes('reward') ? ['reward'] : [])];
    let cur: { group: number; first: number; last: number; rewards: number[]; exceptions: number; rows: number } | undefined;
    const finish = () => {
      if (cur) this.addGroup(cur.group, cur.first, cur.last, cur.rewards, cur.rows, cur.exceptions);
      cur = undefined;
    };
    try {
      for await (const [row, [gi, ti, reward, gj]] of file.rows(names, opts.signal)) {
        const group = gi === null || gi === undefined ? -1 : Number(gi);
        if (!cur || group !== cur.group) {
          finish();
          cur = { group, first: row, last: row, rewards: [], exceptions: v2 ? exceptionCount(gj) : 0, rows: 0 };
        }
        cur.last = row;
        // Version 2: an empty group is one row with a null trajectory_index. Version 1 has no such column.
        const trajectory = v2 ? ti !== null && ti !== undefined : true;
        if (trajectory) {
          cur.rows++;
          const r = v2 ? reward : ti;
          if (typeof r === 'number' && Number.isFinite(r)) cur.rewards.push(r);
        }
        if ((row + 1) % PROGRESS_ROWS === 0) {
          this.indexedBytes = Math.floor((this.source.size * (row + 1)) / Math.max(1, info.rows));
          await progress();
        }
      }
      finish();
    } catch (e) {
      if (!(e instanceof ParquetError) || opts.signal?.aborted) throw e;
      // The groups before the damage stay on screen; the validator names the row.
      this.shapeError = `The file ${e.message}`;
    }
    this.done = true;
    this.indexedBytes = this.source.size;
    await progress(true);
  }

  /** The groups of a file whose rows are out of order, in group_index order, from the small columns. */
  private async buildSorted(file: ParquetFile, order: RowGroups, opts: BuildOptions, progress: (force?: boolean) => Promise<void>): Promise<void> {
    const rewards = new Float64Array(order.rows).fill(NaN);
    const exceptions = new Uint32Array(order.groups);
    try {
      for await (const [row, [reward, gj]] of file.rows(['reward', 'group_json'], opts.signal)) {
        if (typeof reward === 'number' && Number.isFinite(reward)) rewards[row] = reward;
        const g = order.groupOfRow[row]!;
        if (order.perm[order.start[g]!] === row) exceptions[g] = exceptionCount(gj);
        if ((row + 1) % PROGRESS_ROWS === 0) {
          this.indexedBytes = Math.floor((this.source.size * (row + 1)) / Math.max(1, order.rows));
          await progress();
        }
      }
    } catch (e) {
      if (!(e instanceof ParquetError) || opts.signal?.aborted) throw e;
      this.shapeError = `The file ${e.message}`;
    }
    for (let g = 0; g < order.groups; g++) {
      const rows = rowsOfGroup(order, g);
      const values: number[] = [];
      let count = 0;
      let first = Infinity;
      let last = -Infinity;
      for (const r of rows) {
        first = Math.min(first, r);
        last = Math.max(last, r);
        if (order.sentinel[r]) continue;
        count++;
        if (!Number.isNaN(rewards[r])) values.push(rewards[r]!);
      }
      this.addGroup(order.groupIndex[g]!, first, last, values, count, exceptions[g]!);
    }
    this.order = order;
    this.done = true;
    this.indexedBytes = this.source.size;
    await progress(true);
  }

  private addGroup(group: number, first: number, last: number, rewards: number[], count: number, exceptions: number): void {
    this.groups++;
    this.firstRow.push(first);
    this.lastRow.push(last);
    this.groupIndex.push(group);
    this.trajectories += count;
    this.columns.add(count, rewards, groupStats(rewards, exceptions));
  }

  /** The rows group `i` spans (0-based, inclusive), and its group_index. */
  rows(i: number): { first: number; last: number; groupIndex: number } {
    return { first: this.firstRow.get(i), last: this.lastRow.get(i), groupIndex: this.groupIndex.get(i) };
  }

  /** A row of the group list; `line`/`endLine` are the group's rows (0-based, as the problems name them). */
  row(i: number): GroupRow {
    return { index: i, line: this.firstRow.get(i), endLine: this.lastRow.get(i), bare: false, stats: this.stats(i), rewards: this.columns.ticks(i), errors: 0, warnings: 0 };
  }

  /** The group a validation problem is in (by its row, else its group_index), or -1. */
  groupOf(p: Pick<Problem, 'row' | 'group'>): number {
    if (this.order && p.row !== undefined && p.row >= 0 && p.row < this.order.rows) return this.order.groupOfRow[p.row]!;
    if (p.row !== undefined && !this.order) {
      let lo = 0;
      let hi = this.groups - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (this.lastRow.get(mid) < p.row) lo = mid + 1;
        else if (this.firstRow.get(mid) > p.row) hi = mid - 1;
        else return mid;
      }
    }
    if (p.group !== undefined) for (let i = 0; i < this.groups; i++) if (this.groupIndex.get(i) === p.group) return i;
    return -1;
  }

  /** Reads one group from its rows (the last few are cached). */
  async readGroup(i: number): Promise<ReadGroup> {
    const hit = this.cache.get(i);
    if (hit) return hit;
    if (i < 0 || i >= this.groups || !this.pages) return { text: '', error: `No group ${i + 1}` };
    let result: ReadGroup;
    try {
      const value = this.info?.version === 2 ? undefined : await this.readV1(i);
      const text = value === undefined ? await this.readV2(i) : JSON.stringify(value);
      result = value === undefined ? parsed(text) : { text, value };
    } catch (e) {
      if (!(e instanceof ParquetError)) throw e;
      result = { text: '', error: `The file ${e.message}` };
    }
    this.cache.set(i, result);
    if (this.cache.size > 8) this.cache.delete(this.cache.keys().next().value!);
    return result;
  }

  /** A version 2 group as the client's model_dump: group_json with the trajectory_json of its rows. */
  private async readV2(i: number): Promise<string> {
    const { first, last } = this.rows(i);
    // Rows out of order: the group's own rows, trajectories in trajectory_index order.
    const order = this.order;
    const all = order ? [...rowsOfGroup(order, i)] : undefined;
    const rows = all ? all.filter((r) => !order!.sentinel[r]) : Array.from({ length: this.columns.trajectories(i) ? last - first + 1 : 0 }, (_, k) => first + k);
    const head = all ? all[0]! : first;
    const [groupJson] = await this.pages!.read('group_json', head, head);
    const trajectories = all ? await this.readRows('trajectory_json', rows) : rows.length ? await this.pages!.read('trajectory_json', first, last) : [];
    if (typeof groupJson !== 'string') throw new ParquetError(`row ${head}, group ${this.groupIndex.get(i)}: group_json is null`, head);
    trajectories.forEach((t, k) => {
      if (typeof t !== 'string') throw new ParquetError(`row ${rows[k]}, group ${this.groupIndex.get(i)}: trajectory_json is null`, rows[k]);
    });
    return groupText({ groupJson, trajectories: trajectories as string[] });
  }

  /** The values of `rows` of a column, in that order; read in file order, so that a page is decoded once. */
  private async readRows(name: string, rows: readonly number[]): Promise<unknown[]> {
    const out: unknown[] = new Array(rows.length);
    const byRow = rows.map((r, k) => [r, k] as const).sort((a, b) => a[0] - b[0]);
    for (const [r, k] of byRow) [out[k]] = await this.pages!.read(name, r, r);
    return out;
  }

  /** A version 1 group from the analytics columns: what they hold, nothing guessed. */
  private async readV1(i: number): Promise<Obj> {
    const { first, last } = this.rows(i);
    const info = this.info!;
    const columns = ['group_metadata', 'group_metrics', 'group_logs', 'reward', 'metrics', 'metadata', 'tools', 'logs', 'messages'].filter((c) => info.columns.includes(c));
    const file = this.file!;
    const rows = await parquetReadObjects({
      file: { byteLength: file.size, slice: (s: number, e?: number) => this.pages!.bytes(s, (e ?? file.size) - s) },
      metadata: file.metadata,
      columns,
      rowStart: first,
      rowEnd: last + 1,
      compressors,
    });
    const head = (rows[0] ?? dict()) as Obj;
    const trajectories = (rows as Obj[]).map((r) => {
      const t: Obj = { messages_and_choices: Array.isArray(r.messages) ? r.messages.map(v1Message) : [] };
      if (r.reward !== undefined && r.reward !== null) t.reward = r.reward;
      for (const k of ['metrics', 'metadata', 'tools'] as const) if (typeof r[k] === 'string') t[k] = parseOr(r[k]);
      if (Array.isArray(r.logs) && r.logs.length) t.logs = r.logs;
      return t;
    });
    const group: Obj = { trajectories };
    if (typeof head.group_metadata === 'string') group.metadata = parseOr(head.group_metadata);
    if (typeof head.group_metrics === 'string') group.metrics = parseOr(head.group_metrics);
    if (Array.isArray(head.group_logs) && head.group_logs.length) group.logs = head.group_logs;
    return group;
  }

  /**
   * Every group of a version 2 file with its place in this index, in one pass over the file
   * (readArtGroups: rows in order streamed, rows out of order gathered in windows, one group's
   * text held at a time), for work over the whole file: the viewer's verdicts and logprobs. A
   * group whose rows break the format is left out (the validator names it); a damaged file throws.
   */
  async *allGroups(signal?: AbortSignal): AsyncGenerator<{ index: number; value: unknown }> {
    if (!this.file || this.info?.version !== 2) return;
    const at = new Map<number, number>();
    for (let i = 0; i < this.groups; i++) at.set(this.groupIndex.get(i), i);
    for await (const g of readArtGroups(this.file, { signal })) {
      if ('fault' in g) continue;
      const i = at.get(g.group);
      const r = i === undefined ? undefined : parsed(groupText(g));
      if (i !== undefined && r?.value !== undefined) yield { index: i, value: r.value };
    }
  }

  /** Where an item starts in the file: a Parquet file has no text positions. */
  async positionOf(i: number): Promise<{ line: number; column: number }> {
    return { line: this.firstRow.get(i), column: 1 };
  }

  /** Every group's text from `from` on (search), group by group: their pages are decoded once each. */
  async *rawGroups(from = 0, _batchBytes = 0, signal?: AbortSignal): AsyncGenerator<{ index: number; text: string }> {
    for (let i = from; i < this.groups; i++) {
      signal?.throwIfAborted();
      const g = await this.readGroup(i);
      if (!g.error) yield { index: i, text: g.text };
    }
  }
}

/** A group's text and value; a compact empty group (no `trajectories`) is shown as a group of none. */
function parsed(text: string): ReadGroup {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value) && !('trajectories' in value)) return { text, value: { trajectories: [], ...value } };
    return { text, value };
  } catch (e) {
    return { text, error: `Invalid JSON: ${(e as Error).message}` };
  }
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The number of exceptions in a group_json, 0 when it has none or is not JSON. */
function exceptionCount(groupJson: unknown): number {
  if (typeof groupJson !== 'string' || !groupJson.includes('"exceptions"')) return 0;
  try {
    return exceptionsOf(JSON.parse(groupJson)).length;
  } catch {
    return 0;
  }
}

/**
 * A row of v1's `messages` column as a message or a choice (`trainable`: ART flattened a choice).
 * Only what the row holds: a choice gets no finish reason, since the file has none.
 */
function v1Message(m: unknown): Obj {
  const r = (m ?? dict()) as Obj;
  const msg: Obj = { role: r.role ?? null, content: r.content ?? null };
  if (typeof r.tool_calls === 'string') msg.tool_calls = parseOr(r.tool_calls);
  if (r.trainable) return { message: msg };
  if (typeof r.tool_call_id === 'string') msg.tool_call_id = r.tool_call_id;
  return msg;
}
