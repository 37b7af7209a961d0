import * as vscode from 'vscode';
import { updateSetting } from '../common/config';
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
      const recent = globalState.get<string[]>('svc.recentModels', []);
      let id = args?.modelId?.trim();
      if (id === undefined) {
        id = await pickOrType('svc: Add a model', 'Model id', recent.filter((m) => !model.models.includes(m)));
        if (!id) return;
      }
      if (!id) throw new Error('The model id is empty.');
      if (model.models.includes(id)) return;
      await updateSetting('models', [...model.models, id]);
      await globalState.update('svc.recentModels', [id, ...recent.filter((m) => m !== id)].slice(0, 20));
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

/** A quick pick of known values that also accepts whatever the user types. */
export async function pickOrType(title: string, placeholder: string, known: string[]): Promise<string | undefined> {
  const qp = vscode.window.createQuickPick();
  qp.title = title;
  qp.placeholder = placeholder;
  const base = known.map((label) => ({ label }));
  qp.items = base;
  qp.onDidChangeValue((v) => {
    const typed = v.trim();
    qp.items = typed && !known.includes(typed) ? [{ label: typed, description: 'use this' }, ...base] : base;
  });
  return new Promise((resolve) => {
    qp.onDidAccept(() => {
      resolve(qp.selectedItems[0]?.label ?? (qp.value.trim() || undefined));
      qp.hide();
    });
    qp.onDidHide(() => {
      resolve(undefined);
      qp.dispose();
    });
    qp.show();
  });
}
