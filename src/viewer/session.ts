// Over 300 lines: the webview's request handlers share one file index and its rebuilds; split, that state would be spread over files.
/**
 * One open trajectory viewer: its file's index (rebuilt when the file or its open text document
 * changes), the file's validation problems, and the webview's requests. The webview asks for what
 * it shows (a window of group rows, one group, one trajectory), so only that is ever parsed.
 */
import { writeFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InputError } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import { webviewHtml, webviewOptions } from '../ui/webview';
import type { UploadReport } from '../trajectories/report';
import { artLayout } from '../trajectories/layout';
import { formatOf, validateTrajectoryFile } from '../files';
import type { TranscriptStore } from './compare';
import { FileBytes, MemoryBytes, TrajectoryIndex, type ByteSource } from '../files/groupIndex';
import { ParquetIndex } from '../files/parquetIndex';
import type { GroupFiles } from './groupFile';
import { asGroup, groupDetail, mayContain, searchTrajectory, trajectoryView } from './model';
import { parseMessage } from '../webview/shared/protocol';
import { FromWebview, type GroupRow, type ProblemView, type SearchHit, type ToWebview } from './protocol';
import { transcript } from './transcript';
import { background } from '../common/background';

const textFormat = (path: string) => (formatOf(path) === 'jsonl' ? 'jsonl' : 'json');

/** A text file's index by byte offsets, or a Parquet step file's by row range. */
export type GroupIndex = TrajectoryIndex | ParquetIndex;

export type RenderedReport = Extract<FromWebview, { type: 'rendered' }> & { at: number };

export interface SessionDeps {
  extensionUri: vscode.Uri;
  log: Logger;
  errors: Pick<ErrorPresenter, 'show' | 'showMessage'>;
  groupFiles: GroupFiles;
  transcripts: TranscriptStore;
}

const MAX_ROWS = 500;
const MAX_HITS = 1000;

