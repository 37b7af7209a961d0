/**
 * ART runs on disk, found by the layout the training client writes:
 * `.art/<project>/models/<model>/` holding `history.jsonl`, `trajectories/<split>/<step>.parquet`
 * (older runs `.jsonl`), `checkpoints/<step>/`, `model.json`, `state.json` and `logs/`. A model
 * folder is a run when it holds any of history.jsonl, model.json, trajectories/ or checkpoints/.
 * Bounded: `.art` folders up to MAX_DEPTH below a root, MAX_RUNS runs, a capped model.json.
 * Links are not followed. No `vscode` import.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { listStepFiles, type StepFile } from '../files/stepShares';

/** How deep below a workspace folder an `.art` folder is looked for (0: the folder itself). */
export const MAX_DEPTH = 3;
export const MAX_RUNS = 500;
/** Folders listed at most while looking for `.art` folders. */
const MAX_DIRS_WALKED = 2_000;
const MAX_MODEL_JSON = 1024 * 1024;
/** Folders never walked into while looking for `.art`. */
const SKIP = new Set(['node_modules', '.git', '.venv', 'venv', '__pycache__', 'dist', 'out', 'build']);

export interface RunModelJson {
  /** `base_model`, when model.json names one. */
  baseModel?: string;
  /** The other top-level fields, as short text (settings the run was started with). */
  fields: { key: string; value: string }[];
  /** Why model.json could not be read. */
  error?: string;
}

export interface Run {
  /** The model folder. */
  dir: string;
  project: string;
  model: string;
  /** The `.art` folder's parent (the root the run was found under, or a folder below it). */
  root: string;
  history: boolean;
  /** Split folders under trajectories/, sorted (train first). */
  splits: string[];
  /** Checkpoint folders (`checkpoints/<step>/`), by step ascending. */
  checkpoints: number[];
  modelJson?: RunModelJson;
}

async function dirNames(dir: string): Promise<string[]> {
  try {
    return (await fs.promises.readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    return [];
  }
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await fs.promises.lstat(p)).isFile();
  } catch {
    return false;
  }
}

const splitOrder = (a: string, b: string) => (a === 'train' ? -1 : b === 'train' ? 1 : a === 'val' ? -1 : b === 'val' ? 1 : a.localeCompare(b));

/** A short text of a JSON value for a tooltip line. */
function shortValue(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 119)}…` : s;
}

/** model.json's base model and settings; capped at 1 MiB. */
export async function readModelJson(dir: string): Promise<RunModelJson | undefined> {
  const p = path.join(dir, 'model.json');
  let st: fs.Stats;
  try {
    st = await fs.promises.lstat(p);
  } catch {
    return undefined;
  }
  if (!st.isFile()) return undefined;
  if (st.size > MAX_MODEL_JSON) return { fields: [], error: `model.json is ${st.size} bytes, more than the ${MAX_MODEL_JSON} read` };
  let value: unknown;
  try {
    value = JSON.parse(await fs.promises.readFile(p, 'utf8'));
  } catch (e) {
    return { fields: [], error: `model.json is not JSON: ${(e as Error).message}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { fields: [], error: 'model.json is not a JSON object' };
  const o = value as Record<string, unknown>;
  const fields = Object.entries(o)
    .filter(([k, v]) => k !== 'base_model' && v !== null && v !== undefined)
    .slice(0, 40)
    .map(([key, v]) => ({ key, value: shortValue(v) }));
  return { ...(typeof o.base_model === 'string' ? { baseModel: o.base_model } : {}), fields };
}

/** The run in a model folder, or undefined when the folder holds nothing of a run. */
export async function readRun(dir: string, root = path.resolve(dir, '..', '..', '..', '..')): Promise<Run | undefined> {
  const [history, modelJsonThere, splits, checkpointDirs] = await Promise.all([isFile(path.join(dir, 'history.jsonl')), isFile(path.join(dir, 'model.json')), dirNames(path.join(dir, 'trajectories')), dirNames(path.join(dir, 'checkpoints'))]);
  const hasTrajectories = fs.existsSync(path.join(dir, 'trajectories'));
  const hasCheckpoints = fs.existsSync(path.join(dir, 'checkpoints'));
  if (!history && !modelJsonThere && !hasTrajectories && !hasCheckpoints) return undefined;
  const checkpoints = checkpointDirs.filter((n) => /^\d+$/.test(n)).map(Number).filter(Number.isSafeInteger).sort((a, b) => a - b);
  const modelJson = modelJsonThere ? await readModelJson(dir) : undefined;
  return {
    dir,
    project: path.basename(path.dirname(path.dirname(dir))),
    model: path.basename(dir),
    root,
    history,
    splits: splits.sort(splitOrder),
    checkpoints,
    ...(modelJson ? { modelJson } : {}),
  };
}

/** The runs of one `.art` folder: `<project>/models/<model>/`. */
async function runsIn(art: string, root: string, out: Run[]): Promise<void> {
  for (const project of (await dirNames(art)).sort()) {
    const models = path.join(art, project, 'models');
    for (const model of (await dirNames(models)).sort()) {
      if (out.length >= MAX_RUNS) return;
      const run = await readRun(path.join(models, model), root);
      if (run) out.push(run);
    }
  }
}

/**
 * Every run under the roots (workspace folders): `.art` folders at a root or up to MAX_DEPTH
 * below it (not inside node_modules, .git, virtual environments or other dot folders), at most
 * MAX_RUNS runs. `cut` says when a cap was reached.
 */
export async function findRuns(roots: readonly string[]): Promise<{ runs: Run[]; cut?: string }> {
  const runs: Run[] = [];
  let walked = 0;
  let cut: string | undefined;
  const seen = new Set<string>();
  for (const root of roots) {
    const queue: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
    while (queue.length) {
      const { dir, depth } = queue.shift()!;
      if (seen.has(dir)) continue;
      seen.add(dir);
      if (++walked > MAX_DIRS_WALKED) {
        cut = `only ${MAX_DIRS_WALKED} folders were looked in for .art folders`;
        break;
      }
      const names = await dirNames(dir);
      if (names.includes('.art')) await runsIn(path.join(dir, '.art'), dir, runs);
      if (runs.length >= MAX_RUNS) {
        cut = `only the first ${MAX_RUNS} runs are listed`;
        return { runs, cut };
      }
      if (depth >= MAX_DEPTH) continue;
      for (const n of names.sort()) if (!n.startsWith('.') && !SKIP.has(n)) queue.push({ dir: path.join(dir, n), depth: depth + 1 });
    }
  }
  return cut ? { runs, cut } : { runs };
}

/** The step files of a run's split (a step with both forms counts once, as its Parquet file). */
export function runSteps(run: Pick<Run, 'dir'>, split: string): Promise<StepFile[]> {
  return listStepFiles(run.dir, split);
}
