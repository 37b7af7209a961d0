/**
 * The run search's disk cache, below the memory one (searchCache.ts): per step file, what the
 * search keeps of each group (its searchable texts, rewards, tools called, verdicts when a search
 * asked for them) and the file's problems, written once as a compact file, so a second search of a
 * run whose step files are too large for the memory cache decodes no Parquet page and parses no
 * group again. A cache file is read streaming, one record at a time.
 *
 * Layout of `<sha256 of the step file's absolute path>.svcsearch`, all numbers little-endian:
 *   MAGIC, then records `[u32 length][u8 kind][length bytes of JSON]` (kind H: the header
 *   {path, size, mtimeMs, verdicts}, first; G: a group; P: a problem), then the TRAILER magic and
 *   two u32: the counts of groups and problems.
 * An entry is good while its step file's path, size and modification time are those of its
 * header. Written to a temporary file and renamed: a reader sees a whole file or none. A file that
 * is not whole (truncated, a length past its end or over MAX_RECORD, bad JSON, counts that differ
 * from the trailer) is a miss: the step file is read again and the entry rewritten; never an error
 * to the user. The folder's total stays under a budget: least recently used entries (by the
 * modification time of the cache file, set on each use) go first, but never one used by the search
 * running now, so a run larger than the budget is cached up to the budget rather than not at all
 * (plain LRU over a sequential scan evicts each file just before it is needed again).
 * No `vscode` import.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, statfs, utimes, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { openRegular } from '../common/regular';
import { asCachedGroup, Corrupt, groupRecord, isHeader, isProblem, MAGIC, MAX_RECORD, readExact, RecordReader, TRAILER, TRAILER_BYTES } from './diskCacheFormat';
import type { CachedGroup, FileSink } from './searchCache';
import type { RunProblem } from './runSearch';

export { MAX_RECORD } from './diskCacheFormat';

const EXT = '.svcsearch';
/** Bytes written at a time. */
const CHUNK = 1024 * 1024;
/**
 * Default budget: 8 GiB holds the searchable text of about 5.5 GiB of Parquet step files (the
 * text is about 1.4 times the Parquet bytes), so a run the size of the 5 GiB bench run is
 * searched again from the cache alone. Never more than a quarter of the disk's free space.
 */
export const DEFAULT_DISK_BUDGET = 8 * 1024 ** 3;
/** Temporary files older than this are from a process that died while writing: removed. */
const STALE_TEMP_MS = 60 * 60 * 1000;

export interface StepStat {
  size: number;
  mtimeMs: number;
}

/** What a replay did: no usable entry; the whole entry (or until the sink stopped); or a fault after some records. */
export type Replay = { kind: 'miss' } | { kind: 'hit'; complete: boolean } | { kind: 'broken'; groups: number; problems: number };

export class SearchDiskCache {
  /** Entries replayed, written, found unusable, and evicted (for the tests and the bench). */
  hits = 0;
  written = 0;
  corrupt = 0;
  evicted = 0;

  constructor(
    readonly folder: string,
    readonly budget = DEFAULT_DISK_BUDGET,
  ) {}

  /** The cache file of a step file. */
  entryPath(file: string): string {
    return path.join(this.folder, createHash('sha256').update(path.resolve(file)).digest('hex').slice(0, 40) + EXT);
  }

