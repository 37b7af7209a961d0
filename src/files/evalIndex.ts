/**
 * The viewer's index of an Inspect AI `.eval` log (issue 32): one group per sample, its epochs the
 * trajectories, each shown as the ART trajectory inspectArt.ts makes of it. Opening reads the zip's
 * central directory and the header only: the groups are listed from the sample entries' names, so a
 * 1 GiB log opens as fast as a small one. After the first paint the build reads the summaries
 * (scores, errors) item by item in slices, and the rows show them as they are known; until then
 * the notice says the scores are still being read. A sample's entries are read when its group is
 * shown (the last few cached).
 * Same surface as ParquetIndex, so the session treats both alike. No `vscode` import.
 */
import type { Problem } from './problems';
import type { BuildOptions, ReadGroup } from './groupIndex';
import { EvalLog, EvalLogError, isListedOnly, type EvalSampleSummary } from './inspectEval';
import { groupOf, Lost, scoreValue } from './inspectArt';
import { ZipError } from './zip';
import { groupStats } from './model';
import type { GroupRow, GroupStats } from './shapes';
import { dict } from '../api/dict';

/** Reward ticks a group row carries for its strip. */
const MAX_TICKS = 256;

export class EvalIndex {
  readonly format = 'eval' as const;
  groups = 0;
  trajectories = 0;
  done = false;
  indexedBytes = 0;
  shapeError: string | undefined;
  split: string | undefined;
  /** A banner above the groups: the task, model and reward score, and what is not shown. */
  notice: string | undefined;
  /** The score shown as the reward. */
  reward: string | undefined;
  readonly source: { size: number; close(): Promise<void> };

  rewardMin: number | null = null;
  rewardMax: number | null = null;
  /** Set when the summaries cannot be read: the groups stay listed, without their scores. */
  scoresError: string | undefined;
  private readonly cache = new Map<number, ReadGroup>();

  private constructor(
    readonly path: string,
    readonly log: EvalLog | undefined,
  ) {
    this.source = { size: log?.zip.size ?? 0, close: async () => void (await log?.close()) };
  }

  /** Opens the log; one that cannot be read gives an index with its `shapeError` (file, entry, field). */
  static async open(path: string, signal?: AbortSignal): Promise<EvalIndex> {
    let log: EvalLog;
    try {
      log = await EvalLog.list(path, { signal });
    } catch (e) {
      if (!(e instanceof ZipError) && !(e instanceof EvalLogError)) throw e;
      const index = new EvalIndex(path, undefined);
      index.shapeError = `Cannot read the Inspect log ${e.message}`;
      index.done = true;
      return index;
    }
    return new EvalIndex(path, log);
  }

