// `npm run bench` only (not a test suite): uploads a trajectory file through the real
// svc.uploadTrajectories command inside the extension host, sampling the host's RSS, and prints
// one `BENCH {json}` line. The service is the bench's sink (SVC_BENCH_URL), in another process.
import * as vscode from 'vscode';
import type { SvcExtensionApi } from '../../src/extension';
import type { UploadReport } from '../../src/trajectories/commands';

export async function run(): Promise<void> {
  const url = process.env.SVC_BENCH_URL!;
  const file = process.env.SVC_BENCH_FILE!;
  const key = process.env.SVC_BENCH_KEY!;
  const ext = vscode.extensions.getExtension<SvcExtensionApi>('svc.svc-vscode')!;
  const api = (await ext.activate())!;
  await vscode.workspace.getConfiguration('svc').update('baseUrl', url, vscode.ConfigurationTarget.Global);
  for (let i = 0; i < 100 && api.connection.config.baseUrl !== url; i++) await new Promise((r) => setTimeout(r, 20));
  await vscode.commands.executeCommand('svc.signIn', { apiKey: key });
  (globalThis as { gc?: () => void }).gc?.();
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  const timer = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const t0 = performance.now();
  const report = await vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', vscode.Uri.file(file), [vscode.Uri.file(file)], {
    modelId: 'bench',
    split: 'train',
  });
  const ms = performance.now() - t0;
  clearInterval(timer);
  // The OS's peak (getrusage maxrss) also covers synchronous stretches the timer cannot sample;
  // it is the process's lifetime peak, so it only counts when above what the timer saw.
  peakRss = Math.max(peakRss, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  const bytes = (await vscode.workspace.fs.stat(vscode.Uri.file(file))).size;
  console.log(`BENCH ${JSON.stringify({ status: report.status, bytes, ms, startRss, peakRss, activationMs: api.activationMs })}`);
  if (report.status !== 'done') throw new Error(`upload ${report.status}`);
}
