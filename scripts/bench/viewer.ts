// The trajectory viewer's figures for `npm run bench` (also alone: `npx tsx scripts/bench/viewer.ts
// [--quick]`): the time until the first group and trajectory are on screen, and the extension
// host's and the webview's memory, for the 200 MiB bench file next to the same viewer on a 15 KiB
// fixture in the same run. Runs test/host/bench-viewer.ts in code-server.
import { mib, ms } from './viewerWindow';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { ViewerFigures as Figures } from '../../test/host/bench-viewer';
import { trajectoryFile } from './data';

const root = path.resolve(__dirname, '..', '..');
const SMALL = path.join(root, 'test', 'fixtures', 'viewer', 'art-model-dump.trajectories.jsonl');


export interface ViewerRow {
  what: string;
  value: string;
  baselineName: string;
  baseline: string;
  ratio: number;
  note: string;
}


export function viewerBench(fileMb: number): ViewerRow[] {
  const big = trajectoryFile(fileMb);
  // Each file in a fresh window (its own code-server), as a user opens one: in code-server every
  // webview after a window's first waits about a second before its document runs, whatever it shows.
  const run = (file: string): Figures => {
    const host = spawnSync(process.execPath, ['scripts/host/run-tests.js', '--no-build', '--entry', 'out/test/host/bench-viewer.js', '--env', `SVC_BENCH_VIEWER_FILES=${file}`], {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    const line = /BENCH_VIEWER (\[.*\])/.exec(host.stdout)?.[1];
    if (!line) throw new Error(`viewer bench failed (exit ${host.status}):\n${host.stdout.slice(-3000)}\n${host.stderr.slice(-2000)}`);
    return (JSON.parse(line) as Figures[])[0]!;
  };
  const small = run(SMALL);
  const large = run(big);
  const size = `${mib(large.bytes)} MiB JSONL, ${large.groups.toLocaleString('en-US')} groups`;
  const rows: ViewerRow[] = [
    {
      what: `viewer: first group on screen, ${size}`,
      value: ms(large.firstPaintMs),
      baselineName: `the same viewer on a ${(small.bytes / 1024).toFixed(0)} KiB file`,
      baseline: ms(small.firstPaintMs),
      ratio: large.firstPaintMs / small.firstPaintMs,
      note: `(each in a fresh window; big / small: the webview asked for data at ${ms(large.readyMs)} / ${ms(small.readyMs)}, and had it on screen ${ms(large.firstPaintMs - large.readyMs)} / ${ms(small.firstPaintMs - small.readyMs)} later; whole file indexed in ${(large.indexedMs / 1000).toFixed(1)} s, validated in ${(large.validatedMs / 1000).toFixed(1)} s)`,
    },
    {
      what: 'viewer: extension host peak RSS while indexing and validating',
      value: `${mib(large.peakRss)} MiB (${mib(large.endRss)} MiB after)`,
      baselineName: 'host RSS before opening',
      baseline: `${mib(large.startRss)} MiB`,
      ratio: large.peakRss / large.startRss,
      note: '',
    },
  ];
  // Chromium's performance.memory is the webview renderer's heap, which the workbench shares: the
  // DOM size says more about the view's own cost.
  const heap = (f: Figures) => (f.webviewHeap ? `, JS heap ${mib(f.webviewHeap)} MiB` : '');
  rows.push({
    what: 'viewer: webview DOM nodes at first paint',
    value: `${large.domNodes.toLocaleString('en-US')}${heap(large)}`,
    baselineName: 'the same viewer on the small file',
    baseline: `${small.domNodes.toLocaleString('en-US')}${heap(small)}`,
    ratio: large.domNodes / small.domNodes,
    note: '',
  });
  return rows;
}

if (require.main === module) {
  spawnSync(process.execPath, ['esbuild.js', '--tests'], { cwd: root, stdio: 'ignore' });
  for (const r of viewerBench(process.argv.includes('--quick') ? 20 : 200)) {
    console.log(`  ${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)} ${r.note}`);
  }
}
