// The viewer's index of an Inspect AI `.eval` log (issue 32), for `npm run bench` (also alone:
// `npx tsx scripts/bench/inspect.ts [--runs N] [--quick]`): the time until the first group is
// ready to show (EvalIndex.open, its groups listed, readGroup(0): what the viewer does before its
// first paint) for a 1.1 GB log of 20,000 samples against a 3-sample log of the same samples, each
// in a fresh process, alternating; then, in the same process, the time until every score is known
// (the summaries read after the first group), the longest the event loop went without running a
// 2 ms timer over all of it, and the peak RSS over the process's RSS before opening (VmHWM).
// Logs written by Python's zipfile and the zstd tool (test/fixtures/inspect/write_eval.py; cached),
// the samples' tool outputs seeded random base64, so the log has its size on disk.
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CACHE } from './data';
import type { ViewerRow } from './viewer';

const root = path.resolve(__dirname, '..', '..');

export interface InspectFigures {
  bytes: number;
  groups: number;
  /** Open until the first group is read (the viewer's first paint waits on this). */
  firstGroupMs: number;
  /** This process's CPU time (all its threads) from open to the first group: steadier than wall time on a loaded machine. */
  cpuFirstMs: number;
  /** Open until every summary is read (the rows show their scores). */
  scoresMs: number;
  /** Longest event-loop hold from open to the first group, and to the scores. */
  holdFirstMs: number;
  holdMs: number;
  /** The most CPU time (this process, all threads) spent in one such gap: long wall gaps on a loaded machine are mostly waits for a core. */
  cpuHoldMs: number;
  idleRss: number;
  peakRss: number;
}

/** A row of the bench's table, with its goal. */
export interface InspectRow extends ViewerRow {
  goal: string;
}

/** An Inspect log of `samples` samples (one epoch each) of about 56 KB each on disk (cached). */
export function inspectLog(samples: number): string {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, samples === 20_000 ? 'inspect-20000-big.eval' : `inspect-${samples}-noise72k.eval`);
  if (fs.existsSync(file)) return file;
  execFileSync('python3', [path.join(root, 'test', 'fixtures', 'inspect', 'write_eval.py'), `${file}.part`, JSON.stringify({ samples, epochs: 1, noise: 72_000 })], { stdio: 'inherit' });
  fs.renameSync(`${file}.part`, file);
  return file;
}

/** In a child: opens `file` as the viewer does and prints its figures as one JSON line. */
async function child(file: string): Promise<void> {
  const { EvalIndex } = await import('../../src/files/evalIndex');
  const vmHwm = () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
  await new Promise((resolve) => setTimeout(resolve, 50));
  const idleRss = process.memoryUsage().rss;
  let last = performance.now();
  let hold = 0;
  let cpuHold = 0;
  let lastCpu = process.cpuUsage();
  const timer = setInterval(() => {
    const now = performance.now();
    const c = process.cpuUsage(lastCpu);
    hold = Math.max(hold, now - last);
    cpuHold = Math.max(cpuHold, Math.min(now - last, (c.user + c.system) / 1000));
    last = now;
    lastCpu = process.cpuUsage();
  }, 2);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const index = await EvalIndex.open(file);
  let listed!: () => void;
  const shown = new Promise<void>((resolve) => (listed = resolve));
  let gate!: () => void;
  const painted = new Promise<void>((resolve) => (gate = resolve));
  const built = index.build({ onProgress: () => index.groups > 0 && listed(), firstChunkGate: painted });
  await Promise.race([shown, built]);
  const first = await index.readGroup(0);
  if (first.error) throw new Error(first.error);
  const firstGroupMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const cpuFirstMs = (cpu.user + cpu.system) / 1000;
  hold = Math.max(hold, performance.now() - last);
  const holdFirstMs = hold;
  gate();
  await built;
  const scoresMs = performance.now() - t0;
  hold = Math.max(hold, performance.now() - last);
  clearInterval(timer);
  const figures: InspectFigures = { bytes: fs.statSync(file).size, groups: index.groups, firstGroupMs, cpuFirstMs, scoresMs, holdFirstMs, holdMs: hold, cpuHoldMs: cpuHold, idleRss, peakRss: vmHwm() };
  await index.source.close();
  console.log(`INSPECT_FIGURES ${JSON.stringify(figures)}`);
}

