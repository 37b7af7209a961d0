// The upload figures of `npm run bench` that run in the extension host, and a way to run them
// alone while working on the upload:
//
//   tsx scripts/bench/upload.ts [--mb 200 | --file <path>] [--runs 3] [--profile <file.cpuprofile>] [--rss] [--no-build]
//
// starts the sink (scripts/bench/sink.ts), uploads the JSONL bench file through the command and
// through the client path in one extension host, alternately (test/host/bench-upload.ts), and
// prints the medians, min and max, and the ratio. --rss: one command upload, the host's peak RSS.
import { spawn, spawnSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { trajectoryFile } from './data';
import { BENCH_KEY } from './keys';

const root = path.resolve(__dirname, '..', '..');

export interface HostUpload {
  bytes: number;
  /** Milliseconds of each command upload, and of each client-path upload in the same host. */
  command: number[];
  client: number[];
  startRss?: number;
  peakRss?: number;
}

/** One extension host running test/host/bench-upload.ts against the sink at `url`. */
export function hostUpload(url: string, file: string, opts: { runs?: number; profile?: string; rss?: boolean; build?: boolean } = {}): HostUpload {
  const env = ['--env', `SVC_BENCH_URL=${url}`, '--env', `SVC_BENCH_FILE=${file}`, '--env', `SVC_BENCH_KEY=${BENCH_KEY}`, '--env', `SVC_BENCH_RUNS=${opts.runs ?? 3}`];
  if (opts.profile) env.push('--env', `SVC_BENCH_PROFILE=${opts.profile}`);
  if (opts.rss) env.push('--env', 'SVC_BENCH_RSS=1');
  const out = spawnSync(process.execPath, ['scripts/host/run-tests.js', ...(opts.build === false ? ['--no-build'] : []), '--entry', 'out/test/host/bench-upload.js', ...env], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const line = /BENCH_UPLOAD (\{.*\})/.exec(out.stdout)?.[1];
  if (!line) throw new Error(`host upload bench failed (exit ${out.status}):\n${out.stdout.slice(-3000)}\n${out.stderr.slice(-2000)}`);
  return JSON.parse(line) as HostUpload;
}

export const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;

async function main() {
  const arg = (name: string) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const file = arg('file') ?? trajectoryFile(Number(arg('mb') ?? 200));
  const sink = spawn(path.join(root, 'node_modules/.bin/tsx'), ['scripts/bench/sink.ts', '--threads', '10', '--checkpoints', '10'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      sink.stdout!.on('data', (d) => {
        const m = /listening on (\S+)/.exec(String(d));
        if (m) resolve(m[1]!);
      });
      sink.on('exit', (c) => reject(new Error(`sink exited ${c}`)));
    });
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the start`);
    const rss = process.argv.includes('--rss');
    const r = hostUpload(url, file, { runs: Number(arg('runs') ?? 3), profile: arg('profile') && path.resolve(arg('profile')!), rss, build: !process.argv.includes('--no-build') });
    if (rss) {
      console.log(`command: ${r.command[0]!.toFixed(0)} ms; peak RSS ${(r.peakRss! / 2 ** 20).toFixed(0)} MiB, ${((r.peakRss! - r.startRss!) / 2 ** 20).toFixed(0)} MiB over idle`);
      return;
    }
    const mibs = (ms: number) => (r.bytes / 2 ** 20 / (ms / 1000)).toFixed(1);
    console.log(`command: ${r.command.map((v) => v.toFixed(0)).join(', ')} ms; client path in the same host: ${r.client.map((v) => v.toFixed(0)).join(', ')} ms`);
    console.log(`medians ${mibs(median(r.command))} vs ${mibs(median(r.client))} MiB/s: ratio ${(median(r.command) / median(r.client)).toFixed(2)}× (min ${Math.min(...r.command).toFixed(0)}/${Math.min(...r.client).toFixed(0)}, max ${Math.max(...r.command).toFixed(0)}/${Math.max(...r.client).toFixed(0)} ms)`);
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`);
  } finally {
    sink.kill('SIGTERM');
  }
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
