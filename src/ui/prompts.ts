/**
 * What the managers ask of the editor's window, as narrow interfaces they take through their
 * constructors: `Prompts` (messages, quick picks, input boxes, dialogs, progress, the status bar)
 * and `ContextKeys` (`when`-clause keys). The composition root passes `hostPrompts()` and
 * `hostContextKeys()`; a plain-Node test passes a scripted object typed by the same interface
 * (test/fakes/prompts.ts), so a call a manager starts making is a type error there, not a gap.
 */
import * as vscode from 'vscode';
import type { Messages } from '../common/errors';

export type { Messages };

/** The window calls the managers (and the questions they ask) make. */
export interface Prompts extends Messages {
  showInformationMessage(message: string, ...items: string[]): Thenable<string | undefined>;
  showInformationMessage(message: string, options: vscode.MessageOptions, ...items: string[]): Thenable<string | undefined>;
  showQuickPick(items: readonly string[], options?: vscode.QuickPickOptions): Thenable<string | undefined>;
  showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options?: vscode.QuickPickOptions): Thenable<T | undefined>;
  showInputBox(options?: vscode.InputBoxOptions): Thenable<string | undefined>;
  showOpenDialog(options?: vscode.OpenDialogOptions): Thenable<vscode.Uri[] | undefined>;
  showSaveDialog(options?: vscode.SaveDialogOptions): Thenable<vscode.Uri | undefined>;
  /** A notification with a progress bar and a Cancel button (the only progress the managers show). */
  withProgress<R>(title: string, task: (progress: vscode.Progress<{ message?: string; increment?: number }>, token: vscode.CancellationToken) => Thenable<R>): Thenable<R>;
  setStatusBarMessage(text: string, hideAfterMs: number): vscode.Disposable;
}

/** The real Prompts: VS Code's window. */
export function hostPrompts(): Prompts {
  const w = vscode.window;
  return {
    showErrorMessage: (message: string, ...rest: unknown[]) => w.showErrorMessage(message, ...(rest as string[])),
    showWarningMessage: (message: string, ...rest: unknown[]) => w.showWarningMessage(message, ...(rest as string[])),
    showInformationMessage: (message: string, ...rest: unknown[]) => w.showInformationMessage(message, ...(rest as string[])),
    showQuickPick: <T extends vscode.QuickPickItem>(items: readonly (string | T)[], options?: vscode.QuickPickOptions) => w.showQuickPick(items as readonly T[], options),
    showInputBox: (options) => w.showInputBox(options),
    showOpenDialog: (options) => w.showOpenDialog(options),
    showSaveDialog: (options) => w.showSaveDialog(options),
    withProgress: (title, task) => w.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, task),
    setStatusBarMessage: (text, hideAfterMs) => w.setStatusBarMessage(text, hideAfterMs),
  };
}

/**
 * A cancellable progress notification whose Cancel button aborts an AbortController (what the
 * service client and the file readers take). The listener on the token is removed when the task
 * ends, however it ends.
 */
export function withAbortableProgress<T>(
  prompts: Pick<Prompts, 'withProgress'>,
  title: string,
  task: (progress: vscode.Progress<{ message?: string; increment?: number }>, abort: AbortController) => Promise<T>,
): Thenable<T> {
  return prompts.withProgress(title, async (progress, token) => {
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    try {
      return await task(progress, abort);
    } finally {
      listener.dispose();
    }
  });
}

/** `when`-clause context keys (the platform's `setContext` command). */
export interface ContextKeys {
  set(key: string, value: unknown): Thenable<unknown>;
}

/** The real ContextKeys: the `setContext` command. */
export function hostContextKeys(): ContextKeys {
  return { set: (key, value) => vscode.commands.executeCommand('setContext', key, value) };
}
