import * as path from 'path';
import * as vscode from 'vscode';
import { InputError } from '../api';
import { background } from '../common/background';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import { webviewHtml, webviewOptions } from '../ui/webview';
import type { Connection } from '../service/connection';
import { COMPARE_PANEL } from '../common/ids';
import { CompareState, FromCompare, MAX_RUNS, type ToCompare } from './shared/compareProtocol';
import { parseMessage } from '../webview/protocol';
import { columnsToWire } from './shared/series';
import { HistorySync } from './historySync';
import type { DashboardSource } from './source';
import { CheckpointSync } from './sync';

export const COMPARE_VIEW_TYPE = COMPARE_PANEL;

/** A run to compare: a model's checkpoints on the service, or a run's history.jsonl on disk. */
export type RunSpec = { modelId: string } | { file: vscode.Uri };

export type CompareRendered = Extract<FromCompare, { type: 'rendered' }>;

/**
 * One Compare Runs panel: two or more runs' sources (the same CheckpointSync and HistorySync a
 * dashboard draws from, so new checkpoints and appended lines arrive live), forwarded to the
 * webview with the run's index. The webview reloads when shown again and gets everything anew.
 */
export class ComparePanel extends Disposable {
  private ready = false;
  private readonly rendered = this._register(new vscode.EventEmitter<CompareRendered>());
  readonly onDidRender = this.rendered.event;
  lastRendered: CompareRendered | undefined;

  constructor(
    readonly panel: vscode.WebviewPanel,
    readonly sources: readonly DashboardSource[],
    extensionUri: vscode.Uri,
    private readonly log: Logger,
  ) {
    super();
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'svc.svg');
    panel.webview.options = webviewOptions(extensionUri);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, { entry: 'compare', title: panel.title, dataImages: true });
    this._register(panel.webview.onDidReceiveMessage((raw) => background(this.receive(raw), 'Compare Runs')));
    this._register(
      panel.onDidChangeViewState(() => {
        if (!panel.visible) this.ready = false;
        for (const s of sources) s.setActive(panel.visible);
      }),
    );
    sources.forEach((s, run) => {
      this._register(s.onDidAppend((e) => this.ready && this.post({ type: 'data', run, columns: columnsToWire([e.columns]), done: e.done || !s.busy })));
      this._register(s.onDidClear(() => this.ready && this.post({ type: 'reset', run })));
      this._register(s.onDidChangeStatus(() => this.ready && this.post({ type: 'status', run, status: s.status() })));
      this._register(s);
    });
    this._register(panel.onDidDispose(() => this.dispose()));
    this._register(panel);
    for (const s of sources) s.setActive(panel.visible);
  }

  private post(message: ToCompare): void {
    background(this.panel.webview.postMessage(message), 'Posting to Compare Runs');
  }

  private async receive(raw: unknown): Promise<void> {
    const parsed = parseMessage(FromCompare, raw);
    if (!parsed.ok) {
      this.log.warn(`Compare Runs: ${parsed.error}`);
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.post({ type: 'init', runs: this.sources.map((s) => ({ label: s.title ?? s.modelId, kind: s.file ? 'file' : 'model' })), state: { runs: this.sources.map(runState) } });
        this.sources.forEach((s, run) => {
          this.post({ type: 'status', run, status: s.status() });
          this.post({ type: 'data', run, columns: columnsToWire([s.series.slice()]), done: s.loaded || !s.busy });
        });
        return;
      case 'refresh':
        for (const s of this.sources) s.restart();
        return;
      case 'rendered':
        this.lastRendered = msg;
        this.rendered.fire(msg);
        return;
      case 'error':
        this.log.error(`Compare Runs (webview): ${msg.message}`);
        return;
    }
  }
}

/** A run as the webview keeps it for a window reload: the model id, or the history file's path. */
function runState(s: DashboardSource): CompareState['runs'][number] {
  return s instanceof HistorySync ? { file: s.fsPath } : { modelId: s.modelId };
}

