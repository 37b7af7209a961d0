/**
 * A file that changes during its upload must stop the upload, not drop or repeat groups: the
 * groups are read from the file as it is at each moment, and resumed by index. No vscode import.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError } from '../api';

/** What an upload checks a file against: its size, mtime and the SHA-256 of its bytes when validated. */
export interface Fingerprint {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/** The file's size, mtime and SHA-256, read in one pass. */
export async function fingerprint(path: string, signal?: AbortSignal): Promise<Fingerprint> {
  const before = await stat(path);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { signal, highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return { size: before.size, mtimeMs: before.mtimeMs, sha256: hash.digest('hex') };
}

/** The error an upload stops with when its file changed: the ledger says what was logged before. */
export class FileChangedError extends InputError {}

function changed(path: string, what: string): FileChangedError {
  return new FileChangedError(
    `${basename(path)} changed during the upload (${what} differs from the file that was validated), so the upload stopped there; save the file and upload it again`,
  );
}

/**
 * `groups`, each one passed on only if the file still has the size and mtime it had when it was
 * validated (checked after the group was read, so a group read before a change is the validated
 * one); after the last group, before the last request goes out, the whole file's hash is checked.
 */
export async function* unchangedGroups<T>(path: string, validated: Fingerprint, groups: AsyncIterable<T>, signal?: AbortSignal): AsyncGenerator<T> {
  const check = async () => {
    const now = await stat(path).catch(() => undefined);
    if (!now) throw changed(path, 'its presence');
    if (now.size !== validated.size) throw changed(path, `its size (${now.size} bytes, not ${validated.size})`);
    if (Math.abs(now.mtimeMs - validated.mtimeMs) >= 1) throw changed(path, 'its modification time');
  };
  for await (const g of groups) {
    await check();
    yield g;
  }
  await check();
  if ((await fingerprint(path, signal)).sha256 !== validated.sha256) throw changed(path, 'its content');
}
