import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { InputError } from '../api';
import { Disposable } from '../common/disposable';
import type { Logger } from '../common/logger';
import { historyRowId, HistoryReader, mergeHistoryLines, parseRecordedAt, type HistoryProblem } from './shared/history';
import type { SyncStatus } from './shared/protocol';
import { CheckpointSeries, columnsFromCheckpoints } from './shared/series';
import type { DashboardSource, SourceAppend } from './source';
import { background } from '../common/background';
import { dict } from '../api/dict';
import { NotARegularFile, openRegular } from '../common/regular';
import { StepShareScanner } from '../files/stepShares';
import { StepReadPriority } from './stepReadPriority';

/** A file dashboard's panel key. */
export const FILE_KEY = 'file:';
/** How often a visible dashboard looks at the file besides the watcher (which some file systems lack). */
const CHECK_MS = 2000;
/** Bytes read at once (a 10k-line history is 3–6 MiB): the first rows open the panel. */
const CHUNK = 1 << 20;
/** Problems kept for the status and the log (the count goes on). */
const KEEP_PROBLEMS = 20;

/** Steps listed per split at most (the dashboard links only steps that have a file). */
const MAX_LISTED_STEPS = 100_000;
const STEP_FILE = /^(\d+)\.(parquet|jsonl)$/;

/** The folder names under `<model dir>/trajectories/`: the splits that have step files, and the steps that have a file in each. */
async function listSplits(modelDir: string): Promise<{ splits: string[]; steps: Record<string, number[]> }> {
  const steps = dict<number[]>();
  try {
    const root = path.join(modelDir, 'trajectories');
    const entries = await fs.promises.readdir(root, { withFileTypes: true });
    const splits = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
    for (const split of splits) {
      const found = new Set<number>();
      for (const name of await fs.promises.readdir(path.join(root, split)).catch(() => [] as string[])) {
        const m = STEP_FILE.exec(name);
        if (m && found.size < MAX_LISTED_STEPS) found.add(Number(m[1]));
      }
      steps[split] = [...found].sort((a, b) => a - b);
    }
    return { splits, steps };
  } catch {
    return { splits: [], steps };
  }
}

/**
 * One run's history.jsonl, kept current while its dashboard is visible: read once, then only the
 * bytes appended since (a watcher on the folder, and a look every 2 s where watching fails). A file
 * that shrank or was replaced is read again from the start. State and events only: no UI.
 */
export class HistorySync extends Disposable implements DashboardSource {
  readonly series = new CheckpointSeries();
  private readonly appended = this._register(new vscode.EventEmitter<SourceAppend>());
  readonly onDidAppend = this.appended.event;
  private readonly statusChanged = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeStatus = this.statusChanged.event;
  private readonly cleared = this._register(new vscode.EventEmitter<void>());
  readonly onDidClear = this.cleared.event;

  readonly modelId: string;
  readonly title: string;
  readonly modelDir: string;
  private readonly reader = new HistoryReader();
  private problems: HistoryProblem[] = [];
  private problemCount = 0;
  private splits: string[] = [];
  private splitSteps: Record<string, number[]> = dict();
  private identity: string | undefined;
  private complete = false;
  private active = false;
  private running: Promise<void> | undefined;
  private again = false;
  private watcher: fs.FSWatcher | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private error: string | undefined;
  private updatedAt: number | undefined;
  /** When the run wrote its last line (its recorded_at, read as local time). */
  private recordedAt: number | undefined;
  /** Reads made, for the tests that check a hidden dashboard reads nothing. */
  reads = 0;
  /** Called once the series has rows (load() waits for it). */
  private onRows: (() => void) | undefined;
  /** The step files' trainable counts (`trainable/*` series), read after the history, in the background. */
  readonly stepShares: StepShareScanner;
  /**
   * The reward distribution's reads of the step files go before the share scan (its panel's feed
   * holds this while it reads); with `distributionFirst`, the scan starts only once the
   * distribution of every split was read.
   */
  readonly stepReads: StepReadPriority;
  private sharesRunning: Promise<void> | undefined;
  private sharesAgain: boolean | undefined;
  private readonly sharesAbort = new AbortController();
  /** Step files that could not be read (logged once each). */
  private readonly shareErrors = new Set<string>();

