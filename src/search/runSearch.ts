/**
 * Over 300 lines because the run's layout, the search loop and its two readers (a Parquet file in
 * one pass, the others through the viewer's index) share the types and the sink, and read best together.
 *
 * Search across a training run: text or a regular expression over every step file of a split or of
 * the whole run (`.art/<project>/models/<model>/trajectories/<split>/<step>.parquet`, and the older
 * `.jsonl` steps), with filters (steps, reward, role, tool, verdict). Hits come as they are found,
 * in step → group → trajectory order, each with a snippet around the match and where it is.
 *
 * Memory is bounded whatever the run's size: one file is open at a time and read group by group
 * (a Parquet file's pages as parquetIndex.ts reads them), the hits kept are the caller's, and the
 * cache (searchCache.ts) has a budget. A malformed file or group is reported (file, and row or
 * line) and skipped; the search goes on. Cancel with the signal. The event loop is given back
 * between groups at least every YIELD_MS. No `vscode` import (the MCP server uses it).
 */
import { readdir, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { InputError } from '../api/errors';
import { formatOf, groupText, openArtParquet, ParquetError, readArtGroups } from '../files';
import { FileBytes, TrajectoryIndex } from '../files/groupIndex';
import { DEFAULT_MAX_LINE_BYTES, readLines } from '../files/lines';
import { ParquetIndex } from '../files/parquetIndex';
import { stepFiles } from '../trajectories/layout';
import { asGroup, rewardOf } from '../files/model';
import { groupVerdict } from '../files/verdicts';
import { calledTools, groupFields, snippet, whereOf } from '../viewer/searchFields';
import { matcher, type Matcher } from './matcher';
import { defaultSearchCache, type CachedGroup, type FileSink, type SearchCache } from './searchCache';

const YIELD_MS = 20;

export type Verdict = 'trains' | 'not-trained' | 'fails';
export const VERDICTS: readonly Verdict[] = ['trains', 'not-trained', 'fails'];

export interface RunSearchQuery {
  query: string;
  regex?: boolean;
  caseSensitive?: boolean;
  /** Only this split (`train`, `val`); default every split of the run. */
  split?: string;
  /** Inclusive step range; either end may be left out. */
  steps?: { from?: number; to?: number };
  /** Inclusive reward range of the trajectory. */
  reward?: { min?: number; max?: number };
  /** Only messages of this role (user, assistant, tool, system). */
  role?: string;
  /** Only trajectories that call this tool. */
  tool?: string;
  /** Only trajectories ART's trainer trains on, does not, or that make it raise (src/files/verdicts.ts). */
  verdict?: Verdict;
}

export interface StepFile {
  file: string;
  split: string;
  step: number;
}

export interface RunHit {
  file: string;
  split: string;
  step: number;
  /** 0-based, as the viewer's select takes them; -1 for the group's own fields. */
  group: number;
  trajectory: number;
  history: number;
  message: number;
  field: string;
  /** "message 4 of trajectory 3.2 (content)", "exception 1 of group 3". */
  where: string;
  snippet: string;
  reward?: number;
}

export interface RunProblem {
  file: string;
  /** "row 12", "line 40", or the whole file. */
  at?: string;
  message: string;
}

export interface RunSearchEvents {
  /** A file is about to be searched (its 0-based place among `total`). */
  onFile?(f: StepFile, at: number, total: number): void;
  /** Return false to stop the search (enough hits). */
  onHit(hit: RunHit): boolean | void;
  onProblem?(p: RunProblem): void;
}

export interface RunSearchSummary {
  files: number;
  filesSearched: number;
  groups: number;
  hits: number;
  /** Stopped by onHit before the end. */
  stopped: boolean;
  /** Files that came from the cache (searchCache.ts), from memory or from disk. */
  cached: number;
  /** Of those, the files that came from the disk cache (diskCache.ts). */
  fromDisk: number;
  problems: number;
}

/**
 * The step files of a run, in split then step order. `where` is the model folder
 * (`.art/<project>/models/<model>`), its history.jsonl, its `trajectories` folder, or one split folder.
 */
export async function runStepFiles(where: string, split?: string): Promise<StepFile[]> {
  let st;
  try {
    st = await stat(where);
  } catch {
    throw new InputError(`${where}: no such file or folder.`);
  }
  let folder = st.isFile() ? path.dirname(where) : where;
  if (st.isFile() && path.basename(where) !== 'history.jsonl') throw new InputError(`${where} is not a run: give the run's folder (.art/<project>/models/<model>) or its history.jsonl.`);
  const splits: { name: string; dir: string }[] = [];
  const base = path.basename(folder);
  if (path.basename(path.dirname(folder)) === 'trajectories') splits.push({ name: base, dir: folder });
  else {
    if (base !== 'trajectories') folder = path.join(folder, 'trajectories');
    let names: string[];
    try {
      names = (await readdir(folder, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    } catch {
      throw new InputError(`${where} has no trajectories folder: not a training run of the ART layout (.art/<project>/models/<model>/trajectories/<split>/<step>.parquet).`);
    }
    for (const name of names) splits.push({ name, dir: path.join(folder, name) });
  }
  const out: StepFile[] = [];
  for (const s of splits) {
    if (split !== undefined && s.name !== split) continue;
    const { files, steps } = await stepFiles(s.dir);
    files.forEach((file, i) => out.push({ file, split: s.name, step: steps[i]! }));
  }
  if (split !== undefined && !splits.some((s) => s.name === split)) throw new InputError(`${where} has no split “${split}” (it has ${splits.map((s) => s.name).join(', ') || 'none'}).`);
  return out;
}

/** Step files given one by one: the step from the file name (`0042.parquet`), else their order. */
export function filesAsSteps(files: readonly string[]): StepFile[] {
  return files.map((file, i) => {
    const m = /^(\d+)\.(jsonl|parquet)$/i.exec(path.basename(file));
    return { file, split: path.basename(path.dirname(file)), step: m ? Number(m[1]) : i };
  });
}

/** Searches the step files in order. Throws InputError for a bad query before reading anything; the signal's reason on cancel. */
export async function searchRun(files: readonly StepFile[], q: RunSearchQuery, events: RunSearchEvents, signal?: AbortSignal, cache: SearchCache = defaultSearchCache): Promise<RunSearchSummary> {
  const m = matcher(q.query, q.regex, q.caseSensitive);
  const picked = files.filter((f) => (q.split === undefined || f.split === q.split) && (q.steps?.from === undefined || f.step >= q.steps.from) && (q.steps?.to === undefined || f.step <= q.steps.to));
  const summary: RunSearchSummary = { files: picked.length, filesSearched: 0, groups: 0, hits: 0, stopped: false, cached: 0, fromDisk: 0, problems: 0 };
  const searched = cache.startSearch();
  try {
    return await searchFiles(picked, q, m, events, summary, signal, cache);
  } finally {
    searched();
  }
}

async function searchFiles(picked: readonly StepFile[], q: RunSearchQuery, m: Matcher, events: RunSearchEvents, summary: RunSearchSummary, signal: AbortSignal | undefined, cache: SearchCache): Promise<RunSearchSummary> {
  const problem = (p: RunProblem) => {
    summary.problems++;
    events.onProblem?.(p);
  };
  let lastYield = performance.now();
  const pause = async () => {
    if (performance.now() - lastYield < YIELD_MS) return;
    await new Promise((r) => setImmediate(r));
    lastYield = performance.now();
    signal?.throwIfAborted();
  };
  for (let i = 0; i < picked.length && !summary.stopped; i++) {
    signal?.throwIfAborted();
    const f = picked[i]!;
    events.onFile?.(f, i, picked.length);
    const sink: FileSink = {
      group: (g) => {
        summary.groups++;
        for (const hit of groupHits(f, g, m, q)) {
          summary.hits++;
          if (events.onHit(hit) === false) {
            summary.stopped = true;
            return false;
          }
        }
        return true;
      },
      problem,
    };
    try {
      const fromCache = await cache.search(f.file, q.verdict !== undefined, sink, (s) => readFile(f.file, q.verdict !== undefined, s, pause, signal), pause);
      if (fromCache) summary.cached++;
      if (fromCache === 'disk') summary.fromDisk++;
      summary.filesSearched++;
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      problem({ file: f.file, message: (e as Error).message });
    }
  }
  return summary;
}

/** The hits of one group, by the filters. */
function* groupHits(f: StepFile, g: CachedGroup, m: Matcher, q: RunSearchQuery): Generator<RunHit> {
  const trajectoryFilter = q.reward !== undefined || q.role !== undefined || q.tool !== undefined || q.verdict !== undefined;
  const role = q.role?.toLowerCase();
  for (const field of g.fields) {
    const t = field.trajectory;
    if (t < 0 && trajectoryFilter) continue;
    if (t >= 0) {
      const facts = g.facts[t];
      if (q.reward?.min !== undefined && !(facts?.reward !== undefined && facts.reward >= q.reward.min)) continue;
      if (q.reward?.max !== undefined && !(facts?.reward !== undefined && facts.reward <= q.reward.max)) continue;
      if (q.tool !== undefined && !facts?.tools.includes(q.tool)) continue;
      if (q.verdict !== undefined && g.verdicts?.[t] !== q.verdict) continue;
    }
    if (role !== undefined && field.role?.toLowerCase() !== role) continue;
    const hit = m.first(field.text);
    if (!hit) continue;
    const reward = t >= 0 ? g.facts[t]?.reward : undefined;
    yield {
      file: f.file,
      split: f.split,
      step: f.step,
      group: g.group,
      trajectory: t,
      history: field.history,
      message: field.message,
      field: field.field,
      where: whereOf(field, g.group),
      snippet: snippet(field.text, hit.at, hit.length),
      ...(reward !== undefined ? { reward } : {}),
    };
  }
}

/** Reads one step file group by group into `sink` (with `verdicts`, each group's verdicts too); true when it read to the end. */
async function readFile(file: string, verdicts: boolean, sink: FileSink, pause: () => Promise<void>, signal?: AbortSignal): Promise<boolean> {
  const parquet = formatOf(file) === 'parquet';
  if (parquet) {
    const done = await readParquetInOrder(file, verdicts, sink, pause, signal);
    if (done !== undefined) return done;
  }
  if (formatOf(file) === 'jsonl') return readJsonlInOrder(file, verdicts, sink, pause, signal);
  // JSON steps, and ART's lossy Parquet version 1: through the viewer's index.
  const index = parquet ? await ParquetIndex.open(file) : new TrajectoryIndex(await FileBytes.open(file), 'json');
  try {
    await index.build({ signal });
    if (index.shapeError) throw new Error(index.shapeError);
    const at = (i: number) => (index instanceof ParquetIndex ? `row ${index.rows(i).first} (group_index ${index.rows(i).groupIndex})` : `line ${index.row(i).line}`);
    for (let i = 0; i < index.groups; i++) {
      signal?.throwIfAborted();
      const read = await index.readGroup(i);
      const g = read.error ? undefined : cachedGroup(i, read.value, verdicts);
      if (!g) {
        sink.problem({ file, at: at(i), message: read.error ?? 'not a trajectory group: skipped' });
        continue;
      }
      if (!sink.group(g)) return false;
      await pause();
    }
    return true;
  } finally {
    await index.source.close();
  }
}

/**
 * A JSONL step file in one pass, each line parsed once (the viewer's index would read and parse
 * every line to build itself, then read and parse each group again). Groups are numbered as the
 * viewer numbers them: one per non-blank line. A line over 64 MiB is reported and skipped.
 */
async function readJsonlInOrder(file: string, verdicts: boolean, sink: FileSink, pause: () => Promise<void>, signal?: AbortSignal): Promise<boolean> {
  let group = 0;
  for await (const line of readLines(file, { signal, skipOverlong: true, chunkBytes: 1024 * 1024 })) {
    if (!line.overlong && /^[ \t\r]*$/.test(line.text)) continue;
    const i = group++;
    const at = `line ${line.line}`;
    if (line.overlong) {
      sink.problem({ file, at, message: `the line is longer than ${DEFAULT_MAX_LINE_BYTES / 1024 / 1024} MiB: skipped` });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (e) {
      sink.problem({ file, at, message: `Invalid JSON: ${(e as Error).message}` });
      continue;
    }
    const g = cachedGroup(i, value, verdicts);
    if (!g) {
      sink.problem({ file, at, message: 'not a trajectory group: skipped' });
      continue;
    }
    if (!sink.group(g)) return false;
    await pause();
  }
  return true;
}

/**
 * A version 2 Parquet step file in one sequential pass (readArtGroups: each page decoded once),
 * rather than the viewer's reads of one group's rows at a time. Undefined for a version 1 file.
 * A group's number is its group_index, which is the viewer's group number in a valid file.
 */
async function readParquetInOrder(file: string, verdicts: boolean, sink: FileSink, pause: () => Promise<void>, signal?: AbortSignal): Promise<boolean | undefined> {
  let opened;
  try {
    opened = await openArtParquet(file);
  } catch (e) {
    if (e instanceof ParquetError) throw new Error(`The file ${e.message}`);
    throw e;
  }
  try {
    if (opened.info.version !== 2) return undefined;
    for await (const a of readArtGroups(opened.file, { signal })) {
      if ('fault' in a) {
        sink.problem({ file, message: a.fault.message });
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(groupText(a));
      } catch (e) {
        sink.problem({ file, at: `row ${a.firstRow} (group_index ${a.group})`, message: `Invalid JSON: ${(e as Error).message}` });
        continue;
      }
      const g = cachedGroup(a.group, value, verdicts);
      if (!g) {
        sink.problem({ file, at: `row ${a.firstRow} (group_index ${a.group})`, message: 'not a trajectory group: skipped' });
        continue;
      }
      if (!sink.group(g)) return false;
      await pause();
    }
    return true;
  } finally {
    await opened.file.close();
  }
}

/** What the search keeps of a parsed group; undefined when it is not one. */
function cachedGroup(index: number, value: unknown, verdicts: boolean): CachedGroup | undefined {
  const group = asGroup(value);
  if (!group) return undefined;
  const fields = groupFields(group);
  return {
    group: index,
    fields,
    facts: group.trajectories.map((t, ti) => ({ reward: rewardOf(t).value, tools: calledTools(fields, ti) })),
    ...(verdicts ? { verdicts: verdictsOf(value) } : {}),
  };
}

/** Each trajectory's verdict: trains, is not trained, or makes ART raise (the whole group). */
export function verdictsOf(value: unknown): Verdict[] {
  const v = groupVerdict(value);
  return v.members.map((t) => (v.fails ? 'fails' : t.trains ? 'trains' : 'not-trained'));
}
