/**
 * The training dashboards (a model's checkpoints, a run's history.jsonl) and Compare Runs: their
 * panels, the serializers that restore them, and their commands.
 */
import type * as vscode from 'vscode';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { registerDashboardCommands } from './commands';
import { CompareRuns } from './compare';
import { registerCompareCommand } from './compareCommand';
import { Dashboards } from './manager';
import { DashboardOpener } from './opener';

export interface DashboardDeps extends FeatureDeps {
  /** Registers the dashboard panels' serializer (src/boot/main.ts registered the real one at activation). */
  readonly dashboardSerializer: (serializer: vscode.WebviewPanelSerializer) => void;
  /** The same for the Compare Runs panels. */
  readonly compareSerializer: (serializer: vscode.WebviewPanelSerializer) => void;
}

export interface DashboardApi {
  dashboards: Dashboards;
  compareRuns: CompareRuns;
}

export function activateDashboard(deps: DashboardDeps): Feature<DashboardApi> {
  const { commands, errors, log, connection, storage } = deps;
  const dashboards = new Dashboards(connection, errors, deps.prompts, log, storage);
  const compareRuns = new CompareRuns(connection, errors, log, storage.extensionUri);
  const opener = new DashboardOpener(dashboards, compareRuns, connection, deps.prompts, storage.globalState);
  deps.dashboardSerializer(dashboards.serializer());
  deps.compareSerializer(compareRuns.serializer());
  return feature({ dashboards, compareRuns }, [
    dashboards,
    compareRuns,
    ...registerDashboardCommands({ commands, opener }),
    registerCompareCommand({ commands, opener }),
  ]);
}