  /** Hands the entry of `file` to `sink` when it is good for `st` (and has verdicts, when needed). */
  async replay(file: string, st: StepStat, needVerdicts: boolean, sink: FileSink, pause: () => Promise<void>): Promise<Replay> {
    const entry = this.entryPath(file);
    let fh: FileHandle;
    try {
      // A regular file within the budget only: a pipe or device at the entry's path is a miss, never a wait.
      fh = (await openRegular(entry, this.budget)).handle;
    } catch {
      return { kind: 'miss' };
    }
    let groups = 0;
    let problems = 0;
    try {
      const size = (await fh.stat()).size;
      if (size < MAGIC.length + TRAILER_BYTES) throw new Corrupt('too short');
      const tail = await readExact(fh, size - TRAILER_BYTES, TRAILER_BYTES);
      if (!tail.subarray(0, TRAILER.length).equals(TRAILER)) throw new Corrupt('no trailer');
      const want = { groups: tail.readUInt32LE(TRAILER.length), problems: tail.readUInt32LE(TRAILER.length + 4) };
      const r = new RecordReader(fh, 0, size - TRAILER_BYTES);
      if (!(await r.take(MAGIC.length)).equals(MAGIC)) throw new Corrupt('no magic');
      const head = await r.record();
      if (head.kind !== 'H' || !isHeader(head.value)) throw new Corrupt('no header');
      const h = head.value;
      if (h.path !== path.resolve(file) || h.size !== st.size || h.mtimeMs !== st.mtimeMs || (needVerdicts && !h.verdicts)) {
        await fh.close();
        return { kind: 'miss' };
      }
      this.hits++;
      await utimes(entry, new Date(), new Date()).catch(() => undefined);
      while (!r.atEnd()) {
        const rec = await r.record();
        if (rec.kind === 'P') {
          if (!isProblem(rec.value)) throw new Corrupt('bad problem');
          problems++;
          sink.problem(rec.value);
        } else if (rec.kind === 'G') {
          const g = asCachedGroup(rec.value);
          if (!g) throw new Corrupt('bad group');
          groups++;
          if (!sink.group(g)) return { kind: 'hit', complete: false };
          await pause();
        } else throw new Corrupt('bad kind');
      }
      if (groups !== want.groups || problems !== want.problems) throw new Corrupt('counts differ');
      return { kind: 'hit', complete: true };
    } catch (e) {
      if (!(e instanceof Corrupt) && !isFsError(e)) throw e;
      this.corrupt++;
      await rm(entry, { force: true }).catch(() => undefined);
      return groups || problems ? { kind: 'broken', groups, problems } : { kind: 'miss' };
    } finally {
      await fh.close().catch(() => undefined);
    }
  }

