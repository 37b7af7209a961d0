/**
 * The Threads view: a project's threads (sort, filter, pages), their details (panel and JSON),
 * Select Project, and their commands.
 */
import * as vscode from 'vscode';
import { forgetRecent, RECENT_PROJECTS, refusedByService } from '../common/pick';
import { THREAD_SCHEME } from '../common/ids';
import type { FeedbackRecord } from '../feedback/record';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import type { WebUi } from '../webUi/commands';
import { registerThreadsCommands } from './commands';
import { ThreadDetailsProvider } from './details';
import { ThreadDetailsPanel } from './detailsPanel';
import { ThreadsManager } from './manager';
import { ThreadsModel } from './model';
import { ThreadsTreeProvider, type ThreadNode } from './provider';

export interface ThreadsDeps extends FeatureDeps {
  /** The Threads view (created at activation by src/boot/main.ts): from now on it shows this provider's rows. */
  readonly view: (provider: vscode.TreeDataProvider<unknown>) => vscode.TreeView<unknown>;
  /** The user's own record of the feedback attached from this workspace, shown in the details. */
  feedbackRecord: FeedbackRecord;
  /** Open in Web UI: the details' buttons use it, and it finds a row's last turn in this view's rows. */
  webUi: WebUi;
}

export interface ThreadsApi {
  model: ThreadsModel;
  provider: ThreadsTreeProvider;
  view: vscode.TreeView<ThreadNode>;
  detailsPanel: ThreadDetailsPanel;
  manager: ThreadsManager;
}

export function activateThreads(deps: ThreadsDeps): Feature<ThreadsApi> {
  const { commands, errors, log, connection, storage, webUi } = deps;
  // Sort, filter and order are view state: workspaceState, never settings.
  const model = new ThreadsModel(connection, log, storage.workspaceState, deps.contextKeys);
  const provider = new ThreadsTreeProvider(model, errors);
  const view = deps.view(provider as vscode.TreeDataProvider<unknown>) as vscode.TreeView<ThreadNode>;
  provider.attach(view);
  webUi.useThreads(model);
  const details = new ThreadDetailsProvider(model);
  const detailsPanel = new ThreadDetailsPanel(storage.extensionUri, model, errors, log, deps.feedbackRecord, webUi);
  const manager = new ThreadsManager(model, details, detailsPanel, connection, storage.globalState);
  return feature({ model, provider, view, detailsPanel, manager }, [
    model,
    provider,
    vscode.workspace.registerTextDocumentContentProvider(THREAD_SCHEME, details),
    detailsPanel,
    // The recent projects (offered first in the pickers) drop one the service does not know or show us.
    model.onDidFail(({ project, error }) => refusedByService(error) && forgetRecent(storage.globalState, RECENT_PROJECTS, project)),
    ...registerThreadsCommands({ commands, manager }),
  ]);
}
