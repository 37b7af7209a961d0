import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import type { Logger } from '../common/logger';
import { parseMessage } from '../webview/protocol';
import { FromWebview, type BestChoice, type ToWebview, type UiState } from './shared/protocol';
import { columnsToWire, type Columns } from './shared/series';
import { webviewHtml, webviewOptions } from '../ui/webview';
import type { DashboardSource } from './source';
import { background } from '../common/background';
import type { StepStatsCache } from './stepStats';
import { DistributionFeed } from './distributionFeed';
import { StepReadPriority } from './stepReadPriority';

/**
 * Rows per data message when a (re)loaded page gets everything at once: the numbers travel as one
 * ArrayBuffer per message (8 bytes a value), so a 10,000 × 30 dashboard is one message of 2.4 MB.
 */
const REPLAY_CHUNK = 20_000;
const FLUSH_MS = 100;

export type RenderedMessage = Extract<FromWebview, { type: 'rendered' }>;
export type DistributionRendered = Extract<FromWebview, { type: 'distributionRendered' }>;

/** What a panel needs from the manager: per-model memory and the actions that reach outside it. */
export interface DashboardHost {
  readonly extensionUri: vscode.Uri;
  readonly log: Logger;
  uiState(modelId: string): UiState;
  saveUiState(modelId: string, ui: UiState): Thenable<void>;
  bestChoice(modelId: string): BestChoice;
  chooseBest(modelId: string, choice: BestChoice): void;
  copy(modelId: string, what: 'id' | 'step', checkpointId: string): Promise<void>;
  exportCsv(modelId: string): Promise<unknown>;
  /** Opens a trajectory step file of a file dashboard's run in the viewer (only the trajectories in `reward`, when given). */
  openStep(modelId: string, step: number, split: string, reward?: { min: number; max: number }): Promise<void>;
  /** The step numbers cache of the Runs view, for a file dashboard's reward distribution. */
  readonly stepStats?: StepStatsCache;
  showError(error: unknown, context: string): Promise<void>;
}

/**
 * One model's dashboard: a webview panel over a CheckpointSync (or one run's history.jsonl over a HistorySync). The webview is not kept alive
 * while hidden (that is the memory a hidden tab costs): each time it is shown it loads again,
 * says `ready`, and gets the model's UI state and every checkpoint from here.
 */
