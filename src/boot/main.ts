/**
 * What VS Code loads when the extension activates (dist/extension.js). activate() registers
 * stand-ins and returns: it reads no secrets, touches no files and loads neither the HTTP client nor
 * the schemas. The composition root (src/extension.ts, bundled as dist/core.js with undici and zod)
 * is required on first use: a command, a view asking for its rows, a trajectory file opened in the
 * viewer, or a dashboard restored after a reload.
 *
 * A deep link (onUri) and a call of the public API (getApi(1), api/svc.d.ts) load the core too.
 *
 * Commands: a stand-in is registered for every command in package.json. On its first call the core
 * loads; the stand-ins are disposed just before the core registers the real commands (synchronously,
 * so no call falls in between), and the call is passed on to the real command with its arguments.
 */
import * as vscode from 'vscode';
import type { CheckpointsFound, SvcApi, SvcExtension, UploadSummary } from '../../api/svc';
import type { CoreHost, LinkOpener, SvcExtensionApi } from '../extension';
import type { SvcApiCalls } from '../publicApi/api';
import { CHECKPOINTS_VIEW, COMPARE_PANEL, DASHBOARD_PANEL, RUNS_VIEW, THREADS_VIEW, TRAJECTORY_VIEWER } from '../common/ids';
import { registerAgents, type ToolCallEvent } from './agents';
import { LazyTree, Pending } from './standIns';

/** What getTestApi() hands to the in-host tests (only in a test host run by our harness). */
export interface BootApi {
  /** Loads the core (once) and returns its live objects. */
  core(): Promise<SvcExtensionApi>;
  /** Time spent inside activate(), in ms. */
  activationMs: number;
  /** What the URI handler registered at activation does with a deep link; resolves with the outcome. */
  handleUri(uri: vscode.Uri): Promise<unknown>;
  /** What VS Code asked of the language model tools' stand-ins, oldest first (the last 50). */
  toolCalls: ToolCallEvent[];
}

/** What activate() returns: the public API (api/svc.d.ts), and the tests' entry in a test host only. */
export interface Exports extends SvcExtension {
  getTestApi?: () => BootApi;
}

interface Manifest {
  contributes?: { commands?: { command: string }[] };
}

