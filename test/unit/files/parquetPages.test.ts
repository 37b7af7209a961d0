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
  /** The page prefix kept for a column (white box); asserted with ok(), never equal(): a failing equal() would make mocha print its megabytes. */
  const prefixOf = (p: ParquetPages, column: string) => (p as unknown as { prefixes: Map<string, { prefix: { have: number; out: Uint8Array } }> }).prefixes.get(column);

  it('decompresses a page only as far as the rows asked for with pure-JS Zstd (forced with { zstd: "js" } where Node has its own); with Node\'s native Zstd, whole', async () => {
    // Content Zstd cannot shrink to nothing (hex of random bytes): the page is many Zstd blocks.
    const groups = Array.from({ length: 60 }, (_, i) => ({ trajectories: [0, 1].map((t) => ({ messages_and_choices: [{ role: 'user', content: randomBytes(10_000).toString('hex') }], reward: t / 2 })), metadata: { i } }));
    const noisy = join(dir(), 'noisy.parquet');
    await writeArtParquet(noisy, groups);
    const f = await ParquetFile.open(noisy);
    const js = await ParquetPages.open(noisy, f.metadata, { zstd: 'js' });
    const byDefault = await ParquetPages.open(noisy, f.metadata);
    try {
      assert.deepEqual(await js.read('trajectory_json', 0, 1), groups[0]!.trajectories.map((t) => JSON.stringify(t)));
      const state = prefixOf(js, 'trajectory_json');
      assert.ok(state, 'fzstd reads the page from its beginning');
      assert.ok(state.prefix.have < state.prefix.out.length / 4, `${state.prefix.have} of ${state.prefix.out.length} bytes`);
      assert.deepEqual(await js.read('trajectory_json', 118, 119), groups[59]!.trajectories.map((t) => JSON.stringify(t)), 'and on from there');
      assert.deepEqual(await byDefault.read('trajectory_json', 0, 1), groups[0]!.trajectories.map((t) => JSON.stringify(t)));
      const kept = prefixOf(byDefault, 'trajectory_json') !== undefined;
      assert.ok(kept === !nativeZstd, nativeZstd ? "Node's native Zstd decompresses the page whole: no prefix is kept" : 'without native Zstd the default is fzstd, by prefix');
    } finally {
      await js.close();
      await byDefault.close();
      await f.close();
    }
  });

  it('names the column and row of a range the file does not hold', async () => {
    const rows = Number(file.metadata.num_rows);
    await assert.rejects(pages.read('trajectory_json', rows - 1, rows + 3), /column "trajectory_json" holds 1 of rows/);
    await assert.rejects(pages.read('no_such_column', 0, 0), /has no column "no_such_column"/);
  });
});
