// `npm run bench` only (not a test suite): the upload through the svc.uploadTrajectories command in
// the extension host, against the upload job alone (src/trajectories/job.ts: validate, guard, send;
// what the command, the API, the agents' tools and the bench's client figure all run) in the same
// host, alternately, SVC_BENCH_RUNS times each (default 3): the ratio is what the command adds
// (progress, Problems entries, the record of what was sent) on the same CPUs and the same event
// loop. Prints one `BENCH_UPLOAD {json}` line. The service is the bench's sink (SVC_BENCH_URL).
//   SVC_BENCH_PROFILE=<file.cpuprofile>  also a CPU profile of this host during one command upload
//   SVC_BENCH_RSS=1                      one command upload only, sampling the host's RSS
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { benchHost, startCpuProfile } from './bench-setup';
import { uploadFiles } from '../../src/trajectories/job';
import type { UploadReport } from '../../src/trajectories/report';

export async function run(): Promise<void> {
  const runs = Number(process.env.SVC_BENCH_RUNS) || 3;
  const { api, file } = await benchHost();
  const bytes = fs.statSync(file).size;

  const command = async (): Promise<number> => {
    const t0 = performance.now();
    const report = await vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', { files: [file], modelId: 'bench', split: 'train', allowRepeat: true });
    if (report.status !== 'done') throw new Error(`upload ${report.status}`);
    return performance.now() - t0;
  };
  const clientPath = async (): Promise<number> => {
    const t0 = performance.now();
    const { report } = await uploadFiles([file], { modelId: 'bench', split: 'train', client: () => api.connection.client });
    if (report.status !== 'done') throw new Error(`job upload ${report.status}`);
    return performance.now() - t0;
  };

  if (process.env.SVC_BENCH_RSS) {
    (globalThis as { gc?: () => void }).gc?.();
    const startRss = process.memoryUsage().rss;
    let peakRss = startRss;
    const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    const ms = await command();
    clearInterval(timer);
    peakRss = Math.max(peakRss, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
    console.log(`BENCH_UPLOAD ${JSON.stringify({ bytes, command: [ms], client: [], startRss, peakRss })}`);
    return;
  }

  const profile = process.env.SVC_BENCH_PROFILE;
  if (profile) {
    const stop = await startCpuProfile(500);
    await command();
    fs.writeFileSync(profile, JSON.stringify(await stop()));
  }
  const cmd: number[] = [];
  const cli: number[] = [];
  for (let i = 0; i < runs; i++) {
    cmd.push(await command());
    cli.push(await clientPath());
  }
  console.log(`BENCH_UPLOAD ${JSON.stringify({ bytes, command: cmd, client: cli })}`);
}
