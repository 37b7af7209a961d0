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
import { readTrajectoryGroups, validateTrajectoryFile } from '../../src/trajectories/reader';
import { uploadGroups } from '../../src/trajectories/upload';
import { callItems, trajectoryFile, trajectoryJsonFile } from './data';
import { benchRender } from './render';
import { BENCH_KEY } from './keys';
import { viewerBench } from './viewer';

const root = path.resolve(__dirname, '..', '..');
const quick = process.argv.includes('--quick');
const UPLOAD_MB = quick ? 20 : 200;
const RSS_MB = quick ? 50 : 1024;
const CALLS = quick ? 20_000 : 200_000;
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

function row(what: string, value: string, baselineName: string, baseline: string, ratio: number, note = '') {
  rows.push([what, value, baselineName, baseline, `${ratio.toFixed(2)}×`, note]);
  console.log(`  ${what}: ${value} | baseline (${baselineName}): ${baseline} | ratio ${ratio.toFixed(2)} ${note}`);
}
const mb = (b: number) => b / (1024 * 1024);
const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function startSink(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/sink.ts', '--threads', '100000', '--checkpoints', '10000'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
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

/** The in-host dashboard figures (test/host/bench.ts), printed with the checkpoints section. */
let hostDashboard: { openMs: number; fetchedMs: number; clientMs: number; drawMs: number; count: number; charts: number; requests: number } | null = null;

async function main() {
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${fmt(os.totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`);
  const { url, child } = await startSink();
  const client = createServiceClient({ traceBaseUrl: url, credentials: async () => ({ username: 'api', password: BENCH_KEY, accessToken: BENCH_KEY }), env: {} });
  try {
    // 1. Threads stream.
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
    const clientRuns: { ms: number; sinkMs: number }[] = [];
    const rawRuns: { ms: number; sinkMs: number }[] = [];
    for (let i = 0; i < 5; i++) {
      clientRuns.push(await clientRun());
      rawRuns.push(await rawRun());
    }
    const mid = (runs: { ms: number; sinkMs: number }[]) => [...runs].sort((x, y) => x.ms - y.ms)[2]!;
    const spread = (runs: { ms: number }[]) => `min ${fmt(Math.min(...runs.map((r) => r.ms)), 0)}, max ${fmt(Math.max(...runs.map((r) => r.ms)), 0)} ms`;
    const client3 = mid(clientRuns);
    const raw3 = mid(rawRuns);
    if (count !== lines.length) throw new Error(`threads: ${count} rows, expected ${lines.length}`);
    const rps = (ms: number) => `${fmt(lines.length / (ms / 1000), 0)} rows/s, ${fmt(mb(body.length) / (ms / 1000))} MB/s`;
    row('threads.queryBatches, 100k rows over loopback', rps(client3.ms), 'raw stream of the same response + JSON.parse per line', rps(raw3.ms), client3.ms / raw3.ms, `(median of 5 alternating; client ${spread(clientRuns)}, raw ${spread(rawRuns)}; lower is better; sink CPU ${fmt(client3.sinkMs, 0)} of ${fmt(client3.ms, 0)} ms)`);

    // 2. Trajectory upload.
    console.log(`\ntrajectory upload (${UPLOAD_MB} MB JSONL)`);
    const file = trajectoryFile(UPLOAD_MB);
    const fileBytes = fs.statSync(file).size;
    const up = await measure(url, async () => {
      const s = await validateTrajectoryFile(file);
      if (s.problems.length) throw new Error(`bench file invalid: ${s.problems[0]!.message}`);
      const r = await uploadGroups(client, readTrajectoryGroups(file, { trusted: true, groupTrajectories: s.groupTrajectories }), { modelId: 'bench', split: 'train' });
      if (r.outcome.status !== 'done') throw new Error(`upload ${r.outcome.status}`);
    });
    const rawUp = await measure(url, async () => {
      // The same bytes as whole lines in bodies of up to 8 MiB, POSTed sequentially.
      const text = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
      let batch: string[] = [];
      let size = 0;
      const post = async () => {
        const r = await request(`${url}/v1/preview/models/bench/log`, { method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: `{"split":"train","trajectory_groups":[${batch.join(',')}]}` });
        await r.body.dump();
        batch = [];
        size = 0;
      };
      for (const l of text) {
        if (size + l.length > 8 * 1024 * 1024 - 64) await post();
        batch.push(l);
        size += l.length + 1;
      }
      if (batch.length) await post();
    });
    const rate = (ms: number) => `${fmt(mb(fileBytes) / (ms / 1000))} MB/s`;
    row(`upload ${UPLOAD_MB} MB (validate + send)`, rate(up.ms), 'raw undici POSTs of the same bytes', rate(rawUp.ms), up.ms / rawUp.ms, `(sink CPU ${fmt(up.sinkMs, 0)} of ${fmt(up.ms, 0)} ms)`);

    console.log(`\npeak RSS while uploading ${RSS_MB} MB`);
    const big = trajectoryFile(RSS_MB);
    const r = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/rss-upload.ts', url, big], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 });
    const rss = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { bytes: number; startRss: number; peakRss: number; totalMs: number; status: string };
    // The same groups as one .json document: streamed group by group, never read whole.
    const bigJson = trajectoryJsonFile(RSS_MB);
    const rj = spawnSync(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/rss-upload.ts', url, bigJson], { cwd: root, encoding: 'utf8', maxBuffer: 1 << 20 });
    const rssJson = JSON.parse(rj.stdout.trim().split('\n').at(-1)!) as typeof rss;
    if (rssJson.status !== 'done') throw new Error(`.json upload ${rssJson.status}: ${rj.stdout.slice(-500)} ${rj.stderr.slice(-1500)}`);
    if (!process.argv.includes('--no-host')) {
      console.log(`\nin the extension host: svc.uploadTrajectories of the ${UPLOAD_MB} MB file`);
      const host = spawnSync(
        process.execPath,
        ['scripts/host/run-tests.js', '--entry', 'out/test/host/bench.js', '--env', `SVC_BENCH_URL=${url}`, '--env', `SVC_BENCH_FILE=${file}`, '--env', `SVC_BENCH_KEY=${BENCH_KEY}`],
        { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
      );
      const line = /BENCH (\{.*\})/.exec(host.stdout)?.[1];
      if (!line) throw new Error(`host bench failed (exit ${host.status}):\n${host.stdout.slice(-3000)}\n${host.stderr.slice(-2000)}`);
      const hb = JSON.parse(line) as { bytes: number; ms: number; startRss: number; peakRss: number };
      hostDashboard = JSON.parse(/BENCH_DASHBOARD (\{.*\})/.exec(host.stdout)?.[1] ?? 'null') as typeof hostDashboard;
      row(`host: upload ${UPLOAD_MB} MB via the command`, `${fmt(mb(hb.bytes) / (hb.ms / 1000))} MB/s, peak RSS ${fmt(mb(hb.peakRss), 0)} MB`, 'host RSS before the upload', `${fmt(mb(hb.startRss), 0)} MB`, hb.peakRss / hb.startRss, `(${fmt(hb.ms / 1000)} s)`);

      console.log(`\nin the extension host: svc.uploadTrajectories of the ${fmt(mb(rssJson.bytes), 0)} MB .json file`);
      const hostJson = spawnSync(
        process.execPath,
        ['scripts/host/run-tests.js', '--no-build', '--entry', 'out/test/host/bench.js', '--env', `SVC_BENCH_URL=${url}`, '--env', `SVC_BENCH_FILE=${bigJson}`, '--env', `SVC_BENCH_KEY=${BENCH_KEY}`],
        { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
      );
      const jline = /BENCH (\{.*\})/.exec(hostJson.stdout)?.[1];
      if (!jline) throw new Error(`host .json bench failed (exit ${hostJson.status}):\n${hostJson.stdout.slice(-3000)}\n${hostJson.stderr.slice(-2000)}`);
      const hj = JSON.parse(jline) as { bytes: number; ms: number; startRss: number; peakRss: number };
      row(
        `host: upload a ${fmt(mb(hj.bytes), 0)} MB .json via the command`,
        `peak RSS ${fmt(mb(hj.peakRss), 0)} MB (${fmt(mb(hj.peakRss - hj.startRss), 0)} MB over idle; goal ≤ 250)`,
        'host RSS before the upload',
        `${fmt(mb(hj.startRss), 0)} MB`,
        hj.peakRss / hj.startRss,
        `(${fmt(mb(hj.bytes) / (hj.ms / 1000))} MB/s in ${fmt(hj.ms / 1000)} s)`,
      );
    }
    row(`peak RSS, ${fmt(mb(rssJson.bytes), 0)} MB .json file (streamed)`, `${fmt(mb(rssJson.peakRss), 0)} MB`, 'RSS before the upload', `${fmt(mb(rssJson.startRss), 0)} MB`, rssJson.peakRss / rssJson.startRss, `(${rssJson.status} in ${fmt(rssJson.totalMs / 1000)} s: ${fmt(mb(rssJson.bytes) / (rssJson.totalMs / 1000))} MB/s)`);
    row(`peak RSS, ${fmt(mb(rss.bytes), 0)} MB file`, `${fmt(mb(rss.peakRss), 0)} MB`, 'RSS before the upload', `${fmt(mb(rss.startRss), 0)} MB`, rss.peakRss / rss.startRss, `(${rss.status} in ${fmt(rss.totalMs / 1000)} s: ${fmt(mb(rss.bytes) / (rss.totalMs / 1000))} MB/s)`);

    await freshAgent();
    // 3. Call import.
    console.log(`\ncall import (${CALLS.toLocaleString('en-US')} calls)`);
    const items = callItems(CALLS) as CallBatchItem[];
    const imp = await measure(url, async () => {
      const res = await client.calls.upsertBatch(items);
      if (res.length !== items.length) throw new Error('misaligned');
    });
    // Baseline: the same batches, serialized before the clock starts.
    const bodies: string[] = [];
    {
      let cur: string[] = [];
      let size = 12;
      for (const it of items) {
        const s = JSON.stringify(it);
        if (cur.length && size + s.length + 1 > 10 * 1024 * 1024) {
          bodies.push(`{"batch":[${cur.join(',')}]}`);
          cur = [];
          size = 12;
        }
        cur.push(s);
        size += s.length + 1;
      }
      if (cur.length) bodies.push(`{"batch":[${cur.join(',')}]}`);
    }
    const rawImp = await measure(url, async () => {
      for (const b of bodies) {
        const r2 = await request(`${url}/call/upsert_batch`, { method: 'POST', headers: { authorization: basic, 'content-type': 'application/json' }, body: b });
        await r2.body.dump();
      }
    });
    const cps = (ms: number) => `${fmt(CALLS / (ms / 1000), 0)} calls/s`;
    row(`import ${CALLS.toLocaleString('en-US')} calls`, cps(imp.ms), `raw POSTs of ${bodies.length} pre-serialized batches`, cps(rawImp.ms), imp.ms / rawImp.ms, `(sink CPU ${fmt(imp.sinkMs, 0)} of ${fmt(imp.ms, 0)} ms)`);

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
    const ckRuns: { ms: number; sinkMs: number }[] = [];
    const rawCkRuns: { ms: number; sinkMs: number }[] = [];
    for (let i = 0; i < 5; i++) {
      ckRuns.push(await ckRun());
      rawCkRuns.push(await rawCkRun());
    }
    const ck = mid(ckRuns);
    const rawCk = mid(rawCkRuns);
    row('iterate 10 000 checkpoints (checkpointPages)', `${fmt(ck.ms, 0)} ms`, 'raw sequential GETs + JSON.parse', `${fmt(rawCk.ms, 0)} ms`, ck.ms / rawCk.ms, `(median of 5 alternating; client ${spread(ckRuns)}, raw ${spread(rawCkRuns)}; lower is better)`);
    if (hostDashboard) {
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
        `${fmt(hostDashboard.openMs, 0)} ms (last page fetched at ${fmt(hostDashboard.fetchedMs, 0)} ms; drawn ${fmt(hostDashboard.drawMs, 0)} ms after it reached the page)`,
        'raw sequential GETs of the same pages',
        `${fmt(raw30.ms, 0)} ms`,
        hostDashboard.openMs / raw30.ms,
        `(the same pages through ModelsApi alone in the host: ${fmt(hostDashboard.clientMs, 0)} ms; code-server 1.100.3, webview in headless Chromium)`,
      );
    }
  } finally {
    await client.close();
    await agent.close();
    child.kill('SIGTERM');
  }

  // 5. The extension: bundle size, activation time in the host.
  console.log('\nthe extension');
  spawnSync(process.execPath, ['esbuild.js', '--production'], { cwd: root, stdio: 'ignore' });
  const bundle = fs.readFileSync(path.join(root, 'dist', 'extension.js'));
  const gz = zlib.gzipSync(bundle, { level: 9 }).length;
  row('bundle dist/extension.js', `${fmt(bundle.length / 1024, 0)} KiB (${fmt(gz / 1024, 0)} KiB gzip)`, 'undici alone, bundled', `${fmt(undiciSize() / 1024, 0)} KiB`, bundle.length / undiciSize());
  // 6. The training dashboard's webview (needs the production bundle just built).
  const render = await benchRender();
  console.log(`\nthe training dashboard (${render.n.toLocaleString('en-US')} checkpoints × ${render.m} metrics, headless Chromium)`);
  row(
    `dashboard: draw ${render.n.toLocaleString('en-US')} × ${render.m} after the data is in`,
    `${fmt(render.renderMs, 0)} ms`,
    `bare uPlot, the same ${render.m} series`,
    `${fmt(render.baselineMs, 0)} ms`,
    render.renderMs / render.baselineMs,
    `(median of ${render.runs.render.length}: ${render.runs.render.map((v) => fmt(v, 0)).join(', ')} ms; one checkpoint more from a poll: ${fmt(render.appendMs, 0)} ms)`,
  );
  row(
    'webview dist/webview/dashboard.js + .css',
    `${fmt(render.bundleBytes / 1024, 0)} KiB + ${fmt(render.cssBytes / 1024, 0)} KiB (${fmt(render.bundleGzip / 1024, 0)} KiB gzip)`,
    'uPlot alone, bundled and minified',
    `${fmt(render.uplotBytes / 1024, 0)} KiB`,
    render.bundleBytes / render.uplotBytes,
  );
  if (!process.argv.includes('--no-host')) {
    const host = spawnSync(process.execPath, ['scripts/host/run-tests.js', '--grep', 'activates without'], { cwd: root, encoding: 'utf8', maxBuffer: 16 << 20 });
    const inside = /activation took ([\d.]+) ms/.exec(host.stdout);
    const wall = /activation wall ([\d.]+) ms \(baseline (\S+) ([\d.]+) ms\)/.exec(host.stdout);
    if (inside && wall) {
      row('activation in the host: ext.activate(), wall', `${wall[1]} ms (${inside[1]} ms inside activate())`, `built-in ${wall[2]} activate(), wall`, `${wall[3]} ms`, Number(wall[1]) / Number(wall[3]), '(code-server 1.100.3)');
    } else console.log(`  activation: not measured (host run exit ${host.status})`);
  }
  if (!process.argv.includes('--no-host')) {
    console.log(`\nthe trajectory viewer on the ${UPLOAD_MB} MB file`);
    for (const v of viewerBench(UPLOAD_MB)) row(v.what, v.value, v.baselineName, v.baseline, v.ratio, v.note);
  }
  console.log('\n| measure | value | baseline | baseline value | ratio | notes |\n|---|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
}

function undiciSize(): number {
  const out = esbuild.buildSync({ stdin: { contents: "module.exports = require('undici')", resolveDir: root }, bundle: true, platform: 'node', target: 'node20', minify: true, write: false, format: 'cjs', mainFields: ['module', 'main'] });
  return out.outputFiles[0]!.contents.length;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
