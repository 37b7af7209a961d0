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
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError } from '../api';
import { FileBytes, type ByteSource } from '../files/bytes';

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

/**
 * A file's bytes (FileBytes) that hashes what is read, as it is read: the SHA-256 of the whole file
 * comes out of the pass that reads it anyway. It is only given when the reads covered the file
 * from its first byte to its last in order; a read that goes back over bytes already hashed is
 * checked against them (the line reader looks at the first 3 bytes for a byte order mark, then
 * reads from 0), and one that skips ahead or goes back further leaves no hash.
 */
export class HashingBytes implements ByteSource {
  private readonly hash: Hash = createHash('sha256');
  private hashed = 0;
  private last: { start: number; bytes: Buffer } | undefined;
  private broken = false;
  /** Reads so far: what was read since a moment is known by comparing counts. */
  reads = 0;

  private constructor(private readonly file: FileBytes) {}

  static async open(path: string): Promise<HashingBytes> {
    return new HashingBytes(await FileBytes.open(path));
  }

  get size(): number {
    return this.file.size;
  }

  async read(start: number, end: number): Promise<Buffer> {
    const bytes = await this.file.read(start, end);
    this.reads++;
    if (this.broken) return bytes;
    const stop = start + bytes.length;
    if (start > this.hashed) this.broken = true;
    else if (start < this.hashed) {
      // Bytes read again must be the ones hashed: only the previous read is kept to compare.
      const last = this.last;
      const overlap = Math.min(stop, this.hashed);
      if (!last || start < last.start || !bytes.subarray(0, overlap - start).equals(last.bytes.subarray(start - last.start, overlap - last.start))) this.broken = true;
    }
    if (!this.broken && stop > this.hashed) {
      this.hash.update(bytes.subarray(this.hashed - start));
      this.hashed = stop;
    }
    this.last = { start, bytes };
    return bytes;
  }

  /** The SHA-256 of the whole file as read, or undefined when it was not read through in order. */
  digest(): string | undefined {
    if (this.broken || this.hashed !== this.file.size) return undefined;
    this.broken = true;
    return this.hash.digest('hex');
  }

  close(): Promise<void> {
    this.last = undefined;
    return this.file.close();
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
