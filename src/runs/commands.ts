/**
 * The Runs view's commands. Each takes a row of the view (a click, Enter, a menu), a scripting
 * object (never a prompt), or nothing (the palette: the view's selection, else a pick).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError } from '../api';
import { isTreeNode, treeNode } from '../ui/treeNodes';
import type { Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { TRAJECTORY_VIEWER } from '../common/ids';
import { rewardBandArg } from '../viewer/provider';
import { readRun, runSteps, type Run } from '../files/runs';
import type { RunsModel } from './model';
import type { RunNode } from './provider';
import { pickWorkspaceRun } from '../ui/runPick';

/** The path of a scripting object's field: absolute, or relative to the first workspace folder. */
function resolvePath(p: string): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  return path.isAbsolute(p) || !folder ? path.resolve(p) : path.join(folder.fsPath, p);
}

const OPEN_DASHBOARD_ARGS = z.object({ dir: nonBlank() });
const OPEN_STEP_ARGS = z.object({ file: nonBlank(), reward: rewardBandArg.optional() });

/** What the Runs view's commands take from the composition root. */
export interface RunsCommandsDeps {
  commands: Commands;
  model: RunsModel;
  /** The Runs view's selection (the palette acts on it). */
  selection: () => readonly RunNode[];
}

/** The Runs view's commands. */
export function registerRunsCommands({ commands, model, selection }: RunsCommandsDeps): vscode.Disposable[] {
  const selected = <K extends RunNode['kind']>(kind: K) => selection().find((n): n is Extract<RunNode, { kind: K }> => n.kind === kind);

  const pickRun = (title: string, having: string, filter: (r: Run) => boolean) => pickWorkspaceRun(model, { title, having, filter });

  return [
    commands.register('svc.runs.refresh', () => model.refresh()),
    /** A run row, `{ dir }` (the model folder), or the selected run / a pick: its history's dashboard. */
    commands.register('svc.runs.openDashboard', async (how, arg?: unknown) => {
      let dir: string | undefined;
      if (isTreeNode(arg) && (arg as RunNode).kind === 'run') dir = (arg as Extract<RunNode, { kind: 'run' }>).run.dir;
      else if (arg !== undefined && !isTreeNode(arg)) {
        const { dir: d } = parseArgs('svc.runs.openDashboard', OPEN_DASHBOARD_ARGS, arg, '{ dir: the model folder of a run (.art/<project>/models/<model>) }');
        dir = resolvePath(d);
      } else {
        dir = selected('run')?.run.dir;
        if (!dir && how.interactive) dir = (await pickRun('svc: Open the dashboard of which run?', 'with a history.jsonl', (r) => r.history))?.dir;
        if (!dir) return undefined;
      }
      const run = model.runAt(dir) ?? (await readRun(dir));
      if (!run?.history) throw new InputError(`${dir} has no history.jsonl: the dashboard draws a run's history.`, { file: dir });
      return vscode.commands.executeCommand('svc.dashboard.open', { file: path.join(run.dir, 'history.jsonl') });
    }),
    /**
     * A step row, `{ file, reward?: { min?, max? } }` (the viewer then shows only the trajectories
     * in that reward band), or the selected step / a pick of a run, split and step.
     */
    commands.register('svc.runs.openStep', async (how, arg?: unknown) => {
      if (isTreeNode(arg) && (arg as RunNode).kind === 'step') {
        await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file((arg as Extract<RunNode, { kind: 'step' }>).file.path), TRAJECTORY_VIEWER);
        return (arg as Extract<RunNode, { kind: 'step' }>).file.path;
      }
      if (arg !== undefined && !isTreeNode(arg)) {
        const a = parseArgs('svc.runs.openStep', OPEN_STEP_ARGS, arg ?? {}, '{ file: a step file, reward?: { min?, max? } }');
        const file = resolvePath(a.file);
        await vscode.commands.executeCommand('svc.openTrajectoryViewer', { file, ...(a.reward ? { reward: a.reward } : {}) });
        return file;
      }
      const step = selected('step');
      if (step) {
        await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(step.file.path), TRAJECTORY_VIEWER);
        return step.file.path;
      }
      if (!how.interactive) return undefined;
      const run = selected('run')?.run ?? (await pickRun('svc: Open a step of which run?', 'with step files', (r) => r.splits.length > 0));
      if (!run) return undefined;
      const split = run.splits.length === 1 ? run.splits[0] : await vscode.window.showQuickPick(run.splits, { title: `svc: ${run.model}: choose a split` });
      if (!split) return undefined;
      const files = await runSteps(run, split);
      if (!files.length) throw new InputError(`${run.model} has no step file in ${split}.`, { file: path.join(run.dir, 'trajectories', split) });
      const picked = await vscode.window.showQuickPick(
        files.map((f) => ({ label: `step ${f.step}`, description: path.basename(f.path), f })).reverse(),
        { title: `svc: ${run.model} / ${split}: open a step in the trajectory viewer` },
      );
      if (!picked) return undefined;
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(picked.f.path), TRAJECTORY_VIEWER);
      return picked.f.path;
    }),
  ];
}

/** A node for a run, for callers outside the view (the tests). */
export function runNode(run: Run): RunNode {
  return treeNode<RunNode>({ kind: 'run', run });
}
