/**
 * The on-disk layout of the official training client (OpenPipe ART): each training step's groups
 * go to `.art/<project>/models/<model>/trajectories/<split>/<step as 4 digits>.parquet` (older
 * runs: `.jsonl`). A file under that layout proposes its model and split, several step files
 * upload in step order, and a split folder uploads as its step files. No `vscode` import.
 */
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';

export interface ArtLayout {
  model: string;
  split: string;
  /** The training step, from the file name. */
  step: number;
}

/** `…/models/<model>/trajectories/<split>`: the split folder, as a tail of a path. */
const SPLIT_FOLDER = String.raw`(?:^|[\\/])(models[\\/]([^\\/]+)[\\/]trajectories[\\/]([^\\/]+))`;
const LAYOUT = new RegExp(String.raw`${SPLIT_FOLDER}[\\/](\d+)\.(?:jsonl|parquet)$`, 'i');
const FOLDER = new RegExp(String.raw`${SPLIT_FOLDER}[\\/]?$`, 'i');
const IN_FOLDER = new RegExp(String.raw`${SPLIT_FOLDER}[\\/][^\\/]+$`);
const STEP_FILE = /^(\d+)\.(jsonl|parquet)$/i;

/** The model, split and step a path names under the official client's layout, if it does. */
export function artLayout(file: string): ArtLayout | undefined {
  const m = LAYOUT.exec(file);
  if (!m) return undefined;
  return { model: m[2]!, split: m[3]!, step: Number(m[4]) };
}

/** `models/<model>/trajectories/<split>` of a file's path in a split folder, to keep that tail in a copy. */
export function artTail(file: string): string | undefined {
  return IN_FOLDER.exec(file)?.[1];
}

/** The model and split a folder names when it is a split folder of the layout (`…/trajectories/train`). */
export function artSplitFolder(folder: string): { model: string; split: string } | undefined {
  const m = FOLDER.exec(folder);
  return m ? { model: m[2]!, split: m[3]! } : undefined;
}

/**
 * The step files of a split folder, in step order. A step written both ways (ART migrates
 * `.jsonl` step files to `.parquet`) counts once, as its Parquet file; `skipped` lists the others.
 */
export async function stepFiles(folder: string): Promise<{ files: string[]; steps: number[]; skipped: string[] }> {
  const byStep = new Map<number, string[]>();
  for (const name of await readdir(folder)) {
    const m = STEP_FILE.exec(name);
    if (!m) continue;
    const step = Number(m[1]);
    byStep.set(step, [...(byStep.get(step) ?? []), name]);
  }
  const steps = [...byStep.keys()].sort((a, b) => a - b);
  const files: string[] = [];
  const skipped: string[] = [];
  for (const step of steps) {
    const names = byStep.get(step)!.sort((a, b) => Number(/\.parquet$/i.test(b)) - Number(/\.parquet$/i.test(a)) || a.localeCompare(b));
    files.push(path.join(folder, names[0]!));
    skipped.push(...names.slice(1).map((n) => path.join(folder, n)));
  }
  return { files, steps, skipped };
}

/**
 * Files in upload order: the step files of the layout, sorted by model, split and step, take the
 * places step files held in the selection; other files keep theirs.
 */
export function uploadOrder<T>(files: readonly T[], pathOf: (f: T) => string): T[] {
  const art = files.map((f) => ({ f, art: artLayout(pathOf(f)) }));
  const steps = art
    .filter((x) => x.art)
    .sort((a, b) => a.art!.model.localeCompare(b.art!.model) || a.art!.split.localeCompare(b.art!.split) || a.art!.step - b.art!.step);
  let next = 0;
  return art.map((x) => (x.art ? steps[next++]!.f : x.f));
}
