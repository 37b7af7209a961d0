/**
 * What each step of a run would train on: the verdicts (verdicts.ts, ART's rules at its default
 * settings) over the step files ART writes beside a run's history.jsonl,
 * `<model dir>/trajectories/<split>/<step>.{parquet,jsonl}`, one count per step (groups and
 * trajectories that would train, of those given). Only the `train` split: ART trains on nothing
 * else. Bounded: the newest `maxFiles` steps and `maxBytes` of files at most, with what was left
 * out said. Shared by svc_summarize_run and the training dashboard. No `vscode` import.
 */
import * as fs from 'fs';
import * as path from 'path';
import { readTrajectoryGroups } from '.';
import { addToSummary, emptySummary, groupVerdict, type VerdictSummary } from './verdicts';

export const TRAIN_SPLIT = 'train';
/** Step files read at most (the newest). */
export const MAX_STEP_FILES = 200;
/** Bytes of step files read at most (the newest first). */
export const MAX_STEP_BYTES = 512 * 1024 * 1024;

export interface StepFile {
  step: number;
  path: string;
  bytes: number;
  mtimeMs: number;
}

export interface StepShare {
  step: number;
  /** The step file's name (`0030.parquet`). */
  file: string;
  summary?: VerdictSummary;
  /** Why the file could not be read (then no summary). */
  error?: string;
}

export interface StepShares {
  /** The folder looked in. */
  folder: string;
  /** Step files found. */
  found: number;
  /** By step, ascending. */
  steps: StepShare[];
  /** Set when not every step file was read: how many were left out, and why. */
  cut?: { left: number; why: string };
}

const STEP_FILE = /^(\d+)\.(parquet|jsonl)$/;

/**
 * The step files of a split, one per step (a step with both a `.parquet` and a `.jsonl` file is read
 * from the Parquet file, the one ART writes now), ascending by step. A missing folder has none;
 * links are not step files.
 */
export async function listStepFiles(modelDir: string, split = TRAIN_SPLIT): Promise<StepFile[]> {
  const folder = path.join(modelDir, 'trajectories', split);
  let names: string[];
  try {
    names = await fs.promises.readdir(folder);
  } catch {
    return [];
  }
  const bySteps = new Map<number, { name: string; parquet: boolean }>();
  for (const name of names) {
    const m = STEP_FILE.exec(name);
    if (!m) continue;
    const step = Number(m[1]);
    if (!Number.isSafeInteger(step)) continue;
    const parquet = m[2] === 'parquet';
    const had = bySteps.get(step);
    if (!had || (parquet && !had.parquet)) bySteps.set(step, { name, parquet });
  }
  const files: StepFile[] = [];
  for (const [step, { name }] of bySteps) {
    const p = path.join(folder, name);
    try {
      // A regular file only: a link is not followed (it could lead out of the run's folder).
      const st = await fs.promises.lstat(p);
      if (st.isFile()) files.push({ step, path: p, bytes: st.size, mtimeMs: st.mtimeMs });
    } catch {
      // Gone since the listing: not a step file any more.
    }
  }
  return files.sort((a, b) => a.step - b.step);
}

/** Reads that go first: while `held`, a scan waits (`clear`) between its files and between the groups of a file. */
export interface ReadsFirst {
  readonly held: boolean;
  clear(signal?: AbortSignal): Promise<void>;
}

/** The verdict summary of one step file (every group through groupVerdict); waits between groups while `first` is held. */
export async function stepSummary(file: string, signal?: AbortSignal, first?: ReadsFirst): Promise<VerdictSummary> {
  const s = emptySummary();
  for await (const g of readTrajectoryGroups(file, { signal, trusted: true })) {
    addToSummary(s, groupVerdict(JSON.parse(g.json)));
    if (first?.held) await first.clear(signal);
  }
  return s;
}

/** Chooses the newest step files within the caps; the rest are left out, and the cut says why. */
export function chooseSteps(files: readonly StepFile[], caps: { maxFiles?: number; maxBytes?: number } = {}): { chosen: StepFile[]; cut?: StepShares['cut'] } {
  const maxFiles = caps.maxFiles ?? MAX_STEP_FILES;
  const maxBytes = caps.maxBytes ?? MAX_STEP_BYTES;
  const chosen: StepFile[] = [];
  let bytes = 0;
  let why: string | undefined;
  for (let i = files.length - 1; i >= 0; i--) {
    const f = files[i]!;
    if (chosen.length >= maxFiles) {
      why = `only the newest ${maxFiles} step files are read`;
      break;
    }
    if (chosen.length && bytes + f.bytes > maxBytes) {
      why = `only the newest ${chosen.length} step files are read: together they reach the ${Math.round(maxBytes / (1024 * 1024))} MiB read at most`;
      break;
    }
    bytes += f.bytes;
    chosen.push(f);
  }
  chosen.reverse();
  const left = files.length - chosen.length;
  return left ? { chosen, cut: { left, why: why! } } : { chosen };
}

