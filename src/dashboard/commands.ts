import * as path from 'path';
import * as vscode from 'vscode';
import { InputError } from '../api';
import { registerCommand } from '../ui/commands';
import { pickOrType, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import type { Connection } from '../service/connection';
import type { Dashboards } from './manager';
import { pickWorkspaceRun, WHAT_A_RUN_IS, type WorkspaceRuns } from '../ui/runPick';

/** A tree node of the Checkpoints view, or the scripting form. */
type OpenArg = { kind?: string; modelId?: unknown; checkpoint?: { id?: unknown }; checkpointId?: unknown; file?: unknown } | undefined;

/**
 * The history.jsonl to open: the file itself, or the run folder (`.art/<project>/models/<model>/`)
 * that holds it. Rejects, naming the path, when it is neither.
 */
export async function historyFile(uri: vscode.Uri): Promise<vscode.Uri> {
  let stat: vscode.FileStat;
  try {
    stat = await vscode.workspace.fs.stat(uri);
  } catch {
    throw new InputError(`${uri.fsPath}: no such file.`, { file: uri.fsPath });
  }
  if (stat.type & vscode.FileType.Directory) {
    const inside = vscode.Uri.joinPath(uri, 'history.jsonl');
    try {
      await vscode.workspace.fs.stat(inside);
    } catch {
      throw new InputError(`${uri.fsPath} has no history.jsonl: open a model folder of a training run (.art/<project>/models/<model>/) or its history.jsonl.`, { file: uri.fsPath });
    }
    return inside;
  }
  return uri;
}

/** `runs`: the workspace's runs (the Runs view's), which the palette offers when no service is configured. */
export function registerDashboardCommands(dashboards: Dashboards, connection: Connection, globalState: vscode.Memento, runs?: WorkspaceRuns): vscode.Disposable[] {
  return [
    /**
     * From a model node (inline button, context menu), a checkpoint row (that checkpoint
     * selected), the palette (pick a model; without a service, pick a run of the workspace), or
     * `{ modelId, checkpointId? }`.
     */
    registerCommand('svc.dashboard.open', async (how, arg?: OpenArg | vscode.Uri) => {
      if (arg !== undefined && (typeof arg !== 'object' || arg === null)) throw new InputError('svc.dashboard.open takes a Checkpoints tree item, { modelId, checkpointId? } or { file }.');
      // A run's history.jsonl (ART), from the explorer (a file or a model folder) or { file }: no service involved.
      if (arg instanceof vscode.Uri || (arg && 'file' in arg)) {
        let uri: vscode.Uri;
        if (arg instanceof vscode.Uri) uri = arg;
        else {
          if (typeof arg.file !== 'string' || !arg.file.trim()) throw new InputError('svc.dashboard.open: "file" must be the path of a history.jsonl file.', { field: 'file' });
          const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
          uri = path.isAbsolute(arg.file) || !folder ? vscode.Uri.file(path.resolve(arg.file)) : vscode.Uri.joinPath(folder, arg.file);
        }
        // The file is read (and watched) on this machine's disk, as it grows.
        if (uri.scheme !== 'file') throw new InputError(`${uri.toString(true)}: the dashboard reads a history.jsonl on this machine's disk only.`, { file: uri.toString(true) });
        uri = await historyFile(uri);
        const panel = await dashboards.openFile(uri);
        return panel.modelId;
      }
      let modelId = typeof arg?.modelId === 'string' ? arg.modelId.trim() : undefined;
      const focus = typeof arg?.checkpointId === 'string' ? arg.checkpointId : typeof arg?.checkpoint?.id === 'string' ? arg.checkpoint.id : undefined;
      if (arg && modelId === undefined) throw new InputError('svc.dashboard.open: "modelId" must be a model id string.');
      // The palette without a service: the dashboard of a run of the workspace (its history.jsonl).
      if (!connection.client && modelId === undefined && how.interactive && runs) {
        await runs.whenScanned();
        if (!runs.runs.some((r) => r.history)) {
          throw new InputError(`No ART run with a history.jsonl in the workspace folders, and no svc service configured. ${WHAT_A_RUN_IS}. Open the folder that holds the .art folder (File > Open Folder…), or run "svc: Set Service Base URL" for the dashboards of a service's models.`, {}, { fix: { title: 'Open Folder…', command: 'vscode.openFolder' } });
        }
        const run = await pickWorkspaceRun(runs, { title: 'svc: Open the dashboard of which run?', having: 'with a history.jsonl', filter: (r) => r.history });
        if (!run) return undefined;
        return (await dashboards.openFile(vscode.Uri.file(path.join(run.dir, 'history.jsonl')))).modelId;
      }
      if (!connection.client) throw new InputError('No svc service is configured: run "svc: Set Service Base URL" first.');
      if (modelId === undefined) {
        const known = [...new Set([...connection.config.models, ...recent(globalState, RECENT_MODELS)])];
        modelId = (await pickOrType('svc: Open the training dashboard of a model', 'Model id', known))?.trim();
        if (!modelId) return undefined;
      }
      if (!modelId) throw new InputError('The model id is empty.');
      // A user's action may be asked here whether the key may go to the model endpoints; the
      // dashboard's own requests never ask.
      if (how.interactive) await connection.prepare('training');
      dashboards.open(modelId, focus);
      await pushRecent(globalState, RECENT_MODELS, modelId);
      return modelId;
    }),
    /**
     * `{ modelId, path }` writes without a prompt, inside a workspace folder only; otherwise the
     * active dashboard and a save dialog (wherever the user picks).
     */
    registerCommand('svc.dashboard.exportCsv', async (_how, args?: { modelId?: unknown; path?: unknown }) => {
      if (args !== undefined) {
        if (typeof args !== 'object' || args === null || typeof args.modelId !== 'string' || typeof args.path !== 'string' || !args.path) {
          throw new InputError('svc.dashboard.exportCsv takes { modelId: string, path: string }.');
        }
        return (await dashboards.exportCsv(args.modelId, args.path))?.fsPath;
      }
      const active = dashboards.active();
      if (!active) throw new InputError('Open a training dashboard first.');
      return (await dashboards.exportCsv(active))?.fsPath;
    }),
  ];
}
