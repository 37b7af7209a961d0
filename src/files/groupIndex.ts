/**
 * An index of a trajectory file's groups by byte offset, built in one streaming pass, so a file of
 * any size opens at once and only the groups on screen are ever parsed again. Per group it keeps
 * its place (bytes, lines) and its reward stats, a few numbers in typed arrays: memory grows with
 * the number of groups, not with the file. JSONL lines come from readLines (files/lines.ts) over
 * the same ByteSource; JSON groups from the JSON pass (groupIndexJson.ts). No `vscode` import.
 *
 * Shapes, as the upload accepts them: JSONL (a group per non-blank line) and JSON (an object with
 * `trajectory_groups`, an array of groups, or one group). A bare trajectory where a group belongs
 * is shown as a group of one.
 */
import { findNodeAtLocation, parseTree } from 'jsonc-parser';
import { asGroup, exceptionsOf, groupRewards, groupStats } from './model';
import { addToSummary, emptySummary, groupCell, groupVerdict } from './verdicts';
import { LogprobHistogram } from './logprobStats';
import type { GroupRow, GroupStats } from './shapes';
import { tooDeepAt } from './problems';
import type { ByteSource } from './bytes';
import { f64, GroupStatsColumns, u32 } from './columns';
import { buildJsonIndex } from './groupIndexJson';
import { readLines } from './lines';

export { FileBytes, MemoryBytes, type ByteSource } from './bytes';

const INVALID = 2;
const BARE = 4;
const CR = 0x0d;

/** A JSONL line of spaces and tabs only (readLines has already dropped a final `\r`). */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CR) return false;
  }
  return true;
}

export interface BuildOptions {
  signal?: AbortSignal;
  /** Called after each chunk (and at the end), at most every `progressMs`. */
  onProgress?: () => void;
  progressMs?: number;
  chunkBytes?: number;
  /**
   * Awaited after the first chunk: the rest of the file waits until the first group is on screen,
   * so indexing does not compete with the view's first requests.
   */
  firstChunkGate?: Promise<unknown>;
}

export interface ReadGroup {
  /** The group's text as in the file. */
  text: string;
  value?: unknown;
  /** Why it cannot be shown as a group. */
  error?: string;
}

/** Where a message (or trajectory) starts in the file: 1-based line, 1-based UTF-16 column. */
export interface Position {
  line: number;
  column: number;
}

/**
 * What every viewer index has (TrajectoryIndex for .json/.jsonl, ParquetIndex, EvalIndex): its
 * counts and progress, the file's split and why its shape is refused, the per-group numbers and
 * the last groups read.
 */
export abstract class IndexBase {
  groups = 0;
  trajectories = 0;
  done = false;
  indexedBytes = 0;
  shapeError: string | undefined;
  split: string | undefined;
  protected readonly columns = new GroupStatsColumns();
  protected readonly cache = new Map<number, ReadGroup>();

  get rewardMin(): number | null {
    return this.columns.rewardMin;
  }

  get rewardMax(): number | null {
    return this.columns.rewardMax;
  }

  stats(i: number): GroupStats {
    return this.columns.stats(i);
  }
}

export class TrajectoryIndex extends IndexBase {
  private readonly start = f64();
  private readonly end = f64();
  /** The UTF-16 column of its line where each group starts. */
  private readonly column = u32();
  private readonly line = u32();
  private readonly endLine = u32();
  private readonly invalid = new Map<number, string>();
  /** What ART's trainer trains on, per group and over the file (src/files/verdicts.ts): the group is parsed here anyway. */
  readonly verdicts = emptySummary();
  private readonly rowVerdicts: (GroupRow['verdict'] | undefined)[] = [];
  /** The file's logprob histograms and least likely turns (src/files/logprobStats.ts), from the same parse. */
  readonly logprobs = new LogprobHistogram();

  constructor(
    readonly source: ByteSource,
    readonly format: 'json' | 'jsonl',
    /** `verdicts: false`: the plain index, without ART's verdicts (the bench's baseline for them). */
    private readonly opts: { verdicts?: boolean } = {},
  ) {
    super();
  }

  /** Reads the whole source once. Resolves when done; throws the signal's reason on abort. */
  async build(opts: BuildOptions = {}): Promise<void> {
    const chunk = opts.chunkBytes ?? 1024 * 1024;
    let last = 0;
    const progress = (force = false) => {
      const now = performance.now();
      if (force || now - last >= (opts.progressMs ?? 50)) {
        last = now;
        opts.onProgress?.();
      }
    };
    let gated = false;
    const step = async (force?: boolean) => {
      progress(force);
      if (!gated && opts.firstChunkGate) {
        gated = true;
        progress(true);
        await opts.firstChunkGate;
      }
    };
    if (this.format === 'jsonl') await this.buildJsonl(chunk, opts.signal, step);
    else await buildJsonIndex(this, chunk, opts.signal, step);
    this.done = true;
    this.indexedBytes = this.source.size;
    progress(true);
  }

  // --- JSONL --------------------------------------------------------------------------------------

  private async buildJsonl(chunkBytes: number, signal: AbortSignal | undefined, progress: () => Promise<void>): Promise<void> {
    const afterChunk = async (offset: number) => {
      this.indexedBytes = offset;
      await progress();
    };
    for await (const line of readLines(this.source, { signal, chunkBytes, maxLineBytes: Number.MAX_SAFE_INTEGER, afterChunk })) {
      if (!isBlank(line.text)) this.addGroup(line.byteStart, line.byteEnd, line.line, line.line, 1, line.text);
    }
  }

