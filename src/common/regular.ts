/**
 * Files are read only when they are regular files. A device (`/dev/zero`, `/dev/urandom`), a named
 * pipe or a socket, or a link to one (git keeps symlinks: a cloned repository can hold one where a
 * trajectory file or a history.jsonl is expected) has no end or blocks; its `stat` size is 0, so a
 * size check passes it, and a read to the end never ends. Every reader of a file from disk opens it
 * here: the open does not wait for a pipe's writer (O_NONBLOCK), the handle's own `fstat` (after the
 * links were followed) must say "regular file", and reads stop at the size seen then.
 * No `vscode` import.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { InputError } from '../api/errors';
import { formatBytes } from './format';

/** Read-only; a named pipe opens at once (no writer is waited for). O_NONBLOCK is 0 where it does not exist (Windows). */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What a file that is not a regular file is, in words. */
export function entryKind(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The file (or what its links lead to) is not a regular file: nothing was read. */
export class NotARegularFile extends InputError {
  constructor(
    readonly file: string,
    readonly kind: string,
  ) {
    super(`${file} is ${kind}, not a regular file: only regular files are read`, { file });
  }
}

/** The file is larger than a reader's limit: nothing was read. */
export class FileTooLarge extends InputError {
  constructor(
    readonly file: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(`${file} is larger than ${formatBytes(limit)} (${formatBytes(size)}): not read`, { file });
  }
}

/** `stat` (links followed) of a regular file; NotARegularFile otherwise. Never opens it. */
export async function statRegular(path: string): Promise<Stats> {
  const st = await stat(path);
  if (!st.isFile()) throw new NotARegularFile(path, entryKind(st));
  return st;
}

export interface RegularFile {
  handle: FileHandle;
  /** The handle's own stat: the size reads stop at. */
  stat: Stats;
}

/**
 * Opens a regular file for reading, checked on the opened handle (no race with a rename): a
 * device, pipe, socket or folder (or a link to one) is a NotARegularFile, one larger than
 * `maxBytes` a FileTooLarge; both before a byte is read. The caller closes the handle.
 */
export async function openRegular(path: string, maxBytes?: number): Promise<RegularFile> {
  const handle = await open(path, READ_FLAGS);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new NotARegularFile(path, entryKind(st));
    if (maxBytes !== undefined && st.size > maxBytes) throw new FileTooLarge(path, st.size, maxBytes);
    return { handle, stat: st };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/**
 * Reads up to `length` bytes at `position`; fewer at the end of the file. Never more than asked:
 * a file that grows while read is read to the size asked for.
 */
export async function readRange(handle: FileHandle, position: number, length: number, signal?: AbortSignal): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(Math.max(0, length));
  let done = 0;
  while (done < length) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(buf, done, Math.min(length - done, 16 * 1024 * 1024), position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buf : buf.subarray(0, done);
}

/**
 * A whole regular file, read to the size its handle had when opened (never to an end that keeps
 * moving), and refused before reading when larger than `maxBytes`.
 */
export async function readRegular(path: string, options: { maxBytes?: number; signal?: AbortSignal } = {}): Promise<{ bytes: Buffer; stat: Stats }> {
  options.signal?.throwIfAborted();
  const { handle, stat: st } = await openRegular(path, options.maxBytes);
  try {
    return { bytes: await readRange(handle, 0, st.size, options.signal), stat: st };
  } finally {
    await handle.close();
  }
}

/**
 * readRegular for the few synchronous readers (a workspace's .vscode/settings.json): a regular file
 * only, refused before reading when larger than `maxBytes`, read to the size seen.
 */
export function readRegularSync(path: string, maxBytes: number): Buffer {
  const fd = openSync(path, READ_FLAGS);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new NotARegularFile(path, entryKind(st));
    if (st.size > maxBytes) throw new FileTooLarge(path, st.size, maxBytes);
    const buf = Buffer.allocUnsafe(st.size);
    let done = 0;
    while (done < st.size) {
      const n = readSync(fd, buf, done, st.size - done, done);
      if (n === 0) break;
      done += n;
    }
    return done === st.size ? buf : buf.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}
