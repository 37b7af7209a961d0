/**
 * A file that changes during its upload must stop the upload, not drop or repeat groups: the
 * groups are read from the file as it is at each moment, and resumed by index. No vscode import.
 *
 * The content check costs no pass of its own where the reader can say what it read: the
 * validation pass and the send pass each read the file through a HashingBytes, which hashes the
 * bytes as they go by, and the two hashes are compared before the last request. Where a reader
 * cannot (a Parquet file is read footer first; a `.json` file may be read twice), the file is
 * hashed in a pass of its own, as before.
 */
import { createHash, type Hash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError } from '../api';
import { FileBytes, type ByteSource } from '../files/bytes';
import { openRegular, readRange } from '../files/regular';

/** What an upload checks a file against: its size, mtime and the SHA-256 of its bytes when validated. */
export interface Fingerprint {
  size: number;
  mtimeMs: number;
  sha256: string;
}

/**
 * The file's size, mtime and SHA-256, read in one pass: a regular file only, read to the size its
 * handle had when opened (a device has no end; a file that grew since is not the same file anyway).
 */
export async function fingerprint(path: string, signal?: AbortSignal): Promise<Fingerprint> {
  signal?.throwIfAborted();
  const { handle, stat: before } = await openRegular(path);
  const hash = createHash('sha256');
  try {
    for (let at = 0; at < before.size; ) {
      const chunk = await readRange(handle, at, Math.min(1024 * 1024, before.size - at), signal);
      if (!chunk.length) break;
      hash.update(chunk);
      at += chunk.length;
    }
  } finally {
    await handle.close();
  }
  return { size: before.size, mtimeMs: before.mtimeMs, sha256: hash.digest('hex') };
}

/** Bytes read from the file at a time: a read is a trip to the thread pool, slow on a busy machine. */
const BLOCK_BYTES = 1024 * 1024;

/**
 * A file's bytes (FileBytes), read ahead in 1 MiB blocks (the next block is read while the current
 * one is parsed), that hashes what is read as it is read: the SHA-256 of the whole file comes out
 * of the pass that reads it anyway. Readers ask for 64 KiB at a time and get slices of the block.
 * The hash is only given when the blocks covered the file from its first byte to its last in
 * order; a read outside the current block other than the next one leaves no hash.
 */
export class HashingBytes implements ByteSource {
  private readonly hash: Hash = createHash('sha256');
  private hashed = 0;
  private broken = false;
  private block: { start: number; bytes: Buffer } | undefined;
  private ahead: { start: number; bytes: Promise<Buffer> } | undefined;
  /** Blocks read so far: what was read since a moment is known by comparing counts. */
  reads = 0;

  private constructor(private readonly file: FileBytes) {}

  static async open(path: string): Promise<HashingBytes> {
    return new HashingBytes(await FileBytes.open(path));
  }

  get size(): number {
    return this.file.size;
  }

  async read(start: number, end: number): Promise<Buffer> {
    const b = this.block;
    if (!b || start < b.start || start >= b.start + b.bytes.length) {
      if (b && start !== b.start + b.bytes.length) {
        // Not the next bytes: read as asked, and no hash.
        this.broken = true;
        return this.file.read(start, end);
      }
      const bytes = await (this.ahead?.start === start ? this.ahead.bytes : this.file.read(start, start + BLOCK_BYTES));
      this.ahead = undefined;
      this.block = { start, bytes };
      this.reads++;
      if (start !== this.hashed) this.broken = true;
      if (!this.broken) {
        this.hash.update(bytes);
        this.hashed += bytes.length;
      }
      const next = start + bytes.length;
      if (bytes.length > 0 && next < this.file.size) {
        const ahead = this.file.read(next, next + BLOCK_BYTES);
        ahead.catch(() => undefined);
        this.ahead = { start: next, bytes: ahead };
      }
    }
    const block = this.block!;
    return block.bytes.subarray(start - block.start, Math.min(end, block.start + block.bytes.length) - block.start);
  }

  /** The SHA-256 of the whole file as read, or undefined when it was not read through in order. */
  digest(): string | undefined {
    if (this.broken || this.hashed !== this.file.size) return undefined;
    this.broken = true;
    return this.hash.digest('hex');
  }

  async close(): Promise<void> {
    const ahead = this.ahead?.bytes;
    this.ahead = undefined;
    this.block = undefined;
    await ahead?.catch(() => undefined);
    await this.file.close();
  }
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
 * one); after the last group, before the last request goes out, the content is checked: the hash
 * of what the send pass read (`read`, the HashingBytes the reader reads through) when it has one,
 * else the file hashed again. With `read`, the size and mtime are looked at once per read of the
 * file rather than once per group (a `stat` per group cost more than the send): a group whose
 * bytes were all read before a look that found the file unchanged is the validated one.
 */
export async function* unchangedGroups<T>(path: string, validated: Fingerprint, groups: AsyncIterable<T>, signal?: AbortSignal, read?: HashingBytes): AsyncGenerator<T> {
  const check = async () => {
    const now = await stat(path).catch(() => undefined);
    if (!now) throw changed(path, 'its presence');
    if (now.size !== validated.size) throw changed(path, `its size (${now.size} bytes, not ${validated.size})`);
    if (Math.abs(now.mtimeMs - validated.mtimeMs) >= 1) throw changed(path, 'its modification time');
  };
  let looked = -1;
  for await (const g of groups) {
    if (!read || read.reads !== looked) {
      looked = read?.reads ?? -1;
      await check();
    }
    yield g;
  }
  await check();
  const sha256 = read?.digest() ?? (await fingerprint(path, signal)).sha256;
  if (sha256 !== validated.sha256) throw changed(path, 'its content');
}
