import * as vscode from 'vscode';
import { withTempCopy } from '../files/tempCopy';
import { ownProblems, toDiagnostic, type FileProblem } from './diagnostics';
import { Disposable } from '../common/disposable';

/** Documents larger than this are checked again on save only (a copy per keystroke would cost too much). */
const LIVE_LIMIT_CHARS = 8 * 1024 * 1024;
const DEBOUNCE_MS = 300;

/**
 * Keeps the Problems entries of a validated file in step with the file: once a file has been
 * validated, edits check it again while it is open (debounced; unsaved text is checked from a
 * private temporary copy), so an entry goes as soon as it is fixed, without another upload.
 */
export class LiveProblems extends Disposable {
  private readonly watched = new Set<string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly diagnostics: vscode.DiagnosticCollection,
    /** Validates a file on disk (the path keeps the document's name, so its format is kept). */
    private readonly validate: (file: string) => Promise<FileProblem[]>,
  ) {
    super();
    this._register(vscode.workspace.onDidChangeTextDocument((e) => this.changed(e.document, false)));
    this._register(vscode.workspace.onDidSaveTextDocument((d) => this.changed(d, true)));
    this._register(
      vscode.workspace.onDidCloseTextDocument((d) => {
        this.cancel(d.uri.toString());
        this.watched.delete(d.uri.toString());
      }),
    );
    // Disposed first (the base disposes in reverse): no validation starts once disposing began.
    this._register({ dispose: () => this.timers.forEach((t) => clearTimeout(t)) });
  }

  /** Shows the problems of a file just validated, and follows its edits from now on. */
  set(uri: vscode.Uri, problems: readonly FileProblem[]): void {
    this.diagnostics.set(uri, ownProblems(uri, problems).map(toDiagnostic));
    this.watched.add(uri.toString());
  }

  private changed(doc: vscode.TextDocument, saved: boolean): void {
    const key = doc.uri.toString();
    if (!this.watched.has(key) || doc.uri.scheme !== 'file') return;
    if (!saved && doc.getText().length > LIVE_LIMIT_CHARS) return;
    this.cancel(key);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        // A failed re-check leaves the last entries; the next edit or upload tries again.
        this.recheck(doc, saved).catch(() => undefined);
      }, saved ? 0 : DEBOUNCE_MS),
    );
  }

  private cancel(key: string): void {
    const t = this.timers.get(key);
    if (t) clearTimeout(t);
    this.timers.delete(key);
  }

  private async recheck(doc: vscode.TextDocument, saved: boolean): Promise<void> {
    const version = doc.version;
    const problems = !saved && doc.isDirty ? await withTempCopy(doc.uri.fsPath, doc.getText(), (file) => this.validate(file)) : await this.validate(doc.uri.fsPath);
    // An edit while checking makes this result stale: the next timer brings the fresh one.
    if (doc.version !== version || !this.watched.has(doc.uri.toString())) return;
    this.set(doc.uri, problems);
  }
}
