// The readers take a byte source: a file on disk or an editor's text in memory read the same, so the
// viewer shows unsaved edits through the same line reader and JSON scanner that validate a file.
import assert from 'node:assert/strict';
import { chunksOf, FileBytes, MemoryBytes, type ByteSource } from '../../../src/files/bytes';
import { readLines } from '../../../src/files/lines';
import { scanJson } from '../../../src/files/jsonScan';
import { collect, useTempDir, writeTemp } from './helpers';

/** A source that records whether it was closed. */
class Watched implements ByteSource {
  closed = false;
  constructor(private readonly inner: ByteSource) {}
  get size(): number {
    return this.inner.size;
  }
  read(start: number, end: number): Promise<Buffer> {
    return this.inner.read(start, end);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('files/bytes: the readers read a file and the same bytes in memory alike', () => {
  const dir = useTempDir();
  // A byte order mark, CRLF and LF, a blank line, non-ASCII text, an invalid byte and no final newline.
  const bytes = Buffer.concat([Buffer.from('\uFEFF{"a":"é"}\r\n\n  {"b":[1,\n2]}\n'), Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from('\nlast')]);

  it('reads the same lines, at their byte offsets, from a path, a file and memory, whatever the chunk size', async () => {
    const path = writeTemp(dir(), 'lines.jsonl', bytes);
    const fromPath = await collect(readLines(path));
    assert.equal(fromPath.length, 6);
    for (const chunkBytes of [1, 2, 3, 7, 64 * 1024]) {
      const file = await FileBytes.open(path);
      try {
        assert.deepEqual(await collect(readLines(file, { chunkBytes })), fromPath, `file, chunk ${chunkBytes}`);
      } finally {
        await file.close();
      }
      assert.deepEqual(await collect(readLines(new MemoryBytes(bytes), { chunkBytes })), fromPath, `memory, chunk ${chunkBytes}`);
    }
    for (const l of fromPath) assert.equal(bytes.toString('utf8', l.byteStart, l.byteEnd).replace(/\r$/, ''), l.text);
  });

  it('scans the same JSON events from a path and from memory, whatever the chunk size', async () => {
    const json = Buffer.from('\uFEFF{\r\n "split": "val",\n "trajectory_groups": [\n  {"trajectories": [{"reward": 1, "t": "ü"}]},\n  {"trajectories": []}\n ]\n}\n');
    const path = writeTemp(dir(), 'doc.json', json);
    const opts = { streamMember: 'trajectory_groups', maxValueChars: 1 << 20 };
    const fromPath = await collect(scanJson(path, opts));
    assert.deepEqual(fromPath.map((e) => e.kind), ['root', 'member', 'stream', 'item', 'item', 'end']);
    for (const chunkBytes of [1, 5, 256 * 1024]) assert.deepEqual(await collect(scanJson(new MemoryBytes(json), { ...opts, chunkBytes })), fromPath, `chunk ${chunkBytes}`);
  });

  it('calls afterChunk once the lines that end in a chunk are consumed, with the offset read up to', async () => {
    const seen: string[] = [];
    const afterChunk = (offset: number) => {
      seen.push(`chunk ${offset}`);
    };
    for await (const l of readLines(MemoryBytes.fromText('ab\ncd\nef'), { chunkBytes: 4, afterChunk })) seen.push(l.text);
    assert.deepEqual(seen, ['ab', 'chunk 4', 'cd', 'chunk 8', 'ef']);
  });

  it('leaves a source it was given open, for the caller to close', async () => {
    const lines = new Watched(MemoryBytes.fromText('a\nb\n'));
    assert.deepEqual((await collect(readLines(lines))).map((l) => l.text), ['a', 'b']);
    const json = new Watched(MemoryBytes.fromText('[1, 2]'));
    assert.equal((await collect(scanJson(json, { streamMember: 'x', maxValueChars: 10 }))).length, 4);
    assert.equal(lines.closed || json.closed, false);
  });

  it('reads a source in chunks of the size asked, from an offset, and stops at abort', async () => {
    const source = MemoryBytes.fromText('0123456789');
    assert.deepEqual((await collect(chunksOf(source, 4, undefined, 1))).map((b) => b.toString()), ['1234', '5678', '9']);
    const reason = new Error('stop');
    await assert.rejects(collect(chunksOf(source, 4, AbortSignal.abort(reason))), (e) => e === reason);
    await assert.rejects(collect(readLines(source, { signal: AbortSignal.abort(reason) })), (e) => e === reason);
  });
});
