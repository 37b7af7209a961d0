// Over 300 lines: one streaming tokenizer (a state machine over byte chunks) that reads best whole.
/**
 * Streams the outer structure of a large JSON document without holding it whole: the items of a
 * top-level array, or the members of a top-level object, with the items of one named array member
 * streamed item by item. Each captured value comes back as its exact source text with the line
 * and column where it starts, so a caller can parse it alone and still report exact positions.
 * Memory is bounded by the largest captured value, not by the file. No `vscode` import.
 *
 * Only the outer structure is checked here (brackets, commas, colons, keys). A captured value is
 * cut out by bracket matching (aware of strings and escapes); its own syntax is the caller's to
 * check, with JSON.parse. Positions follow src/files/problems.ts: 1-based lines and UTF-16
 * columns, `\r\n`, `\r` and `\n` each end a line, and a byte order mark belongs to no column.
 */
import { StringDecoder } from 'node:string_decoder';
import { InputError } from '../api/errors';
import { chunksOf, FileBytes, type ByteSource } from './bytes';
import { SYNTAX } from './jsonText';
import { firstInvalidUtf8, incompleteTail } from './lines';

/** What an invalid byte is told (src/files/problems.ts says the same of a line). */
export const INVALID_UTF8_HERE = 'The file is not valid UTF-8 here: it would be sent altered (U+FFFD in place of the invalid bytes), so it is not sent; save the file as UTF-8';

export interface ScannedValue {
  /** The value's source text, exactly as in the file. */
  text: string;
  line: number;
  column: number;
  /** The line the value ends on. */
  endLine: number;
  /** How deeply arrays and objects nest in it (0 for a string or scalar). */
  maxDepth: number;
}

export type ScanEvent =
  /** An item of the top-level array, or of the streamed member's array. */
  | { kind: 'item'; index: number; value: ScannedValue }
  /** A member of the top-level object (other than the streamed one, when it is an array). */
  | { kind: 'member'; key: string; value: ScannedValue }
  /** The top-level value is neither an array nor an object. */
  | { kind: 'scalar'; value: ScannedValue }
  /** The top-level array or object opens (at `line`, `column`). */
  | { kind: 'root'; container: 'array' | 'object'; line: number; column: number }
  /** The streamed member's array opens; its items follow. */
  | { kind: 'stream'; key: string; line: number; column: number };

export interface ScanOptions {
  signal?: AbortSignal;
  /** Object member whose array value is streamed item by item (e.g. `trajectory_groups`). */
  streamMember: string;
  /** Largest captured value, in UTF-16 code units. */
  maxValueChars: number;
  /** Bytes read at a time (tests use tiny ones to put chunk boundaries everywhere). Default 256 KiB. */
  chunkBytes?: number;
}

/** The outer structure is not valid JSON, or a value is too large to capture. */
export class JsonScanError extends InputError {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
    /** Set when a value was too large, not malformed. */
    readonly tooLarge = false,
  ) {
    super(message, { line, column });
  }
}

/** Bytes that are not UTF-8: refused at their place (decoded, they would be sent as U+FFFD). */
export class InvalidUtf8Error extends JsonScanError {}

type Frame =
  | { kind: 'root'; state: 'value' | 'done' }
  | { kind: 'object'; state: 'keyOrEnd' | 'key' | 'colon' | 'value' | 'commaOrEnd'; key: string }
  | { kind: 'array'; state: 'valueOrEnd' | 'value' | 'commaOrEnd'; streamed: boolean; index: number };

