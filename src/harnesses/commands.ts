/**
 * "svc: Convert to ART Trajectories…": another harness's trajectories (an ATIF trajectory.json, a
 * Harbor job folder; the formats of convert.ts) written as an ART trajectory JSONL file the upload
 * accepts. From the explorer, the palette or the viewer it asks for the score to use as the reward,
 * how to group and where to write; a script passes `{source, output, reward?, groupBy?}` and nothing
 * opens. "svc: Open Harbor Job in Trajectory Viewer" opens a job folder in the viewer.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { filesFromArgs, isArgumentsObject, type Commands } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { CONVERT_COMMAND, HarnessesManager, OPEN_JOB_COMMAND } from './manager';

/** The arguments object of a scripted call. */
export const ConvertArgsSchema = z.strictObject({
  source: z.string().min(1),
  output: z.string().min(1),
  reward: z.string().min(1).optional(),
  // ATIF: task, trial or job; an Inspect log: a sample metadata key (default: one group per sample).
  groupBy: z.string().min(1).max(200).optional(),
});
const OPEN_JOB_ARGS = z.strictObject({ folder: nonBlank() });

export interface HarnessesCommandsDeps {
  commands: Commands;
  manager: HarnessesManager;
}

/** Convert to ART and Open Harbor Job: thin, over the manager (arguments parsed, the rest asked). */
export function registerHarnessesCommands({ commands, manager }: HarnessesCommandsDeps): vscode.Disposable[] {
  return [
    commands.register(CONVERT_COMMAND, (how, clicked?: unknown, selected?: unknown) => {
      if (!how.interactive) return manager.convert(parseArgs(CONVERT_COMMAND, ConvertArgsSchema, clicked, '{ source, output, reward?, groupBy? }'));
      return manager.convertInteractively(filesFromArgs(clicked, selected)[0]);
    }),
    commands.register(OPEN_JOB_COMMAND, (how, clicked?: unknown, selected?: unknown) => {
      // `{ folder }` from a script; a folder clicked in the explorer; nothing from the palette.
      return manager.openJob(how, isArgumentsObject(clicked) ? parseArgs(OPEN_JOB_COMMAND, OPEN_JOB_ARGS, clicked, '{ folder }').folder : filesFromArgs(clicked, selected)[0]);
    }),
  ];
}

/** Convert to ART and Open Harbor Job (no model or view: the commands and their manager are the feature). */
export function activateHarnesses({ commands, log, prompts }: Pick<FeatureDeps, 'commands' | 'log' | 'prompts'>): Feature {
  return feature(undefined, registerHarnessesCommands({ commands, manager: new HarnessesManager(log, prompts) }));
}
