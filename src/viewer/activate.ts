/**
 * The trajectory viewer (a custom editor for JSON, JSONL, Parquet, Inspect and ATIF files) and
 * Follow Scenario / Compare Trajectories panels.
 */
import type * as vscode from 'vscode';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import type { WorkspaceRuns } from '../ui/runPick';
import { TrajectoryViewerProvider } from './provider';
import { ScenarioPanels } from './scenarioPanel';

export interface ViewerDeps extends Pick<FeatureDeps, 'commands' | 'errors' | 'log' | 'storage' | 'contextKeys'> {
  /** Hands the custom editor's provider to the one src/boot/main.ts registered at activation. */
  readonly editor: (provider: vscode.CustomReadonlyEditorProvider) => void;
  /** The workspace's runs (the Runs view's), for Follow Scenario's pick. */
  runs: WorkspaceRuns;
}

export interface ViewerApi {
  viewer: TrajectoryViewerProvider;
  /** Follow Scenario Across Steps… (the tests wait on its tables). */
  scenarios: ScenarioPanels;
}

export function activateViewer({ commands, errors, log, storage, contextKeys, editor, runs }: ViewerDeps): Feature<ViewerApi> {
  const viewer = new TrajectoryViewerProvider(storage.extensionUri, log, errors, contextKeys);
  editor(viewer);
  const scenarios = new ScenarioPanels(storage.extensionUri, log, errors, viewer.transcriptStore, runs);
  return feature({ viewer, scenarios }, [...viewer.register(commands), ...scenarios.register(commands)]);
}
