/** Feedback on calls: Attach Feedback, the ref links and hovers in any text, and the user's own record of what was attached. */
import * as vscode from 'vscode';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { registerFeedbackCommands } from './commands';
import { FeedbackManager } from './manager';
import { RefHoverProvider, RefLinkProvider, REF_DOCUMENTS } from './providers';
import { FeedbackRecord } from './record';

export function activateFeedback({ commands, errors, log, connection, storage, prompts }: FeatureDeps): Feature<{ record: FeedbackRecord }> {
  // The user's own record of the feedback attached from this workspace (no service read exists).
  const record = new FeedbackRecord(storage.workspaceState);
  const manager = new FeedbackManager({ connection, errors, prompts, log, globalState: storage.globalState, record });
  return feature({ record }, [
    ...registerFeedbackCommands({ commands, manager }),
    vscode.languages.registerDocumentLinkProvider(REF_DOCUMENTS, new RefLinkProvider()),
    vscode.languages.registerHoverProvider(REF_DOCUMENTS, new RefHoverProvider(connection, record)),
  ]);
}
