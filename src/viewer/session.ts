/**
 * One open trajectory viewer: its file's index (rebuilt when the file or its open text document
 * changes), the file's validation problems, and the webview's requests. The webview asks for what
 * it shows (a window of group rows, one group, one trajectory), so only that is ever parsed.
 * Search is search.ts's, the actions (reveal, upload, compare and its pickers) actions.ts's, reading
 * and watching the file source.ts's.
 */
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import { webviewHtml, webviewOptions } from '../ui/webview';
import type { UploadReport } from '../trajectories/report';
import { artLayout } from '../trajectories/layout';
import { formatOf, validateTrajectoryFile } from '../files';
import { withTempCopy } from '../files/tempCopy';
import type { TranscriptStore } from './compare';
import { MemoryBytes, TrajectoryIndex } from '../files/groupIndex';
import type { GroupFiles } from './groupFile';
import { compare, reveal, uploadFile, uploadGroup, type ActionHost } from './actions';
import { asGroup } from '../files/model';
import { parseMessage } from '../webview/protocol';
import { FromWebview, type GroupRow, type LogprobPanel, type ProblemView, type SearchHit, type ToWebview } from './protocol';
import { searchFile } from './search';
import { harnessOf, openIndex, readByRows, textFormat, watchFile, type GroupIndex, type OpenedIndex } from './source';
import { isEvalLog } from '../files/evalIndex';
import { groupDetail, rowVerdict, trajectoryView } from './views';
import { addToSummary, emptySummary, groupVerdict, summaryText, type VerdictSummary } from '../files/verdicts';
import { LOGPROB_EDGES, LogprobHistogram } from '../files/logprobStats';
import { decodeStrips } from './tokenizer';
import { background } from '../common/background';


export type RenderedReport = Extract<FromWebview, { type: 'rendered' }> & { at: number };

export interface SessionDeps {
  extensionUri: vscode.Uri;
  log: Logger;
  errors: Pick<ErrorPresenter, 'show' | 'showMessage'>;
  groupFiles: GroupFiles;
  transcripts: TranscriptStore;
}

const MAX_ROWS = 500;

