// `npm run bench`: every figure next to a baseline measured in the same run, and their ratio.
// The service side is scripts/bench/sink.ts in its own process: precomputed answers, so the
// figures measure the client. Its CPU time is printed per section to show it was not the limit.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import * as esbuild from 'esbuild';
import { Agent, request as undiciRequest } from 'undici';
import { createServiceClient, type CallBatchItem } from '../../src/api';
import { sendFiles, uploadFiles, validateFiles } from '../../src/trajectories/job';
import { MemoryStore, SentUploads } from '../../src/trajectories/sent';
import { callItems, callsFile, parquetTrajectoryFile, trajectoryFile, trajectoryJsonFile } from './data';
import { validateCallsFile } from '../../src/calls/reader';
import { sendCallsFile } from '../../src/calls/send';
import { decodeAndPost, duckDecodeAndPost } from './parquet';
import { hostUpload, median } from './upload';
import { benchRender } from './render';
import { BENCH_KEY } from './keys';
import { viewerBench } from './viewer';
import { viewerParquetBench } from './viewerParquet';
import { viewerInspectBench } from './viewerInspect';
import { distributionBench, distributionHostBench } from './distribution';
import { verdictBench } from './verdicts';
import { tokenBench, tokenStripHostBench } from './tokens';
import { runSearchDir } from './data';
import { inspectBench } from './inspect';

/** One VS Code host of scripts/host/paths.js (plain CommonJS). */
interface HostSpec {
  id: string;
  vscode: string;
  codeServer: string;
  nodeVersion: string | null;
}
const hostPaths = require('../host/paths.js') as { selectedHosts(name?: string): HostSpec[] };

const root = path.resolve(__dirname, '..', '..');
const quick = process.argv.includes('--quick');
/**
 * The extension host and Chromium figures (code-server windows, the dashboard's draw, the viewer):
 * off with --no-host, and in --quick, which is CI's smoke test of the client figures (under a minute).
 */
const hostRuns = !quick && !process.argv.includes('--no-host') && !process.argv.includes('--client-only');
/**
 * --host-only: only the rows measured in an extension host (on every host), none of the client,
 * RSS, call import, checkpoint, bundle or Chromium-only figures. The host rows' own baselines still
 * run (they are measured in the same host). For comparing the hosts in a few minutes less.
 */
const hostOnly = hostRuns && process.argv.includes('--host-only');
/** --client-only: only the figures measured against the sink (threads, uploads, peak RSS, import, checkpoints). */
const clientOnly = process.argv.includes('--client-only');
/** Alternating fresh-window runs of the 1 GiB Parquet viewer figure, per host. */
const VIEWER_PARQUET_RUNS = Number(process.env.SVC_BENCH_VIEWER_RUNS) || 5;
/** The same for the 1.1 GB Inspect log against the 3-sample one (issue 32), per host. */
const VIEWER_INSPECT_RUNS = Number(process.env.SVC_BENCH_VIEWER_RUNS) || 3;
/**
 * The VS Code hosts the host figures run on: every host (VS Code 1.100 on Node 20, 1.139 on Node 24),
 * or the one SVC_HOST names. Each host section runs once per host; its rows are labelled with the
 * host, and a second table at the end puts the hosts' values side by side.
 */
const benchHosts: HostSpec[] = hostRuns ? hostPaths.selectedHosts(process.env.SVC_HOST) : [];
const hostLabel = (h: HostSpec) => `VS Code ${h.vscode} / Node ${h.nodeVersion ?? process.versions.node}`;
/** The host a section runs on now (rows get its label); undefined outside the host sections. */
let currentHost: HostSpec | undefined;
/** measure → host id → value, for the side-by-side table. */
const hostRows = new Map<string, Map<string, string>>();
/**
 * Runs a host section once per host: SVC_HOST set for the children it spawns (run-tests.js reads
 * it), the rows labelled. Each host starts with a fresh connection pool for the raw baselines.
 */
async function forEachHost(fn: (h: HostSpec) => Promise<void> | void): Promise<void> {
  const before = process.env.SVC_HOST;
  for (const h of benchHosts) {
    currentHost = h;
    process.env.SVC_HOST = h.id;
    console.log(`  -- on ${hostLabel(h)}`);
    try {
      await fn(h);
    } finally {
      currentHost = undefined;
      if (before === undefined) delete process.env.SVC_HOST;
      else process.env.SVC_HOST = before;
    }
  }
}
const UPLOAD_MB = quick ? 20 : 200;
/**
 * Group JSON in the Parquet step file: 290 MiB makes a file of about 200 MiB on disk. --quick
 * keeps a few seconds of it (5 MiB, no RSS pair): the decoder is pure JS, about 30 MiB/s a core.
 */
const PARQUET_JSON_MB = quick ? 5 : 290;
const RSS_MB = quick ? 50 : 1024;
/**
 * The verdict pass (issue 30): a JSONL step file of this many MiB, and a Parquet step file made of
 * this many MiB of group JSON (about 1 GiB on disk: the logprobs compress about 5×); fresh processes each.
 */
const VERDICT_JSONL_MB = quick ? 20 : 1024;
const VERDICT_PARQUET_JSON_MB = quick ? 20 : 5000;
const VERDICT_RUNS = quick ? 1 : Number(process.env.SVC_BENCH_VERDICT_RUNS) || 3;
/** The run search's run: links to the Parquet step file above, 5 GiB in all (a few MiB in --quick). */
const RUN_SEARCH_FILES = quick ? 6 : 26;
const RUN_SEARCH_REGEX = 'Question 1\\d\\d\\.[0-3]: \\w+';
const CALLS = quick ? 20_000 : 200_000;
/** Peak RSS: fresh child processes per figure, alternating client and raw. */
const RSS_RUNS = quick ? 1 : Number(process.env.SVC_BENCH_RSS_RUNS) || 5;
/** Activation: fresh extension hosts (each activates once). */
const ACTIVATION_RUNS = 5;
const basic = `Basic ${Buffer.from(`api:${BENCH_KEY}`).toString('base64')}`;
const bearer = `Bearer ${BENCH_KEY}`;
const rows: string[][] = [];
// Raw baselines get a fresh connection pool per section: spawnSync (the RSS child, the host run)
// blocks this event loop for a minute, and a pooled socket the sink closed meanwhile would
// otherwise be reused and fail (the client under test survives that by retrying).
let agent = new Agent();
const request: typeof undiciRequest = ((url: string, opts: object = {}) => undiciRequest(url, { dispatcher: agent, ...opts })) as typeof undiciRequest;
async function freshAgent() {
  await agent.close();
  agent = new Agent();
}

/** One figure against its same-run baseline; `goal` is the issue's target for the ratio or the value. */
function row(what: string, value: string, baselineName: string, baseline: string, ratio: number | undefined, note = '', goal = '') {
  const r = ratio === undefined ? '—' : `${ratio.toFixed(2)}× (lower is better)`;
  if (currentHost) {
    if (!hostRows.has(what)) hostRows.set(what, new Map());
    hostRows.get(what)!.set(currentHost.id, `${value} (${r})`);
    what = `${what} [${hostLabel(currentHost)}]`;
  }
  rows.push([what, value, baselineName, baseline, r, goal, note]);
  console.log(`  ${what}: ${value} | baseline (${baselineName}): ${baseline} | ratio ${r}${goal ? ` | goal ${goal}` : ''} ${note}`);
}
/** Bytes to MiB (2^20 bytes): every size the bench prints is in KiB or MiB, named as such. */
const mib = (b: number) => b / (1024 * 1024);
type Run = { ms: number; sinkMs: number };
/** Runs a and b alternately `n` times; the median of each, with min and max. */
async function alternate(n: number, a: () => Promise<Run>, b: () => Promise<Run>): Promise<{ a: Run; b: Run; spread: string }> {
  const as: Run[] = [];
  const bs: Run[] = [];
  for (let i = 0; i < n; i++) {
    as.push(await a());
    bs.push(await b());
  }
  const median = (runs: Run[]) => [...runs].sort((x, y) => x.ms - y.ms)[Math.floor(runs.length / 2)]!;
  const range = (runs: Run[]) => `min ${fmt(Math.min(...runs.map((r) => r.ms)), 0)}, max ${fmt(Math.max(...runs.map((r) => r.ms)), 0)} ms`;
  return { a: median(as), b: median(bs), spread: `median of ${n} alternating; client ${range(as)}, baseline ${range(bs)}` };
}

/**
 * Several figures in turn (a, b, c, a, b, c, …) `n` times: the median run of each (by wall time),
 * each run's CPU time of this process, and each figure's wall range. For a figure against two
 * baselines (or a second figure against one) measured in the same minutes.
 */
