/**
 * The palette's run pick, one for every command that works on a run (the dashboard, a step, Search
 * Run, Follow Scenario): the runs the Runs view found in the workspace folders that the command can
 * use, one item per run (its model, project and base model, its folder); one run is taken without
 * asking; none rejects with what a run is and how to get one (an Open Folder… button), never an
 * empty pick.
 */
import * as vscode from 'vscode';
import { InputError } from '../api';
import type { Run } from '../files/runs';

/** The workspace's runs as the pick needs them (the Runs view's model is one). */
export interface WorkspaceRuns {
  /** Settles once the workspace folders have been looked through. */
  whenScanned(): Promise<void>;
  readonly runs: readonly Run[];
}

export interface RunPick {
  /** The pick's title ("svc: Search Run: which run?"). */
  title: string;
  /** The runs the command can use. */
  filter: (r: Run) => boolean;
  /** What those runs have, for the message when there is none ("with step files"). */
  having: string;
  /** What else works, for the same message ("or right-click a run folder in the Explorer"). */
  otherwise?: string;
}

export const WHAT_A_RUN_IS = 'A run is the folder ART\'s training client writes: .art/<project>/models/<model>/ with history.jsonl and trajectories/<split>/<step>.parquet';

/** The run to work on: the only one, or the one picked (undefined: the pick was closed). */
export async function pickWorkspaceRun(model: WorkspaceRuns, o: RunPick): Promise<Run | undefined> {
  await model.whenScanned();
  const runs = model.runs.filter(o.filter);
  if (!runs.length) {
    const others = model.runs.length ? ` (${model.runs.length === 1 ? 'its run' : `its ${model.runs.length} runs`} ${model.runs.length === 1 ? 'has' : 'have'} none)` : '';
    throw new InputError(`No ART run ${o.having} in the workspace folders${others}. ${WHAT_A_RUN_IS}. Open the folder that holds the .art folder (File > Open Folder…)${o.otherwise ? `, ${o.otherwise}` : ''}.`, {}, { fix: { title: 'Open Folder…', command: 'vscode.openFolder' } });
  }
  if (runs.length === 1) return runs[0];
  const picked = await vscode.window.showQuickPick(
    runs.map((run) => ({
      label: run.model,
      description: `${run.project}${run.modelJson?.baseModel ? ` · ${run.modelJson.baseModel}` : ''}`,
      detail: vscode.workspace.asRelativePath(run.dir),
      run,
    })),
    { title: o.title, placeHolder: `${runs.length} runs ${o.having} in the workspace folders`, matchOnDescription: true, matchOnDetail: true },
  );
  return picked?.run;
}
