import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError, NotFoundError, type ErrorFix } from '../api';
import { writeSetting, type SettingsScope } from '../common/config';
import { type Commands, type Invocation, scriptArgs } from '../ui/commands';
import { nonBlank, parseArgs, settingsScope } from '../ui/args';
import { treeNode } from '../ui/treeNodes';
import { forgetRecent, pickOrType, pickScope, pushRecent, recent, refusedByService, RECENT_MODELS } from '../common/pick';
import type { Connection } from '../service/connection';
import type { CheckpointsModel } from './model';
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

/** `host[:port]` of the model endpoints, for messages. */
function trainingHost(connection: Connection): string {
  try {
    return new URL(connection.config.trainingBaseUrl || connection.config.baseUrl).host;
  } catch {
    return 'the service';
  }
}

/**
 * Add Model's check: one checkpoints request with a page size of 1. An unknown model (404) is
 * refused with a message naming the model and the host; `empty` when it has no checkpoints yet.
 * Any other failure (no key yet, network, 5xx) does not block adding it: the view shows it.
 */
async function checkModel(model: CheckpointsModel, connection: Connection, how: Invocation, modelId: string): Promise<{ empty: boolean } | undefined> {
  const client = connection.client;
  if (!client || !model.ready) return undefined;
  try {
    if (how.interactive) await connection.prepare('training');
    const page = await client.models.listCheckpoints(modelId, { limit: 1 });
    return { empty: page.data.length === 0 && !page.has_more };
  } catch (e) {
    if (e instanceof NotFoundError) throw new InputError(`${trainingHost(connection)} has no model "${modelId}" (404): check the id; it was not added.`, { field: 'modelId' });
    return undefined;
  }
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

/** Writes svc.models where the user chose (asked when run from the UI; `scope` or user settings when scripted). */
async function saveModels(how: Invocation, models: string[], arg: ModelArg): Promise<boolean> {
  const requested = arg && 'scope' in arg ? arg.scope : undefined;
  const scope = requested ?? (how.interactive ? await pickScope('models') : 'user');
  if (!scope) return false;
  // A setting that cannot be written is the presenter's to show (or the scripted caller's rejection).
  await writeSetting('models', models, scope);
  return true;
}

export interface CheckpointsDeps {
  commands: Commands;
  model: CheckpointsModel;
  connection: Connection;
  globalState: vscode.Memento;
}

/** The Checkpoints view's commands. */
export function activateCheckpoints({ commands, model, connection, globalState }: CheckpointsDeps): vscode.Disposable[] {
  const modelIdOf = (arg: ModelArg) => (arg && 'modelId' in arg ? arg.modelId : undefined);
  const refresh = (how: Invocation, id: string | undefined) => {
    model.reset(id);
    return id ? model.loadMore(id, how) : undefined;
  };
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
        id = await pickOrType('svc: Add a model', 'Model id', recent(globalState, RECENT_MODELS).filter((m) => !model.models.includes(m)));
        if (!id) return;
      }
      if (!id) throw new InputError('The model id is empty.');
      if (model.models.includes(id)) return;
      let checked: { empty: boolean } | undefined;
      try {
        checked = await checkModel(model, connection, how, id);
      } catch (e) {
        // Refused (an unknown model): out of the recent list; the presenter or the script's rejection says why.
        await forgetRecent(globalState, RECENT_MODELS, id);
        throw e;
      }
      if (!(await saveModels(how, [...model.models, id], args && { modelId: id, scope: args.scope }))) return;
      await pushRecent(globalState, RECENT_MODELS, id);
      if (checked?.empty) model.knownEmpty(id);
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
      if ((arg && 'unknownModel' in arg && arg.unknownModel) || refusedByService(model.state(id).error)) await forgetRecent(globalState, RECENT_MODELS, id);
      if (!model.models.includes(id)) return;
      await saveModels(
        how,
        model.models.filter((m) => m !== id),
        arg,
      );
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
