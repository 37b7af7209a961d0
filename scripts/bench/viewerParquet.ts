// The trajectory viewer on ART Parquet step files, for `npm run bench` (also alone: `npx tsx
// scripts/bench/viewerParquet.ts [--runs N] [--gib G]`): the time until the first group and
// trajectory are on screen for a 1 GiB step file against the same viewer on a 15 KiB one, over
// alternating runs (each file in a fresh window), and the extension host's peak RSS while the big
// file is indexed and validated. Both files are written by DuckDB in ART's v2 layout (cached).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ViewerFigures as Figures } from '../../test/host/bench-viewer';
import { median, mib, ms, viewerRunOnce as runOnce } from './viewerWindow';
import { CACHE } from './data';
import type { ViewerRow } from './viewer';

const root = path.resolve(__dirname, '..', '..');

/**
 * An ART v2 step file of `rows` trajectories (groups of 8) whose messages hold `chars` characters of
 * pseudo-random hex each, generated and written by DuckDB itself (nothing staged). The content is
 * in `trajectory_json` and again in the `messages` column, as ART writes it. Row groups of 2,048
 * rows: DuckDB writes a column chunk as one data page (ART's pyarrow writes 1 MiB pages), so this
 * bounds the page the viewer decodes for the first group.
 */
export async function parquetViewerFile(name: string, rows: number, chars: number): Promise<string> {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, `${name}.parquet`);
  if (fs.existsSync(file)) return file;
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const con = await instance.connect();
  const md5s = Math.max(1, Math.round(chars / 33));
  try {
    await con.run('SET preserve_insertion_order = true');
    await con.run(`
      COPY (
        SELECT
          2::SMALLINT AS format_version,
          (i // 8)::BIGINT AS group_index,
          (i % 8)::BIGINT AS trajectory_index,
          '{"metadata":{"group":' || (i // 8) || '}}' AS group_json,
          '{"messages_and_choices":[{"role":"user","content":"Question ' || i || ': ' || body || '"},{"finish_reason":"stop","index":0,"logprobs":null,"message":{"role":"assistant","content":"Answer ' || i || '","tool_calls":null}}],"reward":' || reward || '}' AS trajectory_json,
          '{"group":' || (i // 8) || '}' AS group_metadata,
          NULL::VARCHAR AS group_metrics,
          NULL::VARCHAR[] AS group_logs,
          reward,
          NULL::VARCHAR AS metrics,
          NULL::VARCHAR AS metadata,
          NULL::VARCHAR AS tools,
          NULL::VARCHAR[] AS logs,
          [{'role': 'user', 'content': 'Question ' || i || ': ' || body, 'tool_calls': NULL::VARCHAR, 'tool_call_id': NULL::VARCHAR, 'trainable': false},
           {'role': 'assistant', 'content': 'Answer ' || i, 'tool_calls': NULL::VARCHAR, 'tool_call_id': NULL::VARCHAR, 'trainable': true}] AS messages
        FROM (
          SELECT i, ((i * 7) % 11 + 0.5) / 11 AS reward, array_to_string([md5((i * ${md5s} + x)::VARCHAR) FOR x IN range(${md5s})], ' ') AS body
          FROM range(${rows}) t(i)
        )
      ) TO '${file.replace(/'/g, "''")}.tmp' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2048, KV_METADATA {'art.trajectory_parquet.version': '2'})`);
  } finally {
    con.closeSync();
    instance.closeSync();
  }
  fs.renameSync(`${file}.tmp`, file);
  return file;
}


/** `runs` alternating pairs (small, big); the first big run also waits for validation, for its RSS. */
export async function viewerParquetBench(gib: number, runs: number): Promise<ViewerRow[]> {
  // About 8 KiB of Parquet per trajectory (the content twice, hex at about half its size).
  const big = await parquetViewerFile(`viewer-${gib}gib`, Math.round((gib * 1024 * 1024 * 1024) / 8200), 8000);
  const small = await parquetViewerFile('viewer-small', 12, 700);
  const smalls: Figures[] = [];
  const bigs: Figures[] = [];
  for (let i = 0; i < runs; i++) {
    smalls.push(runOnce(small, true));
    bigs.push(runOnce(big, i > 0));
  }
  const s = median(smalls.map((f) => f.firstPaintMs));
  const b = median(bigs.map((f) => f.firstPaintMs));
  const ratios = bigs.map((f, i) => f.firstPaintMs / smalls[i]!.firstPaintMs);
  const full = bigs[0]!;
  return [
    {
      what: `viewer: first group on screen, ${mib(full.bytes)} MiB Parquet step file, ${full.groups.toLocaleString('en-US')} groups`,
      value: ms(b),
      baselineName: `the same viewer on a ${(smalls[0]!.bytes / 1024).toFixed(0)} KiB Parquet file`,
      baseline: ms(s),
      ratio: b / s,
      note: `(medians of ${runs} alternating runs, each in a fresh window; ratio per pair min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}; big: ${bigs.map((f) => Math.round(f.firstPaintMs)).join(', ')} ms, small: ${smalls.map((f) => Math.round(f.firstPaintMs)).join(', ')} ms; whole file indexed in ${(full.indexedMs / 1000).toFixed(1)} s, validated in ${(full.validatedMs / 1000).toFixed(1)} s)`,
    },
    {
      what: `viewer: extension host peak RSS, ${mib(full.bytes)} MiB Parquet, while indexing and validating`,
      value: `${mib(full.peakRss)} MiB (${mib(full.endRss)} MiB after)`,
      baselineName: 'host RSS before opening',
      baseline: `${mib(full.startRss)} MiB`,
      ratio: full.peakRss / full.startRss,
      note: '',
    },
  ];
}

if (require.main === module) {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  spawnSync(process.execPath, ['esbuild.js', '--tests'], { cwd: root, stdio: 'ignore' });
  viewerParquetBench(arg('--gib', 1), arg('--runs', 5)).then(
    (rows) => {
      for (const r of rows) console.log(`  ${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)} ${r.note}`);
    },
    (e: Error) => {
      console.error(e.message);
      process.exit(1);
    },
  );
}
