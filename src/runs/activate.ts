/**
 * The Runs view: ART runs on disk (.art/<project>/models/<model>/) beside the service's models,
 * and its commands. No request of its own.
 */
import * as vscode from 'vscode';
import { background } from '../common/background';
import type { StepStatsCache } from '../dashboard/stepStats';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import type { WorkspaceRuns } from '../ui/runPick';
import { registerRunsCommands } from './commands';
import { RunsManager } from './manager';
import { RunsModel } from './model';
import { RunsTreeProvider, type RunNode, type ServiceModels } from './provider';

export interface RunsDeps extends Pick<FeatureDeps, 'commands' | 'log' | 'prompts' | 'contextKeys'> {
  /** The Runs view (created at activation by src/boot/main.ts): from now on it shows this provider's rows. */
  readonly view: (provider: vscode.TreeDataProvider<unknown>) => vscode.TreeView<unknown>;
  /** The service's models (the Checkpoints view's), listed beside the runs. */
  serviceModels: ServiceModels;
  /** The training dashboards: they take the runs (the palette's pick) and their step numbers (the reward distribution). */
  dashboards: { useRuns(runs: WorkspaceRuns & { readonly stats: StepStatsCache }): void };
}

export interface RunsApi {
  model: RunsModel;
  provider: RunsTreeProvider;
  view: vscode.TreeView<RunNode>;
}

/** The local folders of the workspace: runs are read from disk. */
const localFolders = () => (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);

export function activateRuns({ commands, log, prompts, contextKeys, view: showIn, serviceModels, dashboards }: RunsDeps): Feature<RunsApi> {
  const model = new RunsModel(localFolders, log, contextKeys);
  const provider = new RunsTreeProvider(model, serviceModels);
  const view = showIn(provider as vscode.TreeDataProvider<unknown>) as vscode.TreeView<RunNode>;
  dashboards.useRuns(model);
  return feature({ model, provider, view }, [
    model,
    provider,
    // The watcher misses files made inside a folder before it watched that folder: look again when the view is shown.
    view.onDidChangeVisibility((e) => e.visible && background(model.refresh({ quiet: true }), 'Runs: looking for ART runs')),
    ...registerRunsCommands({ commands, manager: new RunsManager(model, () => view.selection, prompts) }),
  ]);
}
