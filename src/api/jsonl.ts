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
    const lastNl = chunk.lastIndexOf(0x0a);
    if (lastNl !== -1) {
      try {
        if (pending.length) {
          // The line that began in an earlier chunk ends at this chunk's first line break.
          const nl = chunk.indexOf(0x0a);
          line++;
          const piece = chunk.subarray(0, nl);
          // A CRLF's \r is part of the line break, not of the line.
          const lastByte = piece.length ? piece[piece.length - 1] : pending.at(-1)?.at(-1);
          if (pendingBytes + piece.length - (lastByte === 0x0d ? 1 : 0) > cap) throw tooLong(line, cap);
          const value = parseLine(Buffer.concat([...pending, piece]), line);
          pending = [];
          pendingBytes = 0;
          if (value !== SKIP) batch.push({ line, value });
          start = nl + 1;
        }
        if (start <= lastNl) {
          // The chunk's whole lines are decoded at once and split as text: a line break byte
          // never occurs inside a multi-byte UTF-8 character, so no character is cut.
          const text = chunk.toString('utf8', start, lastNl);
          const regionStart = start;
          for (let from = 0, k = 0; ; k++) {
            const nl = text.indexOf('\n', from);
            line++;
            const piece = nl === -1 ? text.slice(from) : text.slice(from, nl);
            // The cap is on the line's bytes. A UTF-16 unit comes from 1 to 3 of them (an invalid
            // byte decodes to one U+FFFD), so only a line near the cap needs its bytes counted.
            const units = piece.charCodeAt(piece.length - 1) === 0x0d ? piece.length - 1 : piece.length;
            if (units * 3 > cap && (units > cap || rawLineBytes(chunk, regionStart, k) > cap)) throw tooLong(line, cap);
            const value = parseText(piece, line);
            if (value !== SKIP) batch.push({ line, value });
            if (nl === -1) break;
            from = nl + 1;
          }
          start = lastNl + 1;
        }
      } catch (e) {
        // The lines before the bad one are delivered first, as if they came one by one.
        if (batch.length) yield batch;
        throw e;
      }
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
  return parseText(bytes.toString('utf8'), line);
}

/** The bytes of the k-th line (0-based) after `from` in `chunk`, without a CRLF's \r. */
function rawLineBytes(chunk: Buffer, from: number, k: number): number {
  let start = from;
  for (let i = 0; i < k; i++) start = chunk.indexOf(0x0a, start) + 1;
  const end = chunk.indexOf(0x0a, start);
  return end - start - (end > start && chunk[end - 1] === 0x0d ? 1 : 0);
}

/** One line's text (without its \n): a trailing \r and a first line's byte order mark are dropped. */
function parseText(raw: string, line: number): unknown {
  let text = raw;
  if (text.charCodeAt(text.length - 1) === 0x0d) text = text.slice(0, -1);
  // A byte order mark at the start of the stream is not part of line 1.
  if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0 || (isSpace(text.charCodeAt(0)) && text.trim() === '')) return SKIP;
  try {
    return JSON.parse(text);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    throw new JsonlError(`Line ${line} is not valid JSON (${detail}).`, line, 'malformed');
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a || code === 0x0b || code === 0x0c || code === 0xa0 || code === 0xfeff || code > 0x1fff;
}

function tooLong(line: number, cap: number): JsonlError {
  return new JsonlError(`Line ${line} is longer than the limit of ${cap} bytes.`, line, 'too-long');
}
