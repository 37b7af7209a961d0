import * as path from 'path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError } from '../api';
import type { Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { isTreeNode } from '../ui/treeNodes';
import { pickOrType, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import type { Connection } from '../service/connection';
import type { Dashboards } from './manager';
import { pickWorkspaceRun, WHAT_A_RUN_IS } from '../ui/runPick';

/** A row of the Checkpoints view: a model's (its modelId) or a checkpoint's (that checkpoint too). */
type CheckpointsRow = { kind?: string; modelId?: unknown; checkpoint?: { id?: unknown } };

const OPEN_USAGE = 'a Checkpoints tree item, { modelId, checkpointId? } or { file }';
const NOT_A_FILE = '"file" must be the path of a history.jsonl file';
const NOT_A_MODEL = '"modelId" must be a model id string';
/** `{ file }` (a run's history.jsonl or model folder), or `{ modelId, checkpointId? }`. */
const OPEN_ARGS = z.object({
  file: z.string({ error: NOT_A_FILE }).refine((f) => f.trim() !== '', { error: NOT_A_FILE }).optional(),
  modelId: z.string({ error: NOT_A_MODEL }).optional(),
  checkpointId: z.string().optional(),
});
const EXPORT_CSV_ARGS = z.object({ modelId: z.string(), path: nonBlank() });

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

export interface DashboardCommandsDeps {
  commands: Commands;
  dashboards: Dashboards;
  connection: Connection;
  globalState: vscode.Memento;
}

/** Open Training Dashboard and Export CSV. */
export function registerDashboardCommands({ commands, dashboards, connection, globalState }: DashboardCommandsDeps): vscode.Disposable[] {
  return [
    /**
     * From a model node (inline button, context menu), a checkpoint row (that checkpoint
     * selected), the palette (pick a model; without a service, pick a run of the workspace), or
     * `{ modelId, checkpointId? }`.
     */
    commands.register('svc.dashboard.open', async (how, arg?: unknown) => {
      const row = isTreeNode(arg) ? (arg as CheckpointsRow) : undefined;
      const script = arg === undefined || arg instanceof vscode.Uri || row ? undefined : parseArgs('svc.dashboard.open', OPEN_ARGS, arg, OPEN_USAGE);
      // A run's history.jsonl (ART), from the explorer (a file or a model folder) or { file }: no service involved.
      if (arg instanceof vscode.Uri || script?.file !== undefined) {
        let uri: vscode.Uri;
        if (arg instanceof vscode.Uri) uri = arg;
        else {
          const file = script!.file!;
          const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
          uri = path.isAbsolute(file) || !folder ? vscode.Uri.file(path.resolve(file)) : vscode.Uri.joinPath(folder, file);
        }
        // The file is read (and watched) on this machine's disk, as it grows.
        if (uri.scheme !== 'file') throw new InputError(`${uri.toString(true)}: the dashboard reads a history.jsonl on this machine's disk only.`, { file: uri.toString(true) });
        uri = await historyFile(uri);
        const panel = await dashboards.openFile(uri);
        return panel.modelId;
      }
      let modelId = script ? script.modelId?.trim() : typeof row?.modelId === 'string' ? row.modelId.trim() : undefined;
      const focus = script ? script.checkpointId : typeof row?.checkpoint?.id === 'string' ? row.checkpoint.id : undefined;
      if ((script || row) && modelId === undefined) throw new InputError(`svc.dashboard.open: ${NOT_A_MODEL}.`, { field: 'modelId' });
      // The palette without a service: the dashboard of a run of the workspace (its history.jsonl).
      const runs = dashboards.workspaceRuns;
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
    commands.register('svc.dashboard.exportCsv', async (_how, arg?: unknown) => {
      if (arg !== undefined) {
        const args = parseArgs('svc.dashboard.exportCsv', EXPORT_CSV_ARGS, arg, '{ modelId: string, path: string }');
        return (await dashboards.exportCsv(args.modelId, args.path))?.fsPath;
      }
      const active = dashboards.active();
      if (!active) throw new InputError('Open a training dashboard first.');
      return (await dashboards.exportCsv(active))?.fsPath;
    }),
  ];
}