/** Opens Compare Runs panels: resolves each run to its source, rejecting (opening nothing) on a bad one. */
export class CompareRuns extends Disposable {
  private readonly panels = new Set<ComparePanel>();
  private readonly opened = this._register(new vscode.EventEmitter<ComparePanel>());
  readonly onDidOpen = this.opened.event;

  constructor(
    private readonly connection: Connection,
    private readonly errors: ErrorPresenter,
    private readonly log: Logger,
    private readonly extensionUri: vscode.Uri,
  ) {
    super();
    this._register({ dispose: () => [...this.panels].forEach((p) => p.dispose()) });
  }

  async open(runs: readonly RunSpec[]): Promise<ComparePanel> {
    if (runs.length < 2) throw new InputError(`Compare Runs needs at least two runs (got ${runs.length}).`, { field: 'runs' });
    if (runs.length > MAX_RUNS) throw new InputError(`Compare Runs shows at most ${MAX_RUNS} runs (got ${runs.length}).`, { field: 'runs' });
    const keys = runs.map((r) => ('modelId' in r ? r.modelId : `file:${r.file.fsPath}`));
    const twice = keys.find((k, i) => keys.indexOf(k) !== i);
    if (twice) throw new InputError(`Compare Runs: ${twice.replace(/^file:/, '')} is named twice.`, { field: 'runs' });
    const sources = await this.sourcesOf(runs);
    return this.adopt(vscode.window.createWebviewPanel(COMPARE_VIEW_TYPE, 'Compare Runs', vscode.ViewColumn.Active, webviewOptions(this.extensionUri)), sources);
  }

  /**
   * Restores the panels VS Code kept across a window reload (registered at activation by
   * src/boot): the runs the webview saved are read again; a panel whose state is not a list of
   * runs, or whose runs cannot be read now (a file gone, no service configured), is closed.
   */
  serializer(): vscode.WebviewPanelSerializer {
    return {
      deserializeWebviewPanel: async (webview, state: unknown) => {
        const parsed = CompareState.safeParse(state);
        if (!parsed.success) {
          this.log.warn('Compare Runs: a panel kept across the reload has no runs to show; closed.');
          webview.dispose();
          return;
        }
        const runs: RunSpec[] = parsed.data.runs.map((r) => ('modelId' in r ? { modelId: r.modelId } : { file: vscode.Uri.file(r.file) }));
        try {
          this.adopt(webview, await this.sourcesOf(runs));
        } catch (e) {
          this.log.warn(`Compare Runs: a panel kept across the reload could not be restored: ${e instanceof Error ? e.message : String(e)}`);
          webview.dispose();
        }
      },
    };
  }

  private async sourcesOf(runs: readonly RunSpec[]): Promise<DashboardSource[]> {
    if (runs.some((r) => 'modelId' in r) && !this.connection.client) throw new InputError('No svc service is configured: run "svc: Set Service Base URL" first, or compare history.jsonl files only.');
    const sources: DashboardSource[] = [];
    try {
      for (const r of runs) {
        if ('modelId' in r) sources.push(new CheckpointSync(r.modelId, this.connection, this.errors, this.log));
        else {
          const h = new HistorySync(r.file.fsPath, vscode.workspace.asRelativePath(r.file), this.log);
          sources.push(h);
          await h.load();
        }
      }
    } catch (e) {
      for (const s of sources) s.dispose();
      throw e;
    }
    return sources;
  }

  private adopt(webview: vscode.WebviewPanel, sources: DashboardSource[]): ComparePanel {
    const labels = sources.map((s) => (s.file ? path.basename(path.dirname((s as HistorySync).fsPath)) : s.modelId));
    webview.title = `Compare: ${labels.join(' vs ')}`;
    const panel = new ComparePanel(webview, sources, this.extensionUri, this.log);
    this.panels.add(panel);
    webview.onDidDispose(() => this.panels.delete(panel));
    this.log.info(`Compare Runs opened: ${labels.join(', ')}`);
    this.opened.fire(panel);
    return panel;
  }
}
