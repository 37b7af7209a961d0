/**
 * A few rows of a flat Parquet column, read without reading the rows before them: for the viewer,
 * which shows one group of a 1 GiB step file at a time. ART's files have one row group and no page
 * index, so the page headers are walked (a small read each, nothing decompressed) up to the page
 * that holds the rows, and only that page (and the chunk's dictionary) is decoded. The pages found
 * are kept, so the walk is done once per file. No `vscode` import.
 */
import type { FileHandle } from 'node:fs/promises';
import { openRegular } from '../common/regular';
import type { ColumnMetaData, FileMetaData, PageHeader } from 'hyparquet';
import { parquetSchema } from 'hyparquet';
import { parquetHeader, type readPage } from 'hyparquet/src/column.js';
import { convert } from 'hyparquet/src/convert.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import { compressors, decodePage, lazyParsers, pageError, pageRows, ParquetError, textOf, type PageAt } from './parquet';
import { PageBudget, PageLimit, type InflateOptions } from './parquetCodec';
import { PagePrefix, prefixReadable } from './parquetPrefix';

/** First read for a page header; a header with large statistics gets a larger one. */
const HEADER_WINDOW = 1024;
const MAX_HEADER = 16 * 1024 * 1024;

interface Page {
  pos: number;
  headerBytes: number;
  header: PageHeader;
  firstRow: number;
  rows: number;
}

/** One column chunk (one row group) and its pages, walked as far as needed. */
interface Chunk {
  firstRow: number;
  rows: number;
  meta: ColumnMetaData;
  decoder: Parameters<typeof readPage>[2];
  pages: Page[];
  /** Where the next unwalked page starts, and where the chunk ends. */
  next: number;
  end: number;
  /** The row after the last page walked. */
  walked: number;
  dictionary?: unknown[];
  /** The caps on the pages' declared sizes, checked as the headers are walked (parquetCodec.ts). */
  budget: PageBudget;
}

/** Reads rows of flat columns of one file by seeking to their pages. */
export class ParquetPages {
  private readonly chunks = new Map<string, Chunk[]>();
  /** The last page decoded, per column: neighbouring groups share their pages. */
  private readonly decoded = new Map<string, { page: Page; values: unknown[] }>();
  /** The page read from its beginning, per column (parquetPrefix.ts). */
  private readonly prefixes = new Map<string, { page: Page; prefix: PagePrefix }>();
  private constructor(
    private readonly fh: FileHandle,
    private readonly size: number,
    private readonly metadata: FileMetaData,
    private readonly opts: InflateOptions,
  ) {}

  /** `opts.zstd`: which Zstd decoder (default: Node's where it has one); tests read with either. */
  static async open(path: string, metadata: FileMetaData, opts: InflateOptions = {}): Promise<ParquetPages> {
    const fh = (await openRegular(path)).handle;
    try {
      return new ParquetPages(fh, (await fh.stat()).size, metadata, opts);
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  close(): Promise<void> {
    return this.fh.close();
  }

  /** Bytes of the file, as hyparquet's AsyncBuffer slices them. */
  async bytes(position: number, length: number): Promise<ArrayBuffer> {
    const buf = await this.readAt(position, length);
    return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
  }

  /** The values of column `name` for rows `first`..`last` (inclusive, 0-based), null for a null. */
  async read(name: string, first: number, last: number): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const chunk of this.chunksOf(name)) {
      if (chunk.firstRow + chunk.rows <= first) continue;
      if (chunk.firstRow > last) break;
      let p = this.findPage(chunk, first);
      for (;;) {
        while (p >= chunk.pages.length && chunk.next < chunk.end) await this.walk(chunk);
        const page = chunk.pages[p];
        if (!page || page.firstRow > last) break;
        const from = Math.max(first, page.firstRow) - page.firstRow;
        const to = Math.min(last, page.firstRow + page.rows - 1) - page.firstRow;
        const native = this.opts.zstd === undefined ? undefined : this.opts.zstd !== 'js';
        const prefix = prefixReadable(page.header, chunk.decoder, native) ? await this.prefixRows(chunk, page, from, to) : undefined;
        if (prefix) out.push(...prefix);
        else {
          const values = await this.decode(chunk, page);
          // Only the rows asked for are decoded to strings.
          for (let i = from; i <= to; i++) out.push(textOf(values[i] ?? null, false));
        }
        p++;
      }
    }
    if (out.length !== last - first + 1) throw new ParquetError(`is damaged: column "${name}" holds ${out.length} of rows ${first}–${last}`, first);
    return out;
  }

