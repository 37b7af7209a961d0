/**
 * Why a second search of the same run is faster than the first: per step file, the searchable
 * texts of each group (viewer/searchFields.ts) and what the filters read (rewards, tools called, and
 * verdicts once a search asked for them), so the next search decodes no Parquet page and parses
 * no JSON. Kept in memory, in the extension host (or the MCP server) process, under a budget of
 * characters (least recently used files go first; a file larger than a quarter of the budget is
 * never kept); and below it, when a folder is given (useDisk), on disk (diskCache.ts), for the
 * files too large for memory and across restarts. An entry is good while its file's path, size
 * and modification time are the same: a step file that changed is read again. The file's problems
 * (malformed groups) are kept too, so a search from the cache reports them as the first did.
 * No `vscode` import.
 */
import { stat } from 'node:fs/promises';
import { SearchDiskCache, type StepStat } from './diskCache';
import type { SearchField, TrajectoryFacts } from '../viewer/searchFields';
import type { RunProblem, Verdict } from './runSearch';

export interface CachedGroup {
  group: number;
  fields: SearchField[];
  facts: TrajectoryFacts[];
  /** Each trajectory's verdict, when a search asked for them. */
  verdicts?: Verdict[];
}

/** Where a file's groups go as they are read (or replayed from the cache). `group` returns false to stop. */
export interface FileSink {
  group(g: CachedGroup): boolean;
  problem(p: RunProblem): void;
}

interface Entry {
  size: number;
  mtimeMs: number;
  verdicts: boolean;
  groups: CachedGroup[];
  problems: RunProblem[];
  chars: number;
}

/** Characters a field costs in the budget beyond its text (its numbers and labels). */
const FIELD_OVERHEAD = 64;

export class SearchCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;
  /** Files served from the cache, and read from disk (for the tests and the bench). */
  hits = 0;
  misses = 0;

  /** `budget`: characters of text kept over every file (default 64 Mi, about 64 to 128 MiB). */
  constructor(readonly budget = 64 * 1024 * 1024) {}

  private diskCache: SearchDiskCache | undefined;
  /** When each running search started (Date.now()): the disk cache keeps what any of them used. */
  private readonly running = new Set<{ since: number }>();

  /** Adds the disk cache in `folder` (undefined: none), with a budget in bytes. */
  useDisk(folder: string | undefined, budget?: number): void {
    this.diskCache = folder ? new SearchDiskCache(folder, budget) : undefined;
  }

  get disk(): SearchDiskCache | undefined {
    return this.diskCache;
  }

  /**
   * Called as a search starts: the disk entries it uses are not evicted (for it or for another
   * search running beside it) until it calls the function returned, as it ends.
   */
  startSearch(): () => void {
    const lease = { since: Date.now() };
    this.running.add(lease);
    return () => this.running.delete(lease);
  }

  /** The start of the oldest running search: entries used since then stay. */
  private get keepSince(): number {
    let since = Date.now();
    for (const lease of this.running) since = Math.min(since, lease.since);
    return since;
  }

  get size(): { files: number; chars: number } {
    return { files: this.entries.size, chars: this.chars };
  }

  /** Empties the memory cache (and the disk cache with `disk`); the disk files removed. */
  async clear(disk = false): Promise<number> {
    this.entries.clear();
    this.chars = 0;
    return disk && this.diskCache ? this.diskCache.clear() : 0;
  }

  /**
   * Hands the file's groups to `sink`: from the cache when the file is unchanged, else through
   * `read` (which returns whether it read to the end), keeping them when they fit. Says where they came from.
   */
  async search(file: string, needVerdicts: boolean, sink: FileSink, read: (sink: FileSink) => Promise<boolean>, pause: () => Promise<void>): Promise<'memory' | 'disk' | undefined> {
    const st = await stat(file);
    const e = this.entries.get(file);
    if (e && e.size === st.size && e.mtimeMs === st.mtimeMs && (e.verdicts || !needVerdicts)) {
      this.hits++;
      this.entries.delete(file);
      this.entries.set(file, e);
      for (const p of e.problems) sink.problem(p);
      for (const g of e.groups) {
        if (!sink.group(g)) break;
        await pause();
      }
      return 'memory';
    }
    this.drop(file);
    this.misses++;
    const limit = this.budget / 4;
    let fresh: Entry | undefined = { size: st.size, mtimeMs: st.mtimeMs, verdicts: needVerdicts, groups: [], problems: [], chars: 0 };
    const through = await this.readThrough(file, st, needVerdicts, read, pause, {
      group: (g) => {
        if (fresh) {
          fresh.groups.push(g);
          for (const f of g.fields) fresh.chars += f.text.length + FIELD_OVERHEAD;
          if (fresh.chars > limit) fresh = undefined;
        }
        return sink.group(g);
      },
      problem: (p) => {
        fresh?.problems.push(p);
        sink.problem(p);
      },
    });
    if (fresh && through.complete) {
      this.entries.set(file, fresh);
      this.chars += fresh.chars;
      for (const [k, old] of this.entries) {
        if (this.chars <= this.budget) break;
        this.entries.delete(k);
        this.chars -= old.chars;
      }
    }
    return through.from;
  }

  /** From the disk cache when it has the file, else through `read`, writing the disk entry as it goes. */
  private async readThrough(file: string, st: StepStat, needVerdicts: boolean, read: (sink: FileSink) => Promise<boolean>, pause: () => Promise<void>, sink: FileSink): Promise<{ complete: boolean; from?: 'disk' }> {
    const disk = this.diskCache;
    if (!disk) return { complete: await read(sink) };
    const replay = await disk.replay(file, st, needVerdicts, sink, pause);
    if (replay.kind === 'hit') return { complete: replay.complete, from: 'disk' };
    // An entry that broke after some records: the file is read again, and what the sink already has is not handed twice.
    let skipGroups = replay.kind === 'broken' ? replay.groups : 0;
    let skipProblems = replay.kind === 'broken' ? replay.problems : 0;
    const writer = await disk.writer(file, st, needVerdicts);
    let complete = false;
    try {
      complete = await read({
        group: (g) => {
          writer?.group(g);
          if (skipGroups === 0) return sink.group(g);
          skipGroups--;
          return true;
        },
        problem: (p) => {
          writer?.problem(p);
          if (skipProblems > 0) skipProblems--;
          else sink.problem(p);
        },
      });
    } finally {
      if (writer && complete) await writer.commit(this.keepSince);
      else writer?.abort();
    }
    return { complete };
  }

  private drop(file: string): void {
    const e = this.entries.get(file);
    if (!e) return;
    this.entries.delete(file);
    this.chars -= e.chars;
  }
}

/** The one cache of the process (the extension host's, or the MCP server's). */
export const defaultSearchCache = new SearchCache();
