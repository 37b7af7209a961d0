/**
 * Sets `svc.callsFiles` and `svc.trajectoryFiles` (lists of paths, for `resourcePath in …` in the
 * menus) from a sniff of the JSONL files open in tabs, so a file's menus offer only the action its
 * first line fits. The explorer's selection is not visible to extensions: a file never opened is
 * not sniffed, and offers both (each command validates the file and says what it expected).
 */
import * as vscode from 'vscode';
import { setContext } from '../common/background';
import { kindOfFile, type JsonlKind } from './fileKind';

const MAX_FILES = 200;

export class FileKindContext implements vscode.Disposable {
  private readonly kinds = new Map<string, JsonlKind>();
  private readonly subs: vscode.Disposable[] = [];
  private scheduled: NodeJS.Timeout | undefined;

  constructor() {
    this.subs.push(
      vscode.window.tabGroups.onDidChangeTabs(() => this.schedule()),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        this.kinds.delete(doc.uri.fsPath);
        this.schedule();
      }),
    );
    this.schedule();
  }

  /** Sniffs the open tabs' JSONL files now (the tests wait on it). */
  async update(): Promise<void> {
    const files = new Set<string>();
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        const input = tab.input;
        const uri = input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom ? input.uri : undefined;
        if (uri?.scheme === 'file' && /\.jsonl$/i.test(uri.fsPath)) files.add(uri.fsPath);
      }
    }
    for (const file of files) if (!this.kinds.has(file)) this.kinds.set(file, await kindOfFile(file));
    // Forget the oldest beyond the bound, so the lists stay small.
    while (this.kinds.size > MAX_FILES) this.kinds.delete(this.kinds.keys().next().value!);
    const of = (kind: JsonlKind) => [...this.kinds].filter(([, k]) => k === kind).map(([f]) => f);
    setContext('svc.callsFiles', of('calls'));
    setContext('svc.trajectoryFiles', of('trajectories'));
  }

  /** The kind sniffed for a file, if it was. */
  kindOf(file: string): JsonlKind | undefined {
    return this.kinds.get(file);
  }

  private schedule(): void {
    clearTimeout(this.scheduled);
    this.scheduled = setTimeout(() => void this.update().catch(() => undefined), 200);
  }

  dispose(): void {
    clearTimeout(this.scheduled);
    for (const s of this.subs) s.dispose();
  }
}
