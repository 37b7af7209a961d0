/**
 * The composition root: builds every object, registers it, and nothing else. It is bundled as
 * dist/core.js and loaded on first use by the activation bundle (src/boot/main.ts), which owns the
 * tree views, the custom editor and the panel serializer and passes them in through `CoreHost`.
 * compose() makes no network request; views load when they are first shown.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ConnectionHost } from './agents/connectionHost';
import type { ToolHost } from './agents/core/host';
import { languageModelTools } from './agents/lmTools';
import { activateMcpConfig, mcpEnvironment } from './agents/mcpConfig';
import type { AgentsCore } from './agents/lmTools';
import { KeyApprovals } from './auth/approvals';
import { activateAuth } from './service/authCommands';
import { CredentialManager } from './auth/credentials';
import { CheckpointsModel } from './checkpoints/model';
import { CheckpointsTreeProvider, type CheckpointNode } from './checkpoints/provider';
import { activateCheckpoints } from './checkpoints/commands';
import { CheckpointsManager } from './checkpoints/manager';
import { ErrorPresenter } from './common/errors';
import { commandsPresentedBy } from './ui/commands';
import { hostContextKeys, hostPrompts } from './ui/prompts';
import { NewCheckpointsBadge } from './dashboard/badge';
import { activateDashboard } from './dashboard/commands';
import { Dashboards } from './dashboard/manager';
import { CompareRuns } from './dashboard/compare';
import { activateCompare } from './dashboard/compareCommand';
import { activateFeedback } from './feedback/commands';
import { FeedbackManager } from './feedback/manager';
import { RefHoverProvider, RefLinkProvider, REF_DOCUMENTS } from './feedback/providers';
import { activateImports } from './calls/commands';
import { ImportManager } from './calls/manager';
import { FileKindContext } from './calls/fileKindContext';
import { activateUploads } from './trajectories/commands';
import { UploadManager } from './trajectories/manager';
import { SentUploads } from './trajectories/sent';
import { Logger } from './common/logger';
import { forgetRecent, RECENT_MODELS, RECENT_PROJECTS, refusedByService } from './common/pick';
import { Connection } from './service/connection';
import { RestrictedModeNotice } from './status/restrictedMode';
import { StatusBar } from './status/statusBar';
import { activateThreads } from './threads/commands';
import { ThreadsManager } from './threads/manager';
import { ThreadDetailsProvider } from './threads/details';
import { THREAD_SCHEME } from './common/ids';
import { ThreadDetailsPanel } from './threads/detailsPanel';
import { FeedbackRecord } from './feedback/record';
import { WebUi } from './webUi/commands';
import { ThreadsModel } from './threads/model';
import { ThreadsTreeProvider, type ThreadNode } from './threads/provider';
import { TrajectoryViewerProvider } from './viewer/provider';
import { activateHarnesses } from './harnesses/commands';
import { ScenarioPanels } from './viewer/scenarioPanel';
import { activateSearch } from './search/command';
import { defaultSearchCache } from './search/searchCache';
import { reportBackgroundFailuresTo, background } from './common/background';
import { activateLinks } from './links/commands';
import { LinkHandler } from './links/handler';
import { createPublicApi, toCheckpointsFound, toUploadSummary, type SvcApiCalls } from './publicApi/api';
import type { CheckpointsFound, UploadSummary } from '../api/svc';
import { WalkthroughTicks } from './service/walkthrough';
import { RunsModel } from './runs/model';
import { RunsTreeProvider, type RunNode } from './runs/provider';
import { activateRuns } from './runs/commands';

/** What activate() returns: the live objects, for the in-host tests. Not a public API. */
export interface SvcExtensionApi {
  log: Logger;
  credentials: CredentialManager;
  approvals: KeyApprovals;
  connection: Connection;
  threads: ThreadsModel;
  threadsProvider: ThreadsTreeProvider;
  threadDetailsPanel: ThreadDetailsPanel;
  checkpoints: CheckpointsModel;
  checkpointsProvider: CheckpointsTreeProvider;
  threadsView: vscode.TreeView<unknown>;
  checkpointsView: vscode.TreeView<unknown>;
  runs: RunsModel;
  runsProvider: RunsTreeProvider;
  runsView: vscode.TreeView<unknown>;
  restrictedMode: RestrictedModeNotice;
  dashboards: Dashboards;
  compareRuns: CompareRuns;
  statusBar: StatusBar;
  viewer: TrajectoryViewerProvider;
  /** "Follow Scenario Across Steps…" (the tests wait on its tables). */
  scenarios: ScenarioPanels;
  /** What the language model tools run against (the tests call their confirmations directly). */
  agentHost: ToolHost;
  links: LinkHandler;
  uploads: UploadManager;
  webUi: WebUi;
  fileKinds: FileKindContext;
  feedbackRecord: FeedbackRecord;
  /** Time spent in compose(), in ms (the time inside activate() is the boot API's). */
  composeMs: number;
  /** Where the host keeps this extension's logs and state, for the security tests. */
  logUri: vscode.Uri;
  globalState: vscode.Memento;
  workspaceState: vscode.Memento;
}

