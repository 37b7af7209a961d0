import * as vscode from 'vscode';

/**
 * A cancellable progress notification whose Cancel button aborts an AbortController (what the
 * service client and the file readers take). The listener on the token is removed when the task
 * ends, however it ends.
 */
export function withAbortableProgress<T>(
  options: { location: vscode.ProgressLocation | { viewId: string }; title?: string },
  task: (progress: vscode.Progress<{ message?: string; increment?: number }>, abort: AbortController) => Promise<T>,
): Thenable<T> {
  return vscode.window.withProgress({ ...options, cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    const listener = token.onCancellationRequested(() => abort.abort());
    try {
      return await task(progress, abort);
    } finally {
      listener.dispose();
    }
  });
}
