// The reward distribution per step (issue 31 item 2): the extension side's read of a run's step
// files (src/dashboard/distributionFeed.ts over the Runs view's cache: the small columns only,
// quantiles, sketches, the messages to the webview) against DuckDB reading the same columns
// (group_index, trajectory_index, reward) of the same files, one thread, sorting each step's rewards.
// The run: one ART step file written by DuckDB (parquetTrajectoryFile), copied to `steps` step files.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CACHE, parquetTrajectoryFile } from './data';
import { DistributionFeed } from '../../src/dashboard/distributionFeed';
import { StepStatsCache } from '../../src/runs/stepStats';
import type { ViewerRow } from './viewer';

/** A row of the bench's table, as the viewer's figures give theirs. */
export type DistributionFigure = ViewerRow;

/** A run folder of `steps` copies of one step file of `mb` MiB of group JSON (cached). */
async function runOf(steps: number, mb: number): Promise<{ dir: string; files: string[]; bytes: number }> {
  const step = await parquetTrajectoryFile(mb);
  const dir = path.join(CACHE, `run-${steps}x${mb}mb`, '.art', 'bench', 'models', 'run');
  const split = path.join(dir, 'trajectories', 'train');
  fs.mkdirSync(split, { recursive: true });
  const files: string[] = [];
  for (let s = 1; s <= steps; s++) {
    const f = path.join(split, `${String(s).padStart(4, '0')}.parquet`);
    if (!fs.existsSync(f)) fs.copyFileSync(step, f);
    files.push(f);
  }
  return { dir, files, bytes: fs.statSync(step).size * steps };
}

export async function distributionBench(steps: number, mb: number, runs: number): Promise<DistributionFigure[]> {
  const { dir, files, bytes } = await runOf(steps, mb);
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await instance.connect();
  let trajectories = 0;
  const ours = async () => {
    const t0 = performance.now();
    let drawn = 0;
    // A fresh cache: every step file is read (the first open of a run's dashboard).
    const feed = new DistributionFeed(dir, new StepStatsCache(), (m) => (drawn += m.steps.length));
    await feed.start();
    if (drawn !== steps) throw new Error(`distribution: ${drawn} of ${steps} steps`);
    return performance.now() - t0;
  };
  const duck = async () => {
    const t0 = performance.now();
    trajectories = 0;
    for (const f of files) {
      const reader = await con.runAndReadAll(`SELECT group_index, trajectory_index, reward FROM read_parquet('${f.replace(/'/g, "''")}')`);
      const rewards = reader.getColumns()[2]!.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
      trajectories += rewards.length;
    }
    return performance.now() - t0;
  };
  const a: number[] = [];
  const b: number[] = [];
  // RSS sampled every 10 ms while our reads run: how far above its start it rose (in this process,
  // DuckDB's instance already loaded: indicative, not a fresh-process figure).
  let rssRise = 0;
  for (let i = 0; i < runs; i++) {
    const start = process.memoryUsage.rss();
    const sampler = setInterval(() => (rssRise = Math.max(rssRise, process.memoryUsage.rss() - start)), 10);
    try {
      a.push(await ours());
    } finally {
      clearInterval(sampler);
    }
    b.push(await duck());
  }
  // The second open of the same run: every step answered from the cache (path, size, mtime).
  const cache = new StepStatsCache();
  await new DistributionFeed(dir, cache, () => undefined).start();
  const t0 = performance.now();
  await new DistributionFeed(dir, cache, () => undefined).start();
  const again = performance.now() - t0;
  con.closeSync();
  instance.closeSync();
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const ms = (x: number) => `${Math.round(x).toLocaleString('en-US')} ms`;
  const size = `${steps} step files, ${Math.round(bytes / 2 ** 20).toLocaleString('en-US')} MiB, ${trajectories.toLocaleString('en-US')} trajectories`;
  return [
    {
      what: `reward distribution: ${size}, read until every step is sent`,
      value: ms(median(a)),
      baselineName: 'DuckDB (1 thread) reading the same three columns of the same files, each step\'s rewards sorted',
      baseline: ms(median(b)),
      ratio: median(a) / median(b),
      note: `(median of ${runs} alternating; the webview's draw is not included; RSS rose at most ${Math.round(rssRise / 2 ** 20)} MiB while reading; a second open of the same run, from the cache: ${ms(again)})`,
    },
  ];
}
