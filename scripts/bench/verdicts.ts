// The verdict pass (issue 30): ART's verdict on every group of a big step file (src/files/verdicts.ts
// and turnChecks.ts), against the same file's plain index, for `npm run bench` (also alone:
// `npx tsx scripts/bench/verdicts.ts [--mib N] [--runs N]`). Each figure is a fresh child process
// (this file with --child), so each has its own peak RSS over idle:
//   JSONL: the viewer's index as it is built (every group parsed, its verdict computed as it is read)
//          against the same index with `verdicts: false` (the plain index: offsets and reward stats);
//   Parquet: the verdict pass of a step file (stepSummary, what the dashboard and svc_summarize_run
//          run: every group decoded, parsed and judged) against the viewer's plain index of the same
//          file (ParquetIndex: the small columns only, never trajectory_json), with the groups
//          decoded and parsed but not judged printed beside it, so the verdicts' own share shows.
// Data: scripts/bench/verdictData.py writes the JSONL with Python's json; the Parquet file is the
// same kind of groups in ART's v2 layout, written by DuckDB (test/fixtures/art/parquet.ts).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { CACHE } from './data';
import type { ViewerRow } from './viewer';

const root = path.resolve(__dirname, '..', '..');

/** A JSONL step file of at least `mib` MiB (cached), written by scripts/bench/verdictData.py. */
export function verdictJsonlFile(mib: number, seed = 30): string {
  fs.mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, `verdicts-${mib}mb-s${seed}.jsonl`);
  if (fs.existsSync(file)) return file;
  const r = spawnSync('python3', [path.join(__dirname, 'verdictData.py'), file, String(mib), String(seed)], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0 || !fs.existsSync(file)) throw new Error(`verdictData.py failed (exit ${r.status}): ${r.stderr.slice(-1000)}`);
  return file;
}

/**
 * An ART v2 Parquet step file (cached) of the groups of a `jsonMib` MiB JSONL (another seed than the
 * JSONL figure's file), rows as ART's writer makes them (artRows), written by DuckDB, Zstd, 256 rows
 * per row group (DuckDB writes a column chunk as one page: about 12 MiB of trajectory_json here).
 */
export async function verdictParquetFile(jsonMib: number): Promise<string> {
  const file = path.join(CACHE, `verdicts-${jsonMib}mb-json.parquet`);
  if (fs.existsSync(file)) return file;
  const jsonl = verdictJsonlFile(jsonMib, 31);
  const { artRows, copyArtRows } = await import('../../test/fixtures/art/parquet');
  const staged = `${file}.rows.jsonl`;
  const out = fs.createWriteStream(staged);
  let g = 0;
  for await (const line of readline.createInterface({ input: fs.createReadStream(jsonl), crlfDelay: Infinity })) {
    if (!line) continue;
    const rows = artRows([JSON.parse(line) as Record<string, unknown>]).map((r) => ({ ...r, group_index: g }));
    g++;
    if (!out.write(rows.map((r) => JSON.stringify(r)).join('\n') + '\n')) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  try {
    await copyArtRows(staged, `${file}.tmp`, { rowGroupSize: 256 });
    fs.renameSync(`${file}.tmp`, file);
  } finally {
    fs.rmSync(staged, { force: true });
    fs.rmSync(jsonl, { force: true });
  }
  return file;
}

type Mode = 'index' | 'index+verdicts' | 'pq-index' | 'pq-read' | 'pq-verdicts';

interface ChildResult {
  mode: Mode;
  ms: number;
  /** This process's CPU time over the same span (user + system): far steadier than wall time on a shared machine. */
  cpuMs: number;
  startRss: number;
  peakRss: number;
  groups: number;
  trajectories: number;
  training?: number;
  summary?: string;
}

/** One figure in this (fresh) process. */
async function child(mode: Mode, file: string): Promise<ChildResult> {
  const { FileBytes, TrajectoryIndex } = await import('../../src/files/groupIndex');
  const { ParquetIndex } = await import('../../src/files/parquetIndex');
  const { readTrajectoryGroups } = await import('../../src/files');
  const { stepSummary } = await import('../../src/files/stepShares');
  const { summaryText } = await import('../../src/files/verdicts');
  (globalThis as { gc?: () => void }).gc?.();
  const startRss = process.memoryUsage().rss;
  let peak = startRss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let r: Omit<ChildResult, 'mode' | 'ms' | 'cpuMs' | 'startRss' | 'peakRss'>;
  if (mode === 'index' || mode === 'index+verdicts') {
    const source = await FileBytes.open(file);
    const index = new TrajectoryIndex(source, 'jsonl', { verdicts: mode === 'index+verdicts' });
    await index.build();
    await source.close();
    r = { groups: index.groups, trajectories: index.trajectories, ...(mode === 'index+verdicts' ? { training: index.verdicts.training, summary: summaryText(index.verdicts) } : {}) };
  } else if (mode === 'pq-index') {
    const index = await ParquetIndex.open(file);
    if (index.shapeError) throw new Error(index.shapeError);
    await index.build();
    await index.source.close();
    r = { groups: index.groups, trajectories: index.trajectories };
  } else if (mode === 'pq-read') {
    let groups = 0;
    let trajectories = 0;
    for await (const g of readTrajectoryGroups(file, { trusted: true })) {
      groups++;
      trajectories += ((JSON.parse(g.json) as { trajectories?: unknown[] }).trajectories ?? []).length;
    }
    r = { groups, trajectories };
  } else {
    const s = await stepSummary(file);
    r = { groups: s.groups, trajectories: s.trajectories, training: s.training, summary: summaryText(s) };
  }
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  return { mode, ms, cpuMs: (c.user + c.system) / 1000, startRss, peakRss: peak, ...r };
}

function runChild(mode: Mode, file: string): ChildResult {
  const out = spawnSync(path.join(root, 'node_modules/.bin/tsx'), [__filename, '--child', mode, file], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 });
  const line = out.stdout.trim().split('\n').at(-1);
  if (out.status !== 0 || !line?.startsWith('{')) throw new Error(`verdict bench child ${mode} failed (exit ${out.status}): ${out.stdout.slice(-500)} ${out.stderr.slice(-1500)}`);
  return JSON.parse(line) as ChildResult;
}

