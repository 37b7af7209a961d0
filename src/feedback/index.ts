import * as vscode from 'vscode';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { registerFeedbackCommands } from './commands';
import { FeedbackManager } from './manager';
import type { FeedbackRecord } from './record';
import { RefHoverProvider, RefLinkProvider, REF_DOCUMENTS } from './providers';

export { ATTACH_COMMAND } from './commands';

/** Dependencies of the feedback feature, passed by the composition root. */
export interface FeedbackDeps {
  connection: Connection;
  errors: ErrorPresenter;
  log: Logger;
  context: vscode.ExtensionContext;
  record: FeedbackRecord;
}

/** Registers svc.attachFeedback, the ref link provider and the ref hover. */
export function registerFeedback(deps: FeedbackDeps): vscode.Disposable[] {
  const manager = new FeedbackManager({
    connection: deps.connection,
    errors: deps.errors,
    log: deps.log,
    globalState: deps.context.globalState,
    record: deps.record,
  });
  return [
    ...registerFeedbackCommands(manager),
    vscode.languages.registerDocumentLinkProvider(REF_DOCUMENTS, new RefLinkProvider()),
    vscode.languages.registerHoverProvider(REF_DOCUMENTS, new RefHoverProvider(deps.connection, deps.record)),
  ];
}
