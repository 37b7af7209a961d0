/**
 * The Checkpoints view: the models of svc.models and their checkpoints, its badge of new ones,
 * and its commands (Add/Remove Model, refresh, order, copy).
 */
import type * as vscode from 'vscode';
import type { Checkpoint } from '../api';
import { background } from '../common/background';
import { forgetRecent, RECENT_MODELS, refusedByService } from '../common/pick';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { NewCheckpointsBadge, type NewCheckpointCount } from './badge';
import { registerCheckpointsCommands } from './commands';
import { CheckpointsManager } from './manager';
import { CheckpointsModel } from './model';
import { CheckpointsTreeProvider, type BestCheckpoints, type CheckpointNode } from './provider';

/** What the view takes of the training dashboards: the best checkpoint each marks, the new ones their polls found. */
export interface DashboardCheckpoints extends BestCheckpoints, NewCheckpointCount {
  readonly onDidFindCheckpoints: vscode.Event<{ modelId: string; checkpoints: Checkpoint[] }>;
}

export interface CheckpointsDeps extends FeatureDeps {
  /** The Checkpoints view (created at activation by src/boot/main.ts): from now on it shows this provider's rows. */
  readonly view: (provider: vscode.TreeDataProvider<unknown>) => vscode.TreeView<unknown>;
  dashboards: DashboardCheckpoints;
}

export interface CheckpointsApi {
  model: CheckpointsModel;
  provider: CheckpointsTreeProvider;
  view: vscode.TreeView<CheckpointNode>;
}

export function activateCheckpoints(deps: CheckpointsDeps): Feature<CheckpointsApi> {
  const { commands, errors, log, connection, storage, dashboards } = deps;
  const model = new CheckpointsModel(connection, log, storage.workspaceState);
  const provider = new CheckpointsTreeProvider(model, errors, dashboards);
  const view = deps.view(provider as vscode.TreeDataProvider<unknown>) as vscode.TreeView<CheckpointNode>;
  provider.attach(view);
  return feature({ model, provider, view }, [
    model,
    provider,
    new NewCheckpointsBadge(view, dashboards),
    dashboards.onDidFindCheckpoints(({ modelId, checkpoints }) => model.addFound(modelId, checkpoints)),
    // The recent models (offered first in the pickers) drop a model the service does not know.
    model.onDidChange((changed) => {
      for (const id of model.models) {
        if ((!changed || id === changed) && refusedByService(model.state(id).error)) background(forgetRecent(storage.globalState, RECENT_MODELS, id), `Forgetting the recent model ${id}`);
      }
    }),
    ...registerCheckpointsCommands({ commands, manager: new CheckpointsManager(model, connection, storage.globalState, deps.prompts) }),
  ]);
}
