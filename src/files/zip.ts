/**
 * A zip reader with caps, for Inspect AI's `.eval` logs (src/files/inspectEval.ts): it reads the
 * end-of-central-directory record and the central directory (zip64 too), then only the entries
 * asked for. Stored, deflate (method 8) and Zstd (method 93, one frame or many) entries, each
 * decompressed to exactly the size the central directory states and never more, that size checked
 * against an absolute cap and against the entry's compressed bytes times a ratio (the Parquet
 * reader's caps, parquetCodec.ts). A central directory that lies (sizes or offsets past the file,
 * entries that overlap, a local header that differs from it, too many entries) is refused with a
 * message naming the file and the entry. Nothing holds the event loop for long: the central
 * directory is parsed in slices, deflate and native Zstd run on the thread pool, fzstd in slices.
 * No `vscode` import.
 */
import { open, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { inflate, MAX_RATIO, PageLimit, RATIO_FLOOR } from './parquetCodec';

const MiB = 1024 * 1024;
/** The most one entry may hold decompressed (a JS string holds at most ~512 M characters; a sample past this is not read). */
export const MAX_ENTRY_BYTES = 256 * MiB;
/** The most entries a central directory may list (an Inspect log has two or three per sample and epoch). */
export const MAX_ENTRIES = 500_000;
/** The most bytes a central directory may take. */
export const MAX_DIRECTORY_BYTES = 128 * MiB;
/** Work between yields to the event loop. */
const SLICE_MS = 8;

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const LOCATOR64 = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

export const STORED = 0;
export const DEFLATE = 8;
export const ZSTD = 93;

/** A damaged or hostile zip: the message names the file and, where there is one, the entry. */
export class ZipError extends Error {
  constructor(
    message: string,
    readonly entry?: string,
    /** `bomb`: over the caps; `damaged`: not a valid zip or entry. */
    readonly kind: 'bomb' | 'damaged' = 'damaged',
  ) {
    super(message);
    this.name = 'ZipError';
  }
}

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  size: number;
  /** Where its local header starts. */
  offset: number;
  /** Where the next entry's local header (or the central directory) starts: its data must end before. */
  limit: number;
}

const n = (v: number) => v.toLocaleString('en-US');

export interface ZipOpenOptions {
  signal?: AbortSignal;
  /** Caps (tests): the defaults are MAX_ENTRIES and MAX_ENTRY_BYTES. */
  maxEntries?: number;
  maxEntryBytes?: number;
}

export class ZipReader {
  /** Entries by name; a name written twice is its last entry (as Inspect's readers take it). */
  readonly entries = new Map<string, ZipEntry>();
  private readonly maxEntryBytes: number;

  private constructor(
    readonly path: string,
    readonly size: number,
    private readonly fh: FileHandle,
    opts: ZipOpenOptions,
  ) {
    this.maxEntryBytes = opts.maxEntryBytes ?? MAX_ENTRY_BYTES;
  }

  /** The file's name, as errors say it. */
  get name(): string {
    return path.basename(this.path);
  }

  /** Opens `file` and reads its central directory; a damaged or hostile one throws a ZipError. */
  static async open(file: string, opts: ZipOpenOptions = {}): Promise<ZipReader> {
    const fh = await open(file, 'r');
    try {
      const { size } = await fh.stat();
      const zip = new ZipReader(file, size, fh, opts);
      await zip.readDirectory(opts);
      return zip;
    } catch (e) {
      await fh.close();
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }

  private fail(why: string, entry?: string, kind: 'bomb' | 'damaged' = 'damaged'): ZipError {
    return new ZipError(`${this.name}${entry !== undefined ? `, entry ${entry}` : ''}: ${why}`, entry, kind);
  }

  private async bytes(at: number, length: number): Promise<Buffer> {
    const buf = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.fh.read(buf, done, length - done, at + done);
      if (bytesRead === 0) throw this.fail(`the file ends at byte ${n(at + done)}, before the ${n(length)} bytes read from ${n(at)}`);
      done += bytesRead;
    }
    return buf;
  }