/** Opens a deep link; resolves with what it did (the handler shows its own errors). */
export interface LinkOpener {
  handleUri(uri: vscode.Uri): Promise<unknown>;
}

/** What the activation bundle (src/boot/main.ts) registered before the core was loaded. */
export interface CoreHost {
  /** The Threads view, created at activation: from now on it shows this provider's rows. */
  threadsView(provider: vscode.TreeDataProvider<unknown>): vscode.TreeView<unknown>;
  /** The Checkpoints view, likewise. */
  checkpointsView(provider: vscode.TreeDataProvider<unknown>): vscode.TreeView<unknown>;
  /** The Runs view, likewise. */
  runsView(provider: vscode.TreeDataProvider<unknown>): vscode.TreeView<unknown>;
  /** The trajectory viewer's custom editor, registered at activation. */
  trajectoryViewer(provider: vscode.CustomReadonlyEditorProvider): void;
  /** The training dashboard's panel serializer, registered at activation. */
  dashboardSerializer(serializer: vscode.WebviewPanelSerializer): void;
  /** The Compare Runs panels' serializer, likewise. */
  compareSerializer(serializer: vscode.WebviewPanelSerializer): void;
  /** The language model tools and the MCP server's environment, for the stand-ins of src/boot/agents.ts. */
  agents(core: AgentsCore): void;
  /** Disposes the command stand-ins: called right before the real commands are registered. */
  beforeCommands(): void;
  /** The deep-link handler: the one registered at activation passes every link to it. */
  uriHandler(handler: LinkOpener): void;
  /** The public API's calls; returns how to fire its events (which exist from activation on). */
  publicApi(calls: SvcApiCalls): { uploadFinished(e: UploadSummary): void; checkpointsFound(e: CheckpointsFound): void };
}