  /** A writer of the entry of `file`, or undefined when the folder cannot be written. */
  async writer(file: string, st: StepStat, verdicts: boolean): Promise<EntryWriter | undefined> {
    try {
      await mkdir(this.folder, { recursive: true });
      const entry = this.entryPath(file);
      const temp = `${entry}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      return new EntryWriter(this, entry, temp, { path: path.resolve(file), size: st.size, mtimeMs: st.mtimeMs, verdicts });
    } catch {
      return undefined;
    }
  }

  /**
   * Keeps the folder under the budget after `added` was written: the least recently used entries
   * go first, never one used at or after `since` (the running search's); when that is not enough,
   * `added` goes. Errors are ignored (a cache that cannot be trimmed is not the user's problem).
   */
  async trim(added: string, since: number): Promise<boolean> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return false;
    }
    const now = Date.now();
    const entries: { file: string; size: number; used: number }[] = [];
    for (const n of names) {
      const file = path.join(this.folder, n);
      const s = await stat(file).catch(() => undefined);
      if (!s?.isFile()) continue;
      if (n.endsWith('.tmp')) {
        if (now - s.mtimeMs > STALE_TEMP_MS) await rm(file, { force: true }).catch(() => undefined);
        continue;
      }
      if (n.endsWith(EXT)) entries.push({ file, size: s.size, used: s.mtimeMs });
    }
    let budget = this.budget;
    const free = await statfs(this.folder).then((f) => f.bavail * f.bsize, () => undefined);
    if (free !== undefined) budget = Math.min(budget, (free + entries.reduce((a, e) => a + e.size, 0)) / 4);
    let total = entries.reduce((a, e) => a + e.size, 0);
    entries.sort((a, b) => a.used - b.used);
    for (const e of entries) {
      if (total <= budget) break;
      if (e.file === added || e.used >= since) continue;
      await rm(e.file, { force: true }).catch(() => undefined);
      this.evicted++;
      total -= e.size;
    }
    if (total <= budget) return true;
    await rm(added, { force: true }).catch(() => undefined);
    return false;
  }

  /** Removes every entry (and temporary file) of the folder; the number of files removed. */
  async clear(): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.folder);
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      if (!name.endsWith(EXT) && !name.endsWith('.tmp')) continue;
      await rm(path.join(this.folder, name), { force: true });
      n++;
    }
    return n;
  }

  /** Entries and bytes in the folder now. */
  async usage(): Promise<{ files: number; bytes: number }> {
    const names = await readdir(this.folder).catch(() => [] as string[]);
    let bytes = 0;
    let files = 0;
    for (const n of names) {
      if (!n.endsWith(EXT)) continue;
      const s = await stat(path.join(this.folder, n)).catch(() => undefined);
      if (!s) continue;
      files++;
      bytes += s.size;
    }
    return { files, bytes };
  }
}

/**
 * Writes one entry as the step file is read. Synchronous writes of up to CHUNK bytes at a time
 * (the sink's calls are synchronous; the bytes go to the page cache), so memory stays at one chunk.
 * Any write error, a record over MAX_RECORD or a file over the budget abandons the entry.
 */
export class EntryWriter {
  private fd: number | undefined;
  private parts: Buffer[] = [];
  private pending = 0;
  private bytes = 0;
  private groups = 0;
  private problems = 0;
  private failed = false;

  constructor(
    private readonly cache: SearchDiskCache,
    readonly entry: string,
    private readonly temp: string,
    header: { path: string; size: number; mtimeMs: number; verdicts: boolean },
  ) {
    try {
      this.fd = openSync(temp, 'wx');
      this.push(MAGIC);
      this.record('H', header);
    } catch {
      this.fail();
    }
  }

  group(g: CachedGroup): void {
    if (this.failed) return;
    this.groups++;
    this.record('G', groupRecord(g));
  }

  problem(p: RunProblem): void {
    if (this.failed) return;
    this.problems++;
    this.record('P', p);
  }

  /** Completes the entry (trailer, rename into place, trim); false when it was not kept. */
  async commit(since: number): Promise<boolean> {
    if (this.failed) return false;
    const tail = Buffer.alloc(TRAILER_BYTES);
    TRAILER.copy(tail);
    tail.writeUInt32LE(this.groups, TRAILER.length);
    tail.writeUInt32LE(this.problems, TRAILER.length + 4);
    this.push(tail);
    this.flush();
    if (this.failed) return false;
    try {
      closeSync(this.fd!);
      this.fd = undefined;
      await rename(this.temp, this.entry);
      const now = new Date();
      await utimes(this.entry, now, now);
    } catch {
      this.fail();
      return false;
    }
    this.cache.written++;
    return this.cache.trim(this.entry, since);
  }

  /** Drops the entry (the read stopped before the end, or failed). */
  abort(): void {
    this.fail();
  }

  private record(kind: 'H' | 'G' | 'P', value: unknown): void {
    try {
      const json = Buffer.from(JSON.stringify(value));
      if (json.length > MAX_RECORD) return this.fail();
      const head = Buffer.alloc(5);
      head.writeUInt32LE(json.length, 0);
      head[4] = kind.charCodeAt(0);
      this.push(head);
      this.push(json);
      if (this.bytes > this.cache.budget) this.fail();
    } catch {
      this.fail();
    }
  }

  private push(b: Buffer): void {
    this.parts.push(b);
    this.pending += b.length;
    this.bytes += b.length;
    if (this.pending >= CHUNK) this.flush();
  }

  private flush(): void {
    if (this.failed || this.fd === undefined) return;
    try {
      const all = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.pending);
      for (let at = 0; at < all.length; ) at += writeSync(this.fd, all, at, all.length - at);
    } catch {
      this.fail();
    }
    this.parts = [];
    this.pending = 0;
  }

  private fail(): void {
    if (this.failed) return;
    this.failed = true;
    this.parts = [];
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed
      }
      this.fd = undefined;
    }
    rm(this.temp, { force: true }).catch(() => undefined);
  }
}

function isFsError(e: unknown): boolean {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string';
}
