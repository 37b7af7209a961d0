/**
 * Page decompression with caps (issue 28): a Parquet page header says how large its page is once
 * decompressed, and a hostile file lies. Every codec here is capped at that size (more output is
 * refused, not given a bigger buffer), the size itself is checked against an absolute cap and
 * against the column's compressed bytes times a ratio, and no call holds the event loop for long:
 * GZIP and native Zstd run on libuv's thread pool, the pure-JS Zstd decoder (fzstd, Node < 22.15)
 * in slices with yields between them. docs/parquet.md says why the numbers. No `vscode` import.
 */
import type { Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { decompress as fzstdDecompress, Decompress } from 'fzstd';
import { snappyUncompress } from 'hyparquet/src/snappy.js';

const MiB = 1024 * 1024;
/** The most a page may hold decompressed: DuckDB's pages reach 100 MB (its MAX_UNCOMPRESSED_PAGE_SIZE), ART's are ~1 MiB. */
export const MAX_PAGE_BYTES = 256 * MiB;
/** A column chunk may decompress to at most this many times its compressed bytes (after the floor below). */
export const MAX_RATIO = 1000;
/**
 * Any column chunk may reach this much decompressed, whatever its ratio: honest data can compress
 * past any ratio (a DuckDB page of 4.8 MB holding a long run of one character came to 4.7 KB,
 * 1,044×), so the ratio bounds only what a file holds beyond this.
 */
export const RATIO_FLOOR = 64 * MiB;
/** Largest Zstd window read (libzstd's own default limit, ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27). */
const MAX_ZSTD_WINDOW = 128 * MiB;
/** Largest Zstd block (RFC 8878: Block_Maximum_Size). */
const ZSTD_BLOCK = 128 * 1024;
/** fzstd's streaming decoder copies its window once per block: frames it must stream (no content size) may cost at most this much copying. */
const MAX_STREAM_COPY = 8 * 1024 * MiB;
/** fzstd streams frames whose window is at most this (a block then costs ≤ 8 MiB of copying); larger frames with a content size are decoded in one step. */
const STREAM_WINDOW = 8 * MiB;
/** A frame that states a size up to this is decoded in one step, in its place (no garbage, no window copies): ≈ 8 ms of fzstd. */
const ONE_STEP = 256 * 1024;
/** The pure-JS decoder yields to the event loop once it has worked this long. */
const SLICE_MS = 8;

/** A page that breaks a cap, or that decompresses to other than its header says: the text says which. */
export class PageLimit extends Error {
  /** `bomb`: more than the limits allow (a decompression bomb or a lying header); `damaged`: not valid. */
  constructor(
    message: string,
    readonly kind: 'bomb' | 'damaged',
  ) {
    super(message);
  }
}

const n = (v: number) => v.toLocaleString('en-US');
const mib = (v: number) => `${Math.round(v / MiB)} MiB`;

/**
 * The running check of one column chunk's pages, before each is decompressed: the declared size
 * against the absolute cap, and the chunk's declared total against its compressed bytes × MAX_RATIO
 * (at least RATIO_FLOOR). Returns the reason for refusing, or undefined.
 */
export class PageBudget {
  private declared = 0;
  private compressed = 0;
  check(declared: number, compressed: number): PageLimit | undefined {
    if (!Number.isInteger(declared) || declared < 0) return new PageLimit(`its header says it holds ${declared} bytes decompressed`, 'damaged');
    if (declared > MAX_PAGE_BYTES) return new PageLimit(`its header says it holds ${n(declared)} bytes decompressed, more than the ${mib(MAX_PAGE_BYTES)} a page may hold`, 'bomb');
    this.declared += declared;
    this.compressed += Math.max(0, compressed);
    if (this.declared > Math.max(RATIO_FLOOR, MAX_RATIO * this.compressed)) {
      return new PageLimit(`its header says it holds ${n(declared)} bytes decompressed from ${n(compressed)}: the column would grow to ${n(this.declared)} bytes from ${n(this.compressed)}, more than ${n(MAX_RATIO)} times`, 'bomb');
    }
    return undefined;
  }
}

/** hyparquet's codec names: UNCOMPRESSED, SNAPPY, GZIP, ZSTD (others are refused). */
export type Codec = string;

/** A zlib decompression stream (its work runs on the thread pool). */
export type InflateStream = (opts: zlib.ZlibOptions) => Transform;
const native = zlib as unknown as { createZstdDecompress?: InflateStream; zstdDecompressSync?: (b: Uint8Array, o: zlib.ZlibOptions) => Buffer };
/** Node's Zstd (22.15+), or undefined. */
export const nativeZstd: InflateStream | undefined = typeof native.createZstdDecompress === 'function' ? native.createZstdDecompress : undefined;

export interface InflateOptions {
  /** Zstd: Node's native decoder (default where it exists) or fzstd ('js'); or a stand-in (tests). */
  zstd?: 'native' | 'js' | InflateStream;
}

const tooLarge = (size: number) => new PageLimit(`it decompresses to more than the ${n(size)} bytes its header says`, 'bomb');
const tooSmall = (got: number, size: number) => new PageLimit(`it decompresses to ${n(got)} bytes, not the ${n(size)} its header says`, 'damaged');

/** Decompresses `input` to exactly `size` bytes, never more; the event loop is never held for long. */
export async function inflate(codec: Codec, input: Uint8Array, size: number, opts: InflateOptions = {}): Promise<Uint8Array> {
  switch (codec) {
    case 'UNCOMPRESSED':
      if (input.length !== size) throw tooSmall(input.length, size);
      return input;
    case 'GZIP':
      return threadPool(zlib.createGunzip, input, size);
    case 'DEFLATE':
      // Raw deflate (zip method 8, src/files/zip.ts): not a Parquet codec.
      return threadPool(zlib.createInflateRaw, input, size);
    case 'ZSTD': {
      const use = opts.zstd ?? (nativeZstd ? 'native' : 'js');
      const frames = scanZstd(input, size);
      const data = frames.filter((f) => !f.skip && f.contentSize !== 0);
      // Node's Zstd stops at the end of the first frame, and a call per frame costs the event loop
      // (512 frames: 46–126 ms): a page of several frames, which no writer we know makes, is fzstd's.
      if (use === 'js' || data.length !== 1) return runSliced(fzstdSteps(input, size, frames));
      const fn = use === 'native' ? nativeZstd : use;
      if (!fn) throw new Error('this Node has no native Zstd (zlib.createZstdDecompress)');
      return threadPool(fn, input.subarray(data[0]!.start, data[0]!.end), size);
    }
    case 'SNAPPY':
      return snappy(input, size);
    default:
      throw new PageLimit(`its codec ${codec} is not one this reader decompresses`, 'damaged');
  }
}

/** The same, synchronous: for hyparquet's whole-chunk reader (version 1 files), as its `compressors`. */
export function inflateSync(codec: Codec, input: Uint8Array, size: number): Uint8Array {
  const limit = new PageBudget().check(size, input.length);
  if (limit) throw limit;
  switch (codec) {
    case 'GZIP':
      return capped(() => zlib.gunzipSync(input, { maxOutputLength: Math.max(1, size) }), size);
    case 'ZSTD': {
      const frames = scanZstd(input, size);
      const data = frames.filter((f) => !f.skip && f.contentSize !== 0);
      if (native.zstdDecompressSync && data.length === 1) return capped(() => native.zstdDecompressSync!(input.subarray(data[0]!.start, data[0]!.end), { maxOutputLength: Math.max(1, size) }), size);
      const steps = fzstdSteps(input, size, frames);
      for (;;) {
        const r = steps.next();
        if (r.done) return r.value;
      }
    }
    case 'SNAPPY':
      return snappy(input, size);
    default:
      return inflateSyncOther(codec, input, size);
  }
}

function inflateSyncOther(codec: Codec, input: Uint8Array, size: number): Uint8Array {
  if (codec === 'UNCOMPRESSED') {
    if (input.length !== size) throw tooSmall(input.length, size);
    return input;
  }
  throw new PageLimit(`its codec ${codec} is not one this reader decompresses`, 'damaged');
}

function capped(run: () => Buffer, size: number): Uint8Array {
  let out: Buffer;
  try {
    out = run();
  } catch (e) {
    throw limitOf(e, size);
  }
  if (out.length !== size) throw tooSmall(out.length, size);
  return out;
}

function limitOf(e: unknown, size: number): Error {
  if ((e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) return tooLarge(size);
  return new PageLimit(`it does not decompress: ${(e as Error).message}`, 'damaged');
}

/**
 * A zlib stream: the work runs on the thread pool, each chunk is copied into the page's buffer as
 * it comes (no concatenation of the whole at the end: 101 MB held the event loop 190 ms), and the
 * stream is stopped as soon as the output passes `size`.
 */
function threadPool(create: InflateStream, input: Uint8Array, size: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const out = new Uint8Array(size);
    let pos = 0;
    let done = false;
    const finish = (e?: Error) => {
      if (done) return;
      done = true;
      if (e) {
        z.destroy();
        reject(e);
      } else if (pos !== size) reject(tooSmall(pos, size));
      else resolve(out);
    };
    const z = create({ chunkSize: 256 * 1024 });
    z.on('data', (chunk: Buffer) => {
      if (done) return;
      if (pos + chunk.length > size) return finish(tooLarge(size));
      out.set(chunk, pos);
      pos += chunk.length;
    });
    z.on('end', () => finish());
    z.on('error', (e) => finish(limitOf(e, size)));
    z.end(input);
  });
}

