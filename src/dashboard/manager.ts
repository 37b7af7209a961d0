import * as vscode from 'vscode';
import type { StepStatsCache } from './stepStats';
import type { WorkspaceRuns } from '../ui/runPick';
import { webviewOptions } from '../ui/webview';
import type { Prompts } from '../ui/prompts';
import { InputError, type Checkpoint } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import { formatMetric } from '../common/format';
import { checkWriteTarget } from '../common/writeTarget';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { toCsv } from './shared/csv';
import { bestRow, resolveBest, type Direction } from './shared/metrics';
import { parseMessage } from '../webview/protocol';
import { BestChoice, DEFAULT_UI, UiState } from './shared/protocol';
import { DASHBOARD_PANEL } from '../common/ids';
import { DashboardPanel, type DashboardHost } from './panel';
import { CheckpointSync, type SyncAppend } from './sync';
import { background } from '../common/background';
import { FILE_KEY, HistorySync } from './historySync';
import { stepFileNames } from './shared/history';
import { TRAJECTORY_VIEWER } from '../common/ids';

/** globalState: model id -> the metric and direction of its best checkpoint (the issue: per model). */
const BEST_KEY = 'svc.dashboard.best';
/** workspaceState: model id -> what the dashboard showed (metrics, smoothing, sort, selection). */
const UI_KEY = 'svc.dashboard.ui';

/** The best checkpoint of a model, as the tree stars it. */
export interface BestMark {
  checkpointId: string;
  step: number;
  metric: string;
  direction: Direction;
  value: number;
}

export interface NewCheckpoints {
  modelId: string;
  checkpoints: Checkpoint[];
}

/**
 * The training dashboards: one panel per model, the best checkpoint of each model whose
 * checkpoints are loaded, the count of checkpoints that polls found (the view badge), and the
 * per-model memory of choices. Panels come and go; the best marks stay for the session.
 */
export class Dashboards extends Disposable implements DashboardHost {
  private readonly panels = new Map<string, DashboardPanel>();
  private readonly marks = new Map<string, BestMark>();
  private readonly fresh = new Map<string, number>();
  private readonly bestChanged = this._register(new vscode.EventEmitter<string>());
  /** Fires with a model id when its best checkpoint changed. */
  readonly onDidChangeBest = this.bestChanged.event;
  private readonly newChanged = this._register(new vscode.EventEmitter<void>());
  /** Fires when the count of new checkpoints changed. */
  readonly onDidChangeNewCount = this.newChanged.event;
  private readonly found = this._register(new vscode.EventEmitter<NewCheckpoints>());
  /** Fires with the checkpoints a poll found, so the tree can show them. */
  readonly onDidFindCheckpoints = this.found.event;
  private readonly opened = this._register(new vscode.EventEmitter<DashboardPanel>());
  readonly onDidOpen = this.opened.event;

  readonly extensionUri: vscode.Uri;

  constructor(
    private readonly connection: Connection,
    private readonly errors: ErrorPresenter,
    private readonly prompts: Prompts,
    readonly log: Logger,
    private readonly context: Pick<vscode.ExtensionContext, 'extensionUri' | 'globalState' | 'workspaceState'>,
  ) {
    super();
    this.extensionUri = context.extensionUri;
    this._register(
      connection.onDidChange(({ data }) => {
        if (!data) return;
        // Another service or account: what was starred belongs to the old one.
        const ids = [...this.marks.keys()];
        this.marks.clear();
        this.fresh.clear();
        for (const id of ids) this.bestChanged.fire(id);
        this.newChanged.fire();
      }),
    );
    this._register({ dispose: () => [...this.panels.values()].forEach((p) => p.dispose()) });
  }

  /** Restores panels VS Code kept across a window reload (registered at activation by src/boot). */
  serializer(): vscode.WebviewPanelSerializer {
    return {
      deserializeWebviewPanel: async (panel, state: unknown) => {
        const modelId = typeof state === 'object' && state !== null ? (state as { modelId?: unknown }).modelId : undefined;
        if (typeof modelId !== 'string' || !modelId || this.panels.has(modelId)) {
          panel.dispose();
          return;
        }
        if (modelId.startsWith(FILE_KEY)) {
          const history = new HistorySync(modelId.slice(FILE_KEY.length), vscode.workspace.asRelativePath(modelId.slice(FILE_KEY.length)), this.log, { distributionFirst: !!this.stepStats });
          this.adoptSource(panel, history);
          return;
        }
        this.adopt(panel, modelId);
      },
    };
  }