  // --- groups (addGroup is the JSON pass's too) ----------------------------------------------------

  addGroup(s: number, e: number, line: number, endLine: number, column: number, text: string, parsed?: unknown): void {
    const i = this.groups++;
    this.start.push(s);
    this.end.push(e);
    this.line.push(line);
    this.endLine.push(endLine);
    this.column.push(column);
    let value = parsed;
    let error: string | undefined;
    if (value === undefined) {
      try {
        value = JSON.parse(text);
      } catch (err) {
        error = `Invalid JSON: ${(err as Error).message}`;
      }
    }
    const group = error ? undefined : asGroup(value);
    if (!error && !group) error = 'Not a trajectory group: expected {"trajectories": [...]}';
    const rewards = group ? groupRewards(group.trajectories) : [];
    const stats = groupStats(rewards, group && !group.bare ? exceptionsOf(group.raw).length : 0);
    this.columns.add(group?.trajectories.length ?? 0, rewards, stats, (error ? INVALID : 0) | (group?.bare ? BARE : 0));
    this.trajectories += group?.trajectories.length ?? 0;
    if (error) this.invalid.set(i, error);
    const v = group && this.opts.verdicts !== false ? groupVerdict(value) : undefined;
    if (v) addToSummary(this.verdicts, v);
    group?.trajectories.forEach((t, k) => this.logprobs.add(i, k, t));
    this.rowVerdicts.push(v && { training: v.training, trajectories: v.trajectories, text: groupCell(v), fails: v.fails });
  }

  /** Group `i`'s stats; `count` is the number of its valid rewards. */
  override stats(i: number): GroupStats {
    return this.columns.stats(i, this.columns.rewardCount(i));
  }

  /** A row of the group list (problem counts are the caller's). */
  row(i: number): GroupRow {
    // The count of trajectories includes those whose reward is invalid.
    const row: GroupRow = { index: i, line: this.line.get(i), endLine: this.endLine.get(i), bare: (this.columns.flags(i) & BARE) !== 0, stats: this.columns.stats(i), rewards: this.columns.ticks(i), errors: 0, warnings: 0 };
    const invalid = this.invalid.get(i);
    if (invalid) row.invalid = invalid;
    const verdict = this.rowVerdicts[i];
    if (verdict) row.verdict = verdict;
    return row;
  }

  /** The group a validation problem is in, or -1. */
  groupOf(p: { line: number }): number {
    return this.groupAtLine(p.line);
  }

  /** The group whose lines hold `line`, or -1 (binary search: groups are in file order). */
  groupAtLine(line: number): number {
    let lo = 0;
    let hi = this.groups - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.endLine.get(mid) < line) lo = mid + 1;
      else if (this.line.get(mid) > line) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  byteRange(i: number): { start: number; end: number } {
    return { start: this.start.get(i), end: this.end.get(i) };
  }

  /** Reads and parses one group (the last few are cached). */
  async readGroup(i: number): Promise<ReadGroup> {
    const hit = this.cache.get(i);
    if (hit) return hit;
    if (i < 0 || i >= this.groups) return { text: '', error: `No group ${i + 1}` };
    const text = (await this.source.read(this.start.get(i), this.end.get(i))).toString('utf8');
    let result: ReadGroup;
    try {
      result = { text, value: JSON.parse(text) };
    } catch (e) {
      result = { text, error: `Invalid JSON: ${(e as Error).message}` };
    }
    this.cache.set(i, result);
    if (this.cache.size > 8) this.cache.delete(this.cache.keys().next().value!);
    return result;
  }

  /**
   * Where an item of a group starts in the file. `path` is inside the group value, e.g.
   * `['trajectories', 2, 'messages_and_choices', 5]` (for a bare trajectory the first two are
   * dropped). Falls back to the group's own start.
   */
  async positionOf(i: number, path: (string | number)[]): Promise<Position> {
    const { text } = await this.readGroup(i);
    const bare = (this.columns.flags(i) & BARE) !== 0;
    const inner = bare && path[0] === 'trajectories' ? path.slice(2) : path;
    let offset = 0;
    // parseTree recurses: a group nested too deep (the validation says where) is revealed at its start.
    if (inner.length && tooDeepAt(text) < 0) {
      const root = parseTree(text);
      const node = root && findNodeAtLocation(root, inner);
      if (node) offset = node.offset;
    }
    const before = text.slice(0, offset);
    const newlines = before.split('\n').length - 1;
    if (newlines === 0) return { line: this.line.get(i), column: this.column.get(i) + offset };
    return { line: this.line.get(i) + newlines, column: offset - before.lastIndexOf('\n') };
  }

  /**
   * Raw texts of groups from `from` on, read in batches of about `batchBytes`: for a scan of the
   * whole file (search) without one read per group.
   */
  async *rawGroups(from = 0, batchBytes = 1024 * 1024, signal?: AbortSignal): AsyncGenerator<{ index: number; text: string }> {
    let i = from;
    while (i < this.groups) {
      signal?.throwIfAborted();
      let j = i;
      const s = this.start.get(i);
      while (j < this.groups && (j === i || this.end.get(j) - s <= batchBytes)) j++;
      const buf = await this.source.read(s, this.end.get(j - 1));
      for (let k = i; k < j; k++) yield { index: k, text: buf.toString('utf8', this.start.get(k) - s, this.end.get(k) - s) };
      i = j;
    }
  }
}
