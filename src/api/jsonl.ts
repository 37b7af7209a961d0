/**
 * Incremental JSONL decoding. Lines are split on bytes (so a chunk boundary inside a multi-byte
 * UTF-8 character is harmless), `\r\n` counts as `\n`, blank lines are skipped, a missing final
 * newline is fine, and a line longer than the cap is refused before it is buffered in full.
 */

import { ProtocolError } from './errors';

export interface JsonlLine {
  /** 1-based line number in the stream. */
  line: number;
  value: unknown;
}

/** A JSONL stream line that is not JSON or is too long; `line` is 1-based. */
export class JsonlError extends ProtocolError {
  declare readonly line: number;
  constructor(
    message: string,
    line: number,
    readonly kind: 'malformed' | 'too-long',
  ) {
    super(message, { line });
  }
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

/** Splits a byte stream into JSON values, one per non-blank line. */
export async function* decodeJsonl(
  chunks: AsyncIterable<Uint8Array>,
  options: { maxLineBytes?: number } = {},
): AsyncGenerator<JsonlLine> {
  for await (const batch of decodeJsonlBatches(chunks, options)) yield* batch;
}

/**
 * The same, one batch per chunk received: a consumer that handles a batch synchronously pays
 * one async step per network chunk instead of one per line (4x fewer for 100k short rows).
 */
export async function* decodeJsonlBatches(
  chunks: AsyncIterable<Uint8Array>,
  options: { maxLineBytes?: number } = {},
): AsyncGenerator<JsonlLine[]> {
  const cap = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;

  for await (const raw of chunks) {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let start = 0;
    const batch: JsonlLine[] = [];
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      line++;
      const piece = chunk.subarray(start, nl);
      let value: unknown;
      try {
        // A CRLF's \r is part of the line break, not of the line.
        const lastByte = piece.length ? piece[piece.length - 1] : pending.at(-1)?.at(-1);
        if (pendingBytes + piece.length - (lastByte === 0x0d ? 1 : 0) > cap) throw tooLong(line, cap);
        const bytes = pending.length ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingBytes = 0;
        value = parseLine(bytes, line);
      } catch (e) {
        // The lines before the bad one are delivered first, as if they came one by one.
        if (batch.length) yield batch;
        throw e;
      }
      if (value !== SKIP) batch.push({ line, value });
      start = nl + 1;
    }
    if (batch.length) yield batch;
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pendingBytes += rest.length;
      // (The complete lines of this chunk were yielded just above.) One byte of slack: it may be
      // the \r of a CRLF whose \n is in the next chunk.
      if (pendingBytes > cap + 1) throw tooLong(line + 1, cap);
      // Copy: the producer may reuse its buffer.
      pending.push(Buffer.from(rest));
    }
  }
  if (pendingBytes > 0) {
    line++;
    const rest = Buffer.concat(pending);
    if (rest.length - (rest[rest.length - 1] === 0x0d ? 1 : 0) > cap) throw tooLong(line, cap);
    const value = parseLine(rest, line);
    if (value !== SKIP) yield [{ line, value }];
  }
}

const SKIP = Symbol('skip');

function parseLine(bytes: Buffer, line: number): unknown {
  // A byte order mark at the start of the stream is not part of line 1.
  if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === 0x0d) end--;
  const text = bytes.toString('utf8', 0, end);
  if (text.trim() === '') return SKIP;
  try {
    return JSON.parse(text);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    throw new JsonlError(`Line ${line} is not valid JSON (${detail}).`, line, 'malformed');
  }
}

function tooLong(line: number, cap: number): JsonlError {
  return new JsonlError(`Line ${line} is longer than the limit of ${cap} bytes.`, line, 'too-long');
}