export async function compose(context: vscode.ExtensionContext, host: CoreHost): Promise<SvcExtensionApi | undefined> {
  const started = performance.now();
  // Nothing below awaits until every command is registered, so no command call falls in between.
  host.beforeCommands();
  const subs = context.subscriptions;
  const register = <T extends vscode.Disposable>(d: T): T => {
    subs.push(d);
    return d;
  };

  const log = register(new Logger('svc'));
  register(reportBackgroundFailuresTo((message) => log.error(message)));
  const credentials = register(new CredentialManager(context.secrets, log));
  log.setSecretSource(() => credentials.knownSecrets());
  const version = (context.extension.packageJSON as { version?: string }).version ?? '0.0.0';
  // Answers about where a key may go live in globalState: no workspace can write there.
  // The window's prompts and the context keys, as the narrow interfaces the managers take (ui/prompts.ts).
  const prompts = hostPrompts();
  const contextKeys = hostContextKeys();
  const approvals = new KeyApprovals(context.globalState, prompts);
  const connection = register(new Connection(credentials, approvals, log, `svc-vscode/${version} vscode/${vscode.version}`, contextKeys));
  register(new WalkthroughTicks(() => connection.contextKeys, connection.onDidSetContextKeys));
  // The one presenter: every command's failure, and a sign-in that stopped working, reach the user here.
  const errors = new ErrorPresenter(log, prompts);
  // How every feature registers its commands: their failures reach the user through `errors`.
  const commands = commandsPresentedBy(errors);
  register(connection.onDidChange(({ authFailed }) => authFailed?.prompt && background(errors.offerSignInAgain(authFailed.error), 'Offering to sign in again')));

  // Sort, filter and order are view state: workspaceState, never settings.
  const threads = register(new ThreadsModel(connection, log, context.workspaceState, contextKeys));
  const threadsProvider = register(new ThreadsTreeProvider(threads, errors));
  const threadsView = host.threadsView(threadsProvider as vscode.TreeDataProvider<unknown>) as vscode.TreeView<ThreadNode>;
  threadsProvider.attach(threadsView);
  const threadDetails = new ThreadDetailsProvider(threads);
  register(vscode.workspace.registerTextDocumentContentProvider(THREAD_SCHEME, threadDetails));
  // The user's own record of the feedback attached from this workspace (no service read exists).
  const feedbackRecord = new FeedbackRecord(context.workspaceState);
  const webUi = new WebUi(connection, threads);
  const fileKinds = new FileKindContext();
  const threadDetailsPanel = register(new ThreadDetailsPanel(context.extensionUri, threads, errors, log, feedbackRecord, webUi));
  const threadsManager = new ThreadsManager(threads, threadDetails, threadDetailsPanel, connection, context.globalState);

  const checkpoints = register(new CheckpointsModel(connection, log, context.workspaceState));
  const dashboards = register(new Dashboards(connection, errors, prompts, log, context));
  const compareRuns = register(new CompareRuns(connection, errors, log, context.extensionUri));
  const checkpointsProvider = register(new CheckpointsTreeProvider(checkpoints, errors, dashboards));
  const checkpointsView = host.checkpointsView(checkpointsProvider as vscode.TreeDataProvider<unknown>) as vscode.TreeView<CheckpointNode>;
  checkpointsProvider.attach(checkpointsView);
  register(new NewCheckpointsBadge(checkpointsView, dashboards));
  register(dashboards.onDidFindCheckpoints(({ modelId, checkpoints: found }) => checkpoints.addFound(modelId, found)));
  host.dashboardSerializer(dashboards.serializer());
  host.compareSerializer(compareRuns.serializer());

  // ART runs on disk (.art/<project>/models/<model>/) and the service's models: no request of its own.
  const runs = register(new RunsModel(() => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath), log));
  const runsProvider = register(new RunsTreeProvider(runs, checkpoints));
  const runsView = host.runsView(runsProvider as vscode.TreeDataProvider<unknown>) as vscode.TreeView<RunNode>;
  dashboards.useStepStats(runs.stats);
  // The watcher misses files made inside a folder before it watched that folder: look again when the view is shown.
  register(runsView.onDidChangeVisibility((e) => e.visible && background(runs.refresh({ quiet: true }), 'Runs: looking for ART runs')));

  const statusBar = register(new StatusBar(connection));
  const restrictedMode = register(new RestrictedModeNotice(connection, [threadsView, checkpointsView] as vscode.TreeView<unknown>[]));
  const viewer = new TrajectoryViewerProvider(context.extensionUri, log, errors);
  host.trajectoryViewer(viewer);
  const scenarios = new ScenarioPanels(context.extensionUri, log, errors, viewer.transcriptStore, runs);

  // The agents' tools run on the same connection and key approvals as the commands, never prompting.
  const agentHost = new ConnectionHost(connection, (text) => log.redact(text), new SentUploads(context.workspaceState));
  host.agents({ tools: languageModelTools(agentHost), mcpEnvironment: () => mcpEnvironment(connection, log) });

  // Recent lists (offered first in the pickers) drop what the service refused: a project it does
  // not know or show us, a model it does not know.
  register(threads.onDidFail(({ project, error }) => refusedByService(error) && forgetRecent(context.globalState, RECENT_PROJECTS, project)));
  register(
    checkpoints.onDidChange((changed) => {
      for (const id of checkpoints.models) {
        if ((!changed || id === changed) && refusedByService(checkpoints.state(id).error)) background(forgetRecent(context.globalState, RECENT_MODELS, id), `Forgetting the recent model ${id}`);
      }
    }),
  );

  const uploads = new UploadManager(connection, errors, prompts, log, context);
  // After an import the new threads should show: drop the loaded rows; a visible view reloads.
  const imports = new ImportManager(connection, errors, prompts, log, () => threads.reset(), async (project, threadIds) => void (await vscode.commands.executeCommand('svc.threads.show', { project, threadIds })));
  const feedback = new FeedbackManager({ connection, errors, prompts, log, globalState: context.globalState, record: feedbackRecord });
  const links = new LinkHandler({
    connection,
    errors,
    showThread: (project, row) => threadsManager.showThread(project, row),
    knownModels: () => checkpoints.models,
    // Showing where the model is helps, but the dashboard does not depend on it (a signed-out view lists nothing).
    revealModel: (modelId) => Promise.resolve(checkpointsView.reveal(checkpointsProvider.modelNode(modelId), { select: true, focus: false })).catch((e: unknown) => log.warn(`Could not reveal ${modelId} in the Checkpoints view: ${errors.describe(e)}`)),
    openDashboard: (modelId) => void dashboards.open(modelId),
    openDashboardAtStep: (modelId, step) => dashboards.openAtStep(modelId, step),
  });
  host.uriHandler(links);
  const publicEvents = host.publicApi(createPublicApi({ connection, tools: agentHost, errors, uploads }));
  register(uploads.onDidFinish((e) => publicEvents.uploadFinished(toUploadSummary(e, (error) => errors.describe(error)))));
  // The agents' tool runs the same upload job: its uploads fire the same event.
  agentHost.onUploadFinished = (e) => publicEvents.uploadFinished(toUploadSummary(e, (error) => errors.describe(error)));
  register(dashboards.onDidFindCheckpoints((e) => publicEvents.checkpointsFound(toCheckpointsFound(e))));

  subs.push(
    ...activateAuth({ commands, credentials, connection, approvals }),
    ...activateThreads({ commands, manager: threadsManager }),
    ...activateLinks(commands, { project: () => connection.config.project, currentThread: () => threadDetailsPanel.current }),
    ...activateCheckpoints({ commands, manager: new CheckpointsManager(checkpoints, connection, context.globalState, prompts) }),
    ...activateDashboard({ commands, dashboards, connection, globalState: context.globalState, runs }),
    ...activateRuns({ commands, model: runs, selection: () => runsView.selection }),
    activateCompare({ commands, compare: compareRuns, connection, globalState: context.globalState, openFiles: () => dashboards.openHistoryFiles() }),
    commands.register('svc.showLog', () => log.channel.show()),
    activateMcpConfig({ commands, connection, extensionUri: context.extensionUri }),
    ...activateFeedback({ commands, manager: feedback }),
    vscode.languages.registerDocumentLinkProvider(REF_DOCUMENTS, new RefLinkProvider()),
    vscode.languages.registerHoverProvider(REF_DOCUMENTS, new RefHoverProvider(connection, feedbackRecord)),
    ...webUi.register(commands),
    // Upload and Import in a JSONL file's menus: only the one its first line fits (when sniffed).
    fileKinds,
    ...activateUploads({ commands, manager: uploads }),
    ...viewer.register(commands),
    ...activateHarnesses({ commands, log }),
    ...scenarios.register(commands),
    ...activateSearch({ commands, viewer, runs, cache: defaultSearchCache, folder: path.join(context.globalStorageUri.fsPath, 'search-cache') }),
    ...activateImports({ commands, manager: imports }),
  );

  // Every command is registered by now (the stand-ins are gone): from here on, awaiting is safe.
  // Reads SecretStorage/env/netrc only: no network.
  await connection.refreshAuth();
  const composeMs = performance.now() - started;
  log.info(`svc for VS Code ${version} loaded in ${composeMs.toFixed(1)} ms (${connection.state})`);
  // Other extensions can read any extension's exports: the live objects (which can reach the
  // credentials) are handed out only to the tests of a development or test host.
  if (context.extensionMode === vscode.ExtensionMode.Production) return undefined;
  return {
    log,
    credentials,
    approvals,
    connection,
    threads,
    threadsProvider,
    threadDetailsPanel,
    checkpoints,
    checkpointsProvider,
    threadsView: threadsView as vscode.TreeView<unknown>,
    checkpointsView: checkpointsView as vscode.TreeView<unknown>,
    runs,
    runsProvider,
    runsView: runsView as vscode.TreeView<unknown>,
    restrictedMode,
    dashboards,
    compareRuns,
    statusBar,
    viewer,
    scenarios,
    agentHost,
    links,
    uploads,
    webUi,
    fileKinds,
    feedbackRecord,
    composeMs,
    logUri: context.logUri,
    globalState: context.globalState,
    workspaceState: context.workspaceState,
  };
}