const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
const mibOf = (b: number) => b / (1024 * 1024);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const over = (r: ChildResult) => r.peakRss - r.startRss;

/** `runs` alternating fresh processes of each mode; the medians of time and of peak RSS over idle. */
function alternateModes(file: string, modes: Mode[], runs: number): Map<Mode, ChildResult[]> {
  const by = new Map<Mode, ChildResult[]>(modes.map((m) => [m, []]));
  for (let i = 0; i < runs; i++) {
    for (const m of modes) {
      const r = runChild(m, file);
      by.get(m)!.push(r);
      // Each child's figures as they come (stderr): a long run cut short still leaves them.
      console.error(`    ${m}, run ${i + 1}: ${JSON.stringify({ ms: Math.round(r.ms), cpuMs: Math.round(r.cpuMs), overMiB: Math.round(mibOf(over(r))) })}`);
    }
  }
  return by;
}

function describe(rs: ChildResult[]): { ms: number; cpu: number; over: number; peak: number; note: string } {
  const ms = median(rs.map((r) => r.ms));
  const cpu = median(rs.map((r) => r.cpuMs));
  const o = median(rs.map(over));
  const peak = median(rs.map((r) => r.peakRss));
  return { ms, cpu, over: o, peak, note: `${fmt(Math.min(...rs.map((r) => r.ms)))}–${fmt(Math.max(...rs.map((r) => r.ms)))} ms (CPU ${fmt(cpu)} ms), ${fmt(mibOf(Math.min(...rs.map(over))))}–${fmt(mibOf(Math.max(...rs.map(over))))} MiB over idle` };
}

/**
 * The bench rows: the JSONL figure on a `jsonlMib` MiB file, the Parquet figure on a file made of
 * `parquetJsonMib` MiB of group JSON, `runs` alternating fresh processes each.
 */
export async function verdictBench(jsonlMib: number, parquetJsonMib: number, runs: number): Promise<ViewerRow[]> {
  return [...(jsonlMib ? verdictJsonlRows(jsonlMib, runs) : []), ...(parquetJsonMib ? await verdictParquetRows(parquetJsonMib, runs) : [])];
}

function verdictJsonlRows(jsonlMib: number, runs: number): ViewerRow[] {
  const rows: ViewerRow[] = [];
  const jsonl = verdictJsonlFile(jsonlMib);
  const jsonlBytes = fs.statSync(jsonl).size;
  const j = alternateModes(jsonl, ['index', 'index+verdicts'], runs);
  const plain = describe(j.get('index')!);
  const judged = describe(j.get('index+verdicts')!);
  const first = j.get('index+verdicts')![0]!;
  const rate = (ms: number) => `${fmt(mibOf(jsonlBytes) / (ms / 1000), 1)} MiB/s`;
  rows.push({
    what: `verdict pass: the viewer's index with ART's verdicts, ${fmt(mibOf(jsonlBytes), 1)} MiB JSONL step file, ${fmt(first.groups)} groups, ${fmt(first.trajectories)} trajectories`,
    value: `CPU ${fmt(judged.cpu)} ms (wall ${fmt(judged.ms)} ms, ${rate(judged.ms)}); peak RSS ${fmt(mibOf(judged.over))} MiB over idle`,
    baselineName: 'the same index without the verdicts (offsets and reward stats; every line parsed too)',
    baseline: `CPU ${fmt(plain.cpu)} ms (wall ${fmt(plain.ms)} ms, ${rate(plain.ms)}); peak RSS ${fmt(mibOf(plain.over))} MiB over idle`,
    ratio: judged.cpu / plain.cpu,
    note: `(ratio of the CPU times, steadier than wall time on a shared machine; wall ratio ${(judged.ms / plain.ms).toFixed(2)}×; medians of ${runs} alternating fresh processes; with verdicts ${judged.note}, plain ${plain.note}; RSS ratio ${(judged.over / plain.over).toFixed(2)}×; Python's json wrote the file: legacy choices with logprobs.content of 100–400 tokens, 1 group in 10 exchanges with compact logprobs; "${first.summary}")`,
  });
  return rows;
}