/** Snappy states its length first: it must be the header's. The decoder writes into a buffer of that size only. */
function snappy(input: Uint8Array, size: number): Uint8Array {
  let len = 0;
  let shift = 0;
  let i = 0;
  for (; i < input.length && i < 5; i++) {
    len += (input[i]! & 0x7f) * 2 ** shift;
    shift += 7;
    if (input[i]! < 0x80) break;
  }
  if (len > size) throw tooLarge(size);
  if (len !== size) throw tooSmall(len, size);
  const out = new Uint8Array(size);
  try {
    snappyUncompress(input, out);
  } catch (e) {
    throw limitOf(e, size);
  }
  return out;
}

/** Runs a generator of work, yielding to the event loop whenever a slice has lasted SLICE_MS. */
async function runSliced<T>(steps: Generator<void, T>): Promise<T> {
  let start = performance.now();
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    if (performance.now() - start >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      start = performance.now();
    }
  }
}

/** One Zstd frame, as its header and block headers say (nothing decoded). */
export interface ZstdFrame {
  start: number;
  end: number;
  /** Frame_Content_Size, when the frame says it. */
  contentSize?: number;
  window: number;
  blocks: number;
  /** Bytes the raw and RLE blocks give (exact), and how many compressed blocks there are (up to 128 KiB each). */
  known: number;
  compressed: number;
  /** A skippable frame: no output. */
  skip?: boolean;
  /** Where each block ends (the last one with the frame's checksum), from the page's start. */
  blockEnds: number[];
}