  private async readDirectory(opts: ZipOpenOptions): Promise<void> {
    const maxEntries = opts.maxEntries ?? MAX_ENTRIES;
    if (this.size < 22) throw this.fail(`not a zip: ${n(this.size)} bytes, too short for its end record`);
    const tailLength = Math.min(this.size, 22 + 0xffff);
    const tailAt = this.size - tailLength;
    const tail = await this.bytes(tailAt, tailLength);
    let eocd = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD && i + 22 + tail.readUInt16LE(i + 20) <= tail.length) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw this.fail('not a zip, or cut short: no end-of-central-directory record');
    if (tail.readUInt16LE(eocd + 4) !== 0 || tail.readUInt16LE(eocd + 6) !== 0) throw this.fail('a zip split over several disks, which this reader does not read');
    let count = tail.readUInt16LE(eocd + 10);
    let dirSize = tail.readUInt32LE(eocd + 12);
    let dirOffset = tail.readUInt32LE(eocd + 16);
    let dirEnd = tailAt + eocd;
    if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
      // Zip64: the locator sits just before the end record and points at the zip64 end record.
      const at = tailAt + eocd - 20;
      const locator = at >= 0 ? await this.bytes(at, 20) : undefined;
      if (locator && locator.readUInt32LE(0) === LOCATOR64) {
        const recordAt = Number(locator.readBigUInt64LE(8));
        if (recordAt + 56 > at) throw this.fail(`its zip64 end record is said to be at byte ${n(recordAt)}, past where it can be`);
        const record = await this.bytes(recordAt, 56);
        if (record.readUInt32LE(0) !== EOCD64) throw this.fail(`no zip64 end record at byte ${n(recordAt)}, where its locator points`);
        count = Number(record.readBigUInt64LE(32));
        dirSize = Number(record.readBigUInt64LE(40));
        dirOffset = Number(record.readBigUInt64LE(48));
        dirEnd = recordAt;
      }
    }
    if (count > maxEntries) throw this.fail(`its central directory lists ${n(count)} entries, more than the ${n(maxEntries)} this reader reads`, undefined, 'bomb');
    if (dirSize > MAX_DIRECTORY_BYTES) throw this.fail(`its central directory takes ${n(dirSize)} bytes, more than the ${n(MAX_DIRECTORY_BYTES)} this reader reads`, undefined, 'bomb');
    if (dirOffset + dirSize > dirEnd) throw this.fail(`its central directory (${n(dirSize)} bytes at byte ${n(dirOffset)}) runs past where it must end (byte ${n(dirEnd)}); the file is ${n(this.size)} bytes`);
    if (count * 46 > dirSize) throw this.fail(`its central directory lists ${n(count)} entries in ${n(dirSize)} bytes, too few for them`);
    const dir = await this.bytes(dirOffset, dirSize);
    const list: ZipEntry[] = [];
    // In batches of a synchronous loop (which the JIT compiles well), a yield between batches.
    const at = { pos: 0, i: 0 };
    // The directory as Latin-1 once (names are sliced from it), when that is one short call: up to 16 MiB.
    const latin1 = dir.length <= 16 * MiB ? dir.toString('latin1') : undefined;
    while (at.i < count) {
      opts.signal?.throwIfAborted();
      this.parseEntries(dir, latin1, dirOffset, count, at, list, performance.now() + SLICE_MS);
      if (at.i < count) await new Promise<void>((resolve) => setImmediate(resolve));
    }
    // Entries must not overlap (the overlapping-entry zip bomb); each one's data ends before the next one starts.
    // A writer lists its entries in the order it wrote them: sort only a directory that is not in that order.
    let ordered = true;
    for (let i = 1; i < list.length && ordered; i++) ordered = list[i - 1]!.offset <= list[i]!.offset;
    const byOffset = ordered ? list : [...list].sort((a, b) => a.offset - b.offset);
    for (let i = 0; i < byOffset.length; i++) {
      const e = byOffset[i]!;
      const next = byOffset[i + 1];
      if (next) {
        if (next.offset === e.offset || e.offset + 30 + e.compressedSize > next.offset) {
          throw this.fail(`it overlaps entry ${next.name}: both are said to lie at byte ${n(next.offset)}`, e.name);
        }
        e.limit = next.offset;
      }
    }
    // Entries by name in the order written: a name written twice keeps its last one.
    this.entries.clear();
    for (const e of byOffset) this.entries.set(e.name, e);
  }

  /** Parses central directory entries from `at` on until `count` or the clock passes `until` (checked every 256 entries). */
  private parseEntries(dir: Buffer, latin1: string | undefined, dirOffset: number, count: number, at: { pos: number; i: number }, list: ZipEntry[], until: number): void {
    let pos = at.pos;
    let i = at.i;
    for (; i < count; i++) {
      if ((i & 255) === 255 && performance.now() >= until) break;
      if (pos + 46 > dir.length || dir.readUInt32LE(pos) !== CENTRAL) throw this.fail(`its central directory is damaged at entry ${n(i + 1)} of ${n(count)} (byte ${n(dirOffset + pos)})`);
      const nameLength = dir.readUInt16LE(pos + 28);
      const extraLength = dir.readUInt16LE(pos + 30);
      const commentLength = dir.readUInt16LE(pos + 32);
      const next = pos + 46 + nameLength + extraLength + commentLength;
      if (next > dir.length) throw this.fail(`its central directory is cut short at entry ${n(i + 1)} of ${n(count)}`);
      // Most names are ASCII: a slice of the directory read once as Latin-1 (no call into C++ per name); others decoded as UTF-8.
      let ascii = latin1 !== undefined;
      for (let k = pos + 46, end = pos + 46 + nameLength; k < end && ascii; k++) ascii = dir[k]! < 0x80;
      const name = ascii && latin1 !== undefined ? latin1.slice(pos + 46, pos + 46 + nameLength) : dir.toString('utf8', pos + 46, pos + 46 + nameLength);
      const entry: ZipEntry = {
        name,
        flags: dir.readUInt16LE(pos + 8),
        method: dir.readUInt16LE(pos + 10),
        crc32: dir.readUInt32LE(pos + 16),
        compressedSize: dir.readUInt32LE(pos + 20),
        size: dir.readUInt32LE(pos + 24),
        offset: dir.readUInt32LE(pos + 42),
        limit: dirOffset,
      };
      if (dir.readUInt16LE(pos + 34) !== 0 && dir.readUInt16LE(pos + 34) !== 0xffff) throw this.fail('it is on another disk of a split zip', name);
      // Only an entry with a field set to 0xFFFFFFFF has a zip64 extra field to read (no Buffer made for the others).
      if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.offset === 0xffffffff) this.zip64Extra(entry, dir.subarray(pos + 46 + nameLength, pos + 46 + nameLength + extraLength));
      if (entry.offset + 30 + entry.compressedSize > dirOffset) {
        throw this.fail(`the central directory says its ${n(entry.compressedSize)} compressed bytes start at byte ${n(entry.offset)}, which runs past the entries' end (byte ${n(dirOffset)})`, name);
      }
      list.push(entry);
      pos = next;
    }
    at.pos = pos;
    at.i = i;
  }

  /** The zip64 extra field (0x0001): the 64-bit values of the fields set to 0xFFFFFFFF, in order. */
  private zip64Extra(e: ZipEntry, extra: Buffer): void {
    let p = 0;
    while (p + 4 <= extra.length) {
      const id = extra.readUInt16LE(p);
      const len = extra.readUInt16LE(p + 2);
      if (id === 0x0001) {
        let q = p + 4;
        const take = () => {
          if (q + 8 > p + 4 + len || q + 8 > extra.length) throw this.fail('its zip64 extra field is cut short', e.name);
          const v = Number(extra.readBigUInt64LE(q));
          q += 8;
          return v;
        };
        if (e.size === 0xffffffff) e.size = take();
        if (e.compressedSize === 0xffffffff) e.compressedSize = take();
        if (e.offset === 0xffffffff) e.offset = take();
        return;
      }
      p += 4 + len;
    }
  }

  /** Names of the entries, in the order they lie in the file. */
  names(): string[] {
    return [...this.entries.keys()];
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** Reads and decompresses one entry (its CRC-32 checked); a missing, damaged or hostile entry throws a ZipError. */
  async read(name: string, signal?: AbortSignal): Promise<Buffer> {
    const e = this.entries.get(name);
    if (!e) throw this.fail(`no entry ${name} in the zip`, name);
    if (e.flags & 1) throw this.fail('it is encrypted, which this reader does not read', name);
    if (e.method !== STORED && e.method !== DEFLATE && e.method !== ZSTD) throw this.fail(`its compression method ${e.method} is not one this reader reads (stored 0, deflate 8, Zstd 93)`, name);
    if (e.size > this.maxEntryBytes) {
      throw this.fail(`the zip says it holds ${n(e.size)} bytes decompressed, more than the ${n(this.maxEntryBytes)} this reader reads of one entry`, name, 'bomb');
    }
    if (e.method !== STORED && e.size > Math.max(RATIO_FLOOR, MAX_RATIO * e.compressedSize)) {
      throw this.fail(`the zip says it holds ${n(e.size)} bytes decompressed from ${n(e.compressedSize)}, more than ${n(MAX_RATIO)} times (a decompression bomb, or a damaged file)`, name, 'bomb');
    }
    const local = await this.bytes(e.offset, 30);
    if (local.readUInt32LE(0) !== LOCAL) throw this.fail(`no local header at byte ${n(e.offset)}, where the central directory says it starts`, name);
    const localMethod = local.readUInt16LE(8);
    if (localMethod !== e.method) throw this.fail(`its local header says compression method ${localMethod}, the central directory ${e.method}`, name);
    const nameLength = local.readUInt16LE(26);
    const extraLength = local.readUInt16LE(28);
    const localName = (await this.bytes(e.offset + 30, nameLength)).toString('utf8');
    if (localName !== name) throw this.fail(`its local header names it ${JSON.stringify(localName)}`, name);
    // Sizes in the local header are zero when a data descriptor follows (flag bit 3); otherwise they must agree.
    if (!(e.flags & 8)) {
      const lc = local.readUInt32LE(18);
      const ls = local.readUInt32LE(22);
      if ((lc !== 0xffffffff && lc !== e.compressedSize) || (ls !== 0xffffffff && ls !== e.size)) {
        throw this.fail(`its local header says ${n(lc)} bytes compressed and ${n(ls)} decompressed, the central directory ${n(e.compressedSize)} and ${n(e.size)}`, name);
      }
    }
    const start = e.offset + 30 + nameLength + extraLength;
    if (start + e.compressedSize > e.limit) throw this.fail(`its ${n(e.compressedSize)} compressed bytes from byte ${n(start)} run into what follows (byte ${n(e.limit)})`, name);
    signal?.throwIfAborted();
    const input = await this.bytes(start, e.compressedSize);
    let out: Uint8Array;
    try {
      if (e.method === STORED) {
        if (e.compressedSize !== e.size) throw this.fail(`it is stored, yet the zip says ${n(e.compressedSize)} bytes in the file and ${n(e.size)} decompressed`, name);
        out = input;
      } else out = await inflate(e.method === DEFLATE ? 'DEFLATE' : 'ZSTD', input, e.size);
    } catch (err) {
      if (err instanceof PageLimit) throw this.fail(err.message.replace('its header says', 'the zip says'), name, err.kind);
      throw err;
    }
    signal?.throwIfAborted();
    const crc = await crc32(out);
    if (crc !== e.crc32) throw this.fail(`its CRC-32 is ${hex(crc)}, the zip says ${hex(e.crc32)}: the data is damaged`, name);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  }
}

const hex = (v: number) => `0x${v.toString(16).padStart(8, '0')}`;

const zcrc = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 of `data`, 4 MiB at a time with yields between (zlib.crc32, Node ≥ 20.15; a table otherwise). */
async function crc32(data: Uint8Array): Promise<number> {
  const STEP = 4 * MiB;
  let crc = 0;
  for (let at = 0; at < data.length || at === 0; at += STEP) {
    const part = data.subarray(at, Math.min(data.length, at + STEP));
    crc = zcrc ? zcrc(part, crc) : tableCrc(part, crc);
    if (at + STEP < data.length) await new Promise<void>((resolve) => setImmediate(resolve));
    if (data.length === 0) break;
  }
  return crc >>> 0;
}

let table: Uint32Array | undefined;
function tableCrc(data: Uint8Array, prev: number): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      let c = i;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[i] = c >>> 0;
    }
  }
  let c = ~prev >>> 0;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
