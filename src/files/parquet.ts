/**
 * Parquet files read page by page, straight from the file: memory holds one page per column read,
 * never the file (ART's step files have one row group, so reading "row group by row group" would
 * bound nothing). ART's format on top of it is artParquet.ts. No `vscode` import.
 */
import type { FileHandle } from 'node:fs/promises';
import { openRegular } from '../common/regular';
import { parquetMetadata, parquetReadObjects, parquetSchema, type ColumnMetaData, type Compressors, type FileMetaData, type PageHeader, type SchemaElement } from 'hyparquet';
import { parquetHeader, readPage } from 'hyparquet/src/column.js';
import { convert, DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import { isValidUtf8 } from './lines';
import { dict } from '../api/dict';
import { inflate, inflateSync, PageBudget, PageLimit, type InflateOptions } from './parquetCodec';

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

const MAGIC = 'PAR1';
/** Bytes read for a page header first; a header with large statistics gets a second read. */
const HEADER_WINDOW = 64 * 1024;
const MAX_HEADER = 16 * 1024 * 1024;

/**
 * ART writes Zstd; Snappy and Gzip are read too. Pages are decompressed by parquetCodec.ts, capped
 * at their header's size and checked against the caps there, off the event loop (Node's zlib and,
 * from Node 22.15 / VS Code 1.101, its Zstd on the thread pool; fzstd, pure JS, in slices). These
 * synchronous forms, with the same caps, are for hyparquet's whole-chunk reader (`objects()`, a
 * version 1 file in the viewer).
 */
export const compressors: Compressors = {
  ZSTD: (input, length) => inflateSync('ZSTD', input, length),
  GZIP: (input, length) => inflateSync('GZIP', input, length),
  SNAPPY: (input, length) => inflateSync('SNAPPY', input, length),
};

/** The most schema elements, and the deepest nesting, a file may have (ART's schema: ~30 elements, 4 deep). */
export const MAX_SCHEMA_ELEMENTS = 10_000;
export const MAX_SCHEMA_DEPTH = 64;

/**
 * Why a schema cannot be read, or undefined: too many elements, nested too deep (hyparquet builds
 * the tree recursively: 100,000 levels overflow the stack), or children counts that do not add up.
 * Walked without recursion.
 */
export function schemaFault(schema: SchemaElement[]): string | undefined {
  if (!schema.length) return 'its schema is empty';
  if (schema.length > MAX_SCHEMA_ELEMENTS) return `its schema has ${schema.length.toLocaleString('en-US')} elements, more than the ${MAX_SCHEMA_ELEMENTS.toLocaleString('en-US')} read`;
  const open: number[] = [];
  for (let i = 0; i < schema.length; i++) {
    if (i > 0) {
      if (!open.length) return `its schema has elements after the end of its tree (element ${i})`;
      open[open.length - 1]!--;
    }
    const children = schema[i]!.num_children ?? 0;
    if (!Number.isInteger(children) || children < 0) return `its schema element ${i} has ${children} children`;
    if (children > 0) {
      open.push(children);
      if (open.length > MAX_SCHEMA_DEPTH) return `its schema is nested more than ${MAX_SCHEMA_DEPTH} deep (element ${i}, "${String(schema[i]!.name).slice(0, 100)}")`;
    }
    while (open.length && open[open.length - 1] === 0) open.pop();
  }
  if (open.length) return 'its schema ends before the children its elements count';
  return undefined;
}

/**
 * The number of schema elements the footer's Thrift says (FileMetaData field 2, a list), read
 * before the footer is parsed: a hostile schema is refused without building it. Undefined when
 * the footer does not start as writers write it (version, then schema): then the parsed schema is
 * checked instead.
 */
function schemaLength(footer: Uint8Array): number | undefined {
  let p = 0;
  const varint = (): number => {
    let v = 0;
    for (let shift = 0; p < footer.length && shift < 35; shift += 7) {
      const b = footer[p++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return v;
    }
    return -1;
  };
  // Field 1 (delta 1), i32 (5): the version, a zigzag varint.
  if (footer[p++] !== 0x15) return undefined;
  if (varint() < 0) return undefined;
  // Field 2 (delta 1), list (9) of structs (12).
  if (footer[p++] !== 0x19) return undefined;
  const head = footer[p++];
  if (head === undefined || (head & 0x0f) !== 12) return undefined;
  const size = head >> 4;
  return size === 15 ? varint() : size;
}

type Decoder = Parameters<typeof readPage>[2];

/** Where a page is, for the problems about it: its column and rows. */
export interface PageAt {
  column: string;
  /** The page's first row and its rows (0 for a dictionary page: `rows` is then its chunk's). */
  firstRow: number;
  rows: number;
}

/** A refused page as a ParquetError naming the file's column and rows. */
export function pageError(limit: PageLimit, at: PageAt): ParquetError {
  const rows = at.rows > 1 ? `rows ${at.firstRow}–${at.firstRow + at.rows - 1}` : `row ${at.firstRow}`;
  const where = `column "${at.column}", ${rows}`;
  if (limit.kind === 'bomb') return new ParquetError(`has a page refused in ${where}: ${limit.message} (a decompression bomb, or a damaged file)`, at.firstRow);
  return new ParquetError(`is damaged in ${where} (a page ${limit.message})`, at.firstRow);
}

/**
 * Decompresses a page (capped, off the event loop: parquetCodec.ts) and decodes it with hyparquet.
 * `buf` holds the page header's `headerBytes` and the page. `budget`, when given, checks the
 * declared size first (ParquetPages checks it when it walks the headers).
 */
export async function decodePage(buf: Uint8Array, headerBytes: number, header: PageHeader, decoder: Decoder, dictionary: unknown[] | undefined, at: PageAt, budget?: PageBudget, opts?: InflateOptions): Promise<unknown[] | undefined> {
  const compressed = buf.subarray(headerBytes, headerBytes + header.compressed_page_size);
  const declared = Number(header.uncompressed_page_size);
  const limit = budget?.check(declared, header.compressed_page_size);
  if (limit) throw pageError(limit, at);
  let page = compressed;
  let h = header;
  try {
    const v2 = header.data_page_header_v2;
    if (header.type === 'DATA_PAGE_V2' && v2) {
      const levels = v2.definition_levels_byte_length + v2.repetition_levels_byte_length;
      if (!(levels >= 0 && levels <= compressed.length && levels <= declared)) throw new PageLimit('has levels longer than the page', 'damaged');
      if (v2.is_compressed !== false && decoder.codec !== 'UNCOMPRESSED' && declared > levels) {
        const rest = await inflate(decoder.codec, compressed.subarray(levels), declared - levels, opts);
        page = new Uint8Array(levels + rest.length);
        page.set(compressed.subarray(0, levels));
        page.set(rest, levels);
      }
      h = { ...header, compressed_page_size: page.length, data_page_header_v2: { ...v2, is_compressed: false } };
    } else if (header.type === 'DATA_PAGE' || header.type === 'DICTIONARY_PAGE') {
      page = await inflate(decoder.codec, compressed, declared, opts);
      h = { ...header, compressed_page_size: page.length };
    }
  } catch (e) {
    if (e instanceof PageLimit) throw pageError(e, at);
    throw e;
  }
  const reader = { view: new DataView(page.buffer, page.byteOffset, page.byteLength), offset: 0 };
  try {
    return readPage(reader, h, { ...decoder, codec: 'UNCOMPRESSED' }, dictionary as never, undefined, 0).data as unknown[] | undefined;
  } catch (e) {
    throw new ParquetError(`is damaged in column "${at.column}" (a page cannot be decoded: ${(e as Error).message})`, at.firstRow);
  }
}

/** The rows a data page says it holds (flat columns: one value per row). */
export function pageRows(header: PageHeader): number {
  return header.data_page_header_v2?.num_rows ?? header.data_page_header?.num_values ?? 0;
}

/** A string value whose bytes are not valid UTF-8: `text` holds U+FFFD (�) where they were. */
export class InvalidUtf8 {
  constructor(readonly text: string) {}
}

const utf8Decoder = new TextDecoder();

/**
 * A string value still in its page's bytes: a page's strings are decoded row by row as they are
 * taken, not all in the step that decodes the page (a 5 MB page of text took 70–120 ms).
 */
export class RawText {
  constructor(readonly bytes: Uint8Array) {}
}

/** hyparquet's parsers, leaving strings as RawText (textOf decodes them). */
export const lazyParsers = {
  ...DEFAULT_PARSERS,
  stringFromBytes: (bytes: Uint8Array | undefined) => (bytes ? new RawText(bytes) : bytes),
};

/**
 * A value as the caller sees it: a RawText decoded; with `mark`, one whose bytes are not valid
 * UTF-8 is an InvalidUtf8 (the JSONL reader warns about those too).
 */
export function textOf(v: unknown, mark: boolean): unknown {
  if (!(v instanceof RawText)) return v;
  const text = utf8Decoder.decode(v.bytes);
  return mark && text.includes('\uFFFD') && !isValidUtf8(v.bytes) ? new InvalidUtf8(text) : text;
}

/** Rows handed out between two turns of the event loop: at most this long. */
const ROWS_SLICE_MS = 8;

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
    const fh = (await openRegular(path)).handle;
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
      const footerBytes = await readAt(fh, size - 8 - footer, footer + 8);
      const elements = schemaLength(footerBytes);
      if (elements !== undefined && elements > MAX_SCHEMA_ELEMENTS) throw new ParquetError(`cannot be read: its schema has ${elements.toLocaleString('en-US')} elements, more than the ${MAX_SCHEMA_ELEMENTS.toLocaleString('en-US')} read`);
      try {
        metadata = parquetMetadata(footerBytes);
      } catch (e) {
        throw new ParquetError(`is damaged: its footer cannot be read (${(e as Error).message})`);
      }
      const schema = schemaFault(metadata.schema);
      if (schema) throw new ParquetError(`cannot be read: ${schema}`);
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
    const keyValue = dict<string>(); // the file's keys: "__proto__" is a key too
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
        const decoder = { pathInSchema: chunk.path_in_schema, element: schemaPath[schemaPath.length - 1]!.element, schemaPath, type: chunk.type, codec: chunk.codec, compressors, parsers: lazyParsers, utf8: true };
        return new Cursor(this.pages(chunk, decoder, name, row, Number(rowGroup.num_rows), signal), name, row);
      });
      const end = row + Number(rowGroup.num_rows);
      let slice = performance.now();
      for (; row < end; row++) {
        const values: unknown[] = [];
        for (const c of cursors) values.push(c.ready() ? c.take() : await c.next());
        yield [row, values];
        // The caller's work on the rows (validation, the index) runs in this loop too: let the event loop in.
        if (performance.now() - slice >= ROWS_SLICE_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
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

  /**
   * The decoded data pages of one column chunk, read from the file one page at a time; each page is
   * checked against the caps (parquetCodec.ts) before it is decompressed, and a page that says it
   * holds more rows than the chunk has left is refused.
   */
  private async *pages(chunk: ColumnMetaData, decoder: Decoder, name: string, firstRow: number, rows: number, signal?: AbortSignal): AsyncGenerator<unknown[]> {
    const offsets = [chunk.dictionary_page_offset, chunk.data_page_offset].filter((o): o is bigint => o !== undefined && o > 0n).map(Number);
    let pos = Math.min(...offsets);
    const end = pos + Number(chunk.total_compressed_size);
    const damaged = (why: string) => new ParquetError(`is damaged in column "${name}" (${why})`, firstRow);
    if (!Number.isFinite(pos) || end > this.size - 8) throw damaged('its pages lie past the end of the file: the file is cut short');
    const budget = new PageBudget();
    let row = firstRow;
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
      const left = firstRow + rows - row;
      const isDictionary = header.type === 'DICTIONARY_PAGE';
      const pageRowCount = pageRows(header);
      if (!isDictionary && pageRowCount > left) throw new ParquetError(`is damaged in column "${name}" (a page at row ${row} says it holds ${pageRowCount.toLocaleString('en-US')} rows; its row group has ${left.toLocaleString('en-US')} left)`, row);
      if (pageEnd > buf.length) buf = await readAt(this.fh, pos, pageEnd);
      const at: PageAt = isDictionary ? { column: name, firstRow: row, rows: left } : { column: name, firstRow: row, rows: pageRowCount };
      let data = await decodePage(buf, headerBytes, header, decoder, dictionary, at, budget);
      if (isDictionary) {
        try {
          dictionary = data ? (convert(data as never, decoder) as unknown[]) : undefined;
        } catch (e) {
          throw damaged(`its dictionary cannot be decoded: ${(e as Error).message}`);
        }
        data = undefined;
      }
      pos += pageEnd;
      if (data?.length) {
        row += data.length;
        yield data;
      }
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
    return textOf(this.page[this.i++], true);
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