  private chunksOf(name: string): Chunk[] {
    let chunks = this.chunks.get(name);
    if (chunks) return chunks;
    chunks = [];
    const tree = parquetSchema(this.metadata);
    let row = 0;
    for (const rg of this.metadata.row_groups) {
      const meta = rg.columns.find((c) => c.meta_data?.path_in_schema.length === 1 && c.meta_data.path_in_schema[0] === name)?.meta_data;
      if (!meta) throw new ParquetError(`has no column "${name}"`);
      const schemaPath = getTreePath(tree, meta.path_in_schema);
      const decoder = { pathInSchema: meta.path_in_schema, element: schemaPath[schemaPath.length - 1]!.element, schemaPath, type: meta.type, codec: meta.codec, compressors, parsers: lazyParsers, utf8: true };
      const start = Math.min(...[meta.dictionary_page_offset, meta.data_page_offset].filter((o): o is bigint => o !== undefined && o > 0n).map(Number));
      const end = start + Number(meta.total_compressed_size);
      if (!Number.isFinite(start) || end > this.size - 8) throw new ParquetError(`is damaged in column "${name}" (its pages lie past the end of the file: the file is cut short)`, row);
      chunks.push({ firstRow: row, rows: Number(rg.num_rows), meta, decoder, pages: [], next: start, end, walked: row, budget: new PageBudget() });
      row += Number(rg.num_rows);
    }
    this.chunks.set(name, chunks);
    return chunks;
  }

