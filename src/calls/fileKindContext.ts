/**
 * Sets `svc.callsFiles` and `svc.trajectoryFiles` (lists of paths, for `resourcePath in …` in the
 * menus) from a sniff of JSONL files' first line, so a file's menus offer only the action that
 * line fits. Sniffed: the files open in tabs, and, in the background once the core has loaded, the
 * workspace's `.jsonl` files (at most WORKSPACE_FILES, the first 4 KiB of each), kept current by a
 * file watcher. A file not sniffed (beyond the bound, or before the scan) offers both; each command
 * validates the file and says what it expected.
 */
import type { ContextKeys } from '../ui/prompts';
import * as fs from 'node:fs/promises';
import * as path from 'path';
import * as vscode from 'vscode';
import { background } from '../common/background';
import { Disposable } from '../common/disposable';
import { kindOfFile, type JsonlKind } from './fileKind';

/** The most files whose kind is kept (the context lists stay bounded). */
const MAX_FILES = 2000;
/** The most `.jsonl` files the workspace scan sniffs. */
export const WORKSPACE_FILES = 1000;
/** What the workspace scan reads of each file: enough for a first line's opening keys. */
export const WORKSPACE_SNIFF_BYTES = 4096;
/** How long after the core loads the workspace scan starts (off the path of the first command). */
const SCAN_DELAY_MS = 2000;
const JSONL = '**/*.jsonl';
/** The most created paths (not `.jsonl`) looked at per update; more means one workspace scan. */
const MAX_CREATED = 200;
const EXCLUDE = '**/{node_modules,.git}/**';

/** A history.jsonl offers neither Upload nor Import (package.json): not worth a read. */
const sniffed = (uri: vscode.Uri) => uri.scheme === 'file' && /\.jsonl$/i.test(uri.fsPath) && !/(^|[\\/])history\.jsonl$/i.test(uri.fsPath);

export class FileKindContext extends Disposable {
  private readonly kinds = new Map<string, JsonlKind>();
  /** Files the watcher saw change, sniffed again on the next update. */
  private readonly changed = new Set<string>();
  /**
   * Other paths the watcher saw created: a folder among them (copied or unpacked in one go) may hold
   * `.jsonl` files whose own events the watcher folded into the folder's, so the next update looks.
   */
  private readonly createdOther = new Set<string>();
  private scheduled: NodeJS.Timeout | undefined;
  private scanTimer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  /** Files read so far (the tests and the measurement count them). */
  reads = 0;
  /** The lists last set as context keys. */
  lists: { calls: string[]; trajectories: string[] } = { calls: [], trajectories: [] };

