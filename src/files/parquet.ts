/**
 * Parquet files read page by page, straight from the file: memory holds one page per column read,
 * never the file (ART's step files have one row group, so reading "row group by row group" would
 * bound nothing). ART's format on top of it is artParquet.ts. No `vscode` import.
 */
import type { FileHandle } from 'node:fs/promises';
import { openRegular } from './regular';
import * as zlib from 'node:zlib';
import { parquetMetadata, parquetReadObjects, parquetSchema, type ColumnMetaData, type Compressors, type FileMetaData } from 'hyparquet';
import { parquetHeader, readPage } from 'hyparquet/src/column.js';
import { convert, DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import { isValidUtf8 } from './lines';
import { decompress as decompressZstd } from 'fzstd';

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
