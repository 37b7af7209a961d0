import type * as vscode from 'vscode';

/**
 * Work nobody waits for (a refresh fired by an event, a context key, a file cleanup) still must not
 * lose its failure: `background` reports any rejection to the svc log. The log is wired in by
 * `extension.ts`; before that (and in unit tests) a rejection goes to the console.
 */
let report: (message: string) => void = (message) => console.error(message);

/** Where `background` reports rejections (the composition root passes the svc log). */
export function reportBackgroundFailuresTo(sink: (message: string) => void): vscode.Disposable {
  report = sink;
  return { dispose: () => (report = (message) => console.error(message)) };
}

/** Starts `work` without waiting for it; a rejection is reported as "`what` failed: …", never lost. */
export function background(work: PromiseLike<unknown>, what: string): void {
  Promise.resolve(work).catch((e: unknown) => report(`${what} failed: ${e instanceof Error ? e.message : String(e)}`));
}

