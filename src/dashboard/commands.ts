import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError } from '../api';
import type { Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { isTreeNode } from '../ui/treeNodes';
import { workspacePath, type DashboardOpener } from './opener';

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

export interface DashboardCommandsDeps {
  commands: Commands;
  opener: DashboardOpener;
}

/** Open Training Dashboard and Export CSV: thin, over the opener (arguments parsed, the rest asked). */
export function registerDashboardCommands({ commands, opener }: DashboardCommandsDeps): vscode.Disposable[] {
  return [
    /**
     * From a model node (inline button, context menu), a checkpoint row (that checkpoint
     * selected), the explorer (a history.jsonl or a model folder), the palette (pick a model;
     * without a service, pick a run of the workspace), `{ file }` or `{ modelId, checkpointId? }`.
     */
    commands.register('svc.dashboard.open', (how, arg?: unknown) => {
      if (arg instanceof vscode.Uri) return opener.openHistory(arg);
      const row = isTreeNode(arg) ? (arg as CheckpointsRow) : undefined;
      const script = arg === undefined || row ? undefined : parseArgs('svc.dashboard.open', OPEN_ARGS, arg, OPEN_USAGE);
      if (script?.file !== undefined) return opener.openHistory(workspacePath(script.file));
      const modelId = script ? script.modelId?.trim() : typeof row?.modelId === 'string' ? row.modelId.trim() : undefined;
      const focus = script ? script.checkpointId : typeof row?.checkpoint?.id === 'string' ? row.checkpoint.id : undefined;
      if ((script || row) && modelId === undefined) throw new InputError(`svc.dashboard.open: ${NOT_A_MODEL}.`, { field: 'modelId' });
      return opener.openModel(how, modelId, focus);
    }),
    /**
     * `{ modelId, path }` writes without a prompt, inside a workspace folder only; otherwise the
     * active dashboard and a save dialog (wherever the user picks).
     */
    commands.register('svc.dashboard.exportCsv', (_how, arg?: unknown) => opener.exportCsv(arg === undefined ? undefined : parseArgs('svc.dashboard.exportCsv', EXPORT_CSV_ARGS, arg, '{ modelId: string, path: string }'))),
  ];
}
