/**
 * The composition root: builds every object, registers it, and nothing else. It is bundled as
 * dist/core.js and loaded on first use by the activation bundle (src/boot/main.ts), which owns the
 * tree views, the custom editor and the panel serializer and passes them in through `CoreHost`.
 * compose() makes no network request; views load when they are first shown.
 */
import * as vscode from 'vscode';
import type { ConnectionHost } from './agents/connectionHost';
import type { AgentsCore } from './agents/lmTools';
import { activateAgents } from './agents/activate';
import { KeyApprovals } from './auth/approvals';
import { CredentialManager } from './auth/credentials';
import { activateImports } from './calls/activate';
import type { FileKindContext } from './calls/fileKindContext';
import { activateCheckpoints } from './checkpoints/activate';
import type { CheckpointsModel } from './checkpoints/model';
import type { CheckpointsTreeProvider } from './checkpoints/provider';
import { reportBackgroundFailuresTo } from './common/background';
import { ErrorPresenter } from './common/errors';
import { Logger } from './common/logger';
import { activateDashboard } from './dashboard/activate';
import type { CompareRuns } from './dashboard/compare';
import type { Dashboards } from './dashboard/manager';
import { activateFeedback } from './feedback/activate';
import type { FeedbackRecord } from './feedback/record';
import { activateHarnesses } from './harnesses/commands';
import { activateLinks } from './links/activate';
import type { LinkHandler } from './links/handler';
import { activatePublicApi } from './publicApi/activate';
import type { SvcApiCalls } from './publicApi/api';
import { activateRuns } from './runs/activate';
import type { RunsModel } from './runs/model';
import type { RunsTreeProvider } from './runs/provider';
import { activateSearch } from './search/command';
import { activateService } from './service/activate';
import { Connection } from './service/connection';
import type { Feature, FeatureDeps } from './service/feature';
import { activateStatus } from './status/activate';
import type { RestrictedModeNotice } from './status/restrictedMode';
import type { StatusBar } from './status/statusBar';
import { activateThreads } from './threads/activate';
import type { ThreadDetailsPanel } from './threads/detailsPanel';
import type { ThreadsModel } from './threads/model';
import type { ThreadsTreeProvider } from './threads/provider';
import { activateUploads } from './trajectories/activate';
import type { UploadManager } from './trajectories/manager';
import { commandsPresentedBy } from './ui/commands';
import { hostContextKeys, hostPrompts } from './ui/prompts';
import { activateViewer } from './viewer/activate';
import type { TrajectoryViewerProvider } from './viewer/provider';
import type { ScenarioPanels } from './viewer/scenarioPanel';
import { activateWebUi } from './webUi/activate';
import type { WebUi } from './webUi/commands';
import type { CheckpointsFound, UploadSummary } from '../api/svc';

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
  agentHost: ConnectionHost;
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
  /** A feature's objects are disposed with the extension; its API goes to the features after it. */
  const use = <Api>(f: Feature<Api>): Api => {
    subs.push(...f.disposables);
    return f.api;
  };

  // The core every feature shares: the log, the credentials, the connection to the service, the
  // one presenter of failures, and how commands are registered (their failures reach `errors`).
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
  const errors = new ErrorPresenter(log, prompts);
  const deps: FeatureDeps = { commands: commandsPresentedBy(errors), errors, log, connection, storage: context, prompts, contextKeys };

  // Each feature builds its own objects and commands; what one needs of another is passed here.
  use(activateService({ ...deps, credentials, approvals }));
  const webUi = use(activateWebUi(deps));
  const { record: feedbackRecord } = use(activateFeedback(deps));
  const threads = use(activateThreads({ ...deps, view: (p) => host.threadsView(p), feedbackRecord, webUi }));
  const { dashboards, compareRuns } = use(activateDashboard({ ...deps, dashboardSerializer: (s) => host.dashboardSerializer(s), compareSerializer: (s) => host.compareSerializer(s) }));
  const checkpoints = use(activateCheckpoints({ ...deps, view: (p) => host.checkpointsView(p), dashboards }));
  const runs = use(activateRuns({ ...deps, view: (p) => host.runsView(p), serviceModels: checkpoints.model, dashboards }));
  const { statusBar, restrictedMode } = use(activateStatus({ connection, views: [threads.view, checkpoints.view] as vscode.TreeView<unknown>[] }));
  const { viewer, scenarios } = use(activateViewer({ ...deps, editor: (p) => host.trajectoryViewer(p), runs: runs.model }));
  use(activateSearch({ ...deps, viewer, runs: runs.model }));
  use(activateHarnesses(deps));
  const agentHost = use(activateAgents({ ...deps, agents: (core: AgentsCore) => host.agents(core) }));
  const uploads = use(activateUploads(deps));
  const { fileKinds } = use(
    activateImports({
      ...deps,
      // After an import the new threads should show: drop the loaded rows; a visible view reloads.
      afterImport: () => threads.model.reset(),
      showThreads: async (project, threadIds) => void (await vscode.commands.executeCommand('svc.threads.show', { project, threadIds })),
    }),
  );
  const links = use(
    activateLinks({
      ...deps,
      uriHandler: (handler) => host.uriHandler(handler),
      showThread: (project, row) => threads.manager.showThread(project, row),
      knownModels: () => checkpoints.model.models,
      // Showing where the model is helps, but the dashboard does not depend on it (a signed-out view lists nothing).
      revealModel: (modelId) => Promise.resolve(checkpoints.view.reveal(checkpoints.provider.modelNode(modelId), { select: true, focus: false })).catch((e: unknown) => log.warn(`Could not reveal ${modelId} in the Checkpoints view: ${errors.describe(e)}`)),
      openDashboard: (modelId) => void dashboards.open(modelId),
      openDashboardAtStep: (modelId, step) => dashboards.openAtStep(modelId, step),
      project: () => connection.config.project,
      currentThread: () => threads.detailsPanel.current,
    }),
  );
  use(activatePublicApi({ ...deps, publicApi: (calls: SvcApiCalls) => host.publicApi(calls), uploads, agentHost, onDidFindCheckpoints: dashboards.onDidFindCheckpoints }));

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
    threads: threads.model,
    threadsProvider: threads.provider,
    threadDetailsPanel: threads.detailsPanel,
    checkpoints: checkpoints.model,
    checkpointsProvider: checkpoints.provider,
    threadsView: threads.view as vscode.TreeView<unknown>,
    checkpointsView: checkpoints.view as vscode.TreeView<unknown>,
    runs: runs.model,
    runsProvider: runs.provider,
    runsView: runs.view as vscode.TreeView<unknown>,
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