  panel(modelId: string): DashboardPanel | undefined {
    return this.panels.get(modelId);
  }

  /** The history.jsonl files whose dashboard is open (Compare Runs offers them in its pick). */
  openHistoryFiles(): string[] {
    return [...this.panels.values()].map((p) => p.sync).filter((s): s is HistorySync => s instanceof HistorySync).map((s) => s.fsPath);
  }

  /** The model of the dashboard in the active editor tab, if any. */
  active(): string | undefined {
    for (const [modelId, p] of this.panels) if (p.panel.active) return modelId;
    return undefined;
  }

  /** Opens (or shows) the dashboard of a model, optionally with one checkpoint selected. */
  open(modelId: string, focus?: string): DashboardPanel {
    const existing = this.panels.get(modelId);
    if (existing) {
      existing.reveal(focus);
      return existing;
    }
    const panel = vscode.window.createWebviewPanel(DASHBOARD_PANEL, `Training: ${modelId}`, vscode.ViewColumn.Active, webviewOptions(this.extensionUri));
    return this.adopt(panel, modelId, focus);
  }

  /**
   * Opens (or shows) the dashboard of a run's history.jsonl (ART's metrics file). Rejects, naming
   * the file and the line, when the file is missing or not a history; opens nothing then.
   */
  async openFile(file: vscode.Uri): Promise<DashboardPanel> {
    const existing = this.panels.get(FILE_KEY + file.fsPath);
    if (existing) {
      existing.reveal();
      return existing;
    }
    // Its panel reads the reward distribution (with the step numbers cache): that goes before the share scan.
    const history = new HistorySync(file.fsPath, vscode.workspace.asRelativePath(file), this.log, { distributionFirst: !!this.stepStats });
    try {
      await history.load();
    } catch (e) {
      history.dispose();
      throw e;
    }
    const again = this.panels.get(history.modelId);
    if (again) {
      history.dispose();
      again.reveal();
      return again;
    }
    const panel = vscode.window.createWebviewPanel(DASHBOARD_PANEL, `Training: ${history.title}`, vscode.ViewColumn.Active, webviewOptions(this.extensionUri));
    return this.adoptSource(panel, history);
  }

  private adoptSource(webviewPanel: vscode.WebviewPanel, source: HistorySync): DashboardPanel {
    const panel = new DashboardPanel(webviewPanel, source, this);
    this.panels.set(source.modelId, panel);
    panel.onDidClose(() => {
      if (this.panels.get(source.modelId) === panel) this.panels.delete(source.modelId);
    });
    this.opened.fire(panel);
    return panel;
  }

  /** The Runs view's step numbers cache (handed over by the runs feature), for the reward distribution. */
  stepStats: StepStatsCache | undefined;
  /** The workspace's runs (the Runs view's), which the palette offers when no service is configured. */
  workspaceRuns: WorkspaceRuns | undefined;

  /** The runs feature hands over its runs and their step numbers cache. */
  useRuns(runs: WorkspaceRuns & { readonly stats: StepStatsCache }): void {
    this.workspaceRuns = runs;
    this.stepStats = runs.stats;
  }

  /** The trajectory step file of a file dashboard's run: `<model dir>/trajectories/<split>/<step:04d>.parquet` (or `.jsonl`), in the viewer. */
  async openStep(key: string, step: number, split: string, reward?: { min: number; max: number }): Promise<void> {
    const source = this.panels.get(key)?.sync;
    if (!(source instanceof HistorySync)) throw new InputError('Step files open from the dashboard of a history.jsonl file.');
    if (split.includes('/') || split.includes('\\') || split === '..' || split === '.') throw new InputError(`"${split}" is not a split name.`);
    const dir = vscode.Uri.joinPath(vscode.Uri.file(source.modelDir), 'trajectories', split);
    const names = stepFileNames(step);
    for (const name of names) {
      const uri = vscode.Uri.joinPath(dir, name);
      try {
        await vscode.workspace.fs.stat(uri);
      } catch {
        continue;
      }
      if (reward) await vscode.commands.executeCommand('svc.openTrajectoryViewer', { file: uri.fsPath, reward });
      else await vscode.commands.executeCommand('vscode.openWith', uri, TRAJECTORY_VIEWER);
      return;
    }
    throw new InputError(`Step ${step} has no ${split} trajectory file: neither ${names.join(' nor ')} is in ${vscode.workspace.asRelativePath(dir)}.`, { file: dir.fsPath });
  }

