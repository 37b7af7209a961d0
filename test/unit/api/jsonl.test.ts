import assert from 'node:assert/strict';
import { decodeJsonl, JsonlError } from '../../../src/api/jsonl';

async function* chunksOf(...parts: (string | Buffer)[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield typeof p === 'string' ? Buffer.from(p) : p;
}

async function collect(source: AsyncIterable<Uint8Array>, maxLineBytes?: number) {
  const out: { line: number; value: unknown }[] = [];
  for await (const item of decodeJsonl(source, { maxLineBytes })) out.push(item);
  return out;
}

describe('api/jsonl decodeJsonl', () => {
  it('yields one value per line with 1-based line numbers', async () => {
    const rows = await collect(chunksOf('{"a":1}\n{"a":2}\n'));
    assert.deepEqual(rows, [
      { line: 1, value: { a: 1 } },
      { line: 2, value: { a: 2 } },
    ]);
  });

  it('joins a line split across chunk boundaries', async () => {
    const rows = await collect(chunksOf('{"thread', '_id":"t1"', '}\n{"thr', 'ead_id":"t2"}\n'));
    assert.deepEqual(rows.map((r) => r.value), [{ thread_id: 't1' }, { thread_id: 't2' }]);
  });

  it('survives a chunk boundary inside a multi-byte UTF-8 character', async () => {
    const bytes = Buffer.from('{"s":"héllo 🎉 wörld"}\n');
    const emoji = bytes.indexOf(0xf0); // first byte of the 4-byte emoji
    const rows = await collect(chunksOf(bytes.subarray(0, emoji + 2), bytes.subarray(emoji + 2)));
    assert.deepEqual(rows[0]!.value, { s: 'héllo 🎉 wörld' });
  });

  it('splits a byte stream one byte at a time identically', async () => {
    const text = '{"a":"é"}\r\n{"b":[1,2]}\n\n{"c":null}';
    const bytes = Buffer.from(text);
    const single = await collect(chunksOf(...[...bytes].map((b) => Buffer.from([b]))));
    const whole = await collect(chunksOf(text));
    assert.deepEqual(single, whole);
    assert.equal(single.length, 3);
  });

  it("treats CRLF like LF: a line break's \\r does not count against the line limit", async () => {
    // 7 bytes of JSON then \r\n, with a 7-byte limit: counting the \r would refuse the line.
    const rows = await collect(chunksOf('{"a":1}\r\n{"a":2}\r', '\n'), 7);
    assert.deepEqual(rows.map((r) => r.value), [{ a: 1 }, { a: 2 }]);
  });

  it('accepts a missing final newline', async () => {
    const rows = await collect(chunksOf('{"a":1}\n{"a":2}'));
    assert.deepEqual(rows.map((r) => r.value), [{ a: 1 }, { a: 2 }]);
    assert.equal(rows[1]!.line, 2);
  });

  it('yields nothing for an empty body and skips blank lines, counting them', async () => {
    assert.deepEqual(await collect(chunksOf()), []);
    assert.deepEqual(await collect(chunksOf('')), []);
    const rows = await collect(chunksOf('\n\n{"a":1}\n   \n{"a":2}\n'));
    assert.deepEqual(rows.map((r) => r.line), [3, 5]);
  });

  it('names the line number of a malformed line', async () => {
    await assert.rejects(collect(chunksOf('{"a":1}\n{"a":\n{"a":3}\n')), (e: unknown) => {
      assert.ok(e instanceof JsonlError);
      assert.equal(e.line, 2);
      assert.equal(e.kind, 'malformed');
      assert.match(e.message, /Line 2/);
      return true;
    });
  });

  it('names a truncated final line', async () => {
    await assert.rejects(collect(chunksOf('{"a":1}\n{"a":2}\n{"thread_id":"t')), (e: unknown) => {
      assert.ok(e instanceof JsonlError);
      assert.equal(e.line, 3);
      return true;
    });
  });

  it('refuses a line longer than the cap without buffering the rest of the stream', async () => {
    let produced = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      const block = Buffer.alloc(64 * 1024, 0x61); // 'a' forever, never a newline
      for (;;) {
        produced++;
        yield block;
      }
    }
    await assert.rejects(collect(endless(), 1024 * 1024), (e: unknown) => {
      assert.ok(e instanceof JsonlError);
      assert.equal(e.kind, 'too-long');
      assert.equal(e.line, 1);
      return true;
    });
    assert.ok(produced <= 17, `read ${produced} blocks of 64 KiB before refusing`);
  });

  it('refuses an overlong line that arrives in one chunk', async () => {
    const big = Buffer.from(`{"a":"${'x'.repeat(2000)}"}\n`);
    await assert.rejects(collect(chunksOf('{"ok":1}\n', big), 1000), /Line 2 is longer than the limit of 1000 bytes/);
  });
});