/**
 * The share of each step that would train, from the step files of the `train` split under a model
 * folder. A file that cannot be read gives its step an error, not a count; the others go on.
 */
export async function readStepShares(modelDir: string, options: { maxFiles?: number; maxBytes?: number; signal?: AbortSignal } = {}): Promise<StepShares> {
  const folder = path.join(modelDir, 'trajectories', TRAIN_SPLIT);
  const files = await listStepFiles(modelDir);
  const { chosen, cut } = chooseSteps(files, options);
  const steps: StepShare[] = [];
  for (const f of chosen) {
    options.signal?.throwIfAborted();
    try {
      steps.push({ step: f.step, file: path.basename(f.path), summary: await stepSummary(f.path, options.signal) });
    } catch (e) {
      if (options.signal?.aborted) throw e;
      steps.push({ step: f.step, file: path.basename(f.path), error: e instanceof Error ? e.message : String(e) });
    }
  }
  return { folder, found: files.length, steps, ...(cut ? { cut } : {}) };
}

/** Groups and trajectories (exceptions counted, as ART's data/step_num_trajectories does) that would train. */
export function shareOf(s: VerdictSummary): { groups: number; groupsTraining: number; trajectories: number; training: number; groupShare: number | null; trajectoryShare: number | null } {
  const trajectories = s.trajectories + s.exceptions;
  return {
    groups: s.groups,
    groupsTraining: s.groupsTraining,
    trajectories,
    training: s.training,
    groupShare: s.groups ? s.groupsTraining / s.groups : null,
    trajectoryShare: trajectories ? s.training / trajectories : null,
  };
}

/** The dashboard's metrics of a step: `trainable/groups`, `trainable/trajectories`, and their shares. */
export function stepMetrics(s: VerdictSummary): Record<string, number | null> {
  const x = shareOf(s);
  return {
    'trainable/groups': x.groupsTraining,
    'trainable/trajectories': x.training,
    'trainable/group_share': x.groupShare,
    'trainable/trajectory_share': x.trajectoryShare,
  };
}

/** One step's dashboard row: the step and its `trainable/*` metrics. */
export interface StepShareRow {
  step: number;
  metrics: Record<string, number | null>;
}

/**
 * The training dashboard's reader of the step files: each scan lists the `train` split and reads
 * only the step files that are new or changed (size or time) since the last, within the caps, one
 * file at a time with a turn of the event loop between files. The dashboard runs it in the
 * background after the history was read, never in the read itself, and after the reward
 * distribution's reads (`first`: while they hold it, the scan waits between files and groups).
 */
export class StepShareScanner {
  private readonly known = new Map<string, string>();
  private folderSignature: string | undefined;
  /** Step files read, for the tests. */
  reads = 0;

  constructor(
    readonly modelDir: string,
    private readonly caps: { maxFiles?: number; maxBytes?: number } = {},
    private readonly first?: ReadsFirst,
  ) {}

  /** Reads every step file again at the next scan (the series was cleared). */
  forget(): void {
    this.known.clear();
    this.folderSignature = undefined;
  }

  /**
   * The rows of the steps whose files are new or changed; `force` lists the folder even when its
   * own time did not change (the history grew: a step file may have been rewritten in place).
   */
  async scan(options: { force?: boolean; signal?: AbortSignal } = {}): Promise<{ rows: StepShareRow[]; errors: { file: string; error: string }[]; cut?: StepShares['cut'] }> {
    const folder = path.join(this.modelDir, 'trajectories', TRAIN_SPLIT);
    let signature: string;
    try {
      const st = await fs.promises.stat(folder);
      signature = `${st.ino}:${st.mtimeMs}`;
    } catch {
      signature = 'none';
    }
    if (!options.force && signature === this.folderSignature) return { rows: [], errors: [] };
    // The reward distribution's reads first: the listing below is taken after them.
    await this.first?.clear(options.signal);
    this.folderSignature = signature;
    const { chosen, cut } = chooseSteps(await listStepFiles(this.modelDir), this.caps);
    const rows: StepShareRow[] = [];
    const errors: { file: string; error: string }[] = [];
    for (const f of chosen) {
      const sig = `${f.bytes}:${f.mtimeMs}`;
      if (this.known.get(f.path) === sig) continue;
      await this.first?.clear(options.signal);
      options.signal?.throwIfAborted();
      this.known.set(f.path, sig);
      this.reads++;
      try {
        rows.push({ step: f.step, metrics: stepMetrics(await stepSummary(f.path, options.signal, this.first)) });
      } catch (e) {
        if (options.signal?.aborted) throw e;
        errors.push({ file: f.path, error: e instanceof Error ? e.message : String(e) });
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { rows, errors, ...(cut ? { cut } : {}) };
  }
}
