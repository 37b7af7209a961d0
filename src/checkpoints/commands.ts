import * as vscode from 'vscode';
import { updateSetting } from '../common/config';
import { pickOrType, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import type { CheckpointsModel } from './model';
import type { CheckpointNode } from './provider';

type ModelArg = CheckpointNode | { modelId: string } | undefined;

export function registerCheckpointCommands(model: CheckpointsModel, globalState: vscode.Memento): vscode.Disposable[] {
  const modelIdOf = (arg: ModelArg) => (arg && 'modelId' in arg ? arg.modelId : undefined);
  return [
    vscode.commands.registerCommand('svc.checkpoints.refresh', (arg?: ModelArg) => {
      const id = modelIdOf(arg);
      model.reset(id);
      return id ? model.loadMore(id) : undefined;
    }),
    vscode.commands.registerCommand('svc.checkpoints.loadMore', (arg: ModelArg) => {
      const id = modelIdOf(arg);
      return id ? model.loadMore(id) : undefined;
    }),
    vscode.commands.registerCommand('svc.checkpoints.toggleOrder', (args?: { order?: 'asc' | 'desc' }) =>
      updateSetting('checkpoints.order', args?.order ?? (model.order === 'asc' ? 'desc' : 'asc')),
    ),
    vscode.commands.registerCommand('svc.checkpoints.addModel', async (args?: { modelId?: string }) => {
      let id = args?.modelId?.trim();
      if (id === undefined) {
        id = await pickOrType('svc: Add a model', 'Model id', recent(globalState, RECENT_MODELS).filter((m) => !model.models.includes(m)));
        if (!id) return;
      }
      if (!id) throw new Error('The model id is empty.');
      if (model.models.includes(id)) return;
      await updateSetting('models', [...model.models, id]);
      await pushRecent(globalState, RECENT_MODELS, id);
    }),
    vscode.commands.registerCommand('svc.checkpoints.removeModel', async (arg?: ModelArg) => {
      let id = modelIdOf(arg);
      if (!id) id = await vscode.window.showQuickPick(model.models, { title: 'svc: Remove a model' });
      if (!id) return;
      await updateSetting(
        'models',
        model.models.filter((m) => m !== id),
      );
    }),
    vscode.commands.registerCommand('svc.checkpoints.copyId', async (arg?: CheckpointNode) => {
      if (!arg || arg.kind !== 'checkpoint') return undefined;
      await vscode.env.clipboard.writeText(arg.checkpoint.id);
      vscode.window.setStatusBarMessage('svc: copied the checkpoint id', 3000);
      return arg.checkpoint.id;
    }),
  ];
}
