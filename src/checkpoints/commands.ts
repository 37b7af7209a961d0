import * as vscode from 'vscode';
import { isSettingsScope, writeSetting, type SettingsScope } from '../common/config';
import { registerCommand, type Invocation } from '../common/interaction';
import { pickOrType, pickScope, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import type { CheckpointsModel } from './model';
import type { CheckpointNode } from './provider';

type ModelArg = CheckpointNode | { modelId: string; scope?: SettingsScope } | undefined;

/** Writes svc.models where the user chose (asked when run from the UI; `scope` or user settings when scripted). */
async function saveModels(how: Invocation, models: string[], arg: ModelArg): Promise<boolean> {
  const requested = arg && 'scope' in arg ? arg.scope : undefined;
  if (requested !== undefined && !isSettingsScope(requested)) throw new Error(`scope must be "user" or "workspace", not ${JSON.stringify(requested)}.`);
  const scope = requested ?? (how.interactive ? await pickScope('models') : 'user');
  if (!scope) return false;
  try {
    await writeSetting('models', models, scope);
  } catch (e) {
    if (!how.interactive) throw e;
    vscode.window.showErrorMessage(`svc: ${(e as Error).message}`);
    return false;
  }
  return true;
}

export function registerCheckpointCommands(model: CheckpointsModel, globalState: vscode.Memento): vscode.Disposable[] {
  const modelIdOf = (arg: ModelArg) => (arg && 'modelId' in arg ? arg.modelId : undefined);
  return [
    registerCommand('svc.checkpoints.refresh', (how, arg?: ModelArg) => {
      const id = modelIdOf(arg);
      model.reset(id);
      return id ? model.loadMore(id, how) : undefined;
    }),
    registerCommand('svc.checkpoints.loadMore', (how, arg: ModelArg) => {
      const id = modelIdOf(arg);
      return id ? model.loadMore(id, how) : undefined;
    }),
    registerCommand('svc.checkpoints.toggleOrder', (_how, args?: { order?: 'asc' | 'desc' }) => {
      if (args?.order !== undefined && args.order !== 'asc' && args.order !== 'desc') throw new Error(`order must be "asc" or "desc", not ${JSON.stringify(args.order)}.`);
      return model.setOrder(args?.order ?? (model.order === 'asc' ? 'desc' : 'asc'));
    }),
    registerCommand('svc.checkpoints.addModel', async (how, args?: { modelId?: string; scope?: SettingsScope }) => {
      let id = args?.modelId?.trim();
      if (id === undefined) {
        if (args) throw new Error('svc.checkpoints.addModel needs { modelId }.');
        id = await pickOrType('svc: Add a model', 'Model id', recent(globalState, RECENT_MODELS).filter((m) => !model.models.includes(m)));
        if (!id) return;
      }
      if (!id) throw new Error('The model id is empty.');
      if (model.models.includes(id)) return;
      if (await saveModels(how, [...model.models, id], args as ModelArg)) await pushRecent(globalState, RECENT_MODELS, id);
    }),
    registerCommand('svc.checkpoints.removeModel', async (how, arg?: ModelArg) => {
      let id = modelIdOf(arg);
      if (!id) {
        if (arg) throw new Error('svc.checkpoints.removeModel needs { modelId }.');
        id = await vscode.window.showQuickPick(model.models, { title: 'svc: Remove a model' });
      }
      if (!id) return;
      await saveModels(
        how,
        model.models.filter((m) => m !== id),
        arg,
      );
    }),
    registerCommand('svc.checkpoints.copyId', async (_how, arg?: CheckpointNode) => {
      if (!arg || arg.kind !== 'checkpoint') return undefined;
      await vscode.env.clipboard.writeText(arg.checkpoint.id);
      vscode.window.setStatusBarMessage('svc: copied the checkpoint id', 3000);
      return arg.checkpoint.id;
    }),
  ];
}
