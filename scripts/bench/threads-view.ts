// The "first thread rows after opening the Threads view" figure alone, in a real extension host:
//   npx tsx scripts/bench/threads-view.ts [runs]
// (npm run bench takes the same figure, after the host upload and dashboards.) The sink serves
// 100,000 threads; the host opens the view `runs` times (default 11), alternating with a raw
// request for the first byte of the same page, and this prints every run and the medians.
import { spawn, spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { BENCH_KEY } from './keys';

const root = path.resolve(__dirname, '..', '..');
const runs = Number(process.argv[2]) || 11;

async function main() {
  const sink = spawn(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/sink.ts', '--threads', '100000', '--checkpoints', '10'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      sink.stdout!.on('data', (d) => {
        out += d;
        const m = /listening on (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      sink.on('exit', (c) => reject(new Error(`sink exited ${c}`)));
    });
    const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
    const host = spawnSync(
      process.execPath,
      ['scripts/host/run-tests.js', '--entry', 'out/test/host/bench.js', '--env', `SVC_BENCH_URL=${url}`, '--env', `SVC_BENCH_KEY=${BENCH_KEY}`, '--env', 'SVC_BENCH_ONLY=threads-view', '--env', `SVC_BENCH_THREADS_RUNS=${runs}`],
      { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    const line = /BENCH_THREADS_VIEW (\{.*\})/.exec(host.stdout)?.[1];
    if (!line) throw new Error(`host run failed (exit ${host.status}):\n${host.stdout.slice(-3000)}\n${host.stderr.slice(-2000)}`);
    const tv = JSON.parse(line) as { firstRows: number[]; firstBytes: number[]; pageSize: number; childrenAt: number[]; queryAt: number[]; pageAt: number[] };
    const med = (v: number[]) => [...v].sort((x, y) => x - y)[Math.floor(v.length / 2)]!;
    const after = tv.firstRows.map((r, i) => r - tv.firstBytes[i]!);
    const r0 = (v: number[]) => v.map((x) => x.toFixed(0)).join(', ');
    console.log(`load average ${load} at the start; ${runs} runs, a ${tv.pageSize}-row page`);
    console.log(`first rows ${med(tv.firstRows).toFixed(0)} ms, ${med(after).toFixed(0)} ms after the first byte (median of the per-run differences; min ${Math.min(...after).toFixed(0)}, max ${Math.max(...after).toFixed(0)} ms); goal <= 100 ms after it`);
    console.log(`rows: ${r0(tv.firstRows)} ms\nfirst bytes: ${r0(tv.firstBytes)} ms\nafter: ${r0(after)} ms`);
    console.log(`VS Code asked the tree for its root at: ${r0(tv.childrenAt)} ms`);
    console.log(`the model asked the client at: ${r0(tv.queryAt)} ms\nthe client's page complete at: ${r0(tv.pageAt)} ms`);
  } finally {
    sink.kill('SIGTERM');
  }
}
main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
