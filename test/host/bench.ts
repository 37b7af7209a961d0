// `npm run bench` only (not a test suite): uploads a trajectory file through the real
// svc.uploadTrajectories command inside the extension host, sampling the host's RSS, and prints
// one `BENCH {json}` line; then opens the training dashboard of the sink's `bench30` model
// (10,000 checkpoints × 30 metrics) and prints `BENCH_DASHBOARD {json}` once the webview has drawn
// them all. The service is the bench's sink (SVC_BENCH_URL), in another process.
import * as vscode from 'vscode';
import type { SvcExtensionApi } from '../../src/extension';
import type { UploadReport } from '../../src/trajectories/commands';
import { DEFAULT_UI } from '../../src/dashboard/core/protocol';
import type { RenderedMessage } from '../../src/dashboard/panel';
import { METRICS30 } from '../../scripts/bench/keys';

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

  // The same pages through the client alone, in this host: what the dashboard adds on top.
  const t0c = performance.now();
  for (let after: string | undefined; ; ) {
    const page = await api.connection.client!.models.listCheckpoints('bench30', { after, limit: 100, order: 'asc' });
    if (!page.has_more) break;
    after = page.last_id;
  }
  const clientMs = performance.now() - t0c;
  await vscode.workspace.getConfiguration('svc').update('checkpoints.pollSeconds', 0, vscode.ConfigurationTarget.Global);
  await api.dashboards.saveUiState('bench30', { ...DEFAULT_UI, metrics: METRICS30 });
  const t1 = performance.now();
  await vscode.commands.executeCommand('svc.dashboard.open', { modelId: 'bench30' });
  const panel = api.dashboards.panel('bench30')!;
  let fetchedMs = 0;
  const fetched = panel.sync.onDidAppend((e) => e.done && (fetchedMs = performance.now() - t1));
  const drawn = await new Promise<RenderedMessage>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the dashboard did not draw 10,000 × 30 within 120 s (last: ${JSON.stringify(panel.lastRendered)})`)), 120_000);
    const sub = panel.onDidRender((m) => {
      if (m.count < 10_000 || m.charts < 30) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(m);
    });
  });
  const openMs = performance.now() - t1;
  fetched.dispose();
  console.log(`BENCH_DASHBOARD ${JSON.stringify({ openMs, fetchedMs, clientMs, drawMs: drawn.ms, count: drawn.count, charts: drawn.charts, requests: panel.sync.requests })}`);
}
