/**
 * What VS Code loads when the extension activates (dist/extension.js). activate() registers
 * stand-ins and returns: it reads no secrets, touches no files and loads neither the HTTP client nor
 * the schemas. The composition root (src/extension.ts, bundled as dist/core.js with undici and zod)
 * is required on first use: a command, a view asking for its rows, a trajectory file opened in the
 * viewer, or a dashboard restored after a reload.
 *
 * Commands: a stand-in is registered for every command in package.json. On its first call the core
 * loads; the stand-ins are disposed just before the core registers the real commands (synchronously,
 * so no call falls in between), and the call is passed on to the real command with its arguments.
 */
import * as vscode from 'vscode';
import type { CoreHost, SvcExtensionApi } from '../extension';
import { CHECKPOINTS_VIEW, DASHBOARD_PANEL, THREADS_VIEW, TRAJECTORY_VIEWER } from './ids';
import { registerAgents } from './agents';
import { LazyTree, Pending } from './standIns';

/** What activate() hands to the in-host tests (never in production mode). */
export interface BootApi {
  /** Loads the core (once) and returns its live objects. */
  core(): Promise<SvcExtensionApi>;
  /** Time spent inside activate(), in ms. */
  activationMs: number;
}

interface Manifest {
  contributes?: { commands?: { command: string }[] };
}

export function activate(context: vscode.ExtensionContext): BootApi | undefined {
  const started = performance.now();
  const subs = context.subscriptions;
  const commandStandIns: vscode.Disposable[] = [];
  let core: Promise<SvcExtensionApi | undefined> | undefined;
  const load = (): Promise<SvcExtensionApi | undefined> => (core ??= loadCore());

  const threads = new LazyTree<unknown>(load);
  const checkpoints = new LazyTree<unknown>(load);
  const viewer = new Pending<vscode.CustomReadonlyEditorProvider>(load, 'trajectory viewer');
  const dashboards = new Pending<vscode.WebviewPanelSerializer>(load, 'training dashboard');
  const threadsView = vscode.window.createTreeView(THREADS_VIEW, { treeDataProvider: threads, showCollapseAll: false });
  const checkpointsView = vscode.window.createTreeView(CHECKPOINTS_VIEW, { treeDataProvider: checkpoints, showCollapseAll: true });
  subs.push(threads, checkpoints, threadsView, checkpointsView);
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
  const agents = registerAgents(context, load);
  subs.push(...agents.disposables);

  const host: CoreHost = {
    threadsView: (provider) => (threads.attach(provider), threadsView),
    checkpointsView: (provider) => (checkpoints.attach(provider), checkpointsView),
    trajectoryViewer: (provider) => viewer.set(provider),
    dashboardSerializer: (serializer) => dashboards.set(serializer),
    agents: (core) => agents.agents.set(core),
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
  // Other extensions can read any extension's exports: the live objects (which can reach the
  // credentials) are handed out only to the tests of a development or test host.
  if (context.extensionMode === vscode.ExtensionMode.Production) return undefined;
  return {
    core: async () => {
      const api = await load();
      if (!api) throw new Error('svc: the core returned no test API');
      return api;
    },
    activationMs,
  };
}

export function deactivate(): void {}
