// The reward distribution per step (issue 31 item 2): the extension side's read of a run's step
// files (src/dashboard/distributionFeed.ts over the Runs view's cache: the small columns only,
// quantiles, sketches, the messages to the webview) against DuckDB reading the same columns
// (group_index, trajectory_index, reward) of the same files, one thread, sorting each step's rewards.
// The run: one ART step file written by DuckDB (parquetTrajectoryFile), copied to `steps` step files.
// distributionHostBench: the same run's dashboard in a real VS Code (code-server, the webview in
// headless Chromium) until the heat map is drawn, against the same dashboard of a run of 1 step file.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DistributionFigures as HostFigures } from '../../test/host/bench-distribution';
import { CACHE, parquetTrajectoryFile } from './data';
import { DistributionFeed } from '../../src/dashboard/distributionFeed';
import { StepStatsCache } from '../../src/dashboard/stepStats';
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
  // A history.jsonl of 200 steps (the dashboard opens on it), written by Python's json: the same in
  // every run of the bench, whatever its number of step files, so only the distribution differs.
  const history = path.join(dir, 'history.jsonl');
  if (!fs.existsSync(history)) {
    execFileSync('python3', ['-c', 'import json, sys\nwith open(sys.argv[1], "w") as f:\n    for s in range(1, 201):\n        f.write(json.dumps({"step": s, "train/reward": s / 200, "recorded_at": "2026-11-01T00:00:00"}) + "\\n")', history]);
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

const root = path.resolve(__dirname, '..', '..');

/** Each run folder's dashboard in one fresh code-server window (test/host/bench-distribution.ts); `read`: the feed alone instead. */
function hostRun(dirs: string[], read = false): HostFigures[] {
  const mode = read ? ['--env', 'SVC_BENCH_DIST_MODE=read'] : [];
  const host = spawnSync(process.execPath, ['scripts/host/run-tests.js', '--no-build', '--entry', 'out/test/host/bench-distribution.js', '--env', `SVC_BENCH_DIST_RUNS=${dirs.join(',')}`, ...mode], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = (read ? /BENCH_DISTRIBUTION_READ (\[.*\])/ : /BENCH_DISTRIBUTION (\[.*\])/).exec(host.stdout)?.[1];
  if (!line) throw new Error(`distribution host bench failed (exit ${host.status}):\n${host.stdout.slice(-3000)}\n${host.stderr.slice(-2000)}`);
  return JSON.parse(line) as HostFigures[];
}

/**
 * The run dashboard of `steps` step files until the heat map is drawn with every step, in the host
 * (each open in a fresh window: a fresh step numbers cache), against the same dashboard of a run of
 * one step file (the same file, the same history.jsonl), `runs` alternating pairs. The caller built
 * the tests (`node esbuild.js --tests`).
 */
export async function distributionHostBench(steps: number, mb: number, runs: number): Promise<DistributionFigure[]> {
  const big = await runOf(steps, mb);
  const small = await runOf(1, mb);
  const smalls: HostFigures[] = [];
  const bigs: HostFigures[] = [];
  for (let i = 0; i < runs; i++) {
    smalls.push(hostRun([small.dir])[0]!);
    bigs.push(hostRun([big.dir])[0]!);
  }
  for (const f of bigs) if (f.steps !== steps) throw new Error(`distribution in the host: ${f.steps} of ${steps} steps drawn`);
  // The extension side alone, first thing in a fresh window (cold, as the dashboard's first open is).
  const readAlone = hostRun([big.dir], true)[0]!.readMs;
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const ms = (x: number) => `${Math.round(x).toLocaleString('en-US')} ms`;
  const list = (xs: number[]) => xs.map((x) => Math.round(x).toLocaleString('en-US')).join(', ');
  const b = median(bigs.map((f) => f.drawnMs));
  const s = median(smalls.map((f) => f.drawnMs));
  const ratios = bigs.map((f, i) => f.drawnMs / smalls[i]!.drawnMs);
  const mibs = (x: number) => Math.round(x / 2 ** 20).toLocaleString('en-US');
  return [
    {
      what: `host: open a run's dashboard until the reward distribution of ${steps} Parquet step files (${mibs(big.bytes)} MiB) is drawn`,
      value: ms(b),
      baselineName: `the same dashboard of a run of 1 step file (the same ${mibs(small.bytes)} MiB file, the same 200-step history.jsonl)`,
      baseline: ms(s),
      ratio: b / s,
      note:
        `(medians of ${runs} alternating runs, each in a fresh window; ratio per pair min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}; ` +
        `${steps} steps: ${list(bigs.map((f) => f.drawnMs))} ms, first step drawn at ${list(bigs.map((f) => f.firstMs))} ms, the feed's last message posted at ${list(bigs.map((f) => f.fedMs))} ms (${list(bigs.map((f) => f.messages))} messages); 1 step: ${list(smalls.map((f) => f.drawnMs))} ms; ` +
        `the same dashboard opened again in the same window, every step from the cache: ${ms(median(bigs.map((f) => f.againMs)))}; ` +
        `the extension side alone (the ${steps} files' small columns read, the messages built, no webview): ${ms(readAlone)} first thing in a fresh window, ${ms(median(bigs.map((f) => f.readMs)))} after the opens in the same window; ` +
        `extension host RSS rose at most ${mibs(median(bigs.map((f) => f.peakRss - f.startRss)))} MiB over ${mibs(median(bigs.map((f) => f.startRss)))} MiB while the ${steps} files were read)`,
    },
  ];
}

if (require.main === module) {
  // Alone: `npx tsx scripts/bench/distribution.ts [--steps N] [--mb M] [--runs R]` (the host row; SVC_HOST picks the host).
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  spawnSync(process.execPath, ['esbuild.js', '--tests'], { cwd: root, stdio: 'ignore' });
  distributionHostBench(arg('--steps', 200), arg('--mb', 4), arg('--runs', 3)).then(
    (rows) => {
      for (const r of rows) console.log(`  ${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)} ${r.note}`);
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
