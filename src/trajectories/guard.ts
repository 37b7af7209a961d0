/**
 * A file that changes during its upload must stop the upload, not drop or repeat groups: the
 * groups are read from the file as it is at each moment, and resumed by index. No vscode import.
 *
 * The content is known by the SHA-256 of each 1 MiB block of the file (and the file's hash is the
 * SHA-256 of those, in order). The validation pass of a JSONL file reads it through a HashingBytes,
 * which hashes each block as it goes by; the send pass reads it through one that checks each block
 * against the validation's hash as it is read, before the reader sees a byte of it: so nothing the
 * validation did not see is ever sent (an edit that keeps the size and the mtime included). Where a
 * reader cannot read through one (a Parquet file is read footer first; a `.json` file may be read
 * twice), the file is hashed in a pass of its own and checked again before the last request.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { InputError } from '../api';
import { FileBytes, type ByteSource } from '../files/bytes';
import { openRegular, readRange } from '../common/regular';

/** What an upload checks a file against: its size, mtime and the hashes of its bytes when validated. */
export interface Fingerprint {
  size: number;
  mtimeMs: number;
  /** The file's hash: the SHA-256 of its blocks' SHA-256s, in order (hex). */
  sha256: string;
  /** The SHA-256 of each 1 MiB block (hex), when the pass that hashed it kept them. */
  blocks?: readonly string[];
}

/** Bytes read from the file at a time, and the unit of the content check. */
export const BLOCK_BYTES = 1024 * 1024;

const blockHash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** The file's hash from its blocks' hashes. */
export const fileHash = (blocks: readonly string[]) => {
  const h = createHash('sha256');
  for (const b of blocks) h.update(b);
  return h.digest('hex');
};

/**
 * The file's size, mtime and hashes, read in one pass: a regular file only, read to the size its
 * handle had when opened (a device has no end; a file that grew since is not the same file anyway).
 */
export async function fingerprint(path: string, signal?: AbortSignal): Promise<Fingerprint & { blocks: readonly string[] }> {
  signal?.throwIfAborted();
  const { handle, stat: before } = await openRegular(path);
  const blocks: string[] = [];
  try {
    for (let at = 0; at < before.size; ) {
      const chunk = await readRange(handle, at, Math.min(BLOCK_BYTES, before.size - at), signal);
      if (!chunk.length) break;
      blocks.push(blockHash(chunk));
      at += chunk.length;
    }
  } finally {
    await handle.close();
  }
  return { size: before.size, mtimeMs: before.mtimeMs, sha256: fileHash(blocks), blocks };
}

/**
 * A file's bytes (FileBytes), read in aligned 1 MiB blocks, read ahead (the next block is read
 * while the current one is parsed). Readers ask for 64 KiB at a time and get slices of the block.
 * Each block is hashed as it is read. Without `expected` (the validation pass) the hashes are kept,
 * and `digest()` gives the file's hash once every block was read. With `expected` (the send pass)
 * each block is checked as it is read and a block that differs throws a FileChangedError before
 * any of its bytes reach the reader.
 */
export class HashingBytes implements ByteSource {
  private readonly hashes: (string | undefined)[] = [];
  private broken = false;
  private block: { start: number; bytes: Buffer } | undefined;
  private ahead: { start: number; bytes: Promise<Buffer> } | undefined;
  /** Blocks read so far: what was read since a moment is known by comparing counts. */
  reads = 0;

  private constructor(
    private readonly file: FileBytes,
    private readonly path: string,
    private readonly expected?: readonly string[],
  ) {}

  /** `expected`: the validation's block hashes, which every block read must have. */
  static async open(path: string, expected?: readonly string[]): Promise<HashingBytes> {
    return new HashingBytes(await FileBytes.open(path), path, expected);
  }

  get size(): number {
    return this.file.size;
  }

  async read(start: number, end: number): Promise<Buffer> {
    if (start >= this.file.size) return Buffer.alloc(0);
    const b = this.block;
    if (!b || start < b.start || start >= b.start + b.bytes.length) {
      const k = Math.floor(start / BLOCK_BYTES);
      const at = k * BLOCK_BYTES;
      const bytes = await (this.ahead?.start === at ? this.ahead.bytes : this.file.read(at, at + BLOCK_BYTES));
      this.ahead = undefined;
      this.reads++;
      const h = blockHash(bytes);
      if (this.expected) {
        if (this.expected[k] !== h) throw changed(this.path, 'its content');
      } else if (this.hashes[k] !== undefined && this.hashes[k] !== h) {
        // Read twice, and not the same bytes: no hash.
        this.broken = true;
      } else {
        this.hashes[k] = h;
      }
      this.block = { start: at, bytes };
      const next = at + bytes.length;
      if (bytes.length > 0 && next < this.file.size) {
        const ahead = this.file.read(next, next + BLOCK_BYTES);
        ahead.catch(() => undefined);
        this.ahead = { start: next, bytes: ahead };
      }
    }
    const block = this.block!;
    return block.bytes.subarray(start - block.start, Math.min(end, block.start + block.bytes.length) - block.start);
  }

  /** The block hashes, when every block of the file was read (once, or the same each time). */
  blocks(): readonly string[] | undefined {
    const n = Math.ceil(this.file.size / BLOCK_BYTES);
    if (this.broken || this.hashes.length !== n) return undefined;
    for (let k = 0; k < n; k++) if (this.hashes[k] === undefined) return undefined;
    return this.hashes as string[];
  }

  /** The file's hash as read, or undefined when not every block was read. */
  digest(): string | undefined {
    if (this.expected) return this.reads > 0 && Math.ceil(this.file.size / BLOCK_BYTES) === this.expected.length ? fileHash(this.expected) : undefined;
    const blocks = this.blocks();
    return blocks && fileHash(blocks);
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

/** The file's content is no longer what was validated (its size and mtime may be). */
export function changedSinceValidated(path: string): FileChangedError {
  return changed(path, 'its content');
}

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
