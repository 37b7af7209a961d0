// `npm run bench` only (not a test suite): the upload through the svc.uploadTrajectories command in
// the extension host, against the upload job alone (src/trajectories/job.ts: validate, guard, send;
// what the command, the API, the agents' tools and the bench's client figure all run) in the same
// host, alternately, SVC_BENCH_RUNS times each (default 3): the ratio is what the command adds
// (progress, Problems entries, the record of what was sent) on the same CPUs and the same event
// loop. Prints one `BENCH_UPLOAD {json}` line. The service is the bench's sink (SVC_BENCH_URL).
//   SVC_BENCH_PROFILE=<file.cpuprofile>  also a CPU profile of this host during one command upload
//   SVC_BENCH_RSS=1                      one command upload only, sampling the host's RSS
import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import * as vscode from 'vscode';
import type { Exports } from '../../src/boot/main';
import { uploadFiles } from '../../src/trajectories/job';
import type { UploadReport } from '../../src/trajectories/report';

export async function run(): Promise<void> {
  const url = process.env.SVC_BENCH_URL!;
  const file = process.env.SVC_BENCH_FILE!;
  const key = process.env.SVC_BENCH_KEY!;
  const runs = Number(process.env.SVC_BENCH_RUNS) || 3;
  const ext = vscode.extensions.getExtension<Exports>('svc.svc-vscode')!;
  const boot = (await ext.activate()).getTestApi!();
  const api = await boot.core();
  await vscode.workspace.getConfiguration('svc').update('baseUrl', url, vscode.ConfigurationTarget.Global);
  for (let i = 0; i < 100 && api.connection.config.baseUrl !== url; i++) await new Promise((r) => setTimeout(r, 20));
  await vscode.commands.executeCommand('svc.signIn', { apiKey: key });
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
    const session = new inspector.Session();
    session.connect();
    const post = (method: string, params?: object) => new Promise<unknown>((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 500 });
    await post('Profiler.start');
    await command();
    const { profile: p } = (await post('Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(profile, JSON.stringify(p));
    session.disconnect();
  }
  const cmd: number[] = [];
  const cli: number[] = [];
  for (let i = 0; i < runs; i++) {
    cmd.push(await command());
    cli.push(await clientPath());
  }
  console.log(`BENCH_UPLOAD ${JSON.stringify({ bytes, command: cmd, client: cli })}`);
}