  /**
   * Opens a model's dashboard with the checkpoint of `step` selected (a deep link names steps, the
   * dashboard selects ids): waits for its first load, then selects the first checkpoint of that
   * step. Rejects, naming the step, when the model has none; or with the load's own error.
   */
  async openAtStep(modelId: string, step: number): Promise<string> {
    const panel = this.open(modelId);
    const sync = panel.sync;
    await new Promise<void>((resolve, reject) => {
      const subs: vscode.Disposable[] = [];
      const done = (error?: Error) => {
        for (const d of subs) d.dispose();
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (sync.loaded) done();
        else if (sync.status().error && !sync.busy) done(new InputError(`The checkpoints of "${modelId}" could not be loaded: ${sync.status().error}`));
      };
      subs.push(sync.onDidChangeStatus(check), sync.onDidAppend(check), panel.onDidClose(() => done(new InputError(`The training dashboard of "${modelId}" was closed before step ${step} was found.`))));
      check();
    });
    const row = sync.series.steps.indexOf(step);
    if (row < 0) throw new InputError(`Model "${modelId}" has no checkpoint at step ${step} (${sync.series.length} checkpoints loaded).`, { field: 'step' });
    const id = sync.series.ids[row]!;
    panel.reveal(id);
    return id;
  }

  private adopt(webviewPanel: vscode.WebviewPanel, modelId: string, focus?: string): DashboardPanel {
    const sync = new CheckpointSync(modelId, this.connection, this.errors, this.log);
    const panel = new DashboardPanel(webviewPanel, sync, this, focus);
    this.panels.set(modelId, panel);
    sync.onDidAppend((e) => this.appended(modelId, sync, e));
    sync.onDidClear(() => this.updateBest(modelId, sync));
    panel.onDidClose(() => {
      if (this.panels.get(modelId) === panel) this.panels.delete(modelId);
    });
    this.opened.fire(panel);
    return panel;
  }

  /** The starred checkpoint of a model, once its dashboard has loaded every checkpoint. */
  best(modelId: string): BestMark | undefined {
    return this.marks.get(modelId);
  }

  /** Checkpoints found by polls that the user has not looked at yet, over all models. */
  get newCount(): number {
    let n = 0;
    for (const v of this.fresh.values()) n += v;
    return n;
  }

  /** The user looked at a model's checkpoints (or at all of them). */
  clearNew(modelId?: string): void {
    const before = this.newCount;
    if (modelId) this.fresh.delete(modelId);
    else this.fresh.clear();
    if (this.newCount !== before) this.newChanged.fire();
  }

  // DashboardHost

  uiState(modelId: string): UiState {
    const all = this.context.workspaceState.get<Record<string, unknown>>(UI_KEY, {});
    const parsed = parseMessage(UiState, all[modelId]);
    return parsed.ok ? parsed.value : DEFAULT_UI;
  }

  saveUiState(modelId: string, ui: UiState): Thenable<void> {
    const all = this.context.workspaceState.get<Record<string, unknown>>(UI_KEY, {});
    return this.context.workspaceState.update(UI_KEY, { ...all, [modelId]: ui });
  }

  bestChoice(modelId: string): BestChoice {
    const all = this.context.globalState.get<Record<string, unknown>>(BEST_KEY, {});
    const parsed = parseMessage(BestChoice, all[modelId]);
    return parsed.ok ? parsed.value : { direction: 'max' };
  }

  chooseBest(modelId: string, choice: BestChoice): void {
    const all = this.context.globalState.get<Record<string, unknown>>(BEST_KEY, {});
    background(this.context.globalState.update(BEST_KEY, { ...all, [modelId]: choice }), 'Saving the best-checkpoint choice');
    const panel = this.panels.get(modelId);
    if (panel && panel.sync instanceof CheckpointSync) this.updateBest(modelId, panel.sync);
  }

  showError(error: unknown, context: string): Promise<void> {
    return this.errors.show(error, context);
  }

  async copy(modelId: string, what: 'id' | 'step', checkpointId: string): Promise<void> {
    const sync = this.panels.get(modelId)?.sync;
    const row = sync ? sync.series.indexOf(checkpointId) : -1;
    if (!sync || row < 0) return;
    const text = what === 'id' ? checkpointId : String(sync.series.steps[row]);
    await vscode.env.clipboard.writeText(text);
    this.prompts.setStatusBarMessage(`svc: copied the checkpoint ${what === 'id' ? 'id' : 'step'} ${text}`, 3000);
  }

