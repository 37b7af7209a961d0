/**
 * Why a second search of the same run is faster than the first: per step file, the searchable
 * texts of each group (viewer/searchFields.ts) and what the filters read (rewards, tools called, and
 * verdicts once a search asked for them), so the next search decodes no Parquet page and parses
 * no JSON. Kept in memory, in the extension host (or the MCP server) process, under a budget of
 * characters (least recently used files go first; a file larger than a quarter of the budget is
 * never kept). An entry is good while its file's path, size and modification time are the same:
 * a step file that changed is read again. The file's problems (malformed groups) are kept too, so a
 * search from the cache reports them as the first did. No `vscode` import.
 */
import { stat } from 'node:fs/promises';
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

  get size(): { files: number; chars: number } {
    return { files: this.entries.size, chars: this.chars };
  }

  clear(): void {
    this.entries.clear();
    this.chars = 0;
  }

  /**
   * Hands the file's groups to `sink`: from the cache when the file is unchanged, else through
   * `read` (which returns whether it read to the end), keeping them when they fit. True: from the cache.
   */
  async search(file: string, needVerdicts: boolean, sink: FileSink, read: (sink: FileSink) => Promise<boolean>, pause: () => Promise<void>): Promise<boolean> {
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
      return true;
    }
    this.drop(file);
    this.misses++;
    const limit = this.budget / 4;
    let fresh: Entry | undefined = { size: st.size, mtimeMs: st.mtimeMs, verdicts: needVerdicts, groups: [], problems: [], chars: 0 };
    const complete = await read({
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
    if (fresh && complete) {
      this.entries.set(file, fresh);
      this.chars += fresh.chars;
      for (const [k, old] of this.entries) {
        if (this.chars <= this.budget) break;
        this.entries.delete(k);
        this.chars -= old.chars;
      }
    }
    return false;
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
