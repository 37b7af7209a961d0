/**
 * Bytes of a trajectory file, wherever they are: on disk (`FileBytes`) or a document's text held in
 * memory (`MemoryBytes`, so the viewer shows an editor's unsaved edits). Every reader in src/files/
 * takes one: the line reader, the viewer's group index, the Parquet reader. No `vscode` import.
 */
import type { FileHandle } from 'node:fs/promises';
import { openRegular } from '../common/regular';

export interface ByteSource {
  readonly size: number;
  /** Bytes `[start, end)`; fewer at the end of the source. */
  read(start: number, end: number): Promise<Buffer>;
  close(): Promise<void>;
}

export class FileBytes implements ByteSource {
  private constructor(
    private readonly handle: FileHandle,
    readonly size: number,
  ) {}

  /** A regular file only (src/common/regular.ts): a device, pipe or folder is refused by name. */
  static async open(path: string): Promise<FileBytes> {
    const { handle, stat } = await openRegular(path);
    return new FileBytes(handle, stat.size);
  }

  async read(start: number, end: number): Promise<Buffer> {
    const length = Math.max(0, Math.min(end, this.size) - start);
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const { bytesRead } = await this.handle.read(buf, done, length - done, start + done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done === length ? buf : buf.subarray(0, done);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

export class MemoryBytes implements ByteSource {
  readonly size: number;
  constructor(private readonly bytes: Buffer) {
    this.size = bytes.length;
  }
  static fromText(text: string): MemoryBytes {
    return new MemoryBytes(Buffer.from(text, 'utf8'));
  }
  async read(start: number, end: number): Promise<Buffer> {
    return this.bytes.subarray(start, Math.min(end, this.size));
  }
  async close(): Promise<void> {}
}

/**
 * The source's bytes from `from` on, `chunkBytes` at a time (the last chunk may be shorter). A file
 * that grows while it is read is read to the size it had when opened. On abort, throws the signal's
 * reason.
 */
export async function* chunksOf(source: ByteSource, chunkBytes: number, signal?: AbortSignal, from = 0): AsyncGenerator<Buffer> {
  for (let offset = from; offset < source.size; ) {
    signal?.throwIfAborted();
    const chunk = await source.read(offset, offset + chunkBytes);
    if (chunk.length === 0) return;
    yield chunk;
    offset += chunk.length;
  }
}