type Turns = { med: CpuRun[]; runs: CpuRun[][]; range: (i: number) => string };
async function inTurn(n: number, fns: (() => Promise<Run>)[]): Promise<Turns> {
  const runs: CpuRun[][] = fns.map(() => []);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < fns.length; k++) {
      const c0 = process.cpuUsage();
      const r = await fns[k]!();
      const c = process.cpuUsage(c0);
      runs[k]!.push({ ...r, cpuMs: (c.user + c.system) / 1000 });
    }
  }
  const med = runs.map((rs) => [...rs].sort((x, y) => x.ms - y.ms)[Math.floor(rs.length / 2)]!);
  const range = (i: number) => `min ${fmt(Math.min(...runs[i]!.map((r) => r.ms)), 0)}, max ${fmt(Math.max(...runs[i]!.map((r) => r.ms)), 0)} ms`;
  return { med, runs, range };
}
/** The median of the per-run CPU times of figure `i`. */
const cpuMedian = (t: Turns, i: number) => [...t.runs[i]!.map((r) => r.cpuMs)].sort((x, y) => x - y)[Math.floor(t.runs[i]!.length / 2)]!;

/**
 * Like `alternate`, for the figures that print their CPU time too: on a shared machine a process's
 * own CPU time moves far less from run to run than its wall time, so the CPU ratio (and the median
 * of the per-pair wall ratios) says what the wall medians alone cannot. Each run's CPU time is this
 * process's (client or raw baseline; the sink is another process).
 */
type CpuRun = Run & { cpuMs: number };
async function alternateCpu(n: number, a: () => Promise<Run>, b: () => Promise<Run>): Promise<{ a: CpuRun; b: CpuRun; spread: string; cpuRatio: number; pairRatio: number }> {
  const timed = async (fn: () => Promise<Run>): Promise<CpuRun> => {
    const c0 = process.cpuUsage();
    const r = await fn();
    const c = process.cpuUsage(c0);
    return { ...r, cpuMs: (c.user + c.system) / 1000 };
  };
  const as: CpuRun[] = [];
  const bs: CpuRun[] = [];
  for (let i = 0; i < n; i++) {
    as.push(await timed(a));
    bs.push(await timed(b));
  }
  const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  const byMs = (runs: CpuRun[]) => [...runs].sort((x, y) => x.ms - y.ms)[Math.floor(runs.length / 2)]!;
  const range = (xs: number[]) => `min ${fmt(Math.min(...xs), 0)}, max ${fmt(Math.max(...xs), 0)} ms`;
  const cpuRatio = med(as.map((r) => r.cpuMs)) / med(bs.map((r) => r.cpuMs));
  const pairRatio = med(as.map((r, i) => r.ms / bs[i]!.ms));
  const spread =
    `median of ${n} alternating; client ${range(as.map((r) => r.ms))}, baseline ${range(bs.map((r) => r.ms))}; ` +
    `median of the per-pair ratios ${pairRatio.toFixed(2)}×; CPU of this process: client ${fmt(med(as.map((r) => r.cpuMs)), 0)} ms (${range(as.map((r) => r.cpuMs))}), baseline ${fmt(med(bs.map((r) => r.cpuMs)), 0)} ms (${range(bs.map((r) => r.cpuMs))}), ${cpuRatio.toFixed(2)}×`;
  return { a: byMs(as), b: byMs(bs), spread, cpuRatio, pairRatio };
}

/**
 * Where taskset exists and there are at least 2 CPUs, the sink gets the last CPU to itself and this
 * process (and every child it starts: the RSS children, the extension host runs) the others.
 */
const cpuCount = os.cpus().length;
const pinning = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0 && cpuCount >= 2 ? { sink: String(cpuCount - 1), bench: cpuCount === 2 ? '0' : `0-${cpuCount - 2}` } : undefined;
/** Runs fn with this process on every CPU, so the children it starts (an extension host, Chromium) are too. */
async function onAllCpus<T>(fn: () => T | Promise<T>): Promise<T> {
  if (!pinning) return fn();
  spawnSync('taskset', ['-a', '-pc', `0-${cpuCount - 1}`, String(process.pid)], { stdio: 'ignore' });
  try {
    return await fn();
  } finally {
    spawnSync('taskset', ['-a', '-pc', pinning.bench, String(process.pid)], { stdio: 'ignore' });
  }
}
const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function startSink(): Promise<{ url: string; child: ChildProcess }> {
  const tsx = path.join(root, 'node_modules/.bin/tsx');
  const sinkArgs = ['scripts/bench/sink.ts', '--threads', '100000', '--checkpoints', '10000'];
  const child = pinning ? spawn('taskset', ['-c', pinning.sink, tsx, ...sinkArgs], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }) : spawn(tsx, sinkArgs, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (c) => reject(new Error(`sink exited ${c}`)));
  });
  return { url, child };
}

async function sinkCpu(url: string): Promise<number> {
  const r = await request(`${url}/__bench/cpu`);
  const v = (await r.body.json()) as { user: number; system: number };
  return (v.user + v.system) / 1000;
}

/** Runs fn and reports wall ms and the sink's CPU ms over the same span. */
async function measure(url: string, fn: () => Promise<void>): Promise<{ ms: number; sinkMs: number }> {
  const c0 = await sinkCpu(url);
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  return { ms, sinkMs: (await sinkCpu(url)) - c0 };
}

/** The in-host dashboard figures (test/host/bench.ts) of each host, printed with the checkpoints section. */
const hostDashboards = new Map<string, { openMs: number; fetchedMs: number; readyMs: number; firstPaintMs: number; clientMs: number; drawMs: number; count: number; charts: number; requests: number }>();
const hostHistories = new Map<string, import('../../test/host/bench-history').HistoryFigures>();

