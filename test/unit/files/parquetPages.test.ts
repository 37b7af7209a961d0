import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import { parquetReadObjects } from 'hyparquet';
import { compressors, ParquetFile } from '../../../src/files/parquet';
import { ParquetPages } from '../../../src/files/parquetPages';
import { compactGroup, emptyGroup, writeArtParquet } from '../../fixtures/art/parquet';
import { useTempDir } from './helpers';

describe('files/parquetPages: a few rows of a column without the rows before them', function () {
  // DuckDB writes the fixture.
  this.timeout(60_000);
  const dir = useTempDir();
  let path = '';
  let file: ParquetFile;
  let pages: ParquetPages;
  before(async () => {
    // Row groups of 2,048 rows, empty groups (null trajectory_json) here and there, a 100 kB content now and then.
    const groups = Array.from({ length: 2500 }, (_, i) => (i % 97 === 5 ? emptyGroup() : compactGroup(i, { size: i % 300 === 0 ? 100_000 : undefined })));
    path = join(dir(), 'rows.parquet');
    await writeArtParquet(path, groups, { rowGroupSize: 2048 });
    file = await ParquetFile.open(path);
    pages = await ParquetPages.open(path, file.metadata);
  });
  after(async () => {
    await pages?.close();
    await file?.close();
  });

  /** The same rows as hyparquet's own reader gives them (it decodes whole column chunks). */
  const reference = async (column: string, a: number, b: number) => {
    const rows = await parquetReadObjects({ file: { byteLength: file.size, slice: (s, e) => pages.bytes(s, (e ?? file.size) - s) }, metadata: file.metadata, columns: [column], rowStart: a, rowEnd: b + 1, compressors });
    return rows.map((r) => r[column] ?? null);
  };

  it('gives the rows hyparquet gives, nulls included, within a page, across row groups, in any order', async () => {
    const rows = Number(file.metadata.num_rows);
    assert.ok(file.metadata.row_groups.length > 1);
    const boundary = Number(file.metadata.row_groups[0]!.num_rows);
    for (const [a, b] of [[boundary - 3, boundary + 2], [0, 7], [9, 12], [4, 4], [rows - 5, rows - 1], [600, 640], [10, 11]] as const) {
      for (const column of ['trajectory_json', 'group_json', 'group_index', 'trajectory_index', 'reward']) {
        assert.deepEqual(await pages.read(column, a, b), await reference(column, a, b), `${column} rows ${a}–${b}`);
      }
    }
    assert.ok((await pages.read('trajectory_json', 0, rows - 1)).includes(null), 'the empty groups\' rows are null');
  });

  /** Node 22.15+ (Node 24: VS Code 1.139's) decompresses Zstd natively, and faster whole than fzstd block by block (src/files/parquetPrefix.ts). */
  const nativeZstd = typeof (zlib as { zstdDecompressSync?: unknown }).zstdDecompressSync === 'function';

  it(`decompresses a page ${nativeZstd ? "whole with Node's native Zstd (no prefix kept)" : 'only as far as the rows asked for (pure-JS Zstd)'}`, async () => {
    // Content Zstd cannot shrink to nothing (hex of random bytes): the page is many Zstd blocks.
    const groups = Array.from({ length: 60 }, (_, i) => ({ trajectories: [0, 1].map((t) => ({ messages_and_choices: [{ role: 'user', content: randomBytes(10_000).toString('hex') }], reward: t / 2 })), metadata: { i } }));
    const noisy = join(dir(), 'noisy.parquet');
    await writeArtParquet(noisy, groups);
    const f = await ParquetFile.open(noisy);
    // fzstd (pure JS): with Node's native Zstd (22.15+) a page is decoded whole, off the event loop.
    const fresh = await ParquetPages.open(noisy, f.metadata, { zstd: 'js' });
    try {
      assert.deepEqual(await fresh.read('trajectory_json', 0, 1), groups[0]!.trajectories.map((t) => JSON.stringify(t)));
      // White box: how much of the page was decompressed for its first two rows.
      const state = (fresh as unknown as { prefixes: Map<string, { prefix: { have: number; out: Uint8Array } }> }).prefixes.get('trajectory_json');
      if (nativeZstd) {
        assert.equal(state, undefined, 'Node decompresses the whole page: no page prefix is kept');
      } else {
        assert.ok(state, 'the page is read from its beginning');
        assert.ok(state.prefix.have < state.prefix.out.length / 4, `${state.prefix.have} of ${state.prefix.out.length} bytes`);
      }
      assert.deepEqual(await fresh.read('trajectory_json', 118, 119), groups[59]!.trajectories.map((t) => JSON.stringify(t)), 'and on from there');
    } finally {
      await fresh.close();
      await f.close();
    }
  });

  it('names the column and row of a range the file does not hold', async () => {
    const rows = Number(file.metadata.num_rows);
    await assert.rejects(pages.read('trajectory_json', rows - 1, rows + 3), /column "trajectory_json" holds 1 of rows/);
    await assert.rejects(pages.read('no_such_column', 0, 0), /has no column "no_such_column"/);
  });
});