  /**
   * Writes a model's checkpoints as CSV to `target` (a script's path: inside a workspace folder
   * only, links resolved), or to a file the user picks (anywhere). Returns the file written, or
   * undefined when the user cancelled.
   */
  async exportCsv(modelId: string, target?: string): Promise<vscode.Uri | undefined> {
    const sync = this.panels.get(modelId)?.sync;
    if (!sync) throw new InputError(`The training dashboard of "${modelId}" is not open.`);
    if (sync.series.length === 0) throw new InputError(`"${sync.title ?? modelId}" has no ${sync.file ? 'steps' : 'checkpoints'} loaded to export.`);
    let uri: vscode.Uri | undefined;
    if (target !== undefined) {
      const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
      const checked = await checkWriteTarget(target, folders, 'svc.dashboard.exportCsv');
      if (!checked.ok) throw new InputError(checked.reason, { field: 'path' });
      uri = vscode.Uri.file(checked.path);
    }
    if (!uri) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const name = sync instanceof HistorySync ? `${sync.title.split(' ')[0]!.replace(/[^\w.-]+/g, '_')}-history.csv` : `${modelId.replace(/[^\w.-]+/g, '_')}-checkpoints.csv`;
      uri = await this.prompts.showSaveDialog({
        title: `svc: Export the checkpoints of ${modelId}`,
        defaultUri: folder ? vscode.Uri.joinPath(folder, name) : undefined,
        filters: { CSV: ['csv'] },
      });
      if (!uri) return undefined;
    }
    await vscode.workspace.fs.writeFile(uri, Buffer.from(toCsv(sync.series), 'utf8'));
    this.log.info(`Exported ${sync.series.length} checkpoints of ${modelId} to ${uri.toString(true)}`);
    if (!target) this.prompts.setStatusBarMessage(`svc: exported ${sync.series.length} checkpoints`, 3000);
    return uri;
  }

  private appended(modelId: string, sync: CheckpointSync, e: SyncAppend): void {
    this.updateBest(modelId, sync);
    if (!e.fresh || e.addedIds.length === 0) return;
    const ids = new Set(e.addedIds);
    this.found.fire({ modelId, checkpoints: e.page.filter((c) => ids.has(c.id)) });
    this.fresh.set(modelId, (this.fresh.get(modelId) ?? 0) + ids.size);
    this.newChanged.fire();
    if (this.connection.config.checkpointsNotify) this.notify(modelId, sync, e.addedIds);
  }

  private notify(modelId: string, sync: CheckpointSync, ids: string[]): void {
    const rows = ids.map((id) => sync.series.indexOf(id)).filter((i) => i >= 0);
    const latest = rows.reduce((a, b) => (sync.series.steps[b]! > sync.series.steps[a]! ? b : a));
    const { metric } = resolveBest(this.bestChoice(modelId), sync.series.metricNames());
    const value = metric ? sync.series.value(metric, latest) : null;
    const detail = metric && value !== null ? ` (${metric} ${formatMetric(value)})` : '';
    const step = sync.series.steps[latest];
    const text = rows.length === 1 ? `svc: model ${modelId}: new checkpoint step ${step}${detail}` : `svc: model ${modelId}: ${rows.length} new checkpoints, latest step ${step}${detail}`;
    background(
      this.prompts.showInformationMessage(text, 'Show').then((choice) => {
        if (choice) this.open(modelId, sync.series.ids[latest]);
      }),
      'Showing a new checkpoint',
    );
  }

  private updateBest(modelId: string, sync: CheckpointSync): void {
    const before = this.marks.get(modelId);
    let mark: BestMark | undefined;
    // Only a complete series has a best: a partial one would star a checkpoint that is not.
    if (sync.loaded) {
      const { metric, direction } = resolveBest(this.bestChoice(modelId), sync.series.metricNames());
      const row = metric ? bestRow(sync.series, metric, direction) : undefined;
      if (metric && row !== undefined) {
        mark = { checkpointId: sync.series.ids[row]!, step: sync.series.steps[row]!, metric, direction, value: sync.series.value(metric, row)! };
      }
    } else if (before && sync.series.length > 0) {
      return; // a reload in progress keeps the star it had
    }
    if (JSON.stringify(before) === JSON.stringify(mark)) return;
    if (mark) this.marks.set(modelId, mark);
    else this.marks.delete(modelId);
    this.bestChanged.fire(modelId);
  }
}