async function verdictParquetRows(parquetJsonMib: number, runs: number): Promise<ViewerRow[]> {
  const rows: ViewerRow[] = [];
  const pq = await verdictParquetFile(parquetJsonMib);
  const pqBytes = fs.statSync(pq).size;
  const p = alternateModes(pq, ['pq-index', 'pq-read', 'pq-verdicts'], runs);
  const pIndex = describe(p.get('pq-index')!);
  const pRead = describe(p.get('pq-read')!);
  const pVerdicts = describe(p.get('pq-verdicts')!);
  const pf = p.get('pq-verdicts')![0]!;
  const prate = (ms: number) => `${fmt(mibOf(pqBytes) / (ms / 1000), 1)} MiB/s of file`;
  rows.push({
    what: `verdict pass over a ${fmt(mibOf(pqBytes), 1)} MiB Parquet step file (stepSummary: decode, parse and judge every group), ${fmt(pf.groups)} groups, ${fmt(pf.trajectories)} trajectories`,
    value: `CPU ${fmt(pVerdicts.cpu)} ms (wall ${fmt(pVerdicts.ms)} ms, ${prate(pVerdicts.ms)}); peak RSS ${fmt(mibOf(pVerdicts.over))} MiB over idle`,
    baselineName: "the viewer's plain index of the same file (ParquetIndex: the small columns, never trajectory_json)",
    baseline: `CPU ${fmt(pIndex.cpu)} ms (wall ${fmt(pIndex.ms)} ms); peak RSS ${fmt(mibOf(pIndex.over))} MiB over idle`,
    ratio: pVerdicts.cpu / pIndex.cpu,
    note: `(ratio of the CPU times; wall ratio ${(pVerdicts.ms / pIndex.ms).toFixed(2)}×; ${(pVerdicts.cpu / pRead.cpu).toFixed(2)}× the CPU of the decode + parse alone; medians of ${runs} alternating fresh processes, Node ${process.versions.node}${Number(process.versions.node.split('.')[0]) >= 22 ? '' : ', pure-JS Zstd'}; the same groups decoded and parsed without verdicts: CPU ${fmt(pRead.cpu)} ms (wall ${fmt(pRead.ms)} ms), ${fmt(mibOf(pRead.over))} MiB over idle, ${pVerdicts.cpu > pRead.cpu ? `so the verdicts are ${fmt((100 * (pVerdicts.cpu - pRead.cpu)) / pVerdicts.cpu)}% of the pass's CPU time` : 'more than the pass with the verdicts: their share is below the runs\' spread'}; verdicts ${pVerdicts.note}, index ${pIndex.note}, decode + parse ${pRead.note}; ${fmt(parquetJsonMib)} MiB of group JSON, written by DuckDB, 256 rows a row group; "${pf.summary}")`,
  });
  return rows;
}

if (require.main === module) {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const ci = process.argv.indexOf('--child');
  if (ci >= 0) {
    child(process.argv[ci + 1] as Mode, process.argv[ci + 2]!).then(
      (r) => console.log(JSON.stringify(r)),
      (e: unknown) => {
        console.error(e);
        process.exit(1);
      },
    );
  } else {
    verdictBench(arg('--mib', 1024), arg('--parquet-json-mib', 5000), arg('--runs', 3)).then(
      (rows) => {
        for (const r of rows) console.log(`  ${r.what}: ${r.value} | baseline (${r.baselineName}): ${r.baseline} | ratio ${r.ratio.toFixed(2)}× ${r.note}`);
        // The same rows as docs/performance.md's table has them.
        for (const r of rows) console.log(`| ${r.what} | ${r.value} | ${r.baselineName} | ${r.baseline} | ${r.ratio.toFixed(2)}× (lower is better) |  | ${r.note} |`);
      },
      (e: Error) => {
        console.error(e.message);
        process.exit(1);
      },
    );
  }
}
