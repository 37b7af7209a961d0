/**
 * "Upload this group…" hands svc.uploadTrajectories a file that holds just that group, its text
 * exactly as in the source file (nothing re-serialized): a one-line `.jsonl` for a JSONL source, a
 * one-group `.json` for a JSON source, a one-line `.jsonl` of the client's dump (group_json +
 * trajectory_json) for an ART Parquet step file. The file keeps the source's name and, for the official
 * client's layout (`…/models/<model>/trajectories/<split>/<step>.jsonl`), that tail of its path, so
 * whatever the upload proposes from a path still applies. Files live in one temporary folder,
 * removed when the extension stops. No `vscode` import.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { artTail } from '../trajectories/layout';

export class GroupFiles {
  private dir: Promise<string> | undefined;
  private next = 0;

  /** Writes group `index` (0-based) of `source` and returns the new file's path. */
  async write(source: string, index: number, text: string, format: 'json' | 'jsonl'): Promise<string> {
    this.dir ??= mkdtemp(path.join(tmpdir(), 'svc-viewer-'));
    const base = path.join(await this.dir, String(++this.next));
    const tail = artTail(source);
    const folder = tail ? path.join(base, tail) : base;
    await mkdir(folder, { recursive: true });
    const name = path.basename(source);
    const ext = format === 'jsonl' ? '.jsonl' : '.json';
    // A group of a Parquet step file is written as a one-line .jsonl (`0003.parquet` → `0003.jsonl`).
    const stem = name.replace(/\.(jsonl|ndjson|json|parquet|eval)$/i, '');
    const file = path.join(folder, tail ? (/\.(parquet|eval)$/i.test(name) ? `${stem}${ext}` : name) : `${stem}.group-${index + 1}${ext}`);
    await writeFile(file, format === 'jsonl' ? `${text}\n` : text);
    return file;
  }

  async dispose(): Promise<void> {
    const dir = this.dir;
    this.dir = undefined;
    if (dir) await rm(await dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
