/**
 * The Runs view's commands. Each takes a row of the view (a click, Enter, a menu), a scripting
 * object (never a prompt), or nothing (the palette: the view's selection, else a pick).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { isTreeNode, treeNode } from '../ui/treeNodes';
import type { Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { rewardBandArg } from '../viewer/provider';
import type { Run } from '../files/runs';
import type { RunsManager } from './manager';
import type { RunNode } from './provider';

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
  manager: RunsManager;
}

/** The Runs view's commands: thin, over the manager (a row or the arguments parsed, the rest asked). */
export function registerRunsCommands({ commands, manager }: RunsCommandsDeps): vscode.Disposable[] {
  const node = <K extends RunNode['kind']>(arg: unknown, kind: K) => (isTreeNode(arg) && (arg as RunNode).kind === kind ? (arg as Extract<RunNode, { kind: K }>) : undefined);
  const script = (arg: unknown) => arg !== undefined && !isTreeNode(arg);
  return [
    commands.register('svc.runs.refresh', () => manager.model.refresh()),
    /** A run row, `{ dir }` (the model folder), or the selected run / a pick: its history's dashboard. */
    commands.register('svc.runs.openDashboard', (how, arg?: unknown) => {
      const row = node(arg, 'run');
      if (row) return manager.openDashboard(how, row.run.dir);
      if (script(arg)) return manager.openDashboard(how, resolvePath(parseArgs('svc.runs.openDashboard', OPEN_DASHBOARD_ARGS, arg, '{ dir: the model folder of a run (.art/<project>/models/<model>) }').dir));
      return manager.openDashboard(how);
    }),
    /**
     * A step row, `{ file, reward?: { min?, max? } }` (the viewer then shows only the trajectories
     * in that reward band), or the selected step / a pick of a run, split and step.
     */
    commands.register('svc.runs.openStep', (how, arg?: unknown) => {
      const row = node(arg, 'step');
      if (row) return manager.openStepFile(row.file.path);
      if (script(arg)) {
        const a = parseArgs('svc.runs.openStep', OPEN_STEP_ARGS, arg, '{ file: a step file, reward?: { min?, max? } }');
        return manager.openStepInBand(resolvePath(a.file), a.reward);
      }
      return manager.openSelectedStep(how);
    }),
  ];
}

/** A node for a run, for callers outside the view (the tests). */
export function runNode(run: Run): RunNode {
  return treeNode<RunNode>({ kind: 'run', run });
}