export class ViewerSession extends Disposable implements ActionHost {
  /** Bumped on every rebuild; the webview drops answers of older versions. */
  version = 0;
  index: GroupIndex | undefined;
  /** ART's Parquet step files: no text, read by rows. */
  readonly parquet: boolean;
  /** When the view opened (performance.now()), for the bench's time to first paint. */
  readonly openedAt = performance.now();
  lastRendered: RenderedReport | undefined;
  /** When the webview first said it was ready (performance.now()), for the bench. */
  readyAt: number | undefined;
  /** The reward band the view was opened with (svc.openTrajectoryViewer's `reward`). */
  private rewardBand: { min?: number; max?: number } | undefined;
  private readonly _onDidRender = this._register(new vscode.EventEmitter<RenderedReport>());
  readonly onDidRender = this._onDidRender.event;
  private readonly _onDidIndex = this._register(new vscode.EventEmitter<GroupIndex>());
  /** Fires when an index is complete (and again when problems are known). */
  readonly onDidIndex = this._onDidIndex.event;
  private readonly _onDidBecomeReady = this._register(new vscode.EventEmitter<void>());
  private readonly onDidBecomeReady = this._onDidBecomeReady.event;
  validating = false;
  private built: Promise<void> = Promise.resolve();
  private building: AbortController | undefined;
  private searching: AbortController | undefined;
  private rebuildTimer: ReturnType<typeof setTimeout> | undefined;
  private groupProblems = new Map<number, ProblemView[]>();
  private fileProblems: ProblemView[] = [];
  /** A Parquet file's group verdicts, computed as groups are read (its index reads no trajectory_json). */
  private parquetVerdicts = new Map<number, NonNullable<GroupRow['verdict']>>();
  /** A Parquet file's pass over its groups (trajectory_json) after the index: the summary line and the logprobs. */
  private parquetPass: Promise<{ summary: VerdictSummary; logprobs: LogprobHistogram } | undefined> | undefined;
  private parquetSummary: VerdictSummary | undefined;
  readonly name: string;
  /** The harness whose files this view reads as ART groups ("ATIF (Harbor)"), once known. */
  harness: string | undefined;
  /** The source is a folder (a Harbor job). */
  private folder = false;
  /** Settles once the source is known to be a folder, another harness's file, or neither. */
  private readonly probed: Promise<void>;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    readonly deps: SessionDeps,
  ) {
    super();
    this.name = path.basename(uri.path);
    this.parquet = formatOf(uri.path) === 'parquet' || isEvalLog(uri.path);
    panel.webview.options = webviewOptions(deps.extensionUri);
    // A step file of an ART run (trajectories/<split>/<step>.<ext>) offers "Follow this scenario across steps".
    const inRun = uri.scheme === 'file' && /^trajectories$/i.test(path.basename(path.dirname(path.dirname(uri.fsPath))));
    panel.webview.html = webviewHtml(panel.webview, deps.extensionUri, { entry: 'viewer', title: `Trajectories: ${this.name}`, data: { run: inRun ? 'step' : 'file' } });
    this._register(panel.webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)));
    // Disposed before the emitters and the panel's listener (the base disposes in reverse): stop the
    // work in flight, then close the index's source once its build has settled.
    this._register({
      dispose: () => {
        this.building?.abort();
        this.searching?.abort();
        clearTimeout(this.rebuildTimer);
        const index = this.index;
        background(this.built.finally(() => index?.source.close()), `Trajectory viewer: closing ${this.name}`);
      },
    });
    this.probed = this.probe();
    background(this.start(), `Trajectory viewer: indexing ${this.name}`);
  }

  /** Resolves once the current index is complete. */
  whenIndexed(): Promise<void> {
    return this.built;
  }

  /** Resolves once the webview has said it is ready and the index is complete (then `select` lands). */
  async whenReady(): Promise<void> {
    await this.built;
    if (this.readyAt === undefined) await new Promise<void>((resolve) => {
      const sub = this.onDidBecomeReady(() => {
        sub.dispose();
        resolve();
      });
    });
    await this.built;
  }

  /** Moves the view to a group, trajectory and message (for commands and tests). */
  select(group: number, trajectory?: number, message?: number, tokens?: boolean, history?: number): void {
    this.post({ type: 'select', group, trajectory, message, tokens, ...(history !== undefined && history >= 0 ? { history } : {}) });
  }

  /** Opens or closes the view's Logprobs panel; `click`: presses that listed turn's button (for tests). */
  showLogprobs(open: boolean, click?: number): void {
    this.post({ type: 'logprobsPanel', open, click });
  }

  /** Shows only the trajectories whose reward is in the band (kept for a webview not ready yet). */
  filterReward(band: { min?: number; max?: number }): void {
    this.rewardBand = band;
    if (this.readyAt !== undefined) this.post({ type: 'rewardRange', ...band });
  }

  /** Turns the view's "will not train" filter on or off (for commands and tests). */
  filterUntrained(on: boolean): void {
    this.post({ type: 'filter', untrained: on });
  }

  problemsOf(group: number): ProblemView[] {
    return this.groupProblems.get(group) ?? [];
  }

  // --- source and index ---------------------------------------------------------------------------

  private sameUri(u: vscode.Uri): boolean {
    return u.toString() === this.uri.toString();
  }

  openDocument(): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => this.sameUri(d.uri));
  }

  private async probe(): Promise<void> {
    this.folder = this.uri.scheme === 'file' && (await stat(this.uri.fsPath).then((s) => s.isDirectory(), () => false));
    this.harness = (await harnessOf(this.uri))?.label;
  }

  private async start(): Promise<void> {
    await this.probed;
    if (this.isDisposed) return;
    this.watch();
    await this.rebuild();
  }

  private watch(): void {
    const schedule = () => {
      clearTimeout(this.rebuildTimer);
      this.rebuildTimer = setTimeout(() => background(this.rebuild(), `Trajectory viewer: indexing ${this.name}`), 250);
    };
    for (const d of watchFile(this.uri, schedule, this.folder)) this._register(d);
  }

  private async rebuild(): Promise<void> {
    this.building?.abort();
    this.searching?.abort();
    const abort = new AbortController();
    this.building = abort;
    const version = ++this.version;
    const previous = this.index;
    const previousBuild = this.built;
    let done!: () => void;
    this.built = new Promise((r) => (done = r));
    try {
      let opened: OpenedIndex;
      try {
        opened = await openIndex(this.uri, this.openDocument(), abort.signal);
        this.harness = opened.harness;
      } catch (e) {
        this.index = new TrajectoryIndex(new MemoryBytes(Buffer.alloc(0)), textFormat(this.uri.path));
        this.index.done = true;
        this.index.shapeError = `Cannot read ${this.name}: ${(e as Error).message}`;
        this.postProgress();
        return;
      }
      if (abort.signal.aborted) return void opened.index.source.close();
      const index = opened.index;
      this.index = index;
      this.groupProblems = new Map();
      this.fileProblems = [];
      this.parquetVerdicts = new Map();
      this.parquetPass = undefined;
      this.parquetSummary = undefined;
      background(previousBuild.finally(() => previous?.source.close()), `Trajectory viewer: closing the previous index of ${this.name}`);
      this.postProgress();
      // The first paint goes first: after the first chunk, indexing waits for it (at most 5 s, for
      // a view that is never shown).
      const firstPaint = this.lastRendered ? undefined : new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 5000);
        const sub = this.onDidRender(() => {
          clearTimeout(timer);
          sub.dispose();
          resolve();
        });
        abort.signal.addEventListener('abort', () => resolve());
      });
      await index.build({ signal: abort.signal, onProgress: () => this.postProgress(), firstChunkGate: firstPaint });
      this._onDidIndex.fire(index);
      if (index.format === 'parquet' && this.hasVerdicts(index) && !index.shapeError) background(this.readParquetGroups(version, index), `Trajectory viewer: reading the groups of ${this.name}`);
      background(this.validate(version, index, opened.memory), `Trajectory viewer: checking ${this.name}`);
    } catch (e) {
      if (!abort.signal.aborted) {
        this.deps.log.error(`Trajectory viewer: indexing ${this.name} failed: ${(e as Error).message}`);
        if (this.index) this.index.shapeError = `Cannot read ${this.name}: ${(e as Error).message}`;
        this.postProgress();
      }
    } finally {
      done();
    }
  }

  /** The file's validation problems (the upload's own validator), shown on their groups. */
  private async validate(version: number, index: GroupIndex, memory: Buffer | undefined): Promise<void> {
    // An Inspect log is not a trajectory file: its problems are the reader's (shapeError, a group's error).
    if (index.format === 'eval') return;
    this.validating = true;
    this.postProgress();
    try {
      const signal = this.building?.signal;
      const check = (file: string) => validateTrajectoryFile(file, { signal });
      // Unsaved text: validated as a file of the same kind, so positions match the editor.
      // Another harness's files: their ART groups (JSONL), as Convert to ART would write them.
      const summary = memory ? await withTempCopy(this.harness ? `${this.name}.art.jsonl` : this.name, memory, check) : await check(this.uri.fsPath);
      if (version !== this.version) return;
      const byGroup = new Map<number, ProblemView[]>();
      const outside: ProblemView[] = [];
      for (const p of summary.problems) {
        const view: ProblemView = { line: p.row ?? p.line, column: p.column, message: p.message, severity: p.severity };
        const g = index.groupOf(p);
        if (g < 0) outside.push(view);
        else byGroup.set(g, [...(byGroup.get(g) ?? []), view]);
      }
      if (summary.truncated) outside.push({ line: 1, column: 1, message: `More problems than the ${summary.problems.length} shown`, severity: 'warning' });
      this.groupProblems = byGroup;
      this.fileProblems = outside;
      this._onDidIndex.fire(index);
    } catch (e) {
      if (version === this.version) this.deps.log.warn(`Trajectory viewer: validating ${this.name} failed: ${(e as Error).message}`);
    } finally {
      if (version === this.version) {
        this.validating = false;
        this.postProgress();
      }
    }
  }

  // --- messages -----------------------------------------------------------------------------------

  private post(message: ToWebview): void {
    void this.panel.webview.postMessage(message).then(undefined, () => undefined);
  }

  private postProgress(): void {
    const index = this.index;
    if (!index) return;
    this.post({
      type: 'progress',
      version: this.version,
      groups: index.groups,
      trajectories: index.trajectories,
      done: index.done,
      indexedBytes: index.indexedBytes,
      totalBytes: index.source.size,
      shapeError: index.shapeError,
      split: index.split,
      fileProblems: this.fileProblems,
      notice: readByRows(index) ? index.notice : undefined,
      validating: this.validating,
      rewardMin: index.rewardMin,
      rewardMax: index.rewardMax,
      trainability: index.done && 'verdicts' in index ? summaryText(index.verdicts) : this.parquetSummary && summaryText(this.parquetSummary),
    });
  }

  row(index: GroupIndex, i: number): GroupRow {
    const row = index.row(i);
    const verdict = this.parquetVerdicts.get(i);
    if (verdict && !row.verdict) row.verdict = verdict;
    for (const p of this.groupProblems.get(i) ?? []) {
      if (p.severity === 'error') row.errors++;
      else row.warnings++;
    }
    return row;
  }

  private async onMessage(raw: unknown): Promise<void> {
    const parsed = parseMessage(FromWebview, raw);
    if (!parsed.ok) {
      this.deps.log.warn(`Trajectory viewer: ignored a malformed message from the webview: ${parsed.error}`);
      return;
    }
    const m = parsed.value;
    try {
      await this.handle(m);
    } catch (e) {
      background(this.deps.errors.show(e, `Trajectory viewer (${m.type})`), 'Showing an error');
    }
  }

  private async handle(m: FromWebview): Promise<void> {
    const index = this.index;
    const version = this.version;
    switch (m.type) {
      case 'ready': {
        this.readyAt ??= performance.now();
        await this.probed;
        this._onDidBecomeReady.fire();
        return this.ready(m.group, m.trajectory);
      }
      case 'groups': {
        if (!index) return;
        const end = Math.min(index.groups, m.start + Math.min(m.count, MAX_ROWS));
        const rows: GroupRow[] = [];
        for (let i = Math.max(0, m.start); i < end; i++) rows.push(this.row(index, i));
        this.post({ type: 'groups', version, start: m.start, rows });
        return;
      }
      case 'group': {
        if (!index || m.index < 0 || m.index >= index.groups) return this.post({ type: 'group', version, index: m.index, error: `No group ${m.index + 1}` });
        const g = await index.readGroup(m.index);
        if (version !== this.version) return;
        if (g.value === undefined && readByRows(index)) return this.post({ type: 'group', version, index: m.index, error: g.error ?? `Group ${m.index + 1} cannot be read` });
        const detail = groupDetail(g.value, this.row(index, m.index), this.problemsOf(m.index), { verdicts: this.hasVerdicts(index) });
        if (readByRows(index) && detail.row.verdict) this.parquetVerdicts.set(m.index, detail.row.verdict);
        this.post({ type: 'group', version, index: m.index, detail });
        return;
      }
      case 'untrained': {
        if (!index) return;
        try {
          const groups = await this.untrained(index, version);
          if (version === this.version) this.post({ type: 'untrained', version, groups });
        } catch (e) {
          if (version === this.version) this.post({ type: 'untrained', version, groups: [], error: (e as Error).message });
        }
        return;
      }
      case 'logprobs': {
        if (!index) return;
        try {
          const panel = await this.logprobs(index, version);
          if (version === this.version) this.post({ type: 'logprobs', version, panel });
        } catch (e) {
          if (version === this.version) this.post({ type: 'logprobs', version, error: (e as Error).message });
        }
        return;
      }
      case 'trajectory': {
        const t = index && (await this.trajectory(index, m.group, m.index));
        if (version !== this.version) return;
        if (!t) return this.post({ type: 'trajectory', version, group: m.group, index: m.index, error: `No trajectory ${m.index + 1} in group ${m.group + 1}` });
        const view = trajectoryView(t, m.group, m.index);
        await decodeStrips(view, vscode.workspace.getConfiguration('svc').get<string>('tokenizerPath') || undefined);
        if (version !== this.version) return;
        this.post({ type: 'trajectory', version, group: m.group, index: m.index, view });
        return;
      }
      case 'search':
        await this.search(m.query);
        return;
      case 'reveal':
        return this.reveal(m);
      case 'upload':
        await (m.group === undefined ? this.uploadFile() : this.uploadGroup(m.group));
        return;
      case 'compare':
        return this.compare({ group: m.group, trajectory: m.trajectory });
      case 'followScenario':
        await this.followScenario(m.group, m.trajectory);
        return;
      case 'rendered': {
        const report = { ...m, at: performance.now() };
        this.lastRendered = report;
        this._onDidRender.fire(report);
        return;
      }
    }
  }

  /** The webview is ready: the file's name and format, progress, and what it will ask for first. */
  private async ready(group: number | undefined, trajectory: number | undefined): Promise<void> {
    const index = this.index;
    const layout = artLayout(this.uri.path);
    const file = this.harness ? `${this.name} · ${this.harness}, read as ART trajectories` : layout ? `${this.name} · ${layout.model} / ${layout.split} · step ${layout.step}` : this.name;
    this.post({ type: 'init', file, format: isEvalLog(this.uri.path) ? 'eval' : this.parquet ? 'parquet' : this.harness ? 'jsonl' : textFormat(this.uri.path), fileBytes: index?.source.size ?? 0 });
    this.postProgress();
    if (this.rewardBand) this.post({ type: 'rewardRange', ...this.rewardBand });
    // What the view will ask for first, sent without waiting to be asked: the first paint
    // saves three round trips.
    const g = group ?? 0;
    if (index && g < index.groups) {
      await this.handle({ type: 'groups', start: Math.max(0, g - 10), count: 40 });
      await this.handle({ type: 'group', index: g });
      await this.handle({ type: 'trajectory', group: g, index: trajectory !== undefined && trajectory >= 0 ? trajectory : 0 });
    }
  }

  /** Whether the file holds what the verdicts read: not ART's lossy Parquet format version 1 (no logprobs). */
  hasVerdicts(index: GroupIndex): boolean {
    return index.format !== 'parquet' || !index.notice;
  }

  /**
   * The groups ART does not fully train on, or that make it raise. A text file's index has every
   * group's verdict; a Parquet file's groups are read here (trajectory_json) the first time it is asked.
   */
  async untrained(index: GroupIndex, version = this.version): Promise<number[]> {
    await this.built;
    if (!this.hasVerdicts(index)) throw new Error("ART's Parquet format version 1 keeps no logprobs: its verdicts cannot be told");
    const out: number[] = [];
    for (let i = 0; i < index.groups; i++) {
      if (version !== this.version) return out;
      let v = this.row(index, i).verdict;
      if (!v && readByRows(index)) {
        const g = await index.readGroup(i);
        if (g.value !== undefined) {
          v = rowVerdict(groupVerdict(g.value));
          this.parquetVerdicts.set(i, v);
        }
      }
      if (v && (v.fails || v.training < v.trajectories)) out.push(i);
    }
    return out;
  }

  /**
   * A Parquet file's groups read once after its index (the index reads no trajectory_json): each
   * group's verdict for its row, the file's summary line, and its logprobs. One pass over the file
   * (ParquetIndex.allGroups), memory holding one group; dropped when the file changes.
   */
  private readParquetGroups(version: number, index: GroupIndex): Promise<{ summary: VerdictSummary; logprobs: LogprobHistogram } | undefined> {
    const signal = this.building?.signal;
    const stale = () => version !== this.version || !!signal?.aborted;
    this.parquetPass ??= (async () => {
      const summary = emptySummary();
      const logprobs = new LogprobHistogram();
      if (index.format !== 'parquet') return undefined;
      try {
        for await (const { index: i, value } of index.allGroups(signal)) {
          if (stale()) return undefined;
          const v = groupVerdict(value);
          addToSummary(summary, v);
          this.parquetVerdicts.set(i, rowVerdict(v));
          asGroup(value)?.trajectories.forEach((t, k) => logprobs.add(i, k, t));
        }
      } catch (e) {
        // Stopped under the read (the file changed, the view closed): nothing to say.
        if (stale()) return undefined;
        throw e;
      }
      if (stale()) return undefined;
      this.parquetSummary = summary;
      this.postProgress();
      return { summary, logprobs };
    })();
    return this.parquetPass;
  }

  /** The file's logprob histograms and least likely turns, each with the place the view opens it at. */
  async logprobs(index: GroupIndex, version = this.version): Promise<LogprobPanel> {
    await this.built;
    let h: LogprobHistogram | undefined;
    if (index.format === 'parquet') {
      if (!this.hasVerdicts(index)) throw new Error("ART's Parquet format version 1 keeps no logprobs");
      h = (await this.readParquetGroups(version, index))?.logprobs;
      if (!h) throw new Error('The file changed while its groups were read');
    } else if (index.format === 'eval') {
      throw new Error('An Inspect log is read a sample at a time: its logprobs are not counted across the file (open a sample\'s turn as tokens instead)');
    } else h = index.logprobs;
    const worst: LogprobPanel['worst'] = [];
    for (const w of h.worst) {
      const [head, a, , c] = w.path;
      let place = head === 'messages_and_choices' ? { history: -1, message: a as number } : head === 'additional_histories' ? { history: a as number, message: c as number } : undefined;
      if (!place) {
        // An exchange's choice: its message in the conversation the view builds.
        const view = trajectoryView(await this.trajectory(index, w.group, w.trajectory), w.group, w.trajectory);
        const at = view.messages.findIndex((m) => m.path?.length === w.path.length && m.path.every((p, k) => p === w.path[k]));
        place = { history: -1, message: Math.max(0, at) };
      }
      worst.push({ group: w.group, trajectory: w.trajectory, ...place, at: w.at, tokens: w.tokens, mean: w.mean, min: w.min, minToken: w.minToken });
    }
    return { edges: [...LOGPROB_EDGES], tokens: h.tokens, turns: h.turns, positive: h.positive, tokenBins: [...h.tokenBins], turnBins: [...h.turnBins], worst };
  }

  async trajectory(index: GroupIndex, group: number, t: number): Promise<unknown> {
    if (group < 0 || group >= index.groups) return undefined;
    const g = asGroup((await index.readGroup(group)).value);
    return g?.trajectories[t];
  }

  // --- search and actions ------------------------------------------------------------------------

  /** Searches every message of the file; posts hits to the webview as they come, and returns them all. */
  async search(query: string): Promise<SearchHit[]> {
    this.searching?.abort();
    const abort = new AbortController();
    this.searching = abort;
    const send = (hits: SearchHit[], done: boolean, truncated: boolean, groupsScanned: number) => this.post({ type: 'search', query, hits, done, truncated, groupsScanned });
    if (!query.trim()) {
      send([], true, false, 0);
      return [];
    }
    await this.built;
    const index = this.index;
    if (!index || abort.signal.aborted) return [];
    return searchFile(index, query, abort.signal, send);
  }

  /** Opens the file as text beside the viewer, at a problem's position or where an item starts. */
  async reveal(m: Omit<Extract<FromWebview, { type: 'reveal' }>, 'type'>): Promise<void> {
    if (!this.harness) return reveal(this, m);
    // Another harness's files have no text of the groups shown: the trajectory's own file opens.
    const index = this.index;
    const t = index && m.trajectory !== undefined ? await this.trajectory(index, m.group, m.trajectory) : undefined;
    const md = t && typeof t === 'object' ? (t as { metadata?: { atif_file?: unknown } }).metadata : undefined;
    const file = typeof md?.atif_file === 'string' ? vscode.Uri.file(md.atif_file) : this.folder ? undefined : this.uri;
    if (file) await vscode.commands.executeCommand('vscode.openWith', file, 'default', { viewColumn: vscode.ViewColumn.Beside, preview: false });
  }

  /** Uploads the file through svc.uploadTrajectories (after saving unsaved edits, if the user agrees); another harness's files are converted to ART first (svc.convertToArt). */
  async uploadFile(): Promise<UploadReport | undefined> {
    if (this.harness) {
      await vscode.commands.executeCommand('svc.convertToArt', this.uri);
      return undefined;
    }
    return uploadFile(this);
  }

  /** Uploads one group through svc.uploadTrajectories (a file holding just its text). */
  uploadGroup(group: number): Promise<UploadReport | undefined> {
    return uploadGroup(this, group);
  }

  /** svc.followScenario on one trajectory of this step file (its scenario across the run's steps). */
  async followScenario(group: number, trajectory: number): Promise<unknown> {
    return vscode.commands.executeCommand('svc.followScenario', { file: this.uri.fsPath, group, trajectory });
  }

  /** Opens two trajectories' transcripts in the diff editor; asks which other one when `to` is not given. */
  compare(from: { group: number; trajectory: number }, to?: { group: number; trajectory: number }): Promise<void> {
    return compare(this, from, to);
  }
}