/**
 * Walks the frames and block headers of a Zstd page (RFC 8878) without decoding: a page whose
 * frames say (or whose raw and RLE blocks give) more than `size` bytes is refused before any
 * work, and so are windows over 128 MiB, blocks over 128 KiB and dictionaries.
 */
export function scanZstd(input: Uint8Array, size: number): ZstdFrame[] {
  const frames: ZstdFrame[] = [];
  const damaged = (why: string) => new PageLimit(`its Zstd data is damaged (${why})`, 'damaged');
  const u32 = (p: number) => (input[p]! | (input[p + 1]! << 8) | (input[p + 2]! << 16)) + input[p + 3]! * 2 ** 24;
  let pos = 0;
  let total = 0;
  while (pos < input.length) {
    if (pos + 4 > input.length) throw damaged('a frame is cut short');
    const magic = u32(pos);
    if (magic >= 0x184d2a50 && magic <= 0x184d2a5f) {
      if (pos + 8 > input.length) throw damaged('a frame is cut short');
      const end = pos + 8 + u32(pos + 4);
      if (end > input.length) throw damaged('a skippable frame runs past the page');
      frames.push({ start: pos, end, window: 0, blocks: 0, known: 0, compressed: 0, skip: true, blockEnds: [] });
      pos = end;
      continue;
    }
    if (magic !== 0xfd2fb528) throw damaged('a frame does not start with the Zstd magic number');
    const start = pos;
    pos += 4;
    if (pos >= input.length) throw damaged('a frame is cut short');
    const fhd = input[pos++]!;
    const fcsFlag = fhd >> 6;
    const single = (fhd >> 5) & 1;
    const checksum = (fhd >> 2) & 1;
    const dictBytes = [0, 1, 2, 4][fhd & 3]!;
    if (fhd & 8) throw damaged('a reserved bit is set');
    let window = 0;
    if (!single) {
      const wd = input[pos++]!;
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    let dict = 0;
    for (let i = 0; i < dictBytes; i++) dict += input[pos + i]! * 2 ** (8 * i);
    pos += dictBytes;
    if (dict) throw new PageLimit('its Zstd data needs a dictionary, which Parquet does not carry', 'damaged');
    const fcsBytes = [single, 2, 4, 8][fcsFlag]!;
    let contentSize: number | undefined;
    if (fcsBytes) {
      let v = 0;
      for (let i = 0; i < fcsBytes; i++) v += input[pos + i]! * 2 ** (8 * i);
      contentSize = fcsBytes === 2 ? v + 256 : v;
    }
    pos += fcsBytes;
    if (pos > input.length) throw damaged('a frame header is cut short');
    if (single) window = contentSize!;
    if (window > MAX_ZSTD_WINDOW) throw new PageLimit(`its Zstd frame asks for a ${n(window)}-byte window, more than the ${mib(MAX_ZSTD_WINDOW)} read`, 'bomb');
    const maxBlock = Math.min(ZSTD_BLOCK, Math.max(window, 1));
    let blocks = 0;
    let known = 0;
    let compressed = 0;
    const blockEnds: number[] = [];
    for (let last = 0; !last; ) {
      if (pos + 3 > input.length) throw damaged('a block header is cut short');
      const b = input[pos]! | (input[pos + 1]! << 8) | (input[pos + 2]! << 16);
      pos += 3;
      last = b & 1;
      const type = (b >> 1) & 3;
      const bsize = b >>> 3;
      blocks++;
      if (type === 3) throw damaged('a block of the reserved type');
      if (bsize > maxBlock) throw damaged(`a block of ${n(bsize)} bytes, more than the ${n(maxBlock)} allowed`);
      if (type === 1) {
        pos += 1;
        known += bsize;
      } else {
        pos += bsize;
        if (type === 0) known += bsize;
        else compressed++;
      }
      if (pos > input.length) throw damaged('a block runs past the page');
      blockEnds.push(pos);
      // Refused as soon as the frames say more than the page may hold: no further walking.
      if (total + known > size) throw tooLarge(size);
    }
    if (checksum) pos += 4;
    if (pos > input.length) throw damaged('a frame is cut short');
    blockEnds[blockEnds.length - 1] = pos;
    if (contentSize !== undefined && (known > contentSize || contentSize > known + compressed * maxBlock)) throw damaged('a frame holds other than its content size');
    total += contentSize ?? known;
    if (total > size) throw tooLarge(size);
    frames.push({ start, end: pos, contentSize, window, blocks, known, compressed, blockEnds });
  }
  let copy = 0;
  for (const f of frames) if (f.contentSize === undefined) copy += f.blocks * f.window;
  if (copy > MAX_STREAM_COPY) throw new PageLimit('its Zstd frames without a content size have too many blocks for their windows to be read', 'bomb');
  return frames;
}

/**
 * fzstd over the frames scanned, each capped at the room left in the page. A frame is streamed
 * block by block (one step each: the streaming decoder copies its window once per block, so a step
 * costs at most one window), unless it states its size and that is at most 256 KiB or its window
 * is over 8 MiB: then it is decoded straight into its place in one step (writers give one frame per
 * page; only pages over 8 MiB, which DuckDB writes and ART does not, hold the loop that long).
 */
function* fzstdSteps(input: Uint8Array, size: number, frames: ZstdFrame[]): Generator<void, Uint8Array> {
  const out = new Uint8Array(size);
  let pos = 0;
  for (const f of frames) {
    if (f.skip) continue;
    const room = f.contentSize === undefined ? size - pos : f.contentSize;
    if (pos + room > size) throw tooLarge(size);
    if (f.contentSize !== undefined && (f.window > STREAM_WINDOW || f.contentSize <= ONE_STEP)) {
      // Straight into its place. fzstd compares the buffer it is given with `== 1`, which turns a
      // typed array into a string of all its bytes, for every frame (what made 2,000 frames of a
      // 1 MiB page take 50 s before): the view given converts to a number instead.
      const place = out.subarray(pos, pos + f.contentSize);
      Object.defineProperty(place, Symbol.toPrimitive, { value: () => 0 });
      try {
        if (f.contentSize) fzstdDecompress(input.subarray(f.start, f.end), place);
      } catch (e) {
        throw limitOf(e, size);
      }
      pos += f.contentSize;
      yield;
      continue;
    }
    const frameStart = pos;
    const stream = new Decompress((chunk) => {
      if (pos + chunk.length > frameStart + room) throw f.contentSize === undefined ? tooLarge(size) : new PageLimit('its Zstd data is damaged (a frame holds more than its content size)', 'damaged');
      out.set(chunk, pos);
      pos += chunk.length;
    });
    let at = f.start;
    for (const [i, end] of f.blockEnds.entries()) {
      try {
        stream.push(input.subarray(at, end), i === f.blockEnds.length - 1);
      } catch (e) {
        throw e instanceof PageLimit ? e : limitOf(e, size);
      }
      at = end;
      yield;
    }
    if (f.contentSize !== undefined && pos - frameStart !== f.contentSize) throw new PageLimit('its Zstd data is damaged (a frame holds other than its content size)', 'damaged');
  }
  if (pos !== size) throw tooSmall(pos, size);
  return out;
}
