import * as vscode from 'vscode';
import { ProtocolError, type Checkpoint } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { PageGuard } from './shared/pages';
import { pollDelayMs } from './shared/poll';
import type { SyncStatus } from './shared/protocol';
import { CheckpointSeries, columnsFromCheckpoints, type Columns, type MergeResult } from './shared/series';
import { background } from '../common/background';

/** Cursor pages of the dashboard: the largest the service allows. */
export const PAGE_SIZE = 100;

export interface SyncAppend {
  /** The page as the service sent it. */
  page: Checkpoint[];
  /** The same checkpoints as merged (numbers only), as columns. */
  columns: Columns;
  /** Rows now in the series that the listener has not seen: a merge may also insert or update. */
  merge: MergeResult;
  /** Ids of the checkpoints a poll added, in page order (empty for the first load). */
  addedIds: string[];
  /** Found by a poll after the first complete load. */
  fresh: boolean;
  /** The load reached the end (has_more false): nothing more is coming right now. */
  done: boolean;
}

/**
 * Every checkpoint of one model, kept current: the first load follows the cursor (`after`,
 * ascending, pages of 100) to the end, and each poll asks for what comes after the last id seen.
 * Requests are made only while `active` (the dashboard is visible); becoming inactive aborts the
 * request in flight, and becoming active again resumes from the cursor. Failures back off.
 * State and events only: no UI.
 */
export class CheckpointSync extends Disposable {
  readonly series = new CheckpointSeries();
  private readonly appended = this._register(new vscode.EventEmitter<SyncAppend>());
  readonly onDidAppend = this.appended.event;
  private readonly statusChanged = this._register(new vscode.EventEmitter<void>());
  readonly onDidChangeStatus = this.statusChanged.event;
  private readonly cleared = this._register(new vscode.EventEmitter<void>());
  /** The series was emptied (another service, account or a refresh): listeners start over. */
  readonly onDidClear = this.cleared.event;

  private active = false;
  private cursor: string | undefined;
  private complete = false;
  private running: Promise<void> | undefined;
  private abort: AbortController | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private failures = 0;
  private error: string | undefined;
  private updatedAt: number | undefined;
  private nextPollAt: number | undefined;
  /** Requests made, for the tests that check a hidden dashboard makes none. */
  requests = 0;

  constructor(
    readonly modelId: string,
    private readonly connection: Connection,
    private readonly errors: ErrorPresenter,
    private readonly log: Logger,
  ) {
    super();
    this._register(
      connection.onDidChange(({ data, config }) => {
        if (data) this.restart();
        else if (config && config.before.checkpointsPollSeconds !== config.after.checkpointsPollSeconds) this.schedule();
      }),
    );
    this._register({ dispose: () => this.stop() });
  }

  /** The first load has reached the end at least once. */
  get loaded(): boolean {
    return this.complete;
  }
  /** A run (load or poll) is fetching pages right now. */
  get busy(): boolean {
    return !!this.running;
  }

  status(): SyncStatus {
    return {
      loading: !this.complete,
      count: this.series.length,
      error: this.error,
      pollSeconds: this.connection.config.checkpointsPollSeconds,
      nextPollAt: this.nextPollAt,
      updatedAt: this.updatedAt,
    };
  }

  /** Visible dashboards sync; hidden ones make no request at all. */
  setActive(active: boolean): void {
    if (this.active === active) return;
    this.active = active;
    if (active) background(this.sync(), `Syncing the checkpoints of ${this.modelId}`);
    else this.stop();
    this.statusChanged.fire();
  }

  /** Forgets everything and loads again (the Refresh button). */
  restart(): void {
    this.stop();
    this.series.clear();
    this.cursor = undefined;
    this.complete = false;
    this.failures = 0;
    this.error = undefined;
    this.cleared.fire();
    this.statusChanged.fire();
    if (this.active) background(this.sync(), `Syncing the checkpoints of ${this.modelId}`);
  }

  /** Fetches the pages after the cursor until the end; one run at a time. */
  sync(): Promise<void> {
    if (this.running) return this.running;
    this.clearTimer();
    const run = this.run().finally(() => {
      if (this.running === run) this.running = undefined;
      this.schedule();
      this.statusChanged.fire();
    });
    this.running = run;
    this.statusChanged.fire();
    return run;
  }

  private async run(): Promise<void> {
    const client = this.connection.client;
    if (!this.active) return;
    if (!client) {
      this.error = 'No svc service is configured: set svc.baseUrl.';
      return;
    }
    const abort = (this.abort = new AbortController());
    const guard = new PageGuard(this.modelId);
    try {
      for (;;) {
        if (!this.active || abort.signal.aborted) return;
        this.requests++;
        const page = await client.models.listCheckpoints(this.modelId, { after: this.cursor, limit: PAGE_SIZE, order: 'asc' }, { signal: abort.signal });
        if (abort !== this.abort) return; // restarted meanwhile: this page belongs to the old data
        const oversized = guard.checkPage(page.data.length);
        if (oversized) throw new ProtocolError(oversized, { fieldPath: 'data' });
        this.updatedAt = Date.now();
        this.failures = 0;
        this.error = undefined;
        const fresh = this.complete;
        const addedIds = fresh ? [...new Set(page.data.map((c) => c.id))].filter((id) => this.series.indexOf(id) < 0) : [];
        const columns = columnsFromCheckpoints(page.data);
        const merge = this.series.mergeColumns(columns);
        const next = page.last_id || page.data.at(-1)?.id;
        if (next) this.cursor = next;
        const done = !page.has_more;
        if (done) this.complete = true;
        if (merge.added || merge.updated || done) this.appended.fire({ page: page.data, columns, merge, addedIds, fresh, done });
        if (done) return;
        // A service that repeats a cursor, or never ends, would make us ask for pages forever.
        const stop = guard.checkNext(next, this.series.length);
        if (stop) throw new ProtocolError(stop, { fieldPath: 'last_id' });
        this.statusChanged.fire();
      }
    } catch (e) {
      if (abort.signal.aborted || abort !== this.abort) return;
      this.failures++;
      this.error = this.errors.describe(e);
      this.log.error(`Training dashboard of ${this.modelId}: ${this.error}`);
      this.connection.reportFailure(e);
    } finally {
      if (this.abort === abort) this.abort = undefined;
    }
  }

  /** The next poll, while active: the interval, or a growing delay after failures. */
  private schedule(): void {
    this.clearTimer();
    if (!this.active || this.running || this.isDisposed) return;
    // Before the first complete load, a failure retries on the same backoff even with polling off.
    const seconds = this.connection.config.checkpointsPollSeconds || (this.complete ? 0 : this.failures ? 30 : 0);
    const delay = pollDelayMs(seconds, this.failures);
    if (delay === undefined) return;
    this.nextPollAt = Date.now() + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.nextPollAt = undefined;
      background(this.sync(), `Syncing the checkpoints of ${this.modelId}`);
    }, delay);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.nextPollAt = undefined;
  }

  private stop(): void {
    this.clearTimer();
    this.abort?.abort();
    this.abort = undefined;
    this.running = undefined;
  }
}
