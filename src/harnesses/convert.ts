/**
 * Trajectories of other harnesses as ART trajectory groups: the format of a source is detected
 * (a file or a folder), and its own `toArtGroups` gives the groups, what the conversion left out
 * (`lost`) and the scores one may pick as the reward. Convert to ART writes them as a JSONL file the
 * upload accepts; the viewer and svc_summarize_trajectories read them the same way. A format plugs
 * in with one entry of HARNESS_FORMATS. No `vscode` import.
 */
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { InputError } from '../api/errors';
import { validateTrajectoryFile } from '../files';
import { isEvalLog } from '../files/evalIndex';
import { toArtGroups as inspectToArtGroups } from '../files/inspectArt';
import { ATIF_LIMITS, AtifError, defaultScore, jobTrajectoryFiles, looksLikeAtif, readTrials, scoreNames, type AtifTrial } from './atif';

export interface ToArtOptions {
  /** The score to use as each trajectory's reward (a name among `scores`); the format's default when left out. */
  reward?: string;
  /** How trajectories make groups: `task` (the default), `trial` (one each), or `job` (one group). */
  groupBy?: string;
  signal?: AbortSignal;
}

export interface ToArtResult {
  groups: object[];
  /** What the conversion left out or changed, in words (each said once). */
  lost: string[];
  /** The scores the source has, any of which may be the reward. */
  scores: string[];
}

export type ToArtGroups = (source: string, opts: ToArtOptions) => Promise<ToArtResult>;

export interface HarnessFormat {
  id: string;
  /** For messages: "ATIF (Harbor)". */
  label: string;
  /** Whether `source` is of this format (`head`: a file's first 64 KiB as text; undefined for a folder). */
  detect(source: string, isDir: boolean, head: string | undefined): boolean | Promise<boolean>;
  toArtGroups: ToArtGroups;
}

export const GROUP_BY = ['task', 'trial', 'job'] as const;

type Obj = Record<string, unknown>;

function groupKey(t: AtifTrial, by: string): string {
  return by === 'job' ? '' : by === 'trial' ? t.file : t.task;
}

/**
 * ATIF trajectories (a trajectory.json, or a Harbor job folder of trials) as ART groups: one per
 * task (or trial, or the whole job), each trial's reward the verifier's score named by `reward`.
 * A trial that raised and has no score is the group's exception, as ART records rollouts that
 * raised; any other trial without the score is an error naming its result.json and the field.
 */
export const atifToArtGroups: ToArtGroups = async (source, opts) => {
  const isDir = (await stat(source)).isDirectory();
  return trialsToArtGroups(source, await readTrials(source, { isDir, signal: opts.signal }), opts);
};

/** Trials already read (atifToArtGroups's work after the reading). */
export function trialsToArtGroups(source: string, trials: readonly AtifTrial[], opts: Omit<ToArtOptions, 'signal'>): ToArtResult {
  const scores = scoreNames(trials);
  const by = opts.groupBy ?? 'task';
  if (!(GROUP_BY as readonly string[]).includes(by)) throw new InputError(`groupBy "${by}" is not one of ${GROUP_BY.join(', ')}`, { field: 'groupBy' });
  const reward = opts.reward ?? defaultScore(scores);
  if (!reward) {
    throw new InputError(
      scores.length
        ? `${source}: pick the score to use as the reward (reward): the trials have ${scores.join(', ')}`
        : `${source}: no score to use as the reward: no trial has a result.json with verifier_result.rewards (Harbor writes it at <trial>/result.json)`,
      { file: source, field: 'reward' },
    );
  }
  if (!scores.includes(reward)) throw new InputError(`${source}: no trial has the score "${reward}"; the trials have ${scores.length ? scores.join(', ') : 'no scores'}`, { file: source, field: 'reward' });
  const lost = new Set<string>();
  const groups = new Map<string, { trajectories: Obj[]; exceptions: Obj[]; task: string }>();
  for (const t of trials) {
    for (const l of t.lost) lost.add(l);
    if (t.subagents.length) lost.add(`subagent trajectories (${t.subagents.length} in ${t.name}): not trajectories of the trial's reward; open the job in the viewer to read them`);
    const key = groupKey(t, by);
    const g = groups.get(key) ?? { trajectories: [], exceptions: [], task: t.task };
    groups.set(key, g);
    const value = t.rewards[reward];
    if (value === undefined) {
      const ex = t.result?.exception_info;
      if (ex) {
        g.exceptions.push({ type: ex.exception_type ?? 'exception', message: `trial ${t.name}: ${ex.exception_message ?? ''}`, traceback: ex.exception_traceback ?? '' });
        lost.add(`trials that raised without a "${reward}" score are the group's exceptions, not trajectories`);
        continue;
      }
      throw new AtifError(t.resultFile ?? path.join(path.dirname(path.dirname(t.file)), 'result.json'), `trial ${t.name} has no score "${reward}"${t.result ? '' : ' (no result.json)'}`, `verifier_result.rewards.${reward}`);
    }
    g.trajectories.push({ ...t.trajectory, reward: value });
  }
  const out: object[] = [];
  for (const g of groups.values()) {
    const group: Obj = { trajectories: g.trajectories, metadata: { harness: 'harbor', ...(by === 'job' ? {} : { task_name: g.task }), reward_score: reward } };
    if (g.exceptions.length) group.exceptions = g.exceptions;
    out.push(group);
  }
  return { groups: out, lost: [...lost], scores };
}