  /**
   * The groups as listed from the entry names (nothing more read), shown at once; then, after the
   * first paint, the summaries read item by item (in slices with yields), the rows' scores and
   * exceptions filled in. `done` once every summary is read.
   */
  async build(opts: BuildOptions = {}): Promise<void> {
    const log = this.log;
    if (!log) return;
    this.reward = log.scoreNames[0];
    this.groups = log.samples.length;
    this.trajectories = log.runs;
    this.notice = this.banner();
    opts.onProgress?.();
    await opts.firstChunkGate;
    opts.signal?.throwIfAborted();
    const expected = Math.max(1, log.runs);
    let shown = performance.now();
    try {
      await log.readSummaries(opts.signal, (read) => {
        if (performance.now() - shown < 250) return;
        shown = performance.now();
        this.groups = log.samples.length;
        this.indexedBytes = Math.floor(this.source.size * Math.min(0.99, read / expected));
        opts.onProgress?.();
      });
    } catch (e) {
      if (!(e instanceof ZipError) && !(e instanceof EvalLogError)) throw e;
      this.scoresError = e.message;
      this.shapeError = `Cannot read the scores of the Inspect log ${e.message}. The samples are listed from the zip's entries, without their scores.`;
    }
    // Every group's stats once (in slices): the reward range, the trajectories that are not exceptions.
    this.groups = log.samples.length;
    this.reward = log.scoreNames[0];
    let trajectories = 0;
    let slice = performance.now();
    for (let i = 0; i < this.groups; i++) {
      if (performance.now() - slice >= 8) {
        opts.signal?.throwIfAborted();
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
      const s = this.stats(i);
      trajectories += s.count;
      if (s.min !== null && (this.rewardMin === null || s.min < this.rewardMin)) this.rewardMin = s.min;
      if (s.max !== null && (this.rewardMax === null || s.max > this.rewardMax)) this.rewardMax = s.max;
    }
    this.trajectories = trajectories;
    // A group read before its scores were known may have taken another reward score: read it again.
    this.cache.clear();
    this.notice = this.banner();
    this.done = true;
    this.indexedBytes = this.source.size;
    opts.onProgress?.();
  }

  /** The banner: the task, model, samples and epochs, the reward score, and whether the scores are still being read. */
  private banner(): string {
    const log = this.log!;
    const h = log.header;
    const names = log.scoreNames;
    const status = h.status && h.status !== 'success' ? ` · status: ${h.status}${h.error?.message ? ` (${h.error.message})` : ''}` : '';
    let epochs = 0;
    for (const g of log.samples) epochs = Math.max(epochs, g.epochs.length);
    const reading = log.summarised || this.scoresError ? '' : ' Scores and errors are still being read from the summaries: a row without them is not known yet, not unscored.';
    return (
      `Inspect AI log${log.journal ? ' (unfinished: read from its journal)' : ''} · task ${log.task} · model ${log.model} · ${log.samples.length} samples × ${epochs} epoch${epochs === 1 ? '' : 's'}${status}.${reading} ` +
      `Each sample is a group, its epochs the trajectories; reward: score "${this.reward ?? '(none)'}"${names.length > 1 ? `, the other scores (${names.slice(1).join(', ')}) in each trajectory's metrics` : ''}. ` +
      "Samples that ended in an error are the group's exceptions. Not shown: the events (transcript), store and sandbox (docs/inspect.md)."
    );
  }

  /** Group `i`'s stats from its epochs' summaries; none while any epoch's summary is unread (its epochs count as trajectories without a reward). */
  stats(i: number): GroupStats {
    return this.statsAndRewards(i).stats;
  }

  private statsAndRewards(i: number): { stats: GroupStats; rewards: number[] } {
    const g = this.log?.samples[i];
    const rewards: number[] = [];
    let exceptions = 0;
    // A group with an epoch whose summary is not read (still being read, the summaries stopped
    // partway, or the log has none for it) shows no scores: a mean over some of its epochs would
    // look like the group's.
    if (g?.epochs.some(isListedOnly)) {
      const stats = groupStats([], 0);
      stats.count = g.epochs.length;
      return { stats, rewards };
    }
    for (const s of g?.epochs ?? []) {
      if (s.error) exceptions++;
      else {
        const r = this.reward !== undefined ? scoreValue(s.scores?.[this.reward]?.value) : undefined;
        if (r !== undefined) rewards.push(r);
      }
    }
    const stats = groupStats(rewards, exceptions);
    stats.count = (g?.epochs.length ?? 0) - exceptions;
    const step = Math.ceil(rewards.length / MAX_TICKS);
    return { stats, rewards: step > 1 ? rewards.filter((_, k) => k % step === 0) : rewards };
  }

  /** A row of the group list; `line` is the sample's id when it is a number, else its place among the samples (1-based). */
  row(i: number): GroupRow {
    const id = this.log?.samples[i]?.id;
    const line = typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : i + 1;
    const { stats, rewards } = this.statsAndRewards(i);
    return { index: i, line, endLine: line, bare: false, stats, rewards, errors: 0, warnings: 0 };
  }

  /** The summaries of group `i`'s epochs. */
  members(i: number): EvalSampleSummary[] {
    return this.log?.samples[i]?.epochs ?? [];
  }

  groupOf(_p: Pick<Problem, 'row' | 'group'>): number {
    return -1;
  }

  /** Reads a sample's epochs and shows them as an ART group (the last few are cached). */
  async readGroup(i: number): Promise<ReadGroup> {
    const hit = this.cache.get(i);
    if (hit) return hit;
    const log = this.log;
    if (!log || i < 0 || i >= this.groups) return { text: '', error: `No group ${i + 1}` };
    let result: ReadGroup;
    try {
      const sample = log.samples[i]!;
      const metadata = dict<unknown>();
      metadata.task = log.task;
      metadata.sample_id = String(sample.id);
      const value = await groupOf(log, sample.epochs, this.reward, new Lost(), undefined, metadata);
      result = { text: JSON.stringify(value), value };
    } catch (e) {
      if (!(e instanceof ZipError) && !(e instanceof EvalLogError)) throw e;
      result = { text: '', error: e.message };
    }
    this.cache.set(i, result);
    if (this.cache.size > 8) this.cache.delete(this.cache.keys().next().value!);
    return result;
  }

  /** A log has no text positions: where a group is among the samples. */
  async positionOf(i: number): Promise<{ line: number; column: number }> {
    return { line: i, column: 1 };
  }

  /** Every group's text from `from` on (search), sample by sample. */
  async *rawGroups(from = 0, _batchBytes = 0, signal?: AbortSignal): AsyncGenerator<{ index: number; text: string }> {
    for (let i = from; i < this.groups; i++) {
      signal?.throwIfAborted();
      const g = await this.readGroup(i);
      if (!g.error) yield { index: i, text: g.text };
    }
  }
}

/** Whether `path` is an Inspect AI log (`.eval`). */
export const isEvalLog = (path: string) => /\.eval$/i.test(path);
