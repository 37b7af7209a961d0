/**
 * The on-disk layout of the official training client (OpenPipe ART): each training step's groups
 * go to `.art/<project>/models/<model>/trajectories/<split>/<step as 4 digits>.jsonl`. A file under
 * that layout proposes its model and split, and several step files upload in step order.
 * No `vscode` import.
 */

export interface ArtLayout {
  model: string;
  split: string;
  /** The training step, from the file name. */
  step: number;
}

const LAYOUT = /(?:^|[\\/])models[\\/]([^\\/]+)[\\/]trajectories[\\/]([^\\/]+)[\\/](\d+)\.jsonl$/i;

/** The model, split and step a path names under the official client's layout, if it does. */
export function artLayout(path: string): ArtLayout | undefined {
  const m = LAYOUT.exec(path);
  if (!m) return undefined;
  return { model: m[1]!, split: m[2]!, step: Number(m[3]) };
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
