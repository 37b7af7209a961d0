/**
 * ART's Parquet step files, read page by page. No `vscode` import.
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
import { open, type FileHandle } from 'node:fs/promises';
import * as zlib from 'node:zlib';
import { parquetMetadata, parquetReadObjects, parquetSchema, type ColumnMetaData, type Compressors, type FileMetaData } from 'hyparquet';
import { parquetHeader, readPage } from 'hyparquet/src/column.js';
import { convert, DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import { isValidUtf8 } from './lines';
import { decompress as decompressZstd } from 'fzstd';

/** The key-value metadata key that marks ART's format version. */
export const ART_VERSION_KEY = 'art.trajectory_parquet.version';
/** The format this reader reads exactly. */
export const ART_PARQUET_VERSION = 2;

/** A fault of a Parquet file; `row` and `group` (0-based) say where, when it is known. */
export class ParquetError extends Error {
  constructor(
    message: string,
    readonly row?: number,
    readonly group?: number,
  ) {
    super(message);
  }
}

export interface ParquetInfo {
  fileBytes: number;
  rows: number;
  rowGroups: number;
  /** Top-level column names, in schema order. */
  columns: string[];
  /** The file's key-value metadata. */
  keyValue: Record<string, string>;
  createdBy?: string;
}

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
const MAGIC = 'PAR1';
/** Bytes read for a page header first; a header with large statistics gets a second read. */
const HEADER_WINDOW = 64 * 1024;
const MAX_HEADER = 16 * 1024 * 1024;

/**
 * ART writes Zstd; Snappy is built into hyparquet; Gzip is Node's. Zstd is most of the reading time
 * in pure JS (fzstd, the decoder hyparquet-compressors uses, without that package's Brotli and LZ4:
 * 100 KiB less in the bundle). Node 22.15 and later (VS Code 1.101 and later) decompress Zstd
 * natively: used where it exists.
 */
const nativeZstd = (zlib as { zstdDecompressSync?: (b: Uint8Array) => Buffer }).zstdDecompressSync;
export const compressors: Compressors = {
  ZSTD: nativeZstd ? (input) => nativeZstd(input) : (input, length) => decompressZstd(input, new Uint8Array(length)),
  GZIP: (input) => zlib.gunzipSync(input),
};

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

/** A string value whose bytes are not valid UTF-8: `text` holds U+FFFD (�) where they were. */
export class InvalidUtf8 {
  constructor(readonly text: string) {}
}

const utf8Decoder = new TextDecoder();
/** hyparquet's string parser, marking values whose bytes are not valid UTF-8 (the JSONL reader warns about those too). */
const parsers = {
  ...DEFAULT_PARSERS,
  stringFromBytes: (bytes: Uint8Array | undefined) => {
    if (!bytes) return bytes;
    const text = utf8Decoder.decode(bytes);
    return text.includes('\uFFFD') && !isValidUtf8(bytes) ? new InvalidUtf8(text) : text;
  },
};

/** A Parquet file open for reading: its footer, and its columns page by page. */
export class ParquetFile {
  private constructor(
    readonly path: string,
    private readonly fh: FileHandle,
    readonly size: number,
    readonly metadata: FileMetaData,
  ) {}

  /** Opens `path` and reads its footer; a file that is not Parquet, or is cut short, is a ParquetError. */
  static async open(path: string): Promise<ParquetFile> {
    const fh = await open(path, 'r');
    try {
      const { size } = await fh.stat();
      if (size < 12) throw new ParquetError(`is not a Parquet file: ${size} bytes is too short`);
      const head = await readAt(fh, 0, 4);
      if (head.toString('latin1') !== MAGIC) throw new ParquetError('is not a Parquet file: it does not start with "PAR1"');
      const tail = await readAt(fh, size - 8, 8);
      if (tail.toString('latin1', 4) !== MAGIC) throw new ParquetError('is damaged or cut short: it does not end with a Parquet footer ("PAR1")');
      const footer = tail.readUInt32LE(0);
      if (footer + 12 > size) throw new ParquetError(`is damaged or cut short: its footer claims ${footer} bytes, more than the file holds`);
      let metadata: FileMetaData;
      try {
        metadata = parquetMetadata(await readAt(fh, size - 8 - footer, footer + 8));
      } catch (e) {
        throw new ParquetError(`is damaged: its footer cannot be read (${(e as Error).message})`);
      }
      return new ParquetFile(path, fh, size, metadata);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.fh.close();
  }

  info(): ParquetInfo {
    const keyValue: Record<string, string> = {};
    for (const kv of this.metadata.key_value_metadata ?? []) keyValue[kv.key] = kv.value ?? '';
    return {
      fileBytes: this.size,
      rows: Number(this.metadata.num_rows),
      rowGroups: this.metadata.row_groups.length,
      columns: parquetSchema(this.metadata).children.map((c) => c.element.name),
      keyValue,
      createdBy: this.metadata.created_by,
    };
  }

  /**
   * The values of flat (non-nested) columns, row by row, in file order: `[row, values]` with the
   * values in the order of `names` (null for a null; an InvalidUtf8 for a string that is not valid
   * UTF-8). One data page per column is held at a time.
   */
  async *rows(names: readonly string[], signal?: AbortSignal): AsyncGenerator<[number, unknown[]]> {
    const tree = parquetSchema(this.metadata);
    let row = 0;
    for (const rowGroup of this.metadata.row_groups) {
      const cursors = names.map((name) => {
        const chunk = rowGroup.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === name)?.meta_data;
        if (!chunk) throw new ParquetError(`has no column "${name}"`);
        const schemaPath = getTreePath(tree, chunk.path_in_schema);
        const decoder = { pathInSchema: chunk.path_in_schema, element: schemaPath[schemaPath.length - 1]!.element, schemaPath, type: chunk.type, codec: chunk.codec, compressors, parsers, utf8: true };
        return new Cursor(this.pages(chunk, decoder, name, row, signal), name, row);
      });
      const end = row + Number(rowGroup.num_rows);
      for (; row < end; row++) {
        const values: unknown[] = [];
        for (const c of cursors) values.push(c.ready() ? c.take() : await c.next());
        yield [row, values];
      }
    }
  }