export class DashboardPanel extends Disposable {
  private ready = false;
  private focus: string | undefined;
  private pending: Columns[] = [];
  private pendingFresh = false;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly rendered = this._register(new vscode.EventEmitter<RenderedMessage>());
  /** The webview drew what it was sent (tests and the bench wait on this). */
  readonly onDidRender = this.rendered.event;
  lastRendered: RenderedMessage | undefined;
  private readonly distributionDrawn = this._register(new vscode.EventEmitter<DistributionRendered>());
  /** The webview drew the reward distribution (tests wait on this). */
  readonly onDidRenderDistribution = this.distributionDrawn.event;
  lastDistribution: DistributionRendered | undefined;
  /** A file dashboard's reward distribution per step. */
  private readonly feed: DistributionFeed | undefined;
  private feedTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly closed = this._register(new vscode.EventEmitter<void>());
  readonly onDidClose = this.closed.event;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly sync: DashboardSource,
    private readonly host: DashboardHost,
    focus?: string,
  ) {
    super();
    this.focus = focus;
    const modelDir = (sync as { modelDir?: unknown }).modelDir;
    // A run's history: the distribution's reads go before its trainable-share scan (HistorySync.stepReads).
    const stepReads = (sync as { stepReads?: unknown }).stepReads;
    if (typeof modelDir === 'string' && host.stepStats) this.feed = new DistributionFeed(modelDir, host.stepStats, (m) => this.post(m), stepReads instanceof StepReadPriority ? stepReads : undefined);
    panel.iconPath = vscode.Uri.joinPath(host.extensionUri, 'media', 'svc.svg');
    panel.webview.options = webviewOptions(host.extensionUri);
    panel.webview.html = this.html();
    this._register(panel.webview.onDidReceiveMessage((raw) => background(this.receive(raw), `Training dashboard of ${this.title}`)));
    this._register(
      panel.onDidChangeViewState(() => {
        // A hidden webview is torn down; the next one says `ready` again.
        if (!panel.visible) {
          this.ready = false;
          this.pending = [];
          this.feed?.stop();
        }
        sync.setActive(panel.visible);
      }),
    );
    this._register(
      sync.onDidAppend((e) => {
        if (!this.ready) return;
        this.pending.push(e.columns);
        this.pendingFresh ||= e.fresh;
        if (e.done || !sync.busy) this.flush(true);
        else this.flushSoon();
        // New steps in the history: their step files may be new too.
        this.feedSoon();
      }),
    );
    this._register(
      sync.onDidClear(() => {
        this.pending = [];
        if (this.ready) this.post({ type: 'reset' });
      }),
    );
    this._register(sync.onDidChangeStatus(() => this.ready && this.flushSoon()));
    this._register({ dispose: () => (clearTimeout(this.flushTimer), clearTimeout(this.feedTimer), this.feed?.stop()) });
    this._register(
      panel.onDidDispose(() => {
        this.closed.fire();
        this.dispose();
      }),
    );
    this._register(sync);
    this._register(panel);
    panel.title = `Training: ${this.title}`;
    sync.setActive(panel.visible);
    host.log.info(`Training dashboard of ${this.title} opened`);
  }

  get modelId(): string {
    return this.sync.modelId;
  }

  get title(): string {
    return this.sync.title ?? this.sync.modelId;
  }

  reveal(focus?: string): void {
    if (focus) {
      this.focus = focus;
      if (this.ready) this.post({ type: 'focus', checkpointId: focus });
    }
    this.panel.reveal(undefined, false);
  }

  private html(): string {
    return webviewHtml(this.panel.webview, this.host.extensionUri, { entry: 'dashboard', title: `Training: ${this.title}`, dataImages: true });
  }

  /**
   * Pages that arrive while a load runs go to the webview together, at most every 100 ms: one
   * message instead of a hundred keeps the extension host free for the requests.
   */
  private flushSoon(): void {
    if (!this.flushTimer) this.flushTimer = setTimeout(() => this.flush(false), FLUSH_MS);
  }

  private flush(done: boolean): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.ready) return;
    if (this.pending.length) this.post({ type: 'data', columns: columnsToWire(this.pending), done, fresh: this.pendingFresh });
    this.pending = [];
    this.pendingFresh = false;
    this.post({ type: 'status', status: this.sync.status() });
  }

  /** Reads the step files' distributions again, a second after the last append. */
  private feedSoon(): void {
    if (!this.feed) return;
    clearTimeout(this.feedTimer);
    this.feedTimer = setTimeout(() => this.ready && background(this.feed!.start(), `Reward distribution of ${this.title}`), 1000);
  }

  private post(message: ToWebview): void {
    background(this.panel.webview.postMessage(message), `Posting to the training dashboard of ${this.title}`);
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = parseMessage(FromWebview, raw);
    if (!parsed.ok) {
      this.host.log.warn(`Training dashboard of ${this.title}: ${parsed.error}`);
      return;
    }
    try {
      await this.handle(parsed.value);
    } catch (e) {
      await this.host.showError(e, `Training dashboard of ${this.title}`);
    }
  }

  private async handle(msg: FromWebview): Promise<void> {
    const modelId = this.modelId;
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.replay();
        if (this.feed) {
          this.feed.reset();
          background(this.feed.start(), `Reward distribution of ${this.title}`);
        }
        return;
      case 'ui':
        await this.host.saveUiState(modelId, msg.ui);
        return;
      case 'best':
        return this.host.chooseBest(modelId, msg.best);
      case 'copy':
        return this.host.copy(modelId, msg.what, msg.checkpointId);
      case 'exportCsv':
        await this.host.exportCsv(modelId);
        return;
      case 'refresh':
        return this.sync.restart();
      case 'openStep':
        return this.host.openStep(modelId, msg.step, msg.split, msg.reward);
      case 'distributionRendered':
        this.lastDistribution = msg;
        this.distributionDrawn.fire(msg);
        return;
      case 'rendered':
        this.lastRendered = msg;
        this.rendered.fire(msg);
        return;
      case 'error':
        this.host.log.error(`Training dashboard of ${this.title} (webview): ${msg.message}`);
        return;
    }
  }

  /** Everything to a freshly loaded webview: its state, then the data in chunks. */
  private replay(): void {
    const { series } = this.sync;
    this.pending = [];
    this.pendingFresh = false;
    const focus = this.focus;
    this.focus = undefined;
    this.post({ type: 'init', modelId: this.modelId, ui: this.host.uiState(this.modelId), best: this.host.bestChoice(this.modelId), focus, title: this.sync.title });
    this.post({ type: 'status', status: this.sync.status() });
    const n = series.length;
    // Once the source has loaded everything, what a run in progress finds (a poll, lines appended
    // meanwhile) comes with its own `done`: the page draws what it has now.
    const complete = this.sync.loaded || !this.sync.busy;
    for (let from = 0; from < n || from === 0; from += REPLAY_CHUNK) {
      const to = Math.min(n, from + REPLAY_CHUNK);
      this.post({ type: 'data', columns: columnsToWire([series.slice(from, to)]), done: to >= n && complete, fresh: false });
      if (n === 0) break;
    }
  }
}

