/**
 * Issue 32: the zip reader under Inspect AI's `.eval` logs. Honest zips are written by Python's
 * zipfile (stored and deflate) with Zstd entries (method 93) from the zstd tool, several frames
 * per entry as Inspect writes them (test/fixtures/inspect/write_eval.py); hostile ones are honest
 * zips whose bytes were then changed (test/fixtures/inspect/hostile_zip.py). Every hostile zip is a
 * ZipError naming the file and the entry, and no read holds the event loop for long.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ZipError, ZipReader } from '../../../src/files/zip';
import { useTempDir } from './helpers';
import { FIXTURES, maxHold, writeEval } from '../../fixtures/inspect/evalFixtures';

function hostile(dir: string, mode: string): string {
  const path = join(dir, `${mode}.eval`);
  execFileSync('python3', [join(FIXTURES, 'hostile_zip.py'), path, mode]);
  return path;
}

/** Opens `path` and reads every entry; returns the error thrown (or undefined) and the longest hold. */
async function readAll(path: string): Promise<{ error: ZipError | undefined; hold: number }> {
  const { result, hold } = await maxHold(async () => {
    let zip: ZipReader | undefined;
    try {
      zip = await ZipReader.open(path);
      for (const name of zip.names()) await zip.read(name);
      return undefined;
    } catch (e) {
      if (e instanceof ZipError) return e;
      throw e;
    } finally {
      await zip?.close();
    }
  });
  return { error: result, hold };
}

describe('files/zip: the .eval zip reader (issue 32)', function () {
  this.timeout(60_000);
  const dir = useTempDir();

  for (const compression of ['zstd', 'deflate', 'stored', 'mixed']) {
    it(`reads every entry of an Inspect log written by Python (${compression}), byte for byte`, async () => {
      const path = writeEval(join(dir(), `${compression}.eval`), { compression, samples: 2, epochs: 2 });
      const zip = await ZipReader.open(path);
      try {
        assert.deepEqual(zip.names().filter((n) => !n.startsWith('_journal/')), ['samples/1_epoch_1.json', 'samples/1_epoch_2.json', 'samples/2_epoch_1.json', 'samples/2_epoch_2.json', 'summaries.json', 'reductions.json', 'header.json']);
        const py = JSON.parse(execFileSync('python3', ['-c', 'import sys,zipfile,json; z=zipfile.ZipFile(sys.argv[1]); print(json.dumps({i.filename: [i.compress_type, i.CRC] for i in z.infolist()}))', path], { encoding: 'utf8' })) as Record<string, [number, number]>;
        for (const name of zip.names()) {
          const text = (await zip.read(name)).toString('utf8');
          JSON.parse(text);
          assert.equal(zip.entries.get(name)!.method, py[name]![0], name);
        }
      } finally {
        await zip.close();
      }
    });
  }

  it('reads a Zstd entry written as many frames (Inspect splits large entries every 200 MiB)', async () => {
    const path = writeEval(join(dir(), 'frames.eval'), { compression: 'zstd', samples: 1, epochs: 1, pad: 20_000, frame_bytes: 4096 });
    const zip = await ZipReader.open(path);
    try {
      const e = zip.entries.get('samples/1_epoch_1.json')!;
      const raw = await (await import('node:fs/promises')).readFile(path);
      // Several Zstd frames in the entry's data (magic 28 b5 2f fd).
      const data = raw.subarray(e.offset, e.offset + 30 + e.name.length + e.compressedSize);
      let frames = 0;
      for (let i = data.indexOf(Buffer.from('28b52ffd', 'hex')); i >= 0; i = data.indexOf(Buffer.from('28b52ffd', 'hex'), i + 1)) frames++;
      assert.ok(frames >= 5, `${frames} frames`);
      const sample = JSON.parse((await zip.read('samples/1_epoch_1.json')).toString()) as { messages: { content: unknown }[] };
      assert.equal(sample.messages.length, 5);
    } finally {
      await zip.close();
    }
  });

  let zip64 = '';
  const zip64Path = () => (zip64 ||= hostile(dir(), 'zip64'));

  it('reads a zip64 central directory (70,000 entries, more than a plain end record counts)', async () => {
    const path = zip64Path();
    const zip = await ZipReader.open(path);
    try {
      assert.equal(zip.entries.size, 70_001);
      assert.equal((await zip.read('header.json')).toString(), '{"version": 2}');
      assert.equal((await zip.read('_journal/summaries/70000.json')).toString(), '[]');
    } finally {
      await zip.close();
    }
  });

  const cases: [string, RegExp][] = [
    ['deflate-bomb', /^deflate-bomb\.eval, entry samples\/1_epoch_1\.json: it decompresses to more than the 1,048,576 bytes the zip says/],
    ['zstd-bomb', /^zstd-bomb\.eval, entry samples\/1_epoch_1\.json: .*(more than the 1,048,576 bytes|1,048,576)/],
    ['huge-declared', /^huge-declared\.eval, entry samples\/1_epoch_1\.json: the zip says it holds 314,572,800 bytes decompressed, more than the 268,435,456 this reader reads of one entry/],
    ['ratio', /^ratio\.eval, entry samples\/1_epoch_1\.json: the zip says it holds 104,857,600 bytes decompressed from 1,024, more than 1,000 times \(a decompression bomb/],
    ['offset-past-end', /^offset-past-end\.eval, entry samples\/1_epoch_1\.json: the central directory says its \d+ compressed bytes start at byte 1,000,000,000, which runs past/],
    ['size-past-end', /^size-past-end\.eval, entry samples\/1_epoch_1\.json: the central directory says its 100,000,000 compressed bytes start at byte \d+, which runs past/],
    ['overlap', /^overlap\.eval, entry (header\.json|samples\/1_epoch_1\.json): it overlaps entry (header\.json|samples\/1_epoch_1\.json): both are said to lie at byte 0/],
    ['local-name', /^local-name\.eval, entry samples\/1_epoch_1\.json: its local header names it "zzzzzzz\/1_epoch_1\.json"/],
    ['local-method', /^local-method\.eval, entry samples\/1_epoch_1\.json: its local header says compression method 0, the central directory 8/],
    ['too-many', /^too-many\.eval: its central directory lists 60,000 entries in \d+ bytes, too few for them/],
    ['crc', /^crc\.eval, entry header\.json: its CRC-32 is 0x[0-9a-f]{8}, the zip says 0x[0-9a-f]{8}: the data is damaged/],
    ['truncated', /^truncated\.eval: not a zip, or cut short: no end-of-central-directory record/],
  ];
  for (const [mode, message] of cases) {
    it(`a hostile zip (${mode}) is a clear problem naming the file and entry, the event loop never held long`, async () => {
      const { error, hold } = await readAll(hostile(dir(), mode));
      assert.ok(error, 'no error');
      assert.match(error.message, message);
      console.log(`      ${mode}: event loop held at most ${hold.toFixed(1)} ms`);
      assert.ok(hold < 100, `the event loop was held ${hold.toFixed(0)} ms`);
    });
  }

  it('more entries than the cap is refused before the directory is parsed', async () => {
    const path = zip64Path();
    await assert.rejects(ZipReader.open(path, { maxEntries: 1000 }), { message: 'zip64.eval: its central directory lists 70,001 entries, more than the 1,000 this reader reads' });
  });
});
