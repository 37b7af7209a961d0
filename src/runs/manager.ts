/**
 * The Runs view's flows, for its commands (commands.ts tells a row from a scripting object and
 * parses it, then calls here): a run's dashboard, a step in the trajectory viewer; with nothing
 * given, the view's selection, else (a user) a pick of the run, the split and the step.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { InputError } from '../api';
import type { Invocation } from '../ui/commands';
import type { Prompts } from '../ui/prompts';
import { TRAJECTORY_VIEWER } from '../common/ids';
import { readRun, runSteps, type Run } from '../files/runs';
import { pickWorkspaceRun } from '../ui/runPick';
import type { RunsModel } from './model';
import type { RunNode } from './provider';

/** A reward band of the viewer (`{ min?, max? }`, checked by the command's schema). */
export interface RewardBand {
  min?: number;
  max?: number;
}

export class RunsManager {
  constructor(
    readonly model: RunsModel,
    /** The Runs view's selection (the palette acts on it). */
    private readonly selection: () => readonly RunNode[],
    /** The split and step picks. */
    private readonly prompts: Pick<Prompts, 'showQuickPick'>,
  ) {}

  /**
   * The training dashboard of the run at `dir` (its model folder), else of the selected run, else
   * (a user) of the run picked. Undefined: no run.
   */
  async openDashboard(how: Invocation, dir?: string): Promise<unknown> {
    dir ??= this.selected('run')?.run.dir;
    if (!dir && how.interactive) dir = (await this.pickRun('svc: Open the dashboard of which run?', 'with a history.jsonl', (r) => r.history))?.dir;
    if (!dir) return undefined;
    const run = this.model.runAt(dir) ?? (await readRun(dir));
    if (!run?.history) throw new InputError(`${dir} has no history.jsonl: the dashboard draws a run's history.`, { file: dir });
    return vscode.commands.executeCommand('svc.dashboard.open', { file: path.join(run.dir, 'history.jsonl') });
  }

  /** Opens a step file in the trajectory viewer; returns its path. */
  async openStepFile(file: string): Promise<string> {
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), TRAJECTORY_VIEWER);
    return file;
  }

  /** Opens a step file in the trajectory viewer showing only the trajectories in `reward` (all when undefined); returns its path. */
  async openStepInBand(file: string, reward?: RewardBand): Promise<string> {
    await vscode.commands.executeCommand('svc.openTrajectoryViewer', { file, ...(reward ? { reward } : {}) });
    return file;
  }

  /** The selected step, else (a user) a step picked of the selected run or a run picked, and its split. Undefined: none. */
  async openSelectedStep(how: Invocation): Promise<string | undefined> {
    const step = this.selected('step');
    if (step) return this.openStepFile(step.file.path);
    if (!how.interactive) return undefined;
    const run = this.selected('run')?.run ?? (await this.pickRun('svc: Open a step of which run?', 'with step files', (r) => r.splits.length > 0));
    if (!run) return undefined;
    const split = run.splits.length === 1 ? run.splits[0] : await this.prompts.showQuickPick(run.splits, { title: `svc: ${run.model}: choose a split` });
    if (!split) return undefined;
    const files = await runSteps(run, split);
    if (!files.length) throw new InputError(`${run.model} has no step file in ${split}.`, { file: path.join(run.dir, 'trajectories', split) });
    const picked = await this.prompts.showQuickPick(
      files.map((f) => ({ label: `step ${f.step}`, description: path.basename(f.path), f })).reverse(),
      { title: `svc: ${run.model} / ${split}: open a step in the trajectory viewer` },
    );
    if (!picked) return undefined;
    return this.openStepFile(picked.f.path);
  }

  private selected<K extends RunNode['kind']>(kind: K): Extract<RunNode, { kind: K }> | undefined {
    return this.selection().find((n): n is Extract<RunNode, { kind: K }> => n.kind === kind);
  }

  private pickRun(title: string, having: string, filter: (r: Run) => boolean): Promise<Run | undefined> {
    return pickWorkspaceRun(this.model, { title, having, filter });
  }
}