export function activate(context: vscode.ExtensionContext): Exports {
  const started = performance.now();
  const subs = context.subscriptions;
  const commandStandIns: vscode.Disposable[] = [];
  let core: Promise<SvcExtensionApi | undefined> | undefined;
  const load = (): Promise<SvcExtensionApi | undefined> => (core ??= loadCore());

  const threads = new LazyTree<unknown>(load);
  const checkpoints = new LazyTree<unknown>(load);
  const runs = new LazyTree<unknown>(load);
  const viewer = new Pending<vscode.CustomReadonlyEditorProvider>(load, 'trajectory viewer');
  const dashboards = new Pending<vscode.WebviewPanelSerializer>(load, 'training dashboard');
  const comparePanels = new Pending<vscode.WebviewPanelSerializer>(load, 'Compare Runs');
  const links = new Pending<LinkOpener>(load, 'link handler');
  const calls = new Pending<SvcApiCalls>(load, 'svc API');
  const uploadFinished = new vscode.EventEmitter<UploadSummary>();
  const checkpointsFound = new vscode.EventEmitter<CheckpointsFound>();
  // A link may be what activates the extension (onUri): the handler loads the core on its first call.
  const handleUri = async (uri: vscode.Uri) => (await links.get()).handleUri(uri);
  // The public API (api/svc.d.ts): its events exist from the start; a call loads the core.
  const api = Object.freeze<SvcApi>({
    version: 1 as const,
    listThreads: async (o) => (await calls.get()).listThreads(o),
    listCheckpoints: async (o) => (await calls.get()).listCheckpoints(o),
    summarizeRun: async (o) => (await calls.get()).summarizeRun(o),
    summarizeTrajectories: async (o) => (await calls.get()).summarizeTrajectories(o),
    uploadTrajectories: async (o) => (await calls.get()).uploadTrajectories(o),
    onDidFinishUpload: uploadFinished.event,
    onDidFindCheckpoints: checkpointsFound.event,
  });
  const threadsView = vscode.window.createTreeView(THREADS_VIEW, { treeDataProvider: threads, showCollapseAll: false });
  const checkpointsView = vscode.window.createTreeView(CHECKPOINTS_VIEW, { treeDataProvider: checkpoints, showCollapseAll: true, canSelectMany: true });
  const runsView = vscode.window.createTreeView(RUNS_VIEW, { treeDataProvider: runs, showCollapseAll: true });
  subs.push(threads, checkpoints, runs, threadsView, checkpointsView, runsView, uploadFinished, checkpointsFound, vscode.window.registerUriHandler({ handleUri: async (uri) => void (await handleUri(uri)) }));
  subs.push(
    vscode.window.registerCustomEditorProvider(
      TRAJECTORY_VIEWER,
      {
        openCustomDocument: async (uri, openContext, token) => (await viewer.get()).openCustomDocument(uri, openContext, token),
        resolveCustomEditor: async (document, panel, token) => (await viewer.get()).resolveCustomEditor(document, panel, token),
      },
      { supportsMultipleEditorsPerDocument: true },
    ),
    vscode.window.registerWebviewPanelSerializer(DASHBOARD_PANEL, {
      deserializeWebviewPanel: async (panel, state: unknown) => (await dashboards.get()).deserializeWebviewPanel(panel, state),
    }),
    vscode.window.registerWebviewPanelSerializer(COMPARE_PANEL, {
      deserializeWebviewPanel: async (panel, state: unknown) => (await comparePanels.get()).deserializeWebviewPanel(panel, state),
    }),
  );
  const manifest = context.extension.packageJSON as Manifest;
  for (const { command } of manifest.contributes?.commands ?? []) {
    commandStandIns.push(
      vscode.commands.registerCommand(command, async (...args: unknown[]) => {
        await load();
        return vscode.commands.executeCommand(command, ...args);
      }),
    );
  }
  subs.push(...commandStandIns);
  // In a test host our harness started: what VS Code asked of the tools' stand-ins (the last 50).
  const testHost = context.extensionMode !== vscode.ExtensionMode.Production && process.env.SVC_HOST_TEST === '1';
  const toolCalls: ToolCallEvent[] = [];
  const agents = registerAgents(context, load, testHost ? (e) => toolCalls.push(e) > 50 && toolCalls.shift() : undefined);
  subs.push(...agents.disposables);

  const host: CoreHost = {
    threadsView: (provider) => (threads.attach(provider), threadsView),
    checkpointsView: (provider) => (checkpoints.attach(provider), checkpointsView),
    runsView: (provider) => (runs.attach(provider), runsView),
    trajectoryViewer: (provider) => viewer.set(provider),
    dashboardSerializer: (serializer) => dashboards.set(serializer),
    compareSerializer: (serializer) => comparePanels.set(serializer),
    agents: (core) => agents.agents.set(core),
    uriHandler: (handler) => links.set(handler),
    publicApi: (impl) => {
      calls.set(impl);
      return { uploadFinished: (e) => uploadFinished.fire(e), checkpointsFound: (e) => checkpointsFound.fire(e) };
    },
    beforeCommands: () => {
      for (const standIn of commandStandIns) standIn.dispose();
    },
  };

  async function loadCore(): Promise<SvcExtensionApi | undefined> {
    try {
      // The second bundle, loaded on first use (esbuild leaves this require as it is).
      const { compose } = require('./core.js') as typeof import('../extension');
      return await compose(context, host);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      vscode.window.showErrorMessage(`svc could not start: ${message}`).then(undefined, () => undefined);
      throw e;
    }
  }

  const activationMs = performance.now() - started;
  const getApi = (version: number): SvcApi => {
    if (version !== 1) throw new Error(`svc: API version ${String(version)} is not offered; use getApi(1).`);
    return api;
  };
  // Other extensions can read any extension's exports: the live objects (which can reach the
  // credentials) are handed out only to the tests of a test host our harness started.
  if (context.extensionMode === vscode.ExtensionMode.Production || process.env.SVC_HOST_TEST !== '1') return { getApi };
  return {
    getApi,
    getTestApi: () => ({
      core: async () => {
        const live = await load();
        if (!live) throw new Error('svc: the core returned no test API');
        return live;
      },
      activationMs,
      handleUri,
      toolCalls,
    }),
  };
}

export function deactivate(): void {}