function run(file: string): InspectFigures {
  const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
  const out = spawnSync(tsx, [__filename, '--child', file], { cwd: root, encoding: 'utf8' });
  const line = /INSPECT_FIGURES (\{.*\})/.exec(out.stdout)?.[1];
  if (!line) throw new Error(`inspect bench child failed (exit ${out.status}):\n${out.stdout.slice(-2000)}\n${out.stderr.slice(-2000)}`);
  return JSON.parse(line) as InspectFigures;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${Math.round(n).toLocaleString('en-US')} ms`;
const mib = (b: number) => (b / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });

export function inspectBench(samples: number, runs: number): InspectRow[] {
  const big = inspectLog(samples);
  const small = inspectLog(3);
  const bigs: InspectFigures[] = [];
  const smalls: InspectFigures[] = [];
  for (let i = 0; i < runs; i++) {
    smalls.push(run(small));
    bigs.push(run(big));
  }
  const b = median(bigs.map((f) => f.firstGroupMs));
  const s = median(smalls.map((f) => f.firstGroupMs));
  const f = bigs[0]!;
  const over = (x: InspectFigures) => x.peakRss - x.idleRss;
  const size = `${(f.bytes / 1e9).toFixed(2)} GB .eval, ${f.groups.toLocaleString('en-US')} samples`;
  return [
    {
      what: `Inspect log: first group ready, ${size}`,
      value: ms(b),
      baselineName: `the same index on a 3-sample log (${(smalls[0]!.bytes / 1024).toFixed(0)} KiB)`,
      baseline: ms(s),
      ratio: b / s,
      note: `(medians of ${runs} alternating fresh processes; big ${bigs.map((x) => Math.round(x.firstGroupMs)).join(', ')} ms, small ${smalls.map((x) => Math.round(x.firstGroupMs)).join(', ')} ms; CPU time until then ${ms(median(bigs.map((x) => x.cpuFirstMs)))} / ${ms(median(smalls.map((x) => x.cpuFirstMs)))}, ${(median(bigs.map((x) => x.cpuFirstMs)) / median(smalls.map((x) => x.cpuFirstMs))).toFixed(2)}×; every score known after ${ms(median(bigs.map((x) => x.scoresMs)))} / ${ms(median(smalls.map((x) => x.scoresMs)))})`,
      goal: '≤ 2×',
    },
    {
      what: `Inspect log: longest event-loop hold, ${size}`,
      value: ms(median(bigs.map((x) => x.holdMs))),
      baselineName: 'the 3-sample log',
      baseline: ms(median(smalls.map((x) => x.holdMs))),
      ratio: median(bigs.map((x) => x.holdMs)) / median(smalls.map((x) => x.holdMs)),
      note: `(a 2 ms timer, from open until every score is known; the most CPU time in one gap: big ${ms(median(bigs.map((x) => x.cpuHoldMs)))}, small ${ms(median(smalls.map((x) => x.cpuHoldMs)))}; until the first group: big ${ms(median(bigs.map((x) => x.holdFirstMs)))}, small ${ms(median(smalls.map((x) => x.holdFirstMs)))}; per run big ${bigs.map((x) => Math.round(x.holdMs)).join(', ')} ms)`,
      goal: '≤ 100 ms',
    },
    {
      what: `Inspect log: peak RSS over idle, ${size}`,
      value: `${mib(median(bigs.map(over)))} MiB`,
      baselineName: 'the 3-sample log',
      baseline: `${mib(median(smalls.map(over)))} MiB`,
      ratio: median(bigs.map(over)) / median(smalls.map(over)),
      note: `(VmHWM minus the RSS before opening; idle ${mib(f.idleRss)} MiB)`,
      goal: '',
    },
  ];
}

if (require.main === module) {
  const at = process.argv.indexOf('--child');
  if (at >= 0) {
    child(process.argv[at + 1]!).catch((e: unknown) => {
      console.error(e);
      process.exit(1);
    });
  } else {
    const runsAt = process.argv.indexOf('--runs');
    const runs = runsAt >= 0 ? Number(process.argv[runsAt + 1]) : 5;
    const samples = process.argv.includes('--quick') ? 200 : 20_000;
    for (const r of inspectBench(samples, runs)) console.log(`${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)}×${r.goal ? ` | goal ${r.goal}` : ''} ${r.note}`);
  }
}