const WS = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * Scans a file (by path) or a byte source (left open: it is the caller's). Yields captured values
 * in order; throws JsonScanError at the first fault of the outer structure, and the signal's reason
 * on abort.
 */
export async function* scanJson(input: string | ByteSource, opts: ScanOptions): AsyncGenerator<ScanEvent> {
  opts.signal?.throwIfAborted();
  const source = typeof input === 'string' ? await FileBytes.open(input) : input;
  const stream = chunksOf(source, opts.chunkBytes ?? 256 * 1024, opts.signal);
  const decoder = new StringDecoder('utf8');
  const stack: Frame[] = [{ kind: 'root', state: 'value' }];
  // Positions: `line`, and the offset (in decoded characters from the start) where it began; a
  // column is computed from offsets only when a position is needed, so the hot loop only looks
  // for line breaks.
  let line = 1;
  let lineStart = 0;
  let base = 0; // offset of text[0]
  let i = 0; // index in text of the character being looked at
  let prevCR = false; // the character before text[0] was \r
  const columnAt = (index: number) => base + index - lineStart + 1;
  const newline = (c: number, index: number) => {
    // \r\n is one line break: the \n after a \r only moves the line start.
    if (c === 0x0d || !(index > 0 ? text.charCodeAt(index - 1) === 0x0d : prevCR)) line++;
    lineStart = base + index + 1;
  };
  // Where the last comma of the outer structure was: a trailing comma is reported there.
  let comma = { line: 1, column: 1 };
  let first = true;

  // A value being captured: its parts so far and its bracket depth (0 for a scalar or string).
  let capture: {
    parts: string[];
    chars: number;
    line: number;
    column: number;
    depth: number;
    maxDepth: number;
    /** The innermost open bracket, for the message when the file ends inside the value. */
    opened: number[];
    inString: boolean;
    escaped: boolean;
    scalar: boolean;
    event: (v: ScannedValue) => ScanEvent;
  } | undefined;
  // A key string being read (keys are short; never captured as values).
  let key: { text: string; escaped: boolean; line: number; column: number } | undefined;

  const ready: ScanEvent[] = [];
  let text = '';
  let captureFrom = 0;
  const finishCapture = (end: number): void => {
    const cap = capture!;
    cap.parts.push(text.slice(captureFrom, end));
    cap.chars += end - captureFrom;
    if (cap.chars > opts.maxValueChars) throw new JsonScanError('a value is larger than the limit', cap.line, cap.column, true);
    ready.push(cap.event({ text: cap.parts.join(''), line: cap.line, column: cap.column, endLine: line, maxDepth: cap.maxDepth }));
    capture = undefined;
    valueDone();
  };

  const fail = (message: string, l = line, c = columnAt(i)): never => {
    throw new JsonScanError(`Invalid JSON: ${message}`, l, c);
  };
  const top = () => stack[stack.length - 1]!;

  /** The frame that receives the next value decides what happens to it. */
  const eventFor = (): ((v: ScannedValue) => ScanEvent) | undefined => {
    const f = top();
    if (f.kind === 'array') {
      if (stack.length === 2 || f.streamed) {
        const index = f.index++;
        return (value) => ({ kind: 'item', index, value });
      }
      return undefined;
    }
    if (f.kind === 'object' && stack.length === 2) {
      const k = f.key;
      return (value) => ({ kind: 'member', key: k, value });
    }
    if (f.kind === 'root') return (value) => ({ kind: 'scalar', value });
    return undefined;
  };

  /** After a value ends, its container expects a comma or its end. */
  const valueDone = () => {
    const f = top();
    if (f.kind === 'root') f.state = 'done';
    else f.state = 'commaOrEnd';
  };

  // The bytes of a character the last chunk began and did not finish (the decoder holds them too).
  let tail: Uint8Array = new Uint8Array(0);
  try {
    for await (const raw of stream) {
      text = decoder.write(raw);
      let bomSkipped = false;
      if (first && text.length > 0) {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) {
          text = text.slice(1);
          bomSkipped = true;
        }
      }
      // U+FFFD in the text: from the file's own (valid) bytes, or in place of invalid ones. Only
      // then are the bytes checked; an invalid byte ends the scan at its place, after the values
      // that ended before it.
      let invalidAt = -1;
      if (text.includes('\uFFFD')) {
        const whole = tail.length ? Buffer.concat([tail, raw]) : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
        const body = whole.subarray(0, whole.length - incompleteTail(whole));
        const at = firstInvalidUtf8(body);
        if (at >= 0) {
          invalidAt = body.toString('utf8', 0, at).length - (bomSkipped && at >= 3 ? 1 : 0);
          text = text.slice(0, invalidAt);
        }
      }
      // A character is at most 4 bytes: with 3 or more new bytes, any unfinished one begins in them.
      const joined = raw.length >= 3 || !tail.length ? raw : Buffer.concat([tail, raw]);
      const cut = incompleteTail(joined);
      tail = cut ? new Uint8Array(joined.subarray(joined.length - cut)) : new Uint8Array(0);
      i = 0;
      const n = text.length;
      captureFrom = 0;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (capture?.scalar) {
          if (WS(c) || c === 0x2c || c === 0x5d || c === 0x7d) {
            finishCapture(i);
            continue; // the delimiter is handled by the outer structure
          }
          i++;
          continue;
        }
        if (capture) {
          // The hot loop, inside a captured string, object or array: only quotes, escapes,
          // brackets and line breaks matter.
          const cap = capture;
          let { depth, maxDepth, inString, escaped } = cap;
          let done = false;
          for (; i < n; i++) {
            const d = text.charCodeAt(i);
            if (inString) {
              if (escaped) escaped = false;
              else if (d === 0x5c) escaped = true;
              else if (d === 0x22) {
                inString = false;
                if (depth === 0) {
                  done = true;
                  i++;
                  break;
                }
              }
            } else if (d === 0x22) inString = true;
            else if (d === 0x7b || d === 0x5b) {
              if (++depth > maxDepth) maxDepth = depth;
              cap.opened.push(d);
            } else if (d === 0x7d || d === 0x5d) {
              cap.opened.pop();
              if (--depth === 0) {
                done = true;
                i++;
                break;
              }
            } else if (d === 0x0a || d === 0x0d) newline(d, i);
          }
          cap.depth = depth;
          cap.maxDepth = maxDepth;
          cap.inString = inString;
          cap.escaped = escaped;
          if (done) finishCapture(i);
          continue;
        }
        if (key) {
          if (key.escaped) key.escaped = false;
          else if (c === 0x5c) key.escaped = true;
          else if (c === 0x22) {
            const f = top() as Extract<Frame, { kind: 'object' }>;
            try {
              f.key = JSON.parse(`${key.text}"`) as string;
            } catch {
              fail('invalid property name', key.line, key.column);
            }
            f.state = 'colon';
            key = undefined;
            i++;
            continue;
          } else if (c < 0x20) fail(SYNTAX.controlCharacter);
          if (key) key.text += text[i];
          i++;
          if (c === 0x0a || c === 0x0d) newline(c, i - 1);
          continue;
        }
        if (WS(c)) {
          i++;
          if (c === 0x0a || c === 0x0d) newline(c, i - 1);
          continue;
        }
        const f = top();
        // Structural characters.
        if (f.kind === 'root' && f.state === 'done') fail(SYNTAX.moreContent);
        if (f.kind === 'object') {
          if (f.state === 'keyOrEnd' || f.state === 'key') {
            if (c === 0x7d && f.state === 'keyOrEnd') {
              closeContainer();
            } else if (c === 0x22) {
              key = { text: '"', escaped: false, line, column: columnAt(i) };
            } else if (c === 0x7d) fail(SYNTAX.trailingComma, comma.line, comma.column);
            else fail(SYNTAX.propertyName);
            i++;
            if (c === 0x0a || c === 0x0d) newline(c, i - 1);
            continue;
          }
          if (f.state === 'colon') {
            if (c !== 0x3a) fail('colon expected');
            f.state = 'value';
            i++;
            if (c === 0x0a || c === 0x0d) newline(c, i - 1);
            continue;
          }
          if (f.state === 'commaOrEnd') {
            if (c === 0x2c) {
              f.state = 'key';
              comma = { line, column: columnAt(i) };
            }
            else if (c === 0x7d) closeContainer();
            else fail('comma expected');
            i++;
            if (c === 0x0a || c === 0x0d) newline(c, i - 1);
            continue;
          }
        }
        if (f.kind === 'array' && f.state === 'commaOrEnd') {
          if (c === 0x2c) {
            f.state = 'value';
            comma = { line, column: columnAt(i) };
          } else if (c === 0x5d) closeContainer();
          else fail('comma expected');
          i++;
          if (c === 0x0a || c === 0x0d) newline(c, i - 1);
          continue;
        }
        if (f.kind === 'array' && c === 0x5d) {
          if (f.state === 'value') fail(SYNTAX.trailingComma, comma.line, comma.column);
          closeContainer();
          i++;
          continue;
        }
        // A value starts here.
        if (c === 0x2c || c === 0x3a || c === 0x5d || c === 0x7d) fail('value expected');
        const event = eventFor();
        const opensStructure = c === 0x7b || c === 0x5b;
        const streamedArray = c === 0x5b && f.kind === 'object' && stack.length === 2 && f.key === opts.streamMember;
        if (opensStructure && (stack.length === 1 || streamedArray)) {
          // The top-level container, or the streamed array: descend into it.
          const at = { line, column: columnAt(i) };
          ready.push(stack.length === 1 ? { kind: 'root', container: c === 0x7b ? 'object' : 'array', ...at } : { kind: 'stream', key: opts.streamMember, ...at });
          stack.push(c === 0x7b ? { kind: 'object', state: 'keyOrEnd', key: '' } : { kind: 'array', state: 'valueOrEnd', streamed: streamedArray, index: 0 });
          i++;
          continue;
        }
        if (!event) fail('unexpected value');
        capture = {
          parts: [],
          chars: 0,
          line,
          column: columnAt(i),
          depth: opensStructure ? 1 : 0,
          maxDepth: opensStructure ? 1 : 0,
          opened: opensStructure ? [c] : [],
          inString: c === 0x22,
          escaped: false,
          scalar: !opensStructure && c !== 0x22,
          event: event!,
        };
        captureFrom = i;
        i++;
        if (c === 0x0a || c === 0x0d) newline(c, i - 1);
      }
      if (capture) {
        capture.parts.push(text.slice(captureFrom, n));
        capture.chars += n - captureFrom;
        if (capture.chars > opts.maxValueChars) {
          throw new JsonScanError(`a value is larger than the limit`, capture.line, capture.column, true);
        }
      }
      const invalid = invalidAt >= 0 ? { line, column: columnAt(n) } : undefined;
      prevCR = n > 0 && text.charCodeAt(n - 1) === 0x0d;
      base += n;
      i = 0;
      // Values that finished inside this chunk, in order.
      for (const ev of ready.splice(0)) yield ev;
      if (invalid) throw new InvalidUtf8Error(INVALID_UTF8_HERE, invalid.line, invalid.column);
    }
    const rest = decoder.end();
    if (rest) fail('invalid UTF-8 at the end of the file');
    if (capture) {
      const cap = capture as NonNullable<typeof capture>;
      if (cap.scalar) {
        ready.push(cap.event({ text: cap.parts.join(''), line: cap.line, column: cap.column, endLine: line, maxDepth: 0 }));
        capture = undefined;
        valueDone();
      } else if (cap.inString) fail('unterminated string', cap.line, cap.column);
      else fail(cap.opened.at(-1) === 0x5b ? 'close bracket expected' : 'close brace expected');
    }
    for (const ev of ready.splice(0)) yield ev;
    if (key) fail('unterminated string', key.line, key.column);
    const f = top();
    if (f.kind !== 'root') fail(f.kind === 'array' ? 'close bracket expected' : 'close brace expected');
    if (f.state !== 'done') fail('the file holds no JSON value');
  } catch (e) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw e;
  } finally {
    if (source !== input) await source.close();
  }

  function closeContainer(): void {
    stack.pop();
    valueDone();
  }
}
