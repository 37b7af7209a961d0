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
import { chunksOf, FileBytes, type ByteSource } from './bytes';
import { SYNTAX } from './jsonText';
import { INVALID_UTF8_HERE, InvalidUtf8Error, JsonScanError, type ScanEvent, type ScannedValue, type ScanOptions } from './jsonScanEvents';
import { Utf8Chunks } from './utf8Chunks';

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
  const utf8 = new Utf8Chunks();
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
    /** False for a member that ScanOptions.members leaves out: matched, not kept. */
    keep: boolean;
    byteStart: number;
    event: (v: ScannedValue) => ScanEvent;
  } | undefined;
  // A key string being read (keys are short; never captured as values).
  let key: { text: string; escaped: boolean; line: number; column: number } | undefined;

  const ready: ScanEvent[] = [];
  let text = '';
  let captureFrom = 0;
  // Byte offsets (ScanOptions.byteOffsets): the offset of text[0], and a cursor that moves forward
  // through the chunk, so finding the offsets of a chunk's values costs one pass over it.
  const withBytes = opts.byteOffsets === true;
  let cursor = 0;
  let cursorByte = 0;
  const byteAt = (index: number): number => {
    if (!withBytes) return -1;
    if (index < cursor) {
      cursor = 0;
      cursorByte = utf8.textByte;
    }
    if (index > cursor) cursorByte += Buffer.byteLength(text.slice(cursor, index));
    cursor = index;
    return cursorByte;
  };
  const offsets = (value: ScannedValue, byteStart: number, byteEnd: number): ScannedValue => (withBytes ? { ...value, byteStart, byteEnd } : value);
  const finishCapture = (end: number): void => {
    const cap = capture!;
    capture = undefined;
    if (cap.keep) {
      cap.parts.push(text.slice(captureFrom, end));
      cap.chars += end - captureFrom;
      if (cap.chars > opts.maxValueChars) throw new JsonScanError('a value is larger than the limit', cap.line, cap.column, true);
      ready.push(cap.event(offsets({ text: cap.parts.join(''), line: cap.line, column: cap.column, endLine: line, maxDepth: cap.maxDepth }, cap.byteStart, byteAt(end))));
    }
    valueDone();
  };

  const fail = (message: string, l = line, c = columnAt(i)): never => {
    throw new JsonScanError(`Invalid JSON: ${message}`, l, c);
  };
  /** A fault between items: stepped over when lenient (and reported), else thrown. */
  const fault = (message: string, l = line, c = columnAt(i)): void => {
    if (!opts.lenient) fail(message, l, c);
    ready.push({ kind: 'fault', message: `Invalid JSON: ${message}`, line: l, column: c });
  };
  /** Content after the document, when lenient: reported, and the scan ends there. */
  let stopped = false;
  const top = () => stack[stack.length - 1]!;

  /** A member ScanOptions.members leaves out (never called: its capture is not kept). */
  const skipped = (): ScanEvent => {
    throw new Error('unreachable');
  };
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
      if (opts.members && !opts.members.has(k)) return skipped;
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

  try {
    for await (const raw of stream) {
      text = utf8.write(raw);
      const invalidAt = utf8.invalidAt;
      cursor = 0;
      cursorByte = utf8.textByte;
      i = 0;
      const n = text.length;
      captureFrom = 0;
      // Values that ended before a fault are still given, then the fault.
      try {
        while (i < n && !stopped) {
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
          if (f.kind === 'root' && f.state === 'done') {
            fault(SYNTAX.moreContent);
            stopped = true;
            break;
          }
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
            else {
              fault('comma expected');
              // Lenient: a value starts here as if after its comma; anything else is stepped over.
              if (c !== 0x3a && c !== 0x7d) {
                f.state = 'value';
                continue;
              }
            }
            i++;
            continue;
          }
          if (f.kind === 'array' && c === 0x5d) {
            if (f.state === 'value') fault(SYNTAX.trailingComma, comma.line, comma.column);
            closeContainer();
            i++;
            continue;
          }
          // A value starts here.
          if (f.kind === 'array' && (c === 0x2c || c === 0x3a || c === 0x7d)) {
            fault('value expected');
            i++;
            continue;
          }
          if (c === 0x2c || c === 0x3a || c === 0x5d || c === 0x7d) fail('value expected');
          const event = eventFor();
          const opensStructure = c === 0x7b || c === 0x5b;
          const streamedArray = c === 0x5b && f.kind === 'object' && stack.length === 2 && f.key === opts.streamMember;
          if (opensStructure && (stack.length === 1 || streamedArray)) {
            // The top-level container, or the streamed array: descend into it.
            const at = { line, column: columnAt(i) };
            ready.push(stack.length === 1 ? { kind: 'root', container: c === 0x7b ? 'object' : 'array', ...at, ...(withBytes ? { byteStart: byteAt(i) } : {}) } : { kind: 'stream', key: opts.streamMember, ...at });
            stack.push(c === 0x7b ? { kind: 'object', state: 'keyOrEnd', key: '' } : { kind: 'array', state: 'valueOrEnd', streamed: streamedArray, index: 0 });
            i++;
            continue;
          }
          if (!event) fail('unexpected value');
          capture = {
            keep: event !== skipped,
            byteStart: byteAt(i),
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
      } catch (e) {
        for (const ev of ready.splice(0)) yield ev;
        throw e;
      }
      if (capture?.keep) {
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
      if (stopped) break;
      await opts.afterChunk?.(utf8.bytesRead);
    }
    if (stopped) {
      for (const ev of ready.splice(0)) yield ev;
      return;
    }
    const rest = utf8.end();
    if (rest) fail('invalid UTF-8 at the end of the file');
    if (capture) {
      const cap = capture as NonNullable<typeof capture>;
      if (cap.scalar) {
        if (cap.keep) ready.push(cap.event(offsets({ text: cap.parts.join(''), line: cap.line, column: cap.column, endLine: line, maxDepth: 0 }, cap.byteStart, utf8.bytesRead)));
        capture = undefined;
        valueDone();
      } else if (cap.inString) truncated('unterminated string', cap.line, cap.column);
      else truncated(cap.opened.at(-1) === 0x5b ? 'close bracket expected' : 'close brace expected');
    }
    for (const ev of ready.splice(0)) yield ev;
    if (key) truncated('unterminated string', key.line, key.column);
    const f = top();
    if (f.kind !== 'root') truncated(f.kind === 'array' ? 'close bracket expected' : 'close brace expected');
    if (f.state !== 'done') fail('the file holds no JSON value');
  } catch (e) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw e;
  } finally {
    if (source !== input) await source.close();
  }

  function closeContainer(): void {
    stack.pop();
    // The root closes: its last character is text[i].
    if (stack.length === 1) ready.push({ kind: 'end', line, column: columnAt(i), ...(withBytes ? { byteEnd: byteAt(i + 1) } : {}) });
    valueDone();
  }

  function truncated(message: string, l = line, c = columnAt(i)): never {
    throw new JsonScanError(`Invalid JSON: ${message}`, l, c, false, true);
  }
}
