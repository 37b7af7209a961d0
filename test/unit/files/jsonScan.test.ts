// The streaming JSON scanner's options for the viewer: byte offsets that cut each value out of the
// file exactly (whatever the chunk size, with a byte order mark, CRLF and multi-byte text), the
// root's end, members that are matched but not kept, and a lenient mode that steps over faults
// between items and says where they are.
import assert from 'node:assert/strict';
import { MemoryBytes } from '../../../src/files/bytes';
import { scanJson } from '../../../src/files/jsonScan';
import { JsonScanError, type ScanEvent, type ScanOptions } from '../../../src/files/jsonScanEvents';
import { collect } from './helpers';

const scan = (bytes: Buffer, opts: Partial<ScanOptions> = {}) => collect(scanJson(new MemoryBytes(bytes), { streamMember: 'trajectory_groups', maxValueChars: 1 << 20, ...opts }));

describe('files/jsonScan: byte offsets, members and the lenient mode', () => {
  const doc = Buffer.from('\uFEFF{\r\n "split": "vål",\n "notes": {"a": [1, 2, "]"]},\n "trajectory_groups": [\n  {"trajectories": [{"reward": 1, "t": "ü😀"}]},\n  {"trajectories": []}, 7\n ]\n}\n');

  it('gives each captured value, the root and its end the byte offsets that cut them out of the file, whatever the chunk size', async () => {
    for (const chunkBytes of [1, 2, 3, 5, 64, 256 * 1024]) {
      const events = await scan(doc, { byteOffsets: true, chunkBytes });
      const values = events.flatMap((e) => ('value' in e ? [e.value] : []));
      assert.equal(values.length, 5, `chunk ${chunkBytes}`);
      for (const v of values) assert.equal(doc.toString('utf8', v.byteStart, v.byteEnd), v.text, `chunk ${chunkBytes}`);
      const root = events.find((e) => e.kind === 'root') as Extract<ScanEvent, { kind: 'root' }>;
      const end = events.find((e) => e.kind === 'end') as Extract<ScanEvent, { kind: 'end' }>;
      assert.equal(root.byteStart, 3, 'after the byte order mark');
      assert.equal(end.byteEnd, doc.length - 1, 'just past the closing brace');
      assert.deepEqual([end.line, end.column], [8, 1]);
      assert.ok(JSON.parse(doc.toString('utf8', root.byteStart, end.byteEnd)));
    }
  });

  it('leaves byte offsets out unless asked for', async () => {
    for (const e of await scan(doc)) if ('value' in e) assert.equal(e.value.byteStart, undefined);
  });

  it('matches members it is not asked for without keeping them', async () => {
    const events = await scan(doc, { members: new Set(['split']), chunkBytes: 7 });
    assert.deepEqual(events.map((e) => (e.kind === 'member' ? `member ${e.key}` : e.kind)), ['root', 'member split', 'stream', 'item', 'item', 'item', 'end']);
  });

  it('steps over a missing comma, a doubled comma and a trailing comma between items when lenient, and says where', async () => {
    const text = '{"trajectory_groups": [\n{"a": 1}\n{"a": 2},,\n{"a": 3},\n]}';
    const events = await scan(Buffer.from(text), { lenient: true, chunkBytes: 4 });
    assert.deepEqual(
      events.filter((e) => e.kind === 'item').map((e) => (e as Extract<ScanEvent, { kind: 'item' }>).value.text),
      ['{"a": 1}', '{"a": 2}', '{"a": 3}'],
    );
    assert.deepEqual(
      events.filter((e) => e.kind === 'fault').map((e) => { const f = e as Extract<ScanEvent, { kind: 'fault' }>; return `${f.line}:${f.column} ${f.message}`; }),
      ['3:1 Invalid JSON: comma expected', '3:10 Invalid JSON: value expected', '4:9 Invalid JSON: trailing comma'],
    );
  });

  it('throws at the same faults when not lenient, and ends at content after the document when lenient', async () => {
    await assert.rejects(scan(Buffer.from('[{"a": 1} {"a": 2}]')), (e: unknown) => e instanceof JsonScanError && /comma expected/.test(e.message) && e.column === 11);
    const after = await scan(Buffer.from('[1]\n[2]'), { lenient: true });
    assert.deepEqual(after.map((e) => e.kind), ['root', 'item', 'end', 'fault']);
    await assert.rejects(scan(Buffer.from('[1]\n[2]')), JsonScanError);
  });

  it('marks a document cut short as truncated, and calls afterChunk with the bytes read', async () => {
    const seen: number[] = [];
    const cut = Buffer.from('{"trajectory_groups": [{"trajectories": []}');
    await assert.rejects(
      scan(cut, { chunkBytes: 16, afterChunk: (n) => void seen.push(n) }),
      (e: unknown) => e instanceof JsonScanError && e.truncated && !e.tooLarge,
    );
    assert.deepEqual(seen, [16, 32, cut.length]);
    await assert.rejects(scan(Buffer.from('[1, {"a": ')), (e: unknown) => e instanceof JsonScanError && e.truncated);
    await assert.rejects(scan(Buffer.from('[1, 2 x]')), (e: unknown) => e instanceof JsonScanError && !e.truncated);
  });
});
