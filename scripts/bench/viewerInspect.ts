// The trajectory viewer on an Inspect AI `.eval` log (issue 32), for `npm run bench`'s host section
// (also alone: `npx tsx scripts/bench/viewerInspect.ts [--runs N]`, SVC_HOST=1.100 or 1.139): the
// time until the first group and trajectory are on screen for the 1.1 GB 20,000-sample log against
// the same viewer on the 3-sample log, over alternating runs (each file in a fresh window, as
// scripts/bench/viewerParquet.ts), and the extension host's peak RSS while the big log opens (until
// every score is read from the summaries) against its RSS before. The logs are
// scripts/bench/inspect.ts's (Python's zipfile and the zstd tool; cached in /tmp/svc-bench/).
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ViewerFigures as Figures } from '../../test/host/bench-viewer';
import { median, mib, ms, viewerRunOnce as runOnce } from './viewerWindow';
import { inspectLog } from './inspect';
import type { ViewerRow } from './viewer';

const root = path.resolve(__dirname, '..', '..');


/** `runs` alternating pairs (small, big), each file in a fresh window. */
export function viewerInspectBench(samples: number, runs: number): ViewerRow[] {
  const big = inspectLog(samples);
  const small = inspectLog(3);
  const smalls: Figures[] = [];
  const bigs: Figures[] = [];
  for (let i = 0; i < runs; i++) {
    smalls.push(runOnce(small, true));
    bigs.push(runOnce(big, true));
  }
  const s = median(smalls.map((f) => f.firstPaintMs));
  const b = median(bigs.map((f) => f.firstPaintMs));
  const ratios = bigs.map((f, i) => f.firstPaintMs / smalls[i]!.firstPaintMs);
  const full = bigs[0]!;
  const size = `${(full.bytes / 1e9).toFixed(2)} GB Inspect .eval, ${full.groups.toLocaleString('en-US')} samples`;
  const over = (f: Figures) => f.peakRss - f.startRss;
  // When the webview's script started, since the open: its document's own clock, put on the host's by the report's arrival.
  const scriptAt = (f: Figures) => f.firstPaintMs - f.documentMs + (f.scriptStartMs ?? 0);
  return [
    {
      what: `viewer: first group on screen, ${size}`,
      value: ms(b),
      baselineName: `the same viewer on a 3-sample log (${(smalls[0]!.bytes / 1024).toFixed(0)} KiB)`,
      baseline: ms(s),
      ratio: b / s,
      note: `(medians of ${runs} alternating runs, each in a fresh window; ratio per pair min ${Math.min(...ratios).toFixed(2)}, max ${Math.max(...ratios).toFixed(2)}; big: ${bigs.map((f) => Math.round(f.firstPaintMs)).join(', ')} ms, small: ${smalls.map((f) => Math.round(f.firstPaintMs)).join(', ')} ms; the webview's script started at ${ms(median(bigs.map(scriptAt)))} / ${ms(median(smalls.map(scriptAt)))}, its request for data was handled at ${ms(median(bigs.map((f) => f.readyMs)))} / ${ms(median(smalls.map((f) => f.readyMs)))} and had the group on screen ${ms(median(bigs.map((f) => f.firstPaintMs - f.readyMs)))} / ${ms(median(smalls.map((f) => f.firstPaintMs - f.readyMs)))} later; every score read from the summaries at ${ms(median(bigs.map((f) => f.indexedMs)))} / ${ms(median(smalls.map((f) => f.indexedMs)))})`,
    },
    {
      what: `viewer: extension host peak RSS while the ${(full.bytes / 1e9).toFixed(2)} GB .eval opens (to every score)`,
      value: `${mib(median(bigs.map((f) => f.peakRss)))} MiB (+${mib(median(bigs.map(over)))}; ${mib(median(bigs.map((f) => f.endRss)))} MiB after)`,
      baselineName: 'host RSS before opening',
      baseline: `${mib(median(bigs.map((f) => f.startRss)))} MiB (the 3-sample log: +${mib(median(smalls.map(over)))} MiB)`,
      ratio: median(bigs.map((f) => f.peakRss)) / median(bigs.map((f) => f.startRss)),
      note: `(medians of ${runs}; sampled every 20 ms in the host; peaks ${bigs.map((f) => mib(f.peakRss)).join(', ')} MiB)`,
    },
  ];
}

if (require.main === module) {
  const at = process.argv.indexOf('--runs');
  const runs = at >= 0 ? Number(process.argv[at + 1]) : 3;
  spawnSync(process.execPath, ['esbuild.js', '--tests'], { cwd: root, stdio: 'ignore' });
  try {
    for (const r of viewerInspectBench(20_000, runs)) console.log(`  ${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)} ${r.note}`);
  } catch (e) {
    console.error((e as Error).message);
    process.exit(1);
  }
}