export class ViewerSession extends Disposable {
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
  private readonly _onDidRender = this._register(new vscode.EventEmitter<RenderedReport>());
  readonly onDidRender = this._onDidRender.event;
  private readonly _onDidIndex = this._register(new vscode.EventEmitter<GroupIndex>());
  /** Fires when an index is complete (and again when problems are known). */
  readonly onDidIndex = this._onDidIndex.event;
  validating = false;
  private built: Promise<void> = Promise.resolve();
  private building: AbortController | undefined;
  private searching: AbortController | undefined;
  private rebuildTimer: ReturnType<typeof setTimeout> | undefined;
  private groupProblems = new Map<number, ProblemView[]>();
  private fileProblems: ProblemView[] = [];
  private readonly name: string;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    private readonly deps: SessionDeps,
  ) {
    super();
    this.name = path.basename(uri.path);
    this.parquet = formatOf(uri.path) === 'parquet';
    panel.webview.options = webviewOptions(deps.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, deps.extensionUri, { entry: 'viewer', title: `Trajectories: ${this.name}` });
    this._register(panel.webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)));
    this.watch();
    background(this.rebuild(), `Trajectory viewer: indexing ${this.name}`);
  }

  override dispose(): void {
    this.building?.abort();
    this.searching?.abort();
    clearTimeout(this.rebuildTimer);
    const index = this.index;
    background(this.built.finally(() => index?.source.close()), `Trajectory viewer: closing ${this.name}`);
    super.dispose();
  }

  /** Resolves once the current index is complete. */
  whenIndexed(): Promise<void> {
    return this.built;
  }

  /** Moves the view to a group, trajectory and message (for commands and tests). */
  select(group: number, trajectory?: number, message?: number): void {
    this.post({ type: 'select', group, trajectory, message });
  }

  problemsOf(group: number): ProblemView[] {
    return this.groupProblems.get(group) ?? [];
  }

  // --- source and index ---------------------------------------------------------------------------

  private sameUri(u: vscode.Uri): boolean {
    return u.toString() === this.uri.toString();
  }

  private openDocument(): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find((d) => this.sameUri(d.uri));
  }

  private watch(): void {
    const schedule = () => {
      clearTimeout(this.rebuildTimer);
      this.rebuildTimer = setTimeout(() => background(this.rebuild(), `Trajectory viewer: indexing ${this.name}`), 250);
    };
    // Edits in a text editor of the same file show live (VS Code gives extensions the text of
    // documents up to 50 MB); saves and changes on disk come through the watcher.
    this._register(vscode.workspace.onDidChangeTextDocument((e) => this.sameUri(e.document.uri) && e.contentChanges.length && schedule()));
    this._register(vscode.workspace.onDidSaveTextDocument((d) => this.sameUri(d.uri) && schedule()));
    this._register(vscode.workspace.onDidCloseTextDocument((d) => this.sameUri(d.uri) && schedule()));
    if (this.uri.scheme === 'file') {
      const w = this._register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(this.uri.fsPath)), path.basename(this.uri.fsPath))));
      this._register(w.onDidChange(schedule));
      this._register(w.onDidCreate(schedule));
      this._register(w.onDidDelete(schedule));
    }
  }

  /** A Parquet file's index, or a text file's over its bytes (the unsaved text of an open document, else the file). */
  private async openIndex(): Promise<{ index: GroupIndex; memory?: Buffer }> {
    if (this.parquet) {
      if (this.uri.scheme !== 'file') throw new Error('the viewer reads Parquet files on disk only');
      return { index: await ParquetIndex.open(this.uri.fsPath) };
    }
    const { source, memory } = await this.openSource();
    return { index: new TrajectoryIndex(source, textFormat(this.uri.path)), memory };
  }

  private async openSource(): Promise<{ source: ByteSource; memory?: Buffer }> {
    const doc = this.openDocument();
    if (doc?.isDirty) {
      const bytes = Buffer.from(doc.getText(), 'utf8');
      return { source: new MemoryBytes(bytes), memory: bytes };
    }
    if (this.uri.scheme === 'file') return { source: await FileBytes.open(this.uri.fsPath) };
    const bytes = Buffer.from(await vscode.workspace.fs.readFile(this.uri));
    return { source: new MemoryBytes(bytes), memory: bytes };
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
      let opened: { index: GroupIndex; memory?: Buffer };
      try {
        opened = await this.openIndex();
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
    let tmp: string | undefined;
    this.validating = true;
    this.postProgress();
    try {
      let file = this.uri.fsPath;
      if (memory) {
        // Unsaved text: validated as a file of the same kind, so positions match the editor.
        tmp = await mkdtemp(path.join(tmpdir(), 'svc-viewer-check-'));
        file = path.join(tmp, this.name);
        await writeFile(file, memory);
      }
      const summary = await validateTrajectoryFile(file, { signal: this.building?.signal });
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
      if (tmp) await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
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
      notice: index.format === 'parquet' ? index.notice : undefined,
      validating: this.validating,
      rewardMin: index.rewardMin,
      rewardMax: index.rewardMax,
    });
  }

  private row(index: GroupIndex, i: number): GroupRow {
    const row = index.row(i);
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
        const layout = artLayout(this.uri.path);
        this.post({ type: 'init', file: layout ? `${this.name} · ${layout.model} / ${layout.split} · step ${layout.step}` : this.name, format: this.parquet ? 'parquet' : textFormat(this.uri.path), fileBytes: index?.source.size ?? 0 });
        this.postProgress();
        // What the view will ask for first, sent without waiting to be asked: the first paint
        // saves three round trips.
        const g = m.group ?? 0;
        if (index && g < index.groups) {
          await this.handle({ type: 'groups', start: Math.max(0, g - 10), count: 40 });
          await this.handle({ type: 'group', index: g });
          await this.handle({ type: 'trajectory', group: g, index: m.trajectory !== undefined && m.trajectory >= 0 ? m.trajectory : 0 });
        }
        return;
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
        if (g.value === undefined && index.format === 'parquet') return this.post({ type: 'group', version, index: m.index, error: g.error ?? `Group ${m.index + 1} cannot be read` });
        this.post({ type: 'group', version, index: m.index, detail: groupDetail(g.value, this.row(index, m.index), this.problemsOf(m.index)) });
        return;
      }
      case 'trajectory': {
        const t = index && (await this.trajectory(index, m.group, m.index));
        if (version !== this.version) return;
        if (!t) return this.post({ type: 'trajectory', version, group: m.group, index: m.index, error: `No trajectory ${m.index + 1} in group ${m.group + 1}` });
        this.post({ type: 'trajectory', version, group: m.group, index: m.index, view: trajectoryView(t, m.group, m.index) });
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
      case 'rendered': {
        const report = { ...m, at: performance.now() };
        this.lastRendered = report;
        this._onDidRender.fire(report);
        return;
      }
    }
  }

  private async trajectory(index: GroupIndex, group: number, t: number): Promise<unknown> {
    if (group < 0 || group >= index.groups) return undefined;
    const g = asGroup((await index.readGroup(group)).value);
    return g?.trajectories[t];
  }

  // --- search -------------------------------------------------------------------------------------

  /** Searches every message of the file; posts hits to the webview as they come, and returns them all. */
  async search(query: string): Promise<SearchHit[]> {
    this.searching?.abort();
    const abort = new AbortController();
    this.searching = abort;
    const hits: SearchHit[] = [];
    let scanned = 0;
    let truncated = false;
    const send = (done: boolean) => this.post({ type: 'search', query, hits: [...hits], done, truncated, groupsScanned: scanned });
    if (!query.trim()) {
      send(true);
      return hits;
    }
    await this.built;
    const index = this.index;
    if (!index || abort.signal.aborted) return hits;
    const q = query.toLowerCase();
    let last = performance.now();
    try {
      for await (const { index: gi, text } of index.rawGroups(0, 1024 * 1024, abort.signal)) {
        scanned++;
        if (mayContain(text.toLowerCase(), q)) {
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch {
            continue;
          }
          const group = asGroup(value);
          group?.trajectories.forEach((t, ti) => {
            for (const h of searchTrajectory(t, ti, query)) if (hits.length < MAX_HITS) hits.push({ group: gi, ...h });
          });
          if (hits.length >= MAX_HITS) {
            truncated = true;
            break;
          }
        }
        if (performance.now() - last > 200) {
          last = performance.now();
          send(false);
        }
      }
    } catch {
      if (abort.signal.aborted) return hits;
    }
    if (!abort.signal.aborted) send(true);
    return hits;
  }

  // --- actions ------------------------------------------------------------------------------------

  /** Opens the file as text beside the viewer, at a problem's position or where an item starts. */
  async reveal(m: Omit<Extract<FromWebview, { type: 'reveal' }>, 'type'>): Promise<void> {
    const index = this.index;
    // A Parquet file has no text to reveal (the webview shows no such button for one).
    if (!index || index.format === 'parquet') return;
    let pos: { line: number; column: number };
    if (m.line !== undefined) pos = { line: m.line, column: m.column ?? 1 };
    else {
      const p: (string | number)[] = [];
      if (m.trajectory !== undefined) {
        p.push('trajectories', m.trajectory);
        if (m.path) p.push(...m.path);
        else {
          if (m.history !== undefined && m.history >= 0) p.push('additional_histories', m.history);
          if (m.message !== undefined) p.push('messages_and_choices', m.message);
        }
      }
      pos = await index.positionOf(m.group, p);
    }
    const at = new vscode.Position(pos.line - 1, pos.column - 1);
    // 'default': the text editor, even where this viewer is the default editor of the file.
    await vscode.commands.executeCommand('vscode.openWith', this.uri, 'default', {
      selection: new vscode.Range(at, at),
      viewColumn: vscode.ViewColumn.Beside,
      preview: false,
    } satisfies vscode.TextDocumentShowOptions);
  }

  /** Uploads the file through svc.uploadTrajectories (after saving unsaved edits, if the user agrees). */
  async uploadFile(): Promise<UploadReport | undefined> {
    const doc = this.openDocument();
    if (doc?.isDirty) {
      const choice = await vscode.window.showWarningMessage(`${this.name} has unsaved changes; the upload sends the file on disk.`, { modal: true }, 'Save and Upload');
      if (choice !== 'Save and Upload') return undefined;
      await doc.save();
    }
    return vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', this.uri);
  }

  /** Uploads one group through svc.uploadTrajectories (a file holding just its text). */
  async uploadGroup(group: number): Promise<UploadReport | undefined> {
    await this.built;
    const index = this.index;
    if (!index || group >= index.groups) return undefined;
    const row = this.row(index, group);
    const where = index.format === 'parquet' ? `rows ${row.line}–${row.endLine}` : `line ${row.line}`;
    const lossy = index.format === 'parquet' && index.notice;
    if (row.invalid || row.errors || lossy) {
      const why = lossy ? "is in ART's lossy Parquet format (version 1): it is not the group the client dumped" : row.invalid ? `cannot be read: ${row.invalid}` : `has ${row.errors} problem(s)`;
      background(this.deps.errors.showMessage(`svc: group ${group + 1} (${where}) ${why}; nothing was sent.`), 'Showing an error');
      return undefined;
    }
    const { text, error } = await index.readGroup(group);
    if (error) throw new InputError(`svc: group ${group + 1} (${where}) cannot be read: ${error}`);
    // A Parquet group goes as a one-line .jsonl of its exact JSON (group_json + trajectory_json).
    const file = await this.deps.groupFiles.write(this.uri.fsPath || this.uri.path, group, text, index.format === 'parquet' ? 'jsonl' : index.format);
    return vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', vscode.Uri.file(file));
  }

  /** Opens two trajectories' transcripts in the diff editor; asks which other one when `to` is not given. */
  async compare(from: { group: number; trajectory: number }, to?: { group: number; trajectory: number }): Promise<void> {
    await this.built;
    const index = this.index;
    if (!index) return;
    const target = to ?? (await this.pickOther(index, from));
    if (!target) return;
    const side = async (p: { group: number; trajectory: number }) => {
      const t = await this.trajectory(index, p.group, p.trajectory);
      if (t === undefined) throw new InputError(`${this.name} has no trajectory ${p.trajectory + 1} in group ${p.group + 1}`);
      const title = `${this.name} · group ${p.group + 1} · trajectory ${p.trajectory + 1}`;
      return this.deps.transcripts.put(title, transcript(trajectoryView(t, p.group, p.trajectory), title));
    };
    const left = await side(from);
    const right = await side(target);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${this.name}: ${from.group + 1}.${from.trajectory + 1} ↔ ${target.group + 1}.${target.trajectory + 1}`);
  }

  /** Lists the groups (number, size, reward mean) to pick the one to compare with. */
  private async pickGroup(index: GroupIndex, current: number): Promise<number | undefined> {
    type Item = vscode.QuickPickItem & { group: number };
    const items: Item[] = [];
    for (let i = 0; i < index.groups; i++) {
      if (i === current) continue;
      items.push({ ...groupPickItem(this.row(index, i)), group: i });
    }
    const pick = await vscode.window.showQuickPick(items, { title: 'svc: Compare with a trajectory of group…', matchOnDescription: true });
    return pick?.group;
  }

  private async pickOther(index: GroupIndex, from: { group: number; trajectory: number }): Promise<{ group: number; trajectory: number } | undefined> {
    let group = from.group;
    for (;;) {
      const g = asGroup((await index.readGroup(group)).value);
      type Item = vscode.QuickPickItem & { trajectory?: number; other?: boolean };
      const items: Item[] = (g?.trajectories ?? [])
        .map((t, i): Item => ({ label: `Trajectory ${i + 1}`, description: `reward ${rewardOf(t)}`, trajectory: i }))
        .filter((it) => !(group === from.group && it.trajectory === from.trajectory));
      if (index.groups > 1) items.push({ label: 'Another group…', other: true, alwaysShow: true });
      const pick = await vscode.window.showQuickPick(items, { title: `svc: Compare trajectory ${from.group + 1}.${from.trajectory + 1} with (group ${group + 1})` });
      if (!pick) return undefined;
      if (pick.trajectory !== undefined) return { group, trajectory: pick.trajectory };
      const other = await this.pickGroup(index, group);
      if (other === undefined) return undefined;
      group = other;
    }
  }
}

/** A group's line in the group picker: its number, size and reward mean. */
export function groupPickItem(row: GroupRow): { label: string; description: string; detail?: string } {
  const s = row.stats;
  const size = `${s.count} ${s.count === 1 ? 'trajectory' : 'trajectories'}`;
  const mean = s.mean === null ? 'no rewards' : `mean reward ${Number(s.mean.toPrecision(4))}`;
  return { label: `Group ${row.index + 1}`, description: `${size} · ${mean}`, ...(row.invalid ? { detail: row.invalid } : {}) };
}

/** A trajectory's reward for a label: the number, or 0 when it has none. */
function rewardOf(trajectory: unknown): number {
  const reward = (trajectory as { reward?: unknown } | undefined)?.reward;
  return typeof reward === 'number' ? reward : 0;
}
