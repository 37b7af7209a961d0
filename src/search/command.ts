/**
 * "svc: Search Run…" (svc.searchRun) and "svc: Clear Search Cache": the arguments object's schema
 * and thin commands over the RunSearchManager (manager.ts), which holds the flows. Called with an
 * arguments object svc.searchRun never prompts: it returns the hits (and opens one with `open`).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import type { Commands } from '../ui/commands';
import { parseArgs } from '../ui/args';
import type { TrajectoryViewerProvider } from '../viewer/provider';
import type { WorkspaceRuns } from '../ui/runPick';
import { defaultSearchCache } from './searchCache';
import { feature, type Feature, type FeatureDeps } from '../service/feature';
import { VERDICTS, type Verdict } from './runSearch';
import { RunSearchManager } from './manager';

export interface SearchCommandsDeps {
  commands: Commands;
  manager: RunSearchManager;
}

/** Search Run… and Clear Search Cache. */
export function registerSearchCommands({ commands, manager }: SearchCommandsDeps): vscode.Disposable[] {
  return [
    commands.register('svc.clearSearchCache', (how) => manager.clearCache(how)),
    commands.register('svc.searchRun', (how, arg?: unknown) => {
      if (!how.interactive) return manager.search(parseArgs('svc.searchRun', SEARCH_RUN_ARGS, arg, SEARCH_RUN_USAGE));
      return manager.searchInteractively(arg instanceof vscode.Uri ? arg : undefined);
    }),
  ];
}

export interface SearchDeps extends Pick<FeatureDeps, 'commands' | 'storage' | 'prompts'> {
  /** Opens a hit's group in the trajectory viewer. */
  viewer: TrajectoryViewerProvider;
  /** The workspace's runs (the Runs view's), for the palette's pick. */
  runs: WorkspaceRuns;
}

/**
 * Search Run… and Clear Search Cache, over the process's search cache with its disk folder in the
 * extension's global storage (`search-cache`), with the budget of svc.search.cacheSizeGiB, followed as it changes.
 */
export function activateSearch({ commands, storage, prompts, viewer, runs }: SearchDeps): Feature {
  const manager = new RunSearchManager(viewer, runs, defaultSearchCache, path.join(storage.globalStorageUri.fsPath, 'search-cache'), prompts);
  return feature(undefined, [manager.followCacheSetting(), ...registerSearchCommands({ commands, manager })]);
}

/** `{ lo?: number, hi?: number }`, finite numbers, no other key. */
function range<L extends string, H extends string>(name: string, lo: L, hi: H) {
  const error = `"${name}" must be { ${lo}?: number, ${hi}?: number }`;
  // z.number() refuses NaN and the infinities.
  const bound = z.number({ error }).optional();
  return z.strictObject({ [lo]: bound, [hi]: bound } as Record<L | H, typeof bound>, { error }).optional();
}

const SEARCH_RUN_USAGE = '{ run or files, query, regex?, split?, steps?, reward?, role?, tool?, verdict?, limit?, open? }';
const SEARCH_RUN_ARGS = z
  .object({
    run: z.string().optional(),
    files: z.array(z.string()).optional(),
    query: z.string({ error: '"query" must be a non-empty string' }).min(1, { error: '"query" must be a non-empty string' }),
    regex: z.boolean().optional(),
    caseSensitive: z.boolean().optional(),
    verdict: z.enum(VERDICTS as [Verdict, ...Verdict[]], { error: `"verdict" must be one of ${VERDICTS.join(', ')}` }).optional(),
    steps: range('steps', 'from', 'to'),
    reward: range('reward', 'min', 'max'),
    split: z.string().optional(),
    role: z.string().optional(),
    tool: z.string().optional(),
    limit: z.int({ error: '"limit" must be a positive integer' }).min(1, { error: '"limit" must be a positive integer' }).optional(),
    open: z.int().min(0).optional(),
  })
  .refine((a) => (a.run === undefined) !== (a.files === undefined), { error: 'give exactly one of "run" (a run folder or its history.jsonl) and "files"', path: ['run'] });