/** ATIF trajectories for the viewer: the job's trials as one group (each with its reward where the job recorded one), then each trial's subagents as a group. */
export async function atifViewerGroups(source: string, isDir: boolean, signal?: AbortSignal): Promise<object[]> {
  const trials = await readTrials(source, { isDir, signal });
  const reward = defaultScore(scoreNames(trials));
  const main: Obj[] = trials.map((t) => (reward && t.rewards[reward] !== undefined ? { ...t.trajectory, reward: t.rewards[reward] } : t.trajectory));
  const groups: object[] = [{ trajectories: main, metadata: { harness: 'harbor', source: path.basename(source), ...(reward ? { reward_score: reward } : {}) } }];
  for (const t of trials) {
    if (!t.subagents.length) continue;
    groups.push({ trajectories: t.subagents.map((s) => s.trajectory), metadata: { harness: 'harbor', subagents_of: t.name } });
  }
  return groups;
}

export const ATIF_FORMAT: HarnessFormat = {
  id: 'atif',
  label: 'ATIF (Harbor)',
  detect: async (source, isDir, head) => {
    if (!isDir) return head !== undefined && looksLikeAtif(head);
    try {
      return (await jobTrajectoryFiles(source)).length > 0;
    } catch {
      return false;
    }
  },
  toArtGroups: atifToArtGroups,
};

/** The formats Convert to ART knows, tried in order. (Inspect's `.eval` plugs in here.) */
/** An Inspect AI `.eval` log: a group per sample (its epochs) or per sample metadata key `groupBy`; src/files/inspectArt.ts. */
export const INSPECT_FORMAT: HarnessFormat = {
  id: 'inspect',
  label: 'Inspect AI log (.eval)',
  detect: (source, isDir) => !isDir && isEvalLog(source),
  toArtGroups: inspectToArtGroups,
};

export const HARNESS_FORMATS: HarnessFormat[] = [ATIF_FORMAT, INSPECT_FORMAT];

/** A file's first 64 KiB as text; undefined for a folder. */
export async function headOf(source: string): Promise<{ isDir: boolean; head?: string }> {
  const st = await stat(source);
  if (st.isDirectory()) return { isDir: true };
  if (!st.isFile()) throw new InputError(`${source} is not a regular file or a folder`, { file: source });
  const fh = await open(source, 'r');
  try {
    const buf = Buffer.alloc(Math.min(65536, st.size));
    await fh.read(buf, 0, buf.length, 0);
    return { isDir: false, head: buf.toString('utf8') };
  } finally {
    await fh.close();
  }
}

/** The format of a source, or undefined. */
export async function detectHarness(source: string, formats: readonly HarnessFormat[] = HARNESS_FORMATS): Promise<HarnessFormat | undefined> {
  const { isDir, head } = await headOf(source);
  for (const f of formats) if (await f.detect(source, isDir, head)) return f;
  return undefined;
}

export interface ConvertArgs {
  source: string;
  output: string;
  reward?: string;
  groupBy?: string;
}

export interface ConvertReport {
  source: string;
  output: string;
  format: string;
  groups: number;
  trajectories: number;
  reward?: string;
  scores: string[];
  lost: string[];
}

/**
 * Writes `source` as an ART trajectory JSONL file at `output` (a group per line), then checks it
 * with the upload's own validator: a file the upload would refuse is never left behind.
 */
export async function convertToArt(args: ConvertArgs, signal?: AbortSignal, formats: readonly HarnessFormat[] = HARNESS_FORMATS): Promise<ConvertReport> {
  const format = await detectHarness(args.source, formats);
  if (!format) throw new InputError(`${args.source} is not a trajectory file of a known harness (${formats.map((f) => f.label).join(', ')})`, { file: args.source, field: 'source' });
  if (!/\.jsonl$/i.test(args.output)) throw new InputError(`output ${args.output} must be a .jsonl file (ART trajectory groups, one per line)`, { field: 'output' });
  const { groups, lost, scores } = await format.toArtGroups(args.source, { reward: args.reward, groupBy: args.groupBy, signal });
  if (!groups.length) throw new InputError(`${args.source}: nothing to convert`, { file: args.source });
  const lines = groups.map((g) => JSON.stringify(g));
  const tmp = `${args.output.slice(0, -6)}.${process.pid}.tmp.jsonl`;
  try {
    const fh = await open(tmp, 'w');
    try {
      for (const l of lines) await fh.write(`${l}\n`);
    } finally {
      await fh.close();
    }
    const summary = await validateTrajectoryFile(tmp, { signal, maxProblems: 5 });
    const errors = summary.problems.filter((p) => p.severity === 'error');
    if (errors.length) throw new InputError(`the converted file would be refused by the upload: line ${errors[0]!.line}: ${errors[0]!.message}`, { file: args.output });
    await rename(tmp, args.output);
  } finally {
    await rm(tmp, { force: true }).catch(() => undefined);
  }
  const trajectories = groups.reduce<number>((n, g) => n + ((g as { trajectories?: unknown[] }).trajectories?.length ?? 0), 0);
  // ATIF groups name their score; an Inspect log's reward is the score asked for, else its first.
  const reward = groups.map((g) => (g as { metadata?: { reward_score?: string } }).metadata?.reward_score).find((r) => r) ?? (format.id === 'inspect' ? (args.reward ?? scores[0]) : undefined);
  return { source: args.source, output: args.output, format: format.label, groups: groups.length, trajectories, reward, scores, lost };
}

/** Reads back a converted file's groups (for tests and the viewer). */
export async function readConverted(file: string): Promise<unknown[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
}

export { ATIF_LIMITS };
