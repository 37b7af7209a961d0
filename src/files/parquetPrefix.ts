/**
 * The first rows of a data page without decompressing the rest of it. A Zstd page is decompressed
 * block by block only as far as the rows asked for, and the PLAIN byte arrays are walked by their
 * lengths, so the first group of a step file is on screen after a few KiB of work however large
 * the page (DuckDB writes a column chunk as one page of up to 100 MB; ART's pyarrow writes pages
 * of about 1 MiB). What was decompressed is kept: later rows of the page continue from there.
 * Used where it pays: PLAIN BYTE_ARRAY columns in v1 data pages, Zstd without Node's native
 * decoder (which decompresses a whole page faster than this can walk it) or uncompressed. No
 * `vscode` import.
 *
 * A hostile page is refused before any work (parquetCodec.ts's scan of its frames), and a page
 * that is not one frame stating its size, in blocks of up to 128 KiB, is not read this way
 * (fzstd's streaming decoder copies its window once per block): ParquetPages then decodes it
 * whole, capped.
 */
import { Decompress } from 'fzstd';
import type { PageHeader } from 'hyparquet';
import { readRleBitPackedHybrid } from 'hyparquet/src/encoding.js';
import { getMaxDefinitionLevel, getMaxRepetitionLevel } from 'hyparquet/src/schema.js';
import type { readPage } from 'hyparquet/src/column.js';
import * as zlib from 'node:zlib';
import { PageLimit, scanZstd } from './parquetCodec';

type Decoder = Parameters<typeof readPage>[2];
const SLICE_MS = 8;
const hasNativeZstd = typeof (zlib as { zstdDecompressSync?: unknown }).zstdDecompressSync === 'function';

/** Whether a page's rows can be read from its beginning alone (`nativeZstd`: whether Zstd pages are decoded natively). */
export function prefixReadable(header: PageHeader, decoder: Decoder, nativeZstd = hasNativeZstd): boolean {
  const plain = header.type === 'DATA_PAGE' && header.data_page_header?.encoding === 'PLAIN';
  const codec = decoder.codec === 'UNCOMPRESSED' || (decoder.codec === 'ZSTD' && !nativeZstd);
  return plain && codec && decoder.type === 'BYTE_ARRAY' && getMaxRepetitionLevel(decoder.schemaPath) === 0 && getMaxDefinitionLevel(decoder.schemaPath) <= 1;
}

/** A page being read from its beginning. */
export class PagePrefix {
  private readonly out: Uint8Array;
  private have = 0;
  private inPos = 0;
  private readonly zstd: Decompress | undefined;
  private defs: number[] | undefined;
  private levels: Promise<void> | undefined;
  /** Byte offset of each row's value walked so far (-1 for a null). */
  private readonly at: number[] = [];
  private pos = 0;
  private readonly text = new TextDecoder();
  /** Where each Zstd block ends: the page is decompressed block by block. */
  private blockEnds: number[] = [];
  private block = 0;

  /**
   * A reader of the page from its beginning, or undefined when the page is not one to read so; a
   * page whose Zstd frames say more than its header is a PageLimit.
   */
  static open(page: Uint8Array, header: PageHeader, decoder: Decoder): PagePrefix | undefined {
    if (decoder.codec === 'ZSTD') {
      const frames = scanZstd(page, header.uncompressed_page_size);
      const f = frames[0];
      if (frames.length !== 1 || f?.contentSize === undefined || f.blocks > Math.ceil(f.contentSize / Math.min(128 * 1024, Math.max(1, f.window))) + 2) return undefined;
      const prefix = new PagePrefix(page, header, decoder);
      prefix.blockEnds = f.blockEnds;
      return prefix;
    } else if (page.length !== header.uncompressed_page_size) {
      throw new PageLimit(`holds ${page.length} bytes, not the ${header.uncompressed_page_size} its header says`, 'damaged');
    }
    return new PagePrefix(page, header, decoder);
  }

  /** `page`: the page's compressed bytes (after its header). */
  private constructor(
    private readonly page: Uint8Array,
    private readonly header: PageHeader,
    private readonly decoder: Decoder,
  ) {
    if (decoder.codec === 'UNCOMPRESSED') {
      this.out = page;
      this.have = page.length;
      this.inPos = page.length;
    } else {
      this.out = new Uint8Array(header.uncompressed_page_size);
      this.zstd = new Decompress((chunk) => {
        if (this.have + chunk.length > this.out.length) throw new PageLimit(`it decompresses to more than the ${this.out.length.toLocaleString('en-US')} bytes its header says`, 'bomb');
        this.out.set(chunk, this.have);
        this.have += chunk.length;
      });
    }
  }

  /** Values of rows `a`..`b` of the page (0-based in the page, inclusive), null for a null. */
  async rows(a: number, b: number): Promise<(string | null)[]> {
    const rows = this.header.data_page_header!.num_values;
    if (b >= rows) throw new Error(`row ${b} is past the page's ${rows} rows`);
    await (this.levels ??= this.readLevels(rows));
    // Another read of the page may go on while this one waits: the state is read again after each wait.
    while (this.at.length <= b) {
      const r = this.at.length;
      if (this.defs!.length && this.defs![r] !== 1) {
        this.at.push(-1);
        continue;
      }
      if (this.have < this.pos + 4) {
        await this.ensure(this.pos + 4);
        continue;
      }
      this.at.push(this.pos);
      this.pos += 4 + this.u32(this.pos);
    }
    await this.ensure(this.pos);
    const values: (string | null)[] = [];
    for (let r = a; r <= b; r++) {
      const p = this.at[r]!;
      values.push(p < 0 ? null : this.text.decode(this.out.subarray(p + 4, p + 4 + this.u32(p))));
    }
    return values;
  }

  private async readLevels(rows: number): Promise<void> {
    if (getMaxDefinitionLevel(this.decoder.schemaPath) === 0) {
      this.defs = [];
      return;
    }
    await this.ensure(4);
    const length = this.u32(0);
    await this.ensure(4 + length);
    const defs = new Array<number>(rows);
    const reader = { view: new DataView(this.out.buffer, this.out.byteOffset, this.have), offset: 0 };
    readRleBitPackedHybrid(reader, 1, defs);
    this.defs = defs;
    this.pos = 4 + length;
  }

  private u32(p: number): number {
    return (this.out[p]! | (this.out[p + 1]! << 8) | (this.out[p + 2]! << 16) | (this.out[p + 3]! << 24)) >>> 0;
  }

  /**
   * Decompresses until `n` bytes are there, one Zstd block at a time (fzstd's streaming decoder
   * copies its window once per push), letting the event loop in every few milliseconds.
   */
  private async ensure(n: number): Promise<void> {
    let slice = performance.now();
    while (this.have < n) {
      if (!this.zstd || this.inPos >= this.page.length) throw new Error(`the page ends at ${this.have} bytes, before byte ${n}`);
      const end = this.block < this.blockEnds.length ? this.blockEnds[this.block++]! : this.page.length;
      this.zstd.push(this.page.subarray(this.inPos, end), end === this.page.length);
      this.inPos = end;
      if (performance.now() - slice >= SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
  }
}