  constructor(
    readonly fsPath: string,
    readonly file: string,
    private readonly log: Logger,
    options: { distributionFirst?: boolean } = {},
  ) {
    super();
    this.modelId = FILE_KEY + fsPath;
    this.modelDir = path.dirname(fsPath);
    this.title = `${path.basename(this.modelDir)} (${path.basename(fsPath)})`;
    this.stepReads = new StepReadPriority(options.distributionFirst);
    this.stepShares = new StepShareScanner(this.modelDir, {}, this.stepReads);
    this._register({ dispose: () => this.unwatch() });
    this._register({ dispose: () => this.sharesAbort.abort() });
  }

  get loaded(): boolean {
    return this.complete;
  }
  get busy(): boolean {
    return !!this.running;
  }
  /** The step files' scan under way, if any (the tests wait for it). */
  get sharesScan(): Promise<void> | undefined {
    return this.sharesRunning;
  }
  /** The split folders under the model's trajectories/ (as last seen). */
  get stepSplits(): readonly string[] {
    return this.splits;
  }
  get problemTotal(): number {
    return this.problemCount;
  }

  status(): SyncStatus {
    return {
      loading: !this.complete,
      count: this.series.length,
      error: this.error,
      pollSeconds: 0,
      updatedAt: this.updatedAt,
      file: { name: this.file, watching: this.active, recordedAt: this.recordedAt, problems: this.problemCount, problem: this.problems[0] && `line ${this.problems[0].line}: ${this.problems[0].message}`, splits: this.splits, steps: this.splitSteps },
    };
  }

  /**
   * The first read, for the command: rejects when the file is missing, or has lines and not one
   * that reads (it is not a history file), naming the file and the first bad line.
   */
  async load(): Promise<void> {
    // The first rows are enough to open the panel: the rest of the file is read while its webview
    // starts (the reader sends it on as it comes). A file without a good row is read to the end.
    let found: () => void = () => undefined;
    const rows = new Promise<void>((resolve) => (found = resolve));
    this.onRows = found;
    const run = this.check();
    await Promise.race([run, rows]);
    this.onRows = undefined;
    if (this.series.length > 0) return;
    await run;
    if (this.error) throw new InputError(`${this.file}: ${this.error}`, { file: this.fsPath });
    if (this.series.length === 0 && this.problems.length > 0) {
      const p = this.problems[0]!;
      throw new InputError(`${this.file} line ${p.line}: ${p.message}. It is not a training history (ART's history.jsonl): no line has a step and metrics.`, { file: this.fsPath, line: p.line });
    }
  }

  setActive(active: boolean): void {
    if (this.active === active) return;
    this.active = active;
    if (active) {
      this.watch();
      background(this.check(), `Reading ${this.file}`);
    } else {
      this.unwatch();
    }
    this.statusChanged.fire();
  }

  restart(): void {
    this.reset();
    background(this.check(), `Reading ${this.file}`);
  }

  /** Reads what was appended since the last read; one read at a time, a request meanwhile runs after. */
  check(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = this.read().finally(() => {
      this.running = undefined;
      this.statusChanged.fire();
      if (this.again && !this.isDisposed) {
        this.again = false;
        background(this.check(), `Reading ${this.file}`);
      }
    });
    this.running = run;
    return run;
  }

  private reset(): void {
    this.reader.reset();
    this.series.clear();
    this.problems = [];
    this.problemCount = 0;
    this.complete = false;
    this.identity = undefined;
    this.recordedAt = undefined;
    this.stepShares.forget();
    this.cleared.fire();
    this.statusChanged.fire();
  }

