/**
 * Streaming line reader over a file or any byte source (src/files/bytes.ts: a file, or an editor's
 * text in memory): memory is bounded by the longest line, not by the file. The JSONL reader and the
 * viewer's group index both read lines here. No `vscode` import: it runs in plain Node tests.
 *
 * Conventions:
 * - Lines end at `\n`; a `\r` right before it (or before the end of the file) is not part of the line.
 * - A file that ends with a newline has no extra empty last line; an empty file has no lines.
 * - `byteStart`/`byteEnd` are offsets in the file, so `byteEnd - byteStart` bytes read at `byteStart`
 *   are exactly the line's text. A UTF-8 byte order mark at the very start of the file belongs to no
 *   line: line 1 then starts at byte 3 and its text does not contain U+FEFF.
 */
import { formatBytes } from '../common/format';
import { InputError } from '../api/errors';
import { chunksOf, FileBytes, type ByteSource } from './bytes';

export interface Line {
  /** 1-based. */
  line: number;
  /** The line decoded as UTF-8 (invalid sequences become U+FFFD), without `\r\n` / `\n`. */
  text: string;
  byteStart: number;
  /** Exclusive; excludes the line break. */
  byteEnd: number;
  /** Set when the bytes are not valid UTF-8 (the text then holds U+FFFD replacements). */
  invalidUtf8?: boolean;
  /** With `invalidUtf8`: the offset in `text` (UTF-16) where the first invalid sequence was. */
  invalidUtf8At?: number;
  /** Set, with an empty `text`, for a line over `maxLineBytes` when `skipOverlong` is on. */
  overlong?: boolean;
}

export interface ReadLinesOptions {
  signal?: AbortSignal;
  /** The longest line accepted, in bytes (without the line break). Default 64 MiB. */
  maxLineBytes?: number;
  /**
   * Yield an overlong line as `{ overlong: true, text: '' }` (its bytes are dropped as they are read)
   * instead of throwing LineTooLongError, so a validator can report it and go on.
   */
  skipOverlong?: boolean;
  /** Bytes read at a time. Default 64 KiB. */
  chunkBytes?: number;
  /** The file's name in a LineTooLongError, when reading a byte source (a path names itself). */
  name?: string;
  /**
   * Awaited after each chunk, once every line that ends in it has been consumed, with the offset
   * read up to: the viewer shows progress and lets its first window through here.
   */
  afterChunk?: (offset: number) => Promise<void> | void;
}

export const DEFAULT_MAX_LINE_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const LF = 0x0a;
const CR = 0x0d;

/** A line longer than the limit; reading stops there. */
export class LineTooLongError extends InputError {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly limit: number,
  ) {
    super(`${file}: line ${line} is longer than ${formatBytes(limit)}`, { file, line });
  }
}


/**
 * Reads a file (by path) or a byte source line by line. A source passed in stays open (it is the
 * caller's). On abort, throws the signal's reason.
 */