  /**
   * Rows `[rowStart, rowEnd)` as objects, any columns (nested ones too: `messages` of a version 1
   * file). hyparquet decodes each column chunk whole, so memory follows the column chunks read, not
   * a page: for showing a version 1 file (small, older runs), not for streaming a large one.
   */
  async objects(opts: { columns?: string[]; rowStart?: number; rowEnd?: number } = {}): Promise<Record<string, unknown>[]> {
    const file = {
      byteLength: this.size,
      slice: async (start: number, end = this.size) => {
        const b = await readAt(this.fh, start, end - start);
        return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
      },
    };
    try {
      return (await parquetReadObjects({ file, metadata: this.metadata, compressors, ...opts })) as Record<string, unknown>[];
    } catch (e) {
      if (e instanceof ParquetError) throw e;
      throw new ParquetError(`is damaged: ${(e as Error).message}`, opts.rowStart);
    }
  }

  /** The decoded data pages of one column chunk, read from the file one page at a time. */
  private async *pages(chunk: ColumnMetaData, decoder: Parameters<typeof readPage>[2], name: string, firstRow: number, signal?: AbortSignal): AsyncGenerator<unknown[]> {
    const offsets = [chunk.dictionary_page_offset, chunk.data_page_offset].filter((o): o is bigint => o !== undefined && o > 0n).map(Number);
    let pos = Math.min(...offsets);
    const end = pos + Number(chunk.total_compressed_size);
    const damaged = (why: string) => new ParquetError(`is damaged in column "${name}" (${why})`, firstRow);
    if (!Number.isFinite(pos) || end > this.size - 8) throw damaged('its pages lie past the end of the file: the file is cut short');
    let dictionary: unknown[] | undefined;
    while (pos < end) {
      signal?.throwIfAborted();
      let window = Math.min(HEADER_WINDOW, end - pos);
      let buf: Buffer;
      let header: ReturnType<typeof parquetHeader>;
      let headerBytes: number;
      for (;;) {
        buf = await readAt(this.fh, pos, window);
        const reader = { view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), offset: 0 };
        try {
          header = parquetHeader(reader);
          headerBytes = reader.offset;
          break;
        } catch (e) {
          if (window >= Math.min(MAX_HEADER, end - pos)) throw damaged(`a page header cannot be read: ${(e as Error).message}`);
          window = Math.min(window * 4, MAX_HEADER, end - pos);
        }
      }
      const pageEnd = headerBytes + header.compressed_page_size;
      if (header.compressed_page_size < 0 || pos + pageEnd > end) throw damaged('a page runs past its column chunk');
      if (pageEnd > buf.length) buf = await readAt(this.fh, pos, pageEnd);
      const reader = { view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), offset: headerBytes };
      let data: unknown[] | undefined;
      try {
        const page = readPage(reader, header, decoder, dictionary as never, undefined, 0);
        data = page.data as unknown[] | undefined;
        if (header.type === 'DICTIONARY_PAGE') {
          dictionary = data ? (convert(data as never, decoder) as unknown[]) : undefined;
          data = undefined;
        }
      } catch (e) {
        if (e instanceof ParquetError) throw e;
        throw damaged(`a page cannot be decoded: ${(e as Error).message}`);
      }
      pos += pageEnd;
      if (data?.length) yield data;
    }
  }
}

/** One column's values, page by page. */
class Cursor {
  private page: unknown[] = [];
  private i = 0;
  constructor(
    private readonly pages: AsyncGenerator<unknown[]>,
    private readonly name: string,
    private row: number,
  ) {}
  ready(): boolean {
    return this.i < this.page.length;
  }
  take(): unknown {
    this.row++;
    return this.page[this.i++];
  }
  async next(): Promise<unknown> {
    while (!this.ready()) {
      const r = await this.pages.next();
      if (r.done) throw new ParquetError(`is damaged: column "${this.name}" ends before the row count`, this.row);
      this.page = r.value;
      this.i = 0;
    }
    return this.take();
  }
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  if (bytesRead < length) throw new ParquetError('is cut short: a read ran past the end of the file');
  return buf;
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
