/**
 * Properties of src/files/lines.ts readLines: whatever the bytes and wherever its 64 KiB read
 * chunks end (inside a line, a CRLF, a multi-byte character or a BOM), the lines are those of a
 * model that looks at the whole file at once.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isValidUtf8, LineTooLongError, readLines, type Line } from '../../../src/files/lines';
import { BOM, checkAsync, fuzz, named, nastyBytes, useTempDir, withTimeout, writeFresh } from './helpers';

const CHUNK = 64 * 1024;
const CR = 0x0d;

type Outcome = { lines: Line[]; tooLong?: number };

/** The documented conventions (src/files/lines.ts header), applied to the whole file. */
function model(file: Buffer, maxLineBytes: number, skipOverlong: boolean): Outcome {
  const lines: Line[] = [];
  let start = file.length >= 3 && file[0] === 0xef && file[1] === 0xbb && file[2] === 0xbf ? 3 : 0;
  let lineNo = 0;
  while (start < file.length) {
    let nl = file.indexOf(0x0a, start);
    if (nl < 0) nl = file.length;
    lineNo++;
    const n = nl - start;
    const last = n > 0 ? file[nl - 1] : undefined;
    const over = n > maxLineBytes && !(n === maxLineBytes + 1 && last === CR);
    if (over) {
      if (!skipOverlong) return { lines, tooLong: lineNo };
      lines.push({ line: lineNo, text: '', byteStart: start, byteEnd: nl, overlong: true });
    } else {
      const end = last === CR ? nl - 1 : nl;
      const bytes = file.subarray(start, end);
      const line: Line = { line: lineNo, text: bytes.toString('utf8'), byteStart: start, byteEnd: end };
      if (!isValidUtf8(bytes)) {
        line.invalidUtf8 = true;
        // The first invalid sequence starts where the longest valid prefix ends: no byte after an
        // invalid sequence makes it valid again.
        // Streamed, a cut sequence is still fine: the prefixes that decode are 0..s+3 at most, a
        // binary search finds the last, and the last complete one before it is the start.
        const streamOk = (k: number) => {
          try {
            new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, k), { stream: true });
            return true;
          } catch {
            return false;
          }
        };
        let lo = 0;
        let hi = bytes.length;
        while (lo < hi) {
          const mid = Math.ceil((lo + hi) / 2);
          if (streamOk(mid)) lo = mid;
          else hi = mid - 1;
        }
        let valid = lo;
        while (valid > 0 && !isValidUtf8(bytes.subarray(0, valid))) valid--;
        line.invalidUtf8At = bytes.subarray(0, valid).toString('utf8').length;
      }
      lines.push(line);
    }
    start = nl + 1;
  }
  return { lines };
}

async function read(path: string, maxLineBytes: number | undefined, skipOverlong: boolean): Promise<Outcome> {
  const lines: Line[] = [];
  const run = async (): Promise<Outcome> => {
    try {
      for await (const l of readLines(path, { maxLineBytes, skipOverlong })) lines.push(l);
      return { lines };
    } catch (e) {
      if (!(e instanceof LineTooLongError)) throw e;
      return { lines, tooLong: e.line };
    }
  };
  return withTimeout(run(), 10_000, 'readLines');
}

/** Short, dense lines around the byte positions where read chunks end. */
const interesting = fc.oneof(
  nastyBytes(6),
  fc.constantFrom('\r\n', '\n', '\r', '\r\r\n', '€', '🎉', 'é\n', '\n\n').map((s) => Buffer.from(s)),
  fc.constantFrom(BOM, Buffer.from([0xe2, 0x82]), Buffer.from([0xf0, 0x9f]), Buffer.from([0x80, 0x80])),
);

/**
 * A file of 1 to 3 chunks and a bit, built as filler (long lines of 'a', with a few line breaks)
 * up to a chunk border plus or minus a few bytes, then a piece of interesting bytes straddling it.
 */
const chunkyFile = fc
  .tuple(
    fc.boolean(),
    fc.array(
      fc.record({
        offset: fc.integer({ min: -6, max: 6 }),
        breaks: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 3 }),
        piece: interesting,
      }),
      { minLength: 1, maxLength: 3 },
    ),
    fc.oneof(fc.constant(Buffer.alloc(0)), interesting),
  )
  .map(([bom, borders, tail]) => {
    const parts: Buffer[] = bom ? [BOM] : [];
    let size = bom ? 3 : 0;
    for (const [i, b] of borders.entries()) {
      const target = (i + 1) * CHUNK + b.offset;
      const fill = Buffer.alloc(Math.max(0, target - size), 0x61);
      for (const f of b.breaks) if (fill.length) fill[Math.floor(f * fill.length)] = 0x0a;
      parts.push(fill, b.piece);
      size += fill.length + b.piece.length;
    }
    parts.push(tail);
    return Buffer.concat(parts);
  });

describe('fuzz: files/lines readLines', function () {
  this.timeout(60_000);
  const dir = useTempDir('svc-fuzz-lines-');

  const c1 = fuzz(0x11e1, 800);
  it(named('small files, small limits: the same lines as the whole-file model, with and without skipOverlong', c1), async () => {
    await checkAsync(
      fc.asyncProperty(nastyBytes(40), fc.oneof(fc.integer({ min: 0, max: 24 }), fc.constant(undefined)), fc.boolean(), async (bytes, max, skip) => {
        const path = writeFresh(dir(), '.txt', bytes);
        assert.deepEqual(await read(path, max, skip), model(bytes, max ?? 64 * 1024 * 1024, skip));
      }),
      c1,
    );
  });

  const c2 = fuzz(0x11e2, 150);
  it(named('files across 64 KiB chunk borders: the same lines as the whole-file model, limits near the line lengths', c2), async () => {
    await checkAsync(
      fc.asyncProperty(
        chunkyFile,
        fc.oneof(fc.constant(undefined), fc.integer({ min: -3, max: 3 }).map((d) => CHUNK + d), fc.integer({ min: -3, max: 3 }).map((d) => 2 * CHUNK + d), fc.integer({ min: 1, max: 40 })),
        fc.boolean(),
        async (bytes, max, skip) => {
          const path = writeFresh(dir(), '.txt', bytes);
          const got = await read(path, max, skip);
          const want = model(bytes, max ?? 64 * 1024 * 1024, skip);
          // Compare compactly first (a 64 KiB text in a diff helps nobody), then whole.
          const brief = (o: Outcome) => ({ tooLong: o.tooLong, lines: o.lines.map((l) => [l.line, l.byteStart, l.byteEnd, l.text.length, !!l.invalidUtf8, !!l.overlong]) });
          assert.deepEqual(brief(got), brief(want));
          assert.ok(got.lines.every((l, i) => l.text === want.lines[i]!.text), 'texts differ');
        },
      ),
      c2,
    );
  });
});
