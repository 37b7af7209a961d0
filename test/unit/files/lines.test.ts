import assert from 'node:assert/strict';
import { createWriteStream, openSync, readSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { LineTooLongError, readLines, type Line } from '../../../src/files/lines';
import { collect, MiB, retainedHeap, useTempDir, writeTemp } from './helpers';

/** The bytes [byteStart, byteEnd) of a file. */
function bytesOf(path: string, line: Line): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(line.byteEnd - line.byteStart);
    readSync(fd, buf, 0, buf.length, line.byteStart);
    return buf;
  } finally {
    closeSync(fd);
  }
}

describe('readLines', () => {
  const dir = useTempDir();

  it('yields 1-based lines with byte ranges that exclude the line break', async () => {
    const path = writeTemp(dir(), 'plain.txt', 'ab\ncdé\n\nlast');
    const lines = await collect(readLines(path));
    assert.deepEqual(
      lines.map((l) => [l.line, l.text, l.byteStart, l.byteEnd]),
      [
        [1, 'ab', 0, 2],
        [2, 'cdé', 3, 7],
        [3, '', 8, 8],
        [4, 'last', 9, 13],
      ],
    );
  });

  it('adds no empty line after a final newline and yields nothing for an empty file', async () => {
    assert.deepEqual((await collect(readLines(writeTemp(dir(), 'final.txt', 'a\nb\n')))).map((l) => l.text), ['a', 'b']);
    assert.deepEqual(await collect(readLines(writeTemp(dir(), 'empty.txt', ''))), []);
  });

  it('strips the \\r of CRLF line breaks, also on a last line without \\n', async () => {
    const path = writeTemp(dir(), 'crlf.txt', 'a\r\nbc\r\nd\r');
    const lines = await collect(readLines(path));
    assert.deepEqual(lines.map((l) => [l.text, l.byteStart, l.byteEnd]), [['a', 0, 1], ['bc', 3, 5], ['d', 7, 8]]);
  });

  it('skips a UTF-8 byte order mark: line 1 starts at byte 3 and its text has no U+FEFF', async () => {
    const path = writeTemp(dir(), 'bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}\n{"b":2}\n')]));
    const lines = await collect(readLines(path));
    assert.deepEqual(lines.map((l) => [l.line, l.text, l.byteStart, l.byteEnd]), [[1, '{"a":1}', 3, 10], [2, '{"b":2}', 11, 18]]);
    for (const l of lines) assert.equal(bytesOf(path, l).toString('utf8'), l.text);
  });

  it('reassembles lines and multi-byte characters split across 64 KiB chunks', async () => {
    // Lines of many lengths, with 3-byte characters, so chunk borders fall everywhere.
    const expected: string[] = [];
    let len = 1;
    for (let i = 0; i < 60; i++) {
      expected.push(`${i}:` + '€x'.repeat(len));
      len = (len * 3 + 7) % 70_000;
    }
    const path = writeTemp(dir(), 'chunks.txt', expected.join('\r\n') + '\n');
    const lines = await collect(readLines(path));
    assert.deepEqual(lines.map((l) => l.text), expected);
    for (const l of lines) assert.equal(bytesOf(path, l).toString('utf8'), l.text, `bytes of line ${l.line}`);
  });

  it('throws LineTooLongError naming the line when a line exceeds maxLineBytes', async () => {
    const path = writeTemp(dir(), 'long.txt', `short\n${'x'.repeat(200_000)}\nafter\n`);
    await assert.rejects(collect(readLines(path, { maxLineBytes: 100_000 })), (e: unknown) => {
      assert.ok(e instanceof LineTooLongError);
      assert.equal(e.line, 2);
      assert.match(e.message, /line 2 is longer than/);
      return true;
    });
  });

  it('accepts a line of exactly maxLineBytes, even with a CRLF break', async () => {
    const path = writeTemp(dir(), 'exact.txt', `${'y'.repeat(100)}\r\n${'z'.repeat(100)}`);
    const lines = await collect(readLines(path, { maxLineBytes: 100 }));
    assert.deepEqual(lines.map((l) => l.text.length), [100, 100]);
    await assert.rejects(collect(readLines(path, { maxLineBytes: 99 })), LineTooLongError);
  });

  it('with skipOverlong, yields an overlong line as empty and goes on', async () => {
    const path = writeTemp(dir(), 'skip.txt', `a\n${'x'.repeat(300_000)}\nb\n${'y'.repeat(200)}`);
    const lines = await collect(readLines(path, { maxLineBytes: 100, skipOverlong: true }));
    assert.deepEqual(
      lines.map((l) => [l.line, l.text, !!l.overlong]),
      [[1, 'a', false], [2, '', true], [3, 'b', false], [4, '', true]],
    );
    assert.equal(lines[1]!.byteStart, 2);
    assert.equal(lines[1]!.byteEnd, 300_002);
  });

  it('flags a line that is not valid UTF-8', async () => {
    const path = writeTemp(dir(), 'latin1.txt', Buffer.concat([Buffer.from('ok �\n'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])]));
    const lines = await collect(readLines(path));
    assert.deepEqual(lines.map((l) => [l.text, !!l.invalidUtf8]), [['ok �', false], ['caf\uFFFD', true]]);
  });

  it('throws the abort reason when the signal is aborted, before or while reading', async () => {
    const path = writeTemp(dir(), 'abort.txt', 'line\n'.repeat(100_000));
    const reason = new Error('stop');
    await assert.rejects(collect(readLines(path, { signal: AbortSignal.abort(reason) })), (e) => e === reason);

    const ac = new AbortController();
    let seen = 0;
    await assert.rejects(
      (async () => {
        for await (const _ of readLines(path, { signal: ac.signal })) {
          if (++seen === 10) ac.abort(reason);
        }
      })(),
      (e) => e === reason,
    );
    assert.equal(seen, 10);
  });

  it('keeps memory bounded by the longest line while reading a large file', async function () {
    this.timeout(120_000);
    const path = join(dir(), 'large.txt');
    const out = createWriteStream(path);
    const line = `${'0123456789'.repeat(99)}\n`;
    for (let i = 0; i < 60_000; i++) if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));

    const base = retainedHeap();
    let peak = 0;
    let n = 0;
    for await (const l of readLines(path)) {
      if (++n % 10_000 === 0) peak = Math.max(peak, retainedHeap() - base);
      assert.equal(l.text.length, 990);
    }
    assert.equal(n, 60_000);
    assert.ok(peak < 10 * MiB, `retained heap grew by ${(peak / MiB).toFixed(1)} MiB over ~59 MiB of lines`);
  });
});