  /** The first page walked that ends after `row` (the number of pages walked when none does). */
  private findPage(chunk: Chunk, row: number): number {
    let lo = 0;
    let hi = chunk.pages.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const p = chunk.pages[mid]!;
      if (p.firstRow + p.rows <= row) lo = mid + 1;
      else if (p.firstRow > row) hi = mid - 1;
      else return mid;
    }
    return lo;
  }

  /** Reads the next page header of a chunk (the dictionary page is decoded and kept). */
  private async walk(chunk: Chunk): Promise<void> {
    const name = chunk.meta.path_in_schema.join('.');
    const damaged = (why: string) => new ParquetError(`is damaged in column "${name}" (${why})`, chunk.firstRow);
    const pos = chunk.next;
    let window = Math.min(HEADER_WINDOW, chunk.end - pos);
    for (;;) {
      const buf = await this.readAt(pos, window);
      const reader = { view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), offset: 0 };
      let header: PageHeader;
      try {
        header = parquetHeader(reader);
      } catch (e) {
        if (window >= Math.min(MAX_HEADER, chunk.end - pos)) throw damaged(`a page header cannot be read: ${(e as Error).message}`);
        window = Math.min(window * 16, MAX_HEADER, chunk.end - pos);
        continue;
      }
      const headerBytes = reader.offset;
      if (header.compressed_page_size < 0 || pos + headerBytes + header.compressed_page_size > chunk.end) throw damaged('a page runs past its column chunk');
      chunk.next = pos + headerBytes + header.compressed_page_size;
      const walked = chunk.walked;
      const left = chunk.firstRow + chunk.rows - walked;
      const rows = header.type === 'DICTIONARY_PAGE' ? 0 : pageRows(header);
      if (rows > left) throw new ParquetError(`is damaged in column "${name}" (a page at row ${walked} says it holds ${rows.toLocaleString('en-US')} rows; its row group has ${left.toLocaleString('en-US')} left)`, walked);
      // Every page's declared size is checked here, before any page is decompressed.
      const limit = chunk.budget.check(Number(header.uncompressed_page_size), header.compressed_page_size);
      if (limit) throw pageError(limit, { column: name, firstRow: walked, rows: rows || left });
      if (header.type === 'DICTIONARY_PAGE') {
        chunk.dictionary = await this.decodeDictionary(chunk, { pos, headerBytes, header, firstRow: walked, rows: 0 });
        return;
      }
      if (rows > 0) chunk.pages.push({ pos, headerBytes, header, firstRow: walked, rows });
      chunk.walked += rows;
      return;
    }
  }

  private async decodeDictionary(chunk: Chunk, page: Page): Promise<unknown[] | undefined> {
    const data = await this.pageData(chunk, page, await this.readAt(page.pos, page.headerBytes + page.header.compressed_page_size));
    try {
      return data ? (convert(data as never, chunk.decoder) as unknown[]) : undefined;
    } catch (e) {
      throw new ParquetError(`is damaged in column "${chunk.meta.path_in_schema.join('.')}" (its dictionary cannot be decoded: ${(e as Error).message})`, page.firstRow);
    }
  }

  /** Rows of a page decompressed only as far as they lie; undefined when the page is not one to read so (parquetPrefix.ts). */
  private async prefixRows(chunk: Chunk, page: Page, from: number, to: number): Promise<(string | null)[] | undefined> {
    const name = chunk.meta.path_in_schema.join('.');
    let hit = this.prefixes.get(name);
    if (hit?.page !== page) {
      const bytes = await this.readAt(page.pos + page.headerBytes, page.header.compressed_page_size);
      let prefix: PagePrefix | undefined;
      try {
        prefix = PagePrefix.open(bytes, page.header, chunk.decoder);
      } catch (e) {
        if (e instanceof PageLimit) throw pageError(e, this.at(chunk, page));
        throw e;
      }
      if (!prefix) return undefined;
      hit = { page, prefix };
      this.prefixes.set(name, hit);
    }
    try {
      return await hit.prefix.rows(from, to);
    } catch (e) {
      this.prefixes.delete(name);
      if (e instanceof PageLimit) throw pageError(e, this.at(chunk, page));
      throw new ParquetError(`is damaged in column "${name}" (a page cannot be decoded: ${(e as Error).message})`, page.firstRow + from);
    }
  }

  private async decode(chunk: Chunk, page: Page): Promise<unknown[]> {
    const name = chunk.meta.path_in_schema.join('.');
    const hit = this.decoded.get(name);
    if (hit?.page === page) return hit.values;
    const values = await this.decodePage(chunk, page);
    this.decoded.set(name, { page, values });
    return values;
  }

  private async decodePage(chunk: Chunk, page: Page): Promise<unknown[]> {
    const data = await this.pageData(chunk, page, await this.readAt(page.pos, page.headerBytes + page.header.compressed_page_size));
    if (!data || data.length !== page.rows) throw new ParquetError(`is damaged in column "${chunk.meta.path_in_schema.join('.')}" (a page holds ${data?.length ?? 0} values for ${page.rows} rows)`, page.firstRow);
    return data;
  }

  /** A page decompressed (capped, off the event loop) and decoded; its declared size was checked when it was walked. */
  private pageData(chunk: Chunk, page: Page, buf: Buffer): Promise<unknown[] | undefined> {
    return decodePage(buf, page.headerBytes, page.header, chunk.decoder, chunk.dictionary, this.at(chunk, page), undefined, this.opts);
  }

  private at(chunk: Chunk, page: Page): PageAt {
    return { column: chunk.meta.path_in_schema.join('.'), firstRow: page.firstRow, rows: page.rows || chunk.firstRow + chunk.rows - page.firstRow };
  }

  private async readAt(position: number, length: number): Promise<Buffer> {
    const buf = Buffer.allocUnsafe(length);
    const { bytesRead } = await this.fh.read(buf, 0, length, position);
    if (bytesRead < length) throw new ParquetError('is cut short: a read ran past the end of the file');
    return buf;
  }
}