  constructor(
    private readonly contextKeys: ContextKeys,
    options: { scanDelayMs?: number } = {},
  ) {
    super();
    const watcher = vscode.workspace.createFileSystemWatcher(JSONL);
    // A folder created or deleted may be reported as the folder only (VS Code folds the events of
    // its files into it): a created folder is looked into, a deleted one forgets every file under it.
    const folders = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    const touched = (uri: vscode.Uri, created: boolean) => {
      // A file the scan has just read (the scan and the watcher race) is not read again.
      if (!sniffed(uri) || (created && this.kinds.has(uri.fsPath))) return;
      this.changed.add(uri.fsPath);
      this.schedule();
    };
    const subs = [
      watcher,
      watcher.onDidCreate((uri) => touched(uri, true)),
      watcher.onDidChange((uri) => touched(uri, false)),
      folders,
      folders.onDidCreate((uri) => {
        if (uri.scheme !== 'file' || /\.jsonl$/i.test(uri.fsPath) || this.createdOther.size >= MAX_CREATED) return;
        this.createdOther.add(uri.fsPath);
        this.schedule();
      }),
      folders.onDidDelete((uri) => {
        const under = uri.fsPath.endsWith(path.sep) ? uri.fsPath : uri.fsPath + path.sep;
        let gone = false;
        for (const file of this.kinds.keys()) if (file === uri.fsPath || file.startsWith(under)) gone = this.kinds.delete(file);
        if (gone) this.schedule();
      }),
      vscode.window.tabGroups.onDidChangeTabs(() => this.schedule()),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        this.kinds.delete(doc.uri.fsPath);
        this.schedule();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.scan().catch(() => undefined)),
    ];
    for (const d of subs) this._register(d);
    this._register({
      dispose: () => {
        clearTimeout(this.scheduled);
        clearTimeout(this.scanTimer);
      },
    });
    this.schedule();
    this.scanTimer = setTimeout(() => void this.scan().catch(() => undefined), options.scanDelayMs ?? SCAN_DELAY_MS);
  }

  /**
   * Sniffs the workspace's `.jsonl` files not sniffed yet (at most WORKSPACE_FILES, their first
   * 4 KiB, a few at a time), then sets the lists. Runs once at a time; the tests wait on it.
   */
  scan(): Promise<void> {
    return (this.scanning ??= this.scanNow().finally(() => (this.scanning = undefined)));
  }

  private async scanNow(): Promise<void> {
    clearTimeout(this.scanTimer);
    const uris = (await vscode.workspace.findFiles(JSONL, EXCLUDE, WORKSPACE_FILES)).filter(sniffed).filter((u) => !this.kinds.has(u.fsPath));
    const queue = uris.map((u) => u.fsPath);
    const worker = async () => {
      for (let file = queue.shift(); file !== undefined; file = queue.shift()) this.kinds.set(file, await this.read(file, WORKSPACE_SNIFF_BYTES));
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    this.publish();
  }

  /** Sniffs the open tabs' JSONL files and the files the watcher saw change, now (the tests wait on it). */
  async update(): Promise<void> {
    const files = new Set<string>();
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        const uri = input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom ? input.uri : undefined;
        if (uri?.scheme === 'file' && /\.jsonl$/i.test(uri.fsPath) && !this.kinds.has(uri.fsPath)) files.add(uri.fsPath);
      }
    }
    const changed = [...this.changed];
    this.changed.clear();
    const created = [...this.createdOther];
    this.createdOther.clear();
    if (created.length) {
      const isFolder = async (p: string) => (await fs.stat(p).catch(() => undefined))?.isDirectory() ?? false;
      // Many paths at once (a build, an unpack): one scan of the workspace instead of a look at each.
      if (created.length >= MAX_CREATED || (await Promise.all(created.map(isFolder))).some(Boolean)) await this.scan();
    }
    for (const file of files) this.kinds.set(file, await this.read(file));
    for (const file of changed) {
      // Re-inserted: the most recently seen is kept longest.
      this.kinds.delete(file);
      this.kinds.set(file, await this.read(file, WORKSPACE_SNIFF_BYTES));
    }
    this.publish();
  }

  /** The kind sniffed for a file, if it was. */
  kindOf(file: string): JsonlKind | undefined {
    return this.kinds.get(file);
  }

  private read(file: string, bytes?: number): Promise<JsonlKind> {
    this.reads++;
    return kindOfFile(file, bytes);
  }

  private publish(): void {
    // Forget the oldest beyond the bound, so the lists stay small.
    while (this.kinds.size > MAX_FILES) this.kinds.delete(this.kinds.keys().next().value!);
    const of = (kind: JsonlKind) => [...this.kinds].filter(([, k]) => k === kind).map(([f]) => f);
    const lists = { calls: of('calls'), trajectories: of('trajectories') };
    if (JSON.stringify(lists) === JSON.stringify(this.lists)) return;
    this.lists = lists;
    background(this.contextKeys.set('svc.callsFiles', lists.calls), 'setContext svc.callsFiles');
    background(this.contextKeys.set('svc.trajectoryFiles', lists.trajectories), 'setContext svc.trajectoryFiles');
  }

  private schedule(): void {
    clearTimeout(this.scheduled);
    this.scheduled = setTimeout(() => void this.update().catch(() => undefined), 200);
  }
}
