/**
 * The viewer's index of an Inspect AI `.eval` log (issue 32): one group per sample, its epochs the
 * trajectories, each shown as the ART trajectory inspectArt.ts makes of it. Opening reads the zip's
 * central directory, the header and the summaries (scores, errors) only, so a 1 GiB log opens as
 * fast as a small one; a sample's entries are read when its group is shown (the last few cached).
 * Same surface as ParquetIndex, so the session treats both alike. No `vscode` import.
 */
import type { Problem } from './problems';
import { f64 } from './columns';
import { IndexBase, type BuildOptions, type ReadGroup } from './groupIndex';
import { EvalLog, EvalLogError, type EvalSampleSummary } from './inspectEval';
import { groupOf, Lost, scoreValue } from './inspectArt';
import { ZipError } from './zip';
import { groupStats } from '../viewer/model';
import type { GroupRow } from '../viewer/protocol';
import { dict } from '../common/dict';

export class EvalIndex extends IndexBase {
  readonly format = 'eval' as const;
  /** A banner above the groups: the task, model and reward score, and what is not shown. */
  notice: string | undefined;
  /** The score shown as the reward. */
  reward: string | undefined;
  readonly source: { size: number; close(): Promise<void> };

  private readonly sampleOf = f64();

  private constructor(
    readonly path: string,
    readonly log: EvalLog | undefined,
  ) {
    super();
    this.source = { size: log?.zip.size ?? 0, close: async () => void (await log?.close()) };
  }

  /** Opens the log; one that cannot be read gives an index with its `shapeError` (file, entry, field). */
  static async open(path: string, signal?: AbortSignal): Promise<EvalIndex> {
    let log: EvalLog;
    try {
      log = await EvalLog.open(path, { signal });
    } catch (e) {
      if (!(e instanceof ZipError) && !(e instanceof EvalLogError)) throw e;
      const index = new EvalIndex(path, undefined);
      index.shapeError = `Cannot read the Inspect log ${e.message}`;
      index.done = true;
      return index;
    }
    return new EvalIndex(path, log);
  }

  /** The groups from the summaries: nothing more is read. */
  async build(_opts: BuildOptions = {}): Promise<void> {
    const log = this.log;
    if (!log) return;
    const names = log.scoreNames;
    this.reward = names[0];
    let slice = performance.now();
    for (const [i, g] of log.samples.entries()) {
      if (performance.now() - slice >= 8) {
        _opts.signal?.throwIfAborted();
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
      const rewards: number[] = [];
      let exceptions = 0;
      for (const s of g.epochs) {
        if (s.error) exceptions++;
        else {
          const r = this.reward !== undefined ? scoreValue(s.scores?.[this.reward]?.value) : undefined;
          if (r !== undefined) rewards.push(r);
        }
      }
      const count = g.epochs.length - exceptions;
      this.columns.add(count, rewards, groupStats(rewards, exceptions));
      this.sampleOf.push(i);
      this.groups++;
      this.trajectories += count;
    }
    const h = log.header;
    const status = h.status && h.status !== 'success' ? ` · status: ${h.status}${h.error?.message ? ` (${h.error.message})` : ''}` : '';
    const epochs = Math.max(0, ...log.samples.map((g) => g.epochs.length));
    this.notice =
      `Inspect AI log${log.journal ? ' (unfinished: read from its journal)' : ''} · task ${log.task} · model ${log.model} · ${log.samples.length} samples × ${epochs} epoch${epochs === 1 ? '' : 's'}${status}. ` +
      `Each sample is a group, its epochs the trajectories; reward: score "${this.reward ?? '(none)'}"${names.length > 1 ? `, the other scores (${names.slice(1).join(', ')}) in each trajectory's metrics` : ''}. ` +
      'Samples that ended in an error are the group\'s exceptions. Not shown: the events (transcript), store and sandbox (docs/inspect.md).';
    this.done = true;
    this.indexedBytes = this.source.size;
    _opts.onProgress?.();
  }

  /** A row of the group list; `line` is the sample's id when it is a number, else its place among the samples (1-based). */
  row(i: number): GroupRow {
    const id = this.log?.samples[i]?.id;
    const line = typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 ? id : i + 1;
    return { index: i, line, endLine: line, bare: false, stats: this.stats(i), rewards: this.columns.ticks(i), errors: 0, warnings: 0 };
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