  private async read(): Promise<void> {
    this.reads++;
    let handle: fs.promises.FileHandle | undefined;
    try {
      // A regular file only (a link to a device or a pipe is refused by name), read to the size seen.
      let stat: fs.Stats;
      ({ handle, stat } = await openRegular(this.fsPath));
      // Another file under the same name (rewritten, rotated) or a shorter one (truncated): from the start.
      const identity = `${stat.dev}:${stat.ino}`;
      if ((this.identity && identity !== this.identity) || stat.size < this.reader.offset) {
        this.log.info(`${this.file} was rewritten: reading it again`);
        this.reset();
      }
      this.identity = identity;
      this.error = undefined;
      const first = !this.complete;
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, stat.size - this.reader.offset)));
      let added = false;
      while (this.reader.offset < stat.size) {
        const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, stat.size - this.reader.offset), this.reader.offset);
        if (bytesRead === 0) break;
        const h = this.reader.push(buffer.subarray(0, bytesRead));
        this.problemsFound(h.problems);
        if (h.lastRecordedAt) this.recordedAt = parseRecordedAt(h.lastRecordedAt) ?? this.recordedAt;
        if (h.rows.length) added = this.merge(h.rows, first, false) || added;
        if (this.series.length) this.onRows?.();
      }
      const pending = this.reader.pending();
      if (pending) added = this.merge(mergeHistoryLines([pending]), first, false) || added;
      ({ splits: this.splits, steps: this.splitSteps } = await listSplits(this.modelDir));
      this.updatedAt = Date.now();
      this.complete = true;
      if (added || first) this.appended.fire({ columns: { ids: [], steps: [], metrics: dict() }, fresh: !first, done: true });
      this.scanShares(added || first);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      this.error = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder, not a history.jsonl file' : e instanceof NotARegularFile ? `is ${e.kind}, not a history.jsonl file (only regular files are read)` : e instanceof Error ? e.message : String(e);
      this.complete = true;
    } finally {
      await handle?.close();
    }
  }

  /**
   * Reads the step files that are new or changed into the `trainable/*` series, after the history
   * and never inside its read; one scan at a time, a request meanwhile runs after. `force` when the
   * history grew (a step file may have changed without its folder changing).
   */
  private scanShares(force: boolean): void {
    if (this.sharesRunning) {
      this.sharesAgain = (this.sharesAgain ?? false) || force;
      return;
    }
    const run = (async () => {
      let found;
      try {
        found = await this.stepShares.scan({ force, signal: this.sharesAbort.signal });
      } catch (e) {
        if (this.sharesAbort.signal.aborted) return; // disposed
        throw e;
      }
      for (const e of found.errors) {
        if (this.shareErrors.has(e.file)) continue;
        this.shareErrors.add(e.file);
        this.log.warn(`${e.file}: not counted in the trainable series: ${e.error}`);
      }
      if (found.rows.length && !this.isDisposed) this.merge(found.rows.map((r) => ({ id: historyRowId(r.step), step: r.step, metrics: r.metrics })), true, true);
    })().finally(() => {
      this.sharesRunning = undefined;
      if (this.sharesAgain !== undefined && !this.isDisposed) {
        const again = this.sharesAgain;
        this.sharesAgain = undefined;
        this.scanShares(again);
      }
    });
    this.sharesRunning = run;
    background(run, `Reading the step files of ${this.file}`);
  }

  /** Merges rows and tells the panel; true when something changed. */
  private merge(rows: Parameters<CheckpointSeries['merge']>[0], first: boolean, done: boolean): boolean {
    // Columns once, for the series (new steps after the last only append) and for the webview,
    // which merges them the same way: a step that got another line (val after train) is updated there too.
    const columns = columnsFromCheckpoints(rows);
    const result = this.series.mergeColumns(columns);
    if (!result.added && !result.updated) return false;
    this.appended.fire({ columns, fresh: !first && result.added > 0, done });
    return true;
  }

  private problemsFound(problems: HistoryProblem[]): void {
    if (!problems.length) return;
    this.problemCount += problems.length;
    for (const p of problems) {
      if (this.problems.length >= KEEP_PROBLEMS) break;
      this.problems.push(p);
      this.log.warn(`${this.file} line ${p.line}: ${p.message}`);
    }
  }

  private watch(): void {
    this.unwatch();
    const name = path.basename(this.fsPath);
    try {
      // The folder, not the file: a file watch is lost when the file is replaced.
      this.watcher = fs.watch(this.modelDir, { persistent: false }, (_event, changed) => {
        if (!changed || changed.toString() === name || changed.toString() === 'trajectories') background(this.check(), `Reading ${this.file}`);
      });
      this.watcher.on('error', () => this.watcher?.close());
    } catch (e) {
      this.log.warn(`${this.file}: cannot watch its folder (${e instanceof Error ? e.message : String(e)}); looking every ${CHECK_MS / 1000} s`);
    }
    this.timer = setInterval(() => background(this.check(), `Reading ${this.file}`), CHECK_MS);
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