async function main() {
  const machine = `${cpuCount} × ${os.cpus()[0]?.model}, ${fmt(os.totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the start`;
  console.log(`machine: ${machine}`);
  if (pinning) spawnSync('taskset', ['-a', '-pc', pinning.bench, String(process.pid)], { stdio: 'ignore' });
  const pinned = pinning
    ? `the sink pinned to CPU ${pinning.sink} with taskset, the client figures' process and its RSS children to CPU ${pinning.bench}; the extension host and Chromium runs on all CPUs`
    : `not pinned (${cpuCount < 2 ? 'one CPU' : 'no taskset'}): the sink shares the CPUs with the bench`;
  console.log(pinned);
  const { url, child } = await startSink();
  const client = createServiceClient({ traceBaseUrl: url, credentials: async () => ({ username: 'api', password: BENCH_KEY, accessToken: BENCH_KEY }), env: {} });
  try {
    // 1. Threads stream.
    if (!hostOnly) {
    console.log('\nthreads stream (100 000 rows)');
    const raw = await request(`${url}/threads/stream_query`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: '{"project_id":"bench/threads"}' });
    const body = Buffer.from(await raw.body.arrayBuffer());
    const lines = body.toString('utf8').split('\n').filter(Boolean);
    let count = 0;
    // The client's page API against the same response streamed raw and JSON.parse'd line by line
    // (transfer included on both sides), alternating, median of 5.
    const clientRun = () =>
      measure(url, async () => {
        count = 0;
        for await (const batch of client.threads.queryBatches({ project_id: 'bench/threads' })) count += batch.length;
      });
    const rawRun = () =>
      measure(url, async () => {
        const r = await request(`${url}/threads/stream_query`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: '{"project_id":"bench/threads"}' });
        let rest = '';
        let n = 0;
        for await (const chunk of r.body) {
          const text = rest + (chunk as Buffer).toString('utf8');
          const parts = text.split('\n');
          rest = parts.pop()!;
          for (const l of parts) if (l && JSON.parse(l)) n++;
        }
        if (rest && JSON.parse(rest)) n++;
        if (n !== lines.length) throw new Error('raw threads count');
      });
    const th = await alternateCpu(quick ? 5 : 9, clientRun, rawRun);
    if (count !== lines.length) throw new Error(`threads: ${count} rows, expected ${lines.length}`);
    const rps = (ms: number) => `${fmt(lines.length / (ms / 1000), 0)} rows/s, ${fmt(mib(body.length) / (ms / 1000))} MiB/s`;
    row('threads.queryBatches, 100k rows over loopback', rps(th.a.ms), 'raw stream of the same response + JSON.parse per line', rps(th.b.ms), th.a.ms / th.b.ms, `(${th.spread}; sink CPU ${fmt(th.a.sinkMs, 0)} of ${fmt(th.a.ms, 0)} ms)`, '≤ 1.1×');

    }
    // 2. Trajectory upload.
    console.log(`\ntrajectory upload (${UPLOAD_MB} MiB JSONL)`);
    const file = trajectoryFile(UPLOAD_MB);
    const fileBytes = fs.statSync(file).size;
    // Writing the file on a first run holds the event loop for a while: a pooled socket the sink
    // closed meanwhile would be reused by the raw baseline ("other side closed").
    await freshAgent();
    // The client: the upload job as the Upload command, Retry Remaining, the public API and the
    // agents run it (src/trajectories/job.ts): validation with the hashes, the repeat check and the
    // record of what was sent (in memory here, the workspace state in VS Code), then the send pass
    // with its change guard (a stat per file, each 1 MiB block's hash against the validation's) and
    // the ledger of what was logged. What the command adds on top (progress, Problems entries) is
    // the host figure's ratio.
    const sent = new SentUploads(new MemoryStore());
    const upRun = () => measure(url, async () => {
      const { report } = await uploadFiles([file], { modelId: 'bench', split: 'train', client: () => client, sent, allowRepeat: true });
      if (report.status !== 'done') throw new Error(`upload ${report.status}`);
    });
    // The job's send pass alone, over the file validated once before the clock: what the
    // validation pass costs is the difference to the row above.
    const validatedOnce = hostOnly ? [] : await validateFiles([file]);
    const sendRun = () => measure(url, async () => {
      const { report } = await sendFiles(validatedOnce.map((f) => ({ ...f, startGroup: 0 })), { modelId: 'bench', split: 'train', client: () => client, sent });
      if (report.status !== 'done') throw new Error(`send pass ${report.status}`);
    });
    const rawUpRun = () => measure(url, async () => {
      // The fastest plain way to do the client's I/O: the file streamed in 1 MiB reads, whole lines
      // (Buffer slices, never decoded) framed into bodies of up to 8 MiB, one POST in flight while
      // the next body is read and built (the client's overlap: src/trajectories/upload.ts keeps one
      // request in flight).
      let inFlight: Promise<void> | undefined;
      let batch: Buffer[] = [];
      let size = 0;
      const head = Buffer.from('{"split":"train","trajectory_groups":[');
      const comma = Buffer.from(',');
      const tail = Buffer.from(']}');
      const post = async () => {
        const parts: Buffer[] = [head];
        batch.forEach((l, i) => (i ? parts.push(comma, l) : parts.push(l)));
        parts.push(tail);
        const body = Buffer.concat(parts);
        batch = [];
        size = 0;
        await inFlight;
        inFlight = (async () => {
          const r = await request(`${url}/v1/preview/models/bench/log`, { method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body });
          await r.body.dump();
        })();
        inFlight.catch(() => undefined);
      };
      const add = async (l: Buffer) => {
        if (!l.length) return;
        if (size + l.length > 8 * 1024 * 1024 - 64) await post();
        batch.push(l);
        size += l.length + 1;
      };
      let rest: Buffer | undefined;
      for await (const c of fs.createReadStream(file, { highWaterMark: 1 << 20 })) {
        const chunk = rest ? Buffer.concat([rest, c as Buffer]) : (c as Buffer);
        let pos = 0;
        for (let nl = chunk.indexOf(10, pos); nl >= 0; nl = chunk.indexOf(10, pos)) {
          await add(chunk.subarray(pos, nl));
          pos = nl + 1;
        }
        rest = pos < chunk.length ? chunk.subarray(pos) : undefined;
      }
      if (rest) await add(rest);
      if (batch.length) await post();
      await inFlight;
    });
    const up = hostOnly ? undefined : await inTurn(5, [upRun, sendRun, rawUpRun]);
    const rate = (ms: number) => `${fmt(mib(fileBytes) / (ms / 1000))} MiB/s`;
    const rawUpName = 'the I/O floor: the same file streamed as bytes, the same ≤ 8 MiB bodies POSTed raw with undici, one in flight while the next is read';
    const upTurns = `median of 5 in turn (job, send pass, raw); job ${up?.range(0)}, send pass ${up?.range(1)}, raw ${up?.range(2)}`;
    if (up) {
      row(`upload ${UPLOAD_MB} MiB JSONL: the upload job (validate and hash, guard, send, ledger)`, rate(up.med[0]!.ms), rawUpName, rate(up.med[2]!.ms), up.med[0]!.ms / up.med[2]!.ms, `(${upTurns}; sink CPU ${fmt(up.med[0]!.sinkMs, 0)} of ${fmt(up.med[0]!.ms, 0)} ms)`, '≤ 1.1×');
      row(`upload ${UPLOAD_MB} MiB JSONL: the job's send pass alone (validated before the clock)`, rate(up.med[1]!.ms), rawUpName, rate(up.med[2]!.ms), up.med[1]!.ms / up.med[2]!.ms, `(${upTurns}; the validation pass is the difference to the row above)`);
    }

    // 2b. An ART Parquet step file.
    const pq = await parquetTrajectoryFile(PARQUET_JSON_MB);
    const pqBytes = fs.statSync(pq).size;
    console.log(`\ntrajectory upload (an ART Parquet step file: ${fmt(mib(pqBytes), 0)} MiB on disk, ${PARQUET_JSON_MB} MiB of group JSON)`);
    let pqJson = 0;
    const pqRun = () => measure(url, async () => {
      const { report } = await uploadFiles([pq], { modelId: 'bench', split: 'train', client: () => client, sent, allowRepeat: true });
      const r = report.files[0]?.result;
      if (report.status !== 'done' || !r) throw new Error(`Parquet upload ${report.status}: ${r && 'error' in r.outcome ? String((r.outcome.error as Error)?.message ?? r.outcome.error) : ''}`);
      pqJson = r.totals.bytesSent;
    });
    /** A baseline: `decode` hands each body to a raw POST, one in flight while the next is decoded, as the client does. */
    const rawPq = (decode: typeof decodeAndPost) => () => measure(url, async () => {
      let inFlight: Promise<void> | undefined;
      await decode(pq, async (body) => {
        await inFlight;
        inFlight = (async () => {
          // A connection per body: a page of a DuckDB file decodes for seconds, and the sink closes idle sockets.
          const r = await request(`${url}/v1/preview/models/bench/log`, { method: 'POST', reset: true, headers: { authorization: bearer, 'content-type': 'application/json' }, body });
          await r.body.dump();
        })();
        inFlight.catch(() => undefined);
      });
      await inFlight;
    });
    const pqWhat = `upload a ${fmt(mib(pqBytes), 0)} MiB Parquet step file: the upload job`;
    const duckName = 'DuckDB (native, 1 thread) decoding the same 4 columns of the same file once, materialised as JS strings, + raw undici POSTs of the same bodies';
    const ourReaderName = 'our reader (src/files/parquet.ts) decoding the same file once + raw undici POSTs of the same bodies';
    // A failed run is a row of its own (with the error) rather than the end of the whole bench.
    if (!hostOnly) try {
      const n = quick ? 3 : 5;
      const pu = await inTurn(n, [pqRun, rawPq(duckDecodeAndPost), rawPq(decodeAndPost)]);
      const pqRate = (ms: number) => `${fmt(mib(pqBytes) / (ms / 1000))} MiB/s of file, ${fmt(mib(pqJson) / (ms / 1000))} MiB/s of group JSON`;
      const turns = `median of ${n} in turn (job, DuckDB, our reader); job ${pu.range(0)}, DuckDB ${pu.range(1)}, our reader ${pu.range(2)}; CPU of this process: job ${fmt(cpuMedian(pu, 0), 0)}, DuckDB ${fmt(cpuMedian(pu, 1), 0)} (its decoding thread included), our reader ${fmt(cpuMedian(pu, 2), 0)} ms`;
      row(pqWhat, pqRate(pu.med[0]!.ms), duckName, pqRate(pu.med[1]!.ms), pu.med[0]!.ms / pu.med[1]!.ms, `(${turns}; sink CPU ${fmt(pu.med[0]!.sinkMs, 0)} of ${fmt(pu.med[0]!.ms, 0)} ms)`, '≤ 1.3×');
      row(`${pqWhat}, against our own reader`, pqRate(pu.med[0]!.ms), ourReaderName, pqRate(pu.med[2]!.ms), pu.med[0]!.ms / pu.med[2]!.ms, `(the same runs; our reader decoding alone against DuckDB: ${fmt(pu.med[2]!.ms / pu.med[1]!.ms, 2)}×)`);
    } catch (e) {
      console.error(e);
      row(pqWhat, `failed: ${e instanceof Error ? e.message : String(e)}`, duckName, '—', undefined, '', '≤ 1.3×');
    }
    // 2c. The reward distribution per step of a run (issue 31).
    if (!hostOnly) {
      const [steps, stepMb] = quick ? [20, 1] : [200, 4];
      console.log(`\nreward distribution per step (${steps} Parquet step files)`);
      try {
        for (const v of await distributionBench(steps, stepMb, quick ? 1 : 3)) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note);
      } catch (e) {
        console.error(e);
        row(`reward distribution: ${steps} step files`, `failed: ${e instanceof Error ? e.message : String(e)}`, 'DuckDB reading the same columns', '—', undefined);
      }
    }
    console.log(`\npeak RSS while uploading ${RSS_MB} MiB`);
    /**
     * One upload in a fresh child process: the extension's code (the upload job), or a baseline:
     * 'raw' the file streamed and POSTed as it is, 'decode' a Parquet file decoded with our reader
     * and POSTed, 'duckdb' the same decoded with DuckDB and POSTed.
     */
    type RssMode = 'client' | 'raw' | 'decode' | 'duckdb';
    const rssChild = (f: string, mode: RssMode) => {
      const out = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/rss-upload.ts', url, f, ...(mode === 'client' ? [] : [`--${mode}`])], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 });
      const line = out.stdout.trim().split('\n').at(-1);
      const v = line?.startsWith('{') ? (JSON.parse(line) as { bytes: number; startRss: number; peakRss: number; totalMs: number; status: string }) : undefined;
      if (v?.status !== 'done') throw new Error(`${mode} upload of ${f}: ${v?.status ?? `exit ${out.status}`}: ${out.stdout.slice(-500)} ${out.stderr.slice(-1500)}`);
      return v;
    };
    const big = trajectoryFile(RSS_MB);
    // The same groups as one .json document: streamed group by group, never read whole.
    const bigJson = trajectoryJsonFile(RSS_MB);
    type RssRun = ReturnType<typeof rssChild>;
    /** The client and each baseline upload `f` in turn, RSS_RUNS times each, each a fresh process: the medians of peak RSS over idle. */
    const rssRuns = (f: string, baselines: RssMode[]) => {
      const modes: RssMode[] = ['client', ...baselines];
      const runs: RssRun[][] = modes.map(() => []);
      for (let i = 0; i < RSS_RUNS; i++) modes.forEach((m, k) => runs[k]!.push(rssChild(f, m)));
      const over = (v: RssRun) => v.peakRss - v.startRss;
      const median = (rs: RssRun[]) => [...rs].sort((x, y) => over(x) - over(y))[Math.floor(rs.length / 2)]!;
      const range = (rs: RssRun[]) => `${fmt(mib(Math.min(...rs.map(over))), 0)}–${fmt(mib(Math.max(...rs.map(over))), 0)} MiB`;
      return { med: runs.map(median), spread: `median of ${RSS_RUNS} in turn, each a fresh process; over idle: ${modes.map((m, k) => `${m === 'client' ? 'the job' : m === 'decode' ? 'our reader' : m === 'duckdb' ? 'DuckDB' : 'raw'} ${range(runs[k]!)}`).join(', ')}` };
    };
    const rssJsonl = hostOnly ? undefined : rssRuns(big, ['raw']);
    const rssJsonDoc = hostOnly ? undefined : rssRuns(bigJson, ['raw']);
    let rssParquet: ReturnType<typeof rssRuns> | undefined;
    try {
      rssParquet = quick || hostOnly ? undefined : rssRuns(pq, ['duckdb', 'decode']);
    } catch (e) {
      // The client's Parquet upload can fail under load (docs/performance.md says why): a row, not the end of the run.
      console.error(e);
      row(`peak RSS uploading a ${fmt(mib(pqBytes), 0)} MiB Parquet step file (the upload job)`, `failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 300)}`, 'a process decoding the same file with DuckDB and POSTing the bodies raw', '—', undefined, '', '≤ 100 MiB over idle');
    }
    await forEachHost(async (hostSpec) => {
      await freshAgent();
      console.log(`\nin the extension host (${hostLabel(hostSpec)}): svc.uploadTrajectories of the ${UPLOAD_MB} MiB file`);
      const host = await onAllCpus(() => spawnSync(
        process.execPath,
        ['scripts/host/run-tests.js', '--entry', 'out/test/host/bench.js', '--env', `SVC_BENCH_URL=${url}`, '--env', `SVC_BENCH_FILE=${file}`, '--env', `SVC_BENCH_KEY=${BENCH_KEY}`],
        { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
      ));
      const line = /BENCH (\{.*\})/.exec(host.stdout)?.[1];
      if (!line) throw new Error(`host bench failed (exit ${host.status}):\n${host.stdout.slice(-3000)}\n${host.stderr.slice(-2000)}`);
      const hb = JSON.parse(line) as { bytes: number; ms: number; startRss: number; peakRss: number };
      const dash = /BENCH_DASHBOARD (\{.*\})/.exec(host.stdout)?.[1];
      if (dash) hostDashboards.set(hostSpec.id, JSON.parse(dash) as typeof hostDashboards extends Map<string, infer V> ? V : never);
      const hist = /BENCH_HISTORY (\{.*\})/.exec(host.stdout)?.[1];
      if (hist) hostHistories.set(hostSpec.id, JSON.parse(hist) as import('../../test/host/bench-history').HistoryFigures);
      const tv = JSON.parse(/BENCH_THREADS_VIEW (\{.*\})/.exec(host.stdout)?.[1] ?? 'null') as { firstRows: number[]; firstBytes: number[]; pageSize: number; childrenAt: number[]; pageAt: number[] } | null;
      if (tv) {
        const med = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
        const after = tv.firstRows.map((r, i) => r - tv.firstBytes[i]!);
        // Split at the moment VS Code asked the tree for its root: before it, the workbench
        // revealing the view; after it, the extension (the model's request and the client's page).
        const ours = tv.firstRows.map((r, i) => r - tv.childrenAt[i]!);
        const page = tv.pageAt.map((p, i) => p - tv.childrenAt[i]!);
        row(
          'host: first thread rows after opening the Threads view (100,000 threads on the service)',
          `${fmt(med(tv.firstRows), 0)} ms (${fmt(med(after), 0)} ms after the first byte)`,
          `the first byte of the same request (a ${tv.pageSize + 1}-row page) sent raw from the host`,
          `${fmt(med(tv.firstBytes), 0)} ms`,
          med(tv.firstRows) / med(tv.firstBytes),
          `(median of ${tv.firstRows.length} alternating; after the first byte: min ${fmt(Math.min(...after), 0)}, max ${fmt(Math.max(...after), 0)} ms; rows ${tv.firstRows.map((v) => fmt(v, 0)).join(', ')} ms; first bytes ${tv.firstBytes.map((v) => fmt(v, 0)).join(', ')} ms; ` +
            `VS Code asked the tree for its root at ${tv.childrenAt.map((v) => fmt(v, 0)).join(', ')} ms, and from then the rows took ${fmt(med(ours), 0)} ms (min ${fmt(Math.min(...ours), 0)}, max ${fmt(Math.max(...ours), 0)}), the client's page ${fmt(med(page), 0)} ms of it; the core already loaded)`,
          '≤ 100 ms after the first byte',
        );
      }
      // The command against the upload job alone (src/trajectories/job.ts: the client figure above)
      // in the same extension host, alternately (test/host/bench-upload.ts): the same CPUs and event
      // loop on both sides, so the ratio is what the command adds (progress, problems, the guard).
      console.log(`\nin the extension host: svc.uploadTrajectories of the ${UPLOAD_MB} MiB file against the upload job alone, alternately`);
      const hu = await onAllCpus(() => hostUpload(url, file, { runs: 5, build: false }));
      const hRange = (v: number[]) => `min ${fmt(Math.min(...v), 0)}, max ${fmt(Math.max(...v), 0)} ms`;
      row(
        `host: upload ${UPLOAD_MB} MiB JSONL via the command`,
        `${fmt(mib(hu.bytes) / (median(hu.command) / 1000))} MiB/s (${fmt(median(hu.command) / 1000)} s); one upload in the first host: peak RSS ${fmt(mib(hb.peakRss), 0)} MiB (${fmt(mib(hb.peakRss - hb.startRss), 0)} MiB over idle)`,
        'not an I/O floor: the upload job alone (uploadFiles, what the command runs inside), same file, in the same extension host, alternating',
        `${fmt(mib(hu.bytes) / (median(hu.client) / 1000))} MiB/s`,
        median(hu.command) / median(hu.client),
        `(median of ${hu.command.length} alternating, on all CPUs; command ${hRange(hu.command)}, the job alone ${hRange(hu.client)}; the client figure above, pinned beside the sink: ${up ? rate(up.med[0]!.ms) : 'not measured (--host-only)'})`,
        '≤ 1.25×',
      );

      console.log(`\nin the extension host: svc.uploadTrajectories of the ${fmt(mib(fs.statSync(bigJson).size), 0)} MiB .json file`);
      const hjRun = await onAllCpus(() => hostUpload(url, bigJson, { rss: true, build: false }));
      const hj = { bytes: hjRun.bytes, ms: hjRun.command[0]!, startRss: hjRun.startRss!, peakRss: hjRun.peakRss! };
      row(
        `host: upload a ${fmt(mib(hj.bytes), 0)} MiB .json via the command`,
        `peak RSS ${fmt(mib(hj.peakRss), 0)} MiB (${fmt(mib(hj.peakRss - hj.startRss), 0)} MiB over idle)`,
        'host RSS before the upload',
        `${fmt(mib(hj.startRss), 0)} MiB`,
        hj.peakRss / hj.startRss,
        `(${fmt(mib(hj.bytes) / (hj.ms / 1000))} MiB/s in ${fmt(hj.ms / 1000)} s; one host run)`,
        '≤ 100 MiB over idle',
      );

      // The Parquet step file through the command, against the upload job alone in the same host: on
      // Node 24 (VS Code 1.139) the reader decompresses Zstd natively, on Node 20 in JS (fzstd).
      console.log(`\nin the extension host (${hostLabel(hostSpec)}): svc.uploadTrajectories of the ${fmt(mib(pqBytes), 0)} MiB Parquet step file against the upload job alone, alternately`);
      try {
        const hp = await onAllCpus(() => hostUpload(url, pq, { runs: hostOnly ? 2 : 3, build: false }));
        row(
          `host: upload a ${fmt(mib(hp.bytes), 0)} MiB Parquet step file via the command`,
          `${fmt(mib(hp.bytes) / (median(hp.command) / 1000))} MiB/s on disk (${fmt(median(hp.command) / 1000)} s)`,
          'not an I/O floor: the upload job alone (uploadFiles, what the command runs inside), same file, in the same extension host, alternating',
          `${fmt(mib(hp.bytes) / (median(hp.client) / 1000))} MiB/s`,
          median(hp.command) / median(hp.client),
          `(median of ${hp.command.length} alternating, on all CPUs; command ${hp.command.map((v) => fmt(v, 0)).join(', ')} ms, the job alone ${hp.client.map((v) => fmt(v, 0)).join(', ')} ms)`,
        );
      } catch (e) {
        console.error(e);
        row(`host: upload a ${fmt(mib(pqBytes), 0)} MiB Parquet step file via the command`, `failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 300)}`, 'the upload job alone in the same host', '—', undefined);
      }
    });
    const overIdle = (v: RssRun) => `${fmt(mib(v.peakRss - v.startRss), 0)} MiB over idle (peak ${fmt(mib(v.peakRss), 0)} MiB)`;
    const rssRow = (what: string, { med: [c, r], spread }: NonNullable<typeof rssJsonl>) =>
      row(
        `peak RSS uploading a ${fmt(mib(c!.bytes), 0)} MiB ${what} (the upload job)`,
        `${fmt(mib(c!.peakRss - c!.startRss), 0)} MiB over idle (peak ${fmt(mib(c!.peakRss), 0)}, idle ${fmt(mib(c!.startRss), 0)} MiB)`,
        'the I/O floor: a process started the same way streaming the same file with raw POSTs of ≤ 8 MiB',
        overIdle(r!),
        c!.peakRss / r!.peakRss,
        `(ratio of the peaks; ${spread}; upload ${fmt(c!.totalMs / 1000)} s, raw ${fmt(r!.totalMs / 1000)} s)`,
        '≤ 100 MiB over idle',
      );
    if (rssJsonl) rssRow('JSONL', rssJsonl);
    if (rssJsonDoc) rssRow('.json (streamed)', rssJsonDoc);
    if (rssParquet) {
      const [c, duck, ours] = rssParquet.med as [RssRun, RssRun, RssRun];
      const what = `peak RSS uploading a ${fmt(mib(c.bytes), 0)} MiB Parquet step file (the upload job)`;
      const value = `${fmt(mib(c.peakRss - c.startRss), 0)} MiB over idle (peak ${fmt(mib(c.peakRss), 0)}, idle ${fmt(mib(c.startRss), 0)} MiB)`;
      const times = `upload ${fmt(c.totalMs / 1000)} s, DuckDB decode + POST ${fmt(duck.totalMs / 1000)} s, our reader's ${fmt(ours.totalMs / 1000)} s`;
      row(what, value, 'a process started the same way decoding the same file with DuckDB (native, 1 thread; the library loaded in it) and POSTing the bodies raw', overIdle(duck), c.peakRss / duck.peakRss, `(ratio of the peaks; ${rssParquet.spread}; ${times})`, '≤ 100 MiB over idle');
      row(`${what}, against our own reader`, value, 'a process started the same way decoding the same file with our reader and POSTing the bodies raw', overIdle(ours), c.peakRss / ours.peakRss, `(the same runs; our reader's own peak over idle against the goal below)`);
      row('peak RSS of our Parquet reader alone (decode + raw POSTs)', overIdle(ours), 'DuckDB doing the same in a process started the same way', overIdle(duck), ours.peakRss / duck.peakRss, `(the same runs; ${times})`, '≤ 600 MiB over idle');
    }

    await freshAgent();
    // 3. Call import: the command's send pass over a validated file, and calls.upsertBatch(items).
    if (!hostOnly) {
    console.log(`\ncall import (${CALLS.toLocaleString('en-US')} calls)`);
    const cps = (ms: number) => `${fmt(CALLS / (ms / 1000), 0)} calls/s`;
    {
      const callFile = callsFile(CALLS);
      const callFileBytes = fs.statSync(callFile).size;
      const v0 = performance.now();
      const validated = await validateCallsFile(callFile, { plan: true, threadsOf: 'bench/calls' });
      const validateMs = performance.now() - v0;
      if (!validated.plan || validated.problems.some((p) => p.severity === 'error')) throw new Error('the calls file did not validate');
      // What the Import command does (src/calls/manager.ts): the validation pass that makes the
      // plan, then the send pass over it.
      const importRun = () =>
        measure(url, async () => {
          const v = await validateCallsFile(callFile, { plan: true, threadsOf: 'bench/calls' });
          if (!v.plan || v.problems.some((p) => p.severity === 'error')) throw new Error('the calls file did not validate');
          let n = 0;
          await sendCallsFile(client.calls, callFile, { plan: v.plan, threadsOf: 'bench/calls', onChunk: (c) => (n += c.starts + c.ends) });
          if (n !== CALLS) throw new Error(`import: ${n} calls acknowledged`);
        });
      // The send pass alone, over the plan made before the clock.
      const sendRun = () =>
        measure(url, async () => {
          let n = 0;
          await sendCallsFile(client.calls, callFile, { plan: validated.plan, threadsOf: 'bench/calls', onChunk: (c) => (n += c.starts + c.ends) });
          if (n !== CALLS) throw new Error(`import: ${n} calls acknowledged`);
        });
      // Baseline: the file streamed in 1 MiB reads, split into lines as bytes, 1000 lines a body
      // (the import's itemsPerBatch), one POST in flight while the next body is read.
      const rawSendRun = () =>
        measure(url, async () => {
          const post = async (body: Buffer) => {
            const r2 = await request(`${url}/call/upsert_batch`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body });
            await r2.body.dump();
          };
          const open = Buffer.from('{"batch":[');
          const comma = Buffer.from(',');
          const close = Buffer.from(']}');
          let parts: Buffer[] = [open];
          let items = 0;
          let inFlight: Promise<void> | undefined;
          let carry: Buffer | undefined;
          const add = async (line: Buffer) => {
            if (line.length === 0) return;
            if (items > 0) parts.push(comma);
            parts.push(line);
            if (++items === 1000) {
              parts.push(close);
              const body = Buffer.concat(parts);
              parts = [open];
              items = 0;
              await inFlight;
              inFlight = post(body);
            }
          };
          for await (const raw of fs.createReadStream(callFile, { highWaterMark: 1024 * 1024 })) {
            const chunk = carry ? Buffer.concat([carry, raw as Buffer]) : (raw as Buffer);
            carry = undefined;
            let pos = 0;
            for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, pos)) {
              await add(chunk.subarray(pos, nl));
              pos = nl + 1;
            }
            if (pos < chunk.length) carry = chunk.subarray(pos);
          }
          if (carry) await add(carry);
          await inFlight;
          if (items > 0) {
            parts.push(close);
            await post(Buffer.concat(parts));
          }
        });
      const n = quick ? 5 : 9;
      const imp = await inTurn(n, [importRun, sendRun, rawSendRun]);
      const changed = validated.plan.codes.reduce((k, c) => k + (c === 0 ? 1 : 0), 0);
      const rawName = `the I/O floor: the same file streamed raw, POSTs of the same ${Math.ceil(CALLS / 1000)} batches of 1000 lines, one in flight while the next is read`;
      const cpu = `CPU of this process: import ${fmt(cpuMedian(imp, 0), 0)}, send pass ${fmt(cpuMedian(imp, 1), 0)}, raw ${fmt(cpuMedian(imp, 2), 0)} ms`;
      const turns = `median of ${n} in turn (import, send pass, raw); import ${imp.range(0)}, send pass ${imp.range(1)}, raw ${imp.range(2)}; ${cpu}`;
      const what = `import ${CALLS.toLocaleString('en-US')} calls from a ${fmt(mib(callFileBytes))} MiB JSONL file`;
      row(`${what}: what the command does (validate and plan, send)`, cps(imp.med[0]!.ms), rawName, cps(imp.med[2]!.ms), imp.med[0]!.ms / imp.med[2]!.ms, `(${turns}; sink CPU ${fmt(imp.med[0]!.sinkMs, 0)} of ${fmt(imp.med[0]!.ms, 0)} ms)`, '≤ 1.2×');
      row(`${what}: the send pass alone (validated before the clock)`, cps(imp.med[1]!.ms), rawName, cps(imp.med[2]!.ms), imp.med[1]!.ms / imp.med[2]!.ms, `(the same runs; ${fmt(changed, 0)} items rewritten (null optional fields), the rest sent as their bytes; one validation pass before the clock: ${fmt(validateMs, 0)} ms)`);
    }
    {
      // calls.upsertBatch(items), the API for items in memory: it serializes each item once, one
      // request ahead. Baseline: the same serialization into the same 10 MiB bodies, one POST in
      // flight while the next body is built (before issue 22 the bodies were built before the clock).
      const items = callItems(CALLS) as CallBatchItem[];
      const impRun = () =>
        measure(url, async () => {
          const res = await client.calls.upsertBatch(items);
          if (res.length !== items.length) throw new Error('misaligned');
        });
      let bodies = 0;
      const rawImpRun = () =>
        measure(url, async () => {
          let inFlight: Promise<void> | undefined;
          const post = async (b: string) => {
            const r2 = await request(`${url}/call/upsert_batch`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: b });
            await r2.body.dump();
          };
          let cur: string[] = [];
          let size = 12;
          bodies = 0;
          for (const it of items) {
            const text = JSON.stringify(it);
            const bytes = Buffer.byteLength(text);
            if (cur.length && size + bytes + 1 > 10 * 1024 * 1024) {
              const b = `{"batch":[${cur.join(',')}]}`;
              cur = [];
              size = 12;
              await inFlight;
              inFlight = post(b);
              bodies++;
            }
            cur.push(text);
            size += bytes + 1;
          }
          await inFlight;
          if (cur.length) {
            await post(`{"batch":[${cur.join(',')}]}`);
            bodies++;
          }
        });
      const ups = await alternateCpu(5, impRun, rawImpRun);
      row(`calls.upsertBatch, ${CALLS.toLocaleString('en-US')} calls in memory`, cps(ups.a.ms), `JSON.stringify of the same items into the same ${bodies} bodies, POSTed one in flight while the next is built`, cps(ups.b.ms), ups.a.ms / ups.b.ms, `(${ups.spread}; sink CPU ${fmt(ups.a.sinkMs, 0)} of ${fmt(ups.a.ms, 0)} ms)`);
    }

    }
    await freshAgent();
    // 4. Checkpoints.
    console.log('\ncheckpoints (10 000 in 100 pages)');
    const ckRun = () =>
      measure(url, async () => {
        let n = 0;
        for await (const page of client.models.checkpointPages('bench', { pageSize: 100 })) n += page.length;
        if (n !== 10_000) throw new Error(`${n} checkpoints`);
      });
    const rawCkRun = () =>
      measure(url, async () => {
        let after = '';
        let n = 0;
        for (;;) {
          const r3 = await request(`${url}/v1/preview/models/bench/checkpoints?limit=100${after ? `&after=${after}` : ''}`, { headers: { authorization: bearer } });
          const page = JSON.parse(await r3.body.text()) as { data: unknown[]; has_more: boolean; last_id: string };
          n += page.data.length;
          if (!page.has_more) break;
          after = page.last_id;
        }
        if (n !== 10_000) throw new Error(`${n} raw checkpoints`);
      });
    const ck = hostOnly ? undefined : await alternate(5, ckRun, rawCkRun);
    if (ck) row('iterate 10 000 checkpoints, 100 pages (checkpointPages)', `${fmt(ck.a.ms, 0)} ms`, 'raw sequential GETs + JSON.parse', `${fmt(ck.b.ms, 0)} ms`, ck.a.ms / ck.b.ms, `(${ck.spread})`, '≤ 1.15×');
    await forEachHost(async (hostSpec) => {
      const hostDashboard = hostDashboards.get(hostSpec.id);
      if (!hostDashboard) return;
      // The same 100 pages of the 30-metric model, fetched raw: what opening the dashboard cannot beat.
      const raw30Runs: { ms: number; sinkMs: number }[] = [];
      for (let i = 0; i < 3; i++) {
        raw30Runs.push(
          await measure(url, async () => {
            let after = '';
            for (;;) {
              const r3 = await request(`${url}/v1/preview/models/bench30/checkpoints?limit=100&order=asc${after ? `&after=${after}` : ''}`, { headers: { authorization: bearer } });
              const page = JSON.parse(await r3.body.text()) as { has_more: boolean; last_id: string };
              if (!page.has_more) break;
              after = page.last_id;
            }
          }),
        );
      }
      const raw30 = [...raw30Runs].sort((x, y) => x.ms - y.ms)[1]!;
      row(
        `host: open the training dashboard, ${hostDashboard.count.toLocaleString('en-US')} × ${hostDashboard.charts} (${hostDashboard.requests} pages) until drawn`,
        `${fmt(hostDashboard.openMs, 0)} ms (webview ready at ${fmt(hostDashboard.readyMs, 0)} ms, first paint at ${fmt(hostDashboard.firstPaintMs, 0)} ms; last page fetched at ${fmt(hostDashboard.fetchedMs, 0)} ms; drawn ${fmt(hostDashboard.drawMs, 0)} ms after it reached the page)`,
        'raw sequential GETs of the same pages',
        `${fmt(raw30.ms, 0)} ms`,
        hostDashboard.openMs / raw30.ms,
        `(the same pages through ModelsApi alone in the host: ${fmt(hostDashboard.clientMs, 0)} ms; raw ${raw30Runs.map((r) => fmt(r.ms, 0)).join(', ')} ms, median of 3; one host run; code-server ${hostSpec.codeServer}, webview in headless Chromium)`,
        '≤ 2×',
      );
    });
    await forEachHost((hostSpec) => {
      const h = hostHistories.get(hostSpec.id);
      if (!h) return;
      row(
        `host: open the dashboard of a ${h.lines.toLocaleString('en-US')}-line history.jsonl (${h.steps.toLocaleString('en-US')} steps × ${h.charts}) until drawn`,
        `${fmt(h.openMs, 0)} ms (drawn ${fmt(h.drawMs, 0)} ms after the last data reached the page)`,
        'reading the file and JSON.parse of every line, in the host',
        `${fmt(h.parseMs, 0)} ms`,
        h.openMs / h.parseMs,
        `(${fmt(mib(h.bytes), 1)} MiB; a train and a val line per step, merged; code-server ${hostSpec.codeServer}, webview in headless Chromium)`,
        '≤ 1.5× to drawn',
      );
    });
  } finally {
    await client.close();
    await agent.close();
    child.kill('SIGTERM');
  }
  // --client-only (no host runs): the figures against the sink above and no more (no verdict pass,
  // run search, bundle or host rows), for measuring them at full size in minutes. No --readme.
  if (clientOnly) {
    console.log(`\n--client-only: ${machine}\n\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}`);
    return;
  }

  // 4b. What ART trains on (issue 30): the verdict pass against the plain index, the token strip's
  // message and svc's tokenizer.json decoder (plain Node, no service).
  if (!hostOnly) {
    console.log(`\nART's verdicts over a step file (${VERDICT_JSONL_MB} MiB JSONL; Parquet of ${VERDICT_PARQUET_JSON_MB} MiB of group JSON)`);
    for (const v of await verdictBench(VERDICT_JSONL_MB, VERDICT_PARQUET_JSON_MB, VERDICT_RUNS)) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note);
    console.log('\nthe token strip of a 32k-token turn, and the tokenizer.json decoder');
    for (const v of await tokenBench(quick ? 3 : 9)) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note);
  }

  // 4d. An Inspect AI log (issue 32): the first group of a 1.1 GB .eval against a 3-sample one, fresh processes.
  if (!hostOnly) {
    console.log(`\nan Inspect AI .eval log (${quick ? '200' : '20,000'} samples) in the viewer's index`);
    for (const v of inspectBench(quick ? 200 : 20_000, quick ? 1 : 5)) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note, v.goal);
  }

  // 4c. Search across a run (issue 31): every step file of a run, against decoding the same columns and running the same regex.
  if (!hostOnly) {
    const dir = await runSearchDir(PARQUET_JSON_MB, RUN_SEARCH_FILES);
    const onDisk = fs.readdirSync(path.join(dir, 'trajectories', 'train')).reduce((a, n) => a + fs.statSync(path.join(dir, 'trajectories', 'train', n)).size, 0);
    console.log(`\nsearch across a run (${RUN_SEARCH_FILES} Parquet step files, ${fmt(mib(onDisk), 0)} MiB on disk)`);
    // The disk cache the first search writes and the search after a restart reads: a folder of the bench's own.
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-search-cache-'));
    type Child = { files: number; firstMs?: number; totalMs: number; cpuMs?: number; firstCpuMs?: number; hits: number; startRss: number; peakRss: number; secondMs?: number; secondCpuMs?: number; secondFirstMs?: number; cached?: number; fromDisk?: number; cacheBytes?: number; groups?: number };
    const child = (mode: string) => {
      const out = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/runSearch.ts', dir, mode, RUN_SEARCH_REGEX, cacheDir], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 });
      const line = out.stdout.trim().split('\n').pop() ?? '';
      if (!line.startsWith('{')) throw new Error(`runSearch.ts ${mode} failed: ${out.stderr.slice(-2000)}`);
      return JSON.parse(line) as Child;
    };
    try {
      const ours = child('search');
      const restart = child('again');
      const base = child('baseline');
      const rate = (ms: number) => `${fmt(mib(onDisk) / (ms / 1000))} MiB/s (${ms < 10_000 ? `${fmt(ms, 0)} ms` : `${fmt(ms / 1000)} s`})`;
      const cpu = (ms?: number) => (ms === undefined ? '?' : `${fmt(ms / 1000)} s`);
      const over = (c: Child) => `${fmt(mib(c.peakRss - c.startRss), 0)} MiB (peak ${fmt(mib(c.peakRss), 0)}, idle ${fmt(mib(c.startRss), 0)} MiB)`;
      row(`search a run of ${RUN_SEARCH_FILES} step files (${fmt(mib(onDisk), 0)} MiB) for /${RUN_SEARCH_REGEX}/`, rate(ours.totalMs), 'readArtGroups decoding the same columns + the same regex over each group\'s text', rate(base.totalMs), ours.totalMs / base.totalMs, `(${ours.hits} hits in fields, baseline ${base.hits} matches in raw JSON; ${ours.groups} groups; CPU ${cpu(ours.firstCpuMs)}, baseline ${cpu(base.cpuMs)}; writes the disk cache as it goes)`);
      row('run search: time to the first result', `${fmt(ours.firstMs ?? NaN, 0)} ms`, 'the baseline\'s first matching group', `${fmt(base.firstMs ?? NaN, 0)} ms`, (ours.firstMs ?? NaN) / (base.firstMs ?? NaN));
      row('run search: peak RSS over idle', over(ours), 'the baseline, same process shape', over(base), ours.peakRss / base.peakRss, '(ratio of the peaks)');
      row('run search: the same search again, same process (memory + disk cache)', rate(ours.secondMs!), 'the first search', rate(ours.totalMs), ours.secondMs! / ours.totalMs, `(${ours.cached} of ${ours.files} files from the caches, ${ours.fromDisk} of them from the disk cache, ${fmt(mib(ours.cacheBytes ?? NaN), 0)} MiB on disk; CPU ${cpu(ours.secondCpuMs)} against ${cpu(ours.firstCpuMs)}; first result after ${fmt(ours.secondFirstMs ?? NaN, 0)} ms)`);
      row('run search: the same search after a restart (disk cache alone)', rate(restart.totalMs), 'the first search', rate(ours.totalMs), restart.totalMs / ours.totalMs, `(${restart.fromDisk} of ${restart.files} files from the disk cache, ${restart.hits} hits; CPU ${cpu(restart.cpuMs)}; first result after ${fmt(restart.firstMs ?? NaN, 0)} ms)`);
      row('run search after a restart: peak RSS over idle', over(restart), 'the first search', over(ours), restart.peakRss / ours.peakRss, '(ratio of the peaks)');
    } catch (e) {
      console.error(e);
      row(`search a run of ${RUN_SEARCH_FILES} step files`, `failed: ${e instanceof Error ? e.message : String(e)}`, '—', '—', undefined);
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  }

  // 5. The extension: bundle size, activation time in the host.
  console.log('\nthe extension');
  spawnSync(process.execPath, ['esbuild.js', '--production'], { cwd: root, stdio: 'ignore' });
  const kib = (f: string) => fs.statSync(path.join(root, 'dist', f)).size / 1024;
  const gzKib = (f: string) => zlib.gzipSync(fs.readFileSync(path.join(root, 'dist', f)), { level: 9 }).length / 1024;
  const distFiles = (dir: string): string[] => fs.readdirSync(path.join(root, 'dist', dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? distFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  // dist/mcp.js is the MCP server that agents run with Node: it ships, but VS Code never loads it.
  const all = distFiles('.').filter((f) => f !== 'mcp.js');
  const total = all.reduce((n, f) => n + kib(f), 0);
  const webviewKib = all.filter((f) => f.startsWith('webview')).reduce((n, f) => n + kib(f), 0);
  // What dist/core.js is made of, by package (esbuild's metafile of the same production build).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- esbuild.js is the repo's plain-CommonJS build script, required by its absolute path
  const { nodeBundlePlugins } = require(path.join(root, 'esbuild.js')) as { nodeBundlePlugins: import('esbuild').Plugin[] };
  const meta = (await esbuild.build({ entryPoints: [path.join(root, "src/extension.ts")], bundle: true, mainFields: ['module', 'main'], format: 'cjs', platform: 'node', target: 'node20', external: ['vscode'], minify: true, write: false, metafile: true, outfile: path.join(root, 'dist', 'core.js'), plugins: nodeBundlePlugins, logLevel: 'silent' })).metafile!;
  const byPart = new Map<string, number>();
  for (const [file, input] of Object.entries(Object.values(meta.outputs)[0]!.inputs)) {
    const part = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? (/undici\/lib\/llhttp/.test(file) ? 'undici' : file.split('/').slice(0, 2).join('/'));
    const key = /llhttp.*wasm/.test(file) ? 'undici (llhttp wasm, 2 builds)' : part;
    byPart.set(key, (byPart.get(key) ?? 0) + input.bytesInOutput);
  }
  const parts = [...byPart].sort((x, y) => y[1] - x[1]);
  console.log(`  dist/core.js by part: ${parts.slice(0, 12).map(([k, v]) => `${k} ${fmt(v / 1024, 0)} KiB`).join(', ')}`);
  row('code loaded at activation: dist/extension.js', `${fmt(kib('extension.js'), 1)} KiB (${fmt(gzKib('extension.js'), 1)} KiB gzip)`, 'none', '—', undefined, '', '≤ 3 KiB');
  row(
    'the whole dist/ (production build)',
    `${fmt(total, 0)} KiB`,
    'undici alone, bundled and minified',
    `${fmt(undiciSize() / 1024, 0)} KiB`,
    total / (undiciSize() / 1024),
    `(dist/core.js ${fmt(kib('core.js'), 0)} KiB, loaded on first use; webviews ${fmt(webviewKib, 0)} KiB; trajectories.schema.json ${fmt(kib('trajectories.schema.json'), 0)} KiB; not counted: dist/mcp.js ${fmt(kib('mcp.js'), 0)} KiB, the MCP server, never loaded by VS Code)`,
    '≤ 1.2 MiB (1,229 KiB)',
  );
  // The VSIX as it ships (scripts/check-package.js packages it the way `npm run package` does).
  {
    const vsix = path.join(os.tmpdir(), `svc-bench-${process.pid}.vsix`);
    const packed = spawnSync(process.execPath, ['scripts/check-package.js', '--out', vsix], { cwd: root, encoding: 'utf8', maxBuffer: 16 << 20 });
    if (packed.status === 0 && fs.existsSync(vsix)) {
      const bytes = fs.statSync(vsix).size;
      const files = /(\d+) files:/.exec(packed.stdout)?.[1] ?? '?';
      row('the VSIX (`npm run package`)', `${fmt(bytes / 1024, 0)} KiB (${bytes.toLocaleString('en-US')} bytes, ${files} files)`, 'the whole dist/ above, uncompressed', `${fmt(total, 0)} KiB`, bytes / 1024 / total, '(zip-compressed; it ships dist/mcp.js too)', 'reported');
      fs.rmSync(vsix, { force: true });
    } else row('the VSIX (`npm run package`)', `failed: ${(packed.stderr || packed.stdout).trim().split('\n').slice(-1)[0]}`, 'none', '—', undefined, '', 'reported');
  }
  // 6. The training dashboard's webview (needs the production bundle just built).
  if (hostRuns && !hostOnly) {
    const render = await onAllCpus(() => benchRender());
    console.log(`\nthe training dashboard (${render.n.toLocaleString('en-US')} checkpoints × ${render.m} metrics, headless Chromium)`);
    row(
      `dashboard: draw ${render.n.toLocaleString('en-US')} × ${render.m} after the data is in`,
      `${fmt(render.renderMs, 0)} ms`,
      `bare uPlot, the same ${render.m} series`,
      `${fmt(render.baselineMs, 0)} ms`,
      render.renderMs / render.baselineMs,
      `(median of ${render.runs.render.length}: ${render.runs.render.map((v) => fmt(v, 0)).join(', ')} ms; one checkpoint more from a poll: ${fmt(render.appendMs, 0)} ms)`,
      '≤ 1.3×',
    );
    row(
      'webview dist/webview/dashboard.js + .css',
      `${fmt(render.bundleBytes / 1024, 0)} KiB + ${fmt(render.cssBytes / 1024, 0)} KiB (${fmt(render.bundleGzip / 1024, 0)} KiB gzip)`,
      'uPlot alone, bundled and minified',
      `${fmt(render.uplotBytes / 1024, 0)} KiB`,
      render.bundleBytes / render.uplotBytes,
    );
  }
  await forEachHost(async (hostSpec) => {
    // Each run is a fresh extension host: the extension, then the fixed built-in baseline, each
    // activated once and timed the same way (test/host/suites/activation.test.ts prints them).
    const runs: { wall: number; inside: number; baseline: number; coreMs: number; composeMs: number; name: string }[] = [];
    for (let i = 0; i < ACTIVATION_RUNS; i++) {
      const host = await onAllCpus(() => spawnSync(process.execPath, ['scripts/host/run-tests.js', ...(i ? ['--no-build'] : []), '--grep', 'activates without'], { cwd: root, encoding: 'utf8', maxBuffer: 16 << 20 }));
      const inside = /activation took ([\d.]+) ms/.exec(host.stdout);
      const wall = /activation wall ([\d.]+) ms \(baseline (\S+) ([\d.]+|n\/a) ms\)/.exec(host.stdout);
      const core = /core loaded on first use in ([\d.]+) ms \(([\d.]+) ms composing\)/.exec(host.stdout);
      if (!inside || !wall || !core) throw new Error(`activation not measured (host run exit ${host.status}):\n${host.stdout.slice(-2000)}`);
      runs.push({ wall: Number(wall[1]), inside: Number(inside[1]), baseline: Number(wall[3]), coreMs: Number(core[1]), composeMs: Number(core[2]), name: wall[2]! });
    }
    const med = (key: keyof (typeof runs)[number]) => [...runs.map((r) => r[key] as number)].sort((x, y) => x - y)[Math.floor(runs.length / 2)]!;
    const list = (key: keyof (typeof runs)[number]) => runs.map((r) => fmt(r[key] as number, 1)).join(', ');
    const baselineMs = med('baseline');
    row(
      'activation in the host: ext.activate(), wall',
      `${fmt(med('wall'), 1)} ms (${fmt(med('inside'), 1)} ms inside activate())`,
      `the built-in ${runs[0]!.name}, activate() timed the same way`,
      Number.isFinite(baselineMs) ? `${fmt(baselineMs, 1)} ms` : 'n/a (already active)',
      Number.isFinite(baselineMs) ? med('wall') / baselineMs : undefined,
      `(medians of ${runs.length} fresh hosts, code-server ${hostSpec.codeServer}; wall ${list('wall')} ms; inside ${list('inside')} ms; baseline ${list('baseline')} ms; then the core loads on first use in ${fmt(med('coreMs'), 0)} ms, ${fmt(med('composeMs'), 0)} ms of it composing)`,
      '≤ 40 ms wall, ≤ 10 ms inside',
    );
  });
  await forEachHost(async (hostSpec) => {
    console.log(`\nthe trajectory viewer on the ${UPLOAD_MB} MiB file (${hostLabel(hostSpec)})`);
    for (const v of await onAllCpus(() => viewerBench(UPLOAD_MB))) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note);
    console.log(`\nthe trajectory viewer on a 1 GiB ART Parquet step file (${hostLabel(hostSpec)})`);
    for (const v of await onAllCpus(() => viewerParquetBench(1, VIEWER_PARQUET_RUNS))) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note, v.what.startsWith('viewer: first group') ? '≤ 1.2×' : '');
    // An Inspect AI log (issue 32): the 1.1 GB 20,000-sample .eval of section 4d against the 3-sample one, where the user waits.
    console.log(`\nthe trajectory viewer on a 1.1 GB Inspect AI .eval log (${hostLabel(hostSpec)})`);
    for (const v of await onAllCpus(() => viewerInspectBench(20_000, VIEWER_INSPECT_RUNS))) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note, v.what.startsWith('viewer: first group') ? '≤ 2×' : '');
    console.log(`\nthe token strip of a 32k-token turn in the viewer (${hostLabel(hostSpec)})`);
    for (const v of await onAllCpus(() => tokenStripHostBench(6))) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note);
    // The reward distribution per step on a run's dashboard (issue 31), until drawn: the 200 step
    // files of the client figure above (section 2c), not run in --quick (no host rows there).
    console.log(`\nthe reward distribution on a run's dashboard, 200 Parquet step files (${hostLabel(hostSpec)})`);
    try {
      for (const v of await onAllCpus(() => distributionHostBench(200, 4, 3))) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note);
    } catch (e) {
      console.error(e);
      row('host: open a run\'s dashboard until the reward distribution of 200 step files is drawn', `failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 300)}`, 'the same dashboard of a run of 1 step file', '—', undefined);
    }
  });
  let table = ['| measure | value | baseline (same run) | baseline value | ratio | goal | notes |', '|---|---|---|---|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
  // The host rows again, the hosts side by side (value and its ratio to the same run's baseline).
  if (hostRows.size) {
    const side = [
      `| host measure | ${benchHosts.map(hostLabel).join(' | ')} |`,
      `|---|${benchHosts.map(() => '---|').join('')}`,
      ...[...hostRows].map(([what, byHost]) => `| ${what} | ${benchHosts.map((h) => byHost.get(h.id) ?? '—').join(' | ')} |`),
    ].join('\n');
    table += `\n\nThe host rows side by side (value, and its ratio to the baseline measured in the same host):\n\n${side}`;
  }
  const stamp = `${quick ? '`npm run bench -- --quick`' : hostOnly ? '`npm run bench -- --host-only`' : '`npm run bench`'} on ${new Date().toISOString().slice(0, 10)}: ${machine}; ${pinned}.`;
  console.log(`\n${stamp}\n\n${table}`);
  // --readme: docs/performance.md's table is this run's output, between its markers, with the machine named.
  if (process.argv.includes('--readme') && hostOnly) console.log('--readme ignored with --host-only: the table would lack the client figures');
  else if (process.argv.includes('--readme')) {
    const doc = path.join(root, 'docs', 'performance.md');
    const text = fs.readFileSync(doc, 'utf8');
    const start = '<!-- bench:start -->';
    const end = '<!-- bench:end -->';
    if (!text.includes(start) || !text.includes(end)) throw new Error('docs/performance.md has no bench markers');
    fs.writeFileSync(doc, `${text.slice(0, text.indexOf(start) + start.length)}\n${stamp}\n\n${table}\n${text.slice(text.indexOf(end))}`);
    console.log('docs/performance.md: the table between the bench markers is this run\'s');
  }
}

function undiciSize(): number {
  const out = esbuild.buildSync({ stdin: { contents: "module.exports = require('undici')", resolveDir: root }, bundle: true, platform: 'node', target: 'node20', minify: true, write: false, format: 'cjs', mainFields: ['module', 'main'] });
  return out.outputFiles[0]!.contents.length;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