export async function* readLines(input: string | ByteSource, options: ReadLinesOptions = {}): AsyncGenerator<Line> {
  const { signal, skipOverlong = false } = options;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const path = typeof input === 'string' ? input : (options.name ?? 'the file');
  signal?.throwIfAborted();

  const source = typeof input === 'string' ? await FileBytes.open(input) : input;
  // A byte order mark belongs to no line: reading starts after it.
  let head: Buffer = Buffer.alloc(0);
  try {
    if (source.size >= 3) head = await source.read(0, 3);
  } catch (e) {
    if (source !== input) await source.close();
    throw e;
  }
  const from = head.length === 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const stream = chunksOf(source, options.chunkBytes ?? CHUNK_BYTES, signal, from);
  let lineNo = 1;
  let fileOffset = from; // offset in the file of chunk[0]
  let lineStart = from; // file offset where the current line starts
  // The unfinished line carried over from previous chunks.
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let overlong = false;

  const make = (bytes: Buffer, start: number, end: number): Line => {
    // `end` excludes the `\n`; drop a `\r` before it.
    let e = end;
    if (e > start && bytes[e - 1] === CR) e--;
    const text = bytes.toString('utf8', start, e);
    const line: Line = { line: lineNo, text, byteStart: lineStart, byteEnd: lineStart + (e - start) };
    if (text.includes('\uFFFD') && !isValidUtf8(bytes.subarray(start, e))) {
      line.invalidUtf8 = true;
      line.invalidUtf8At = bytes.toString('utf8', start, start + firstInvalidUtf8(bytes.subarray(start, e))).length;
    }
    return line;
  };
  const overlongLine = (lineEndOffset: number): Line => {
    if (!skipOverlong) throw new LineTooLongError(path, lineNo, maxLineBytes);
    return { line: lineNo, text: '', byteStart: lineStart, byteEnd: lineEndOffset, overlong: true };
  };

  /** Whether a line of `bytes` bytes whose last byte is `last` is over the limit (a final `\r` is free). */
  const tooLong = (bytes: number, last: number | undefined) => bytes > maxLineBytes && !(bytes === maxLineBytes + 1 && last === CR);

  try {
    for await (const raw of stream) {
      const chunk = raw;
      let pos = 0;
      for (;;) {
        signal?.throwIfAborted();
        const nl = chunk.indexOf(LF, pos);
        if (nl < 0) break;
        const endOffset = fileOffset + nl;
        if (overlong) {
          yield overlongLine(endOffset);
          overlong = false;
        } else if (carryBytes === 0) {
          yield tooLong(nl - pos, chunk[nl - 1]) ? overlongLine(endOffset) : make(chunk, pos, nl);
        } else {
          const total = carryBytes + (nl - pos);
          const last = nl > pos ? chunk[nl - 1] : lastByte(carry);
          if (tooLong(total, last)) {
            carry = [];
            yield overlongLine(endOffset);
          } else {
            carry.push(chunk.subarray(pos, nl));
            const whole = Buffer.concat(carry, total);
            carry = [];
            yield make(whole, 0, total);
          }
          carryBytes = 0;
        }
        lineNo++;
        pos = nl + 1;
        lineStart = fileOffset + pos;
      }
      // The rest of the chunk starts (or continues) an unfinished line.
      if (pos < chunk.length && !overlong) {
        // Copied: a small slice must not pin a whole 64 KiB chunk in memory.
        const rest = Buffer.from(chunk.subarray(pos));
        carryBytes += rest.length;
        // +1: a final `\r` that the next chunk's `\n` turns into part of the line break.
        if (carryBytes > maxLineBytes + 1) {
          if (!skipOverlong) throw new LineTooLongError(path, lineNo, maxLineBytes);
          overlong = true;
          carry = [];
          carryBytes = 0;
        } else {
          carry.push(rest);
        }
      }
      fileOffset += chunk.length;
      await options.afterChunk?.(fileOffset);
    }
  } catch (e) {
    if (signal?.aborted) throw signal.reason;
    throw e;
  } finally {
    if (source !== input) await source.close();
  }

  if (overlong) {
    yield overlongLine(fileOffset);
  } else if (carryBytes > 0) {
    const whole = Buffer.concat(carry, carryBytes);
    yield tooLong(carryBytes, whole[carryBytes - 1]) ? overlongLine(fileOffset) : make(whole, 0, carryBytes);
  }
}

function lastByte(buffers: Buffer[]): number | undefined {
  const b = buffers[buffers.length - 1];
  return b?.[b.length - 1];
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether bytes are valid UTF-8; only worth asking when the decoded text holds U+FFFD. */
export function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The offset of the first byte of `b` that starts an invalid UTF-8 sequence (a stray continuation,
 * an overlong form, a surrogate, a code point past U+10FFFF, a cut sequence), or -1.
 */
export function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= n; k++) {
      const d = b[i + k];
      if (d === undefined || d < (k === 1 ? lo : 0x80) || d > (k === 1 ? hi : 0xbf)) return i;
    }
    i += n + 1;
  }
  return -1;
}

/** How many bytes at the end of `b` begin a character that `b` does not complete (0–3). */
export function incompleteTail(b: Uint8Array): number {
  for (let k = 1; k <= Math.min(3, b.length); k++) {
    const c = b[b.length - k]!;
    if (c < 0x80) return 0;
    if (c >= 0xc0) return (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2) > k ? k : 0;
  }
  return 0;
}
