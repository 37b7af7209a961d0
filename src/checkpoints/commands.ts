import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError, type ErrorFix } from '../api';
import type { SettingsScope } from '../common/config';
import { type Commands, type Invocation, scriptArgs } from '../ui/commands';
import { nonBlank, parseArgs, settingsScope } from '../ui/args';
import { treeNode } from '../ui/treeNodes';
import { pickOrType } from '../common/pick';
import type { CheckpointsManager } from './manager';
import type { CheckpointNode } from './provider';

type ModelArg = CheckpointNode | { modelId: string; scope?: SettingsScope; unknownModel?: boolean } | undefined;

/**
 * The "Remove Model" button of an error about a model the service does not know (a 404 from an
 * upload): removes it from the view, if there, and from the recent models. Its argument is
 * registered like a tree node: a click is the user's, so it may ask where to save.
 */
export function removeModelAction(modelId: string): ErrorFix {
  return { title: 'Remove Model', command: 'svc.checkpoints.removeModel', args: treeNode({ modelId, unknownModel: true }) };
}

/** A scripted `{ modelId, scope? }` (extra keys, such as a row's copied fields, are ignored). */
const MODEL_ARGS = z.object({ modelId: nonBlank(), scope: settingsScope.optional() });
const ADD_MODEL_ARGS = z.object({ modelId: z.string().optional(), scope: settingsScope.optional() });
const ORDER_ARGS = z.object({ order: z.enum(['asc', 'desc'], { error: (issue) => `order must be "asc" or "desc", not ${JSON.stringify(issue.input)}` }).optional() });
const COPY_ID_ARGS = z.object({ checkpointId: nonBlank() });

/**
 * The model a command is about: a row (a tree node, or a treeNode-wrapped fix's argument) as it
 * is; a script's object parsed as `{ modelId, scope? }`.
 */
function modelArg(command: string, arg: unknown): ModelArg {
  if (arg === undefined || arg === null) return undefined;
  const script = scriptArgs(arg);
  return script === undefined ? (arg as ModelArg) : parseArgs(command, MODEL_ARGS, script, 'a model row or { modelId, scope? }');
}

export interface CheckpointsCommandsDeps {
  commands: Commands;
  manager: CheckpointsManager;
}

/** The Checkpoints view's commands: thin, over the manager (arguments parsed, the rest asked). */
export function registerCheckpointsCommands({ commands, manager }: CheckpointsCommandsDeps): vscode.Disposable[] {
  const { model } = manager;
  const modelIdOf = (arg: ModelArg) => (arg && 'modelId' in arg ? arg.modelId : undefined);
  const refresh = (how: Invocation, id: string | undefined) => manager.refresh(how, id);
  return [
    // The title button: VS Code passes it the focused row, which means "as clicked with nothing":
    // the whole view. A script's { modelId } refreshes that model.
    commands.register('svc.checkpoints.refresh', (how, arg?: unknown) => {
      const script = scriptArgs(arg);
      return refresh(how, script === undefined ? undefined : parseArgs('svc.checkpoints.refresh', MODEL_ARGS.partial(), script, '{ modelId? }').modelId);
    }),
    // A model row's inline button, and an error row's click: that model.
    commands.register('svc.checkpoints.refreshModel', (how, arg?: unknown) => {
      const id = modelIdOf(modelArg('svc.checkpoints.refreshModel', arg));
      if (!id) throw new InputError('svc.checkpoints.refreshModel needs a model row or { modelId }.');
      return refresh(how, id);
    }),
    commands.register('svc.checkpoints.loadMore', (how, arg: ModelArg) => {
      const id = modelIdOf(arg);
      return id ? model.loadMore(id, how) : undefined;
    }),
    commands.register('svc.checkpoints.toggleOrder', (_how, arg?: unknown) => {
      const script = scriptArgs(arg);
      const args = script === undefined ? undefined : parseArgs('svc.checkpoints.toggleOrder', ORDER_ARGS, script, '{ order?: "asc" | "desc" }');
      return model.setOrder(args?.order ?? (model.order === 'asc' ? 'desc' : 'asc'));
    }),
    commands.register('svc.checkpoints.addModel', async (how, arg?: unknown) => {
      // A focused row (title button) is no argument: the prompt opens, as without one.
      const script = scriptArgs(arg);
      const args = script === undefined ? undefined : parseArgs('svc.checkpoints.addModel', ADD_MODEL_ARGS, script, '{ modelId: string, scope? }');
      let id = args?.modelId?.trim();
      if (id === undefined) {
        if (args) throw new InputError('svc.checkpoints.addModel needs { modelId }.');
        id = await pickOrType('svc: Add a model', 'Model id', manager.recentToAdd());
        if (!id) return;
      }
      await manager.addModel(how, id, args?.scope);
    }),
    commands.register('svc.checkpoints.removeModel', async (how, raw?: unknown) => {
      const arg = modelArg('svc.checkpoints.removeModel', raw);
      let id = modelIdOf(arg);
      if (!id) {
        if (arg) throw new InputError('svc.checkpoints.removeModel needs { modelId }.');
        id = await vscode.window.showQuickPick(model.models, { title: 'svc: Remove a model' });
      }
      if (!id) return;
      // From an unknown model's error (its row or an upload's 404): out of the recent list too.
      await manager.removeModel(how, id, { scope: arg && 'scope' in arg ? arg.scope : undefined, unknownModel: !!(arg && 'unknownModel' in arg && arg.unknownModel) });
    }),
    // A checkpoint row's inline button; scripted, { checkpointId }.
    commands.register('svc.checkpoints.copyId', async (_how, arg?: unknown) => {
      const script = scriptArgs(arg);
      const node = script === undefined ? (arg as CheckpointNode | undefined) : undefined;
      const id = node ? (node.kind === 'checkpoint' ? node.checkpoint.id : undefined) : parseArgs('svc.checkpoints.copyId', COPY_ID_ARGS, script, 'a checkpoint row or { checkpointId }').checkpointId;
      if (!id) throw new InputError('svc.checkpoints.copyId takes a checkpoint row or { checkpointId }.');
      await vscode.env.clipboard.writeText(id);
      vscode.window.setStatusBarMessage('svc: copied the checkpoint id', 3000);
      return id;
    }),
  ];
}
