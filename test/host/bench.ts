// `npm run bench` only (not a test suite): uploads a trajectory file through the real
// svc.uploadTrajectories command inside the extension host, sampling the host's RSS, and prints
// one `BENCH {json}` line; then opens the training dashboard of the sink's `bench30` model
// (10,000 checkpoints × 30 metrics) and prints `BENCH_DASHBOARD {json}` once the webview has drawn
// them all, and the dashboard of a 10,000-line history.jsonl (`BENCH_HISTORY {json}`). The service is the bench's sink (SVC_BENCH_URL), in another process.
import * as vscode from 'vscode';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { BootApi } from '../../src/boot/main';
import type { SvcExtensionApi } from '../../src/extension';
import type { UploadReport } from '../../src/trajectories/report';
import { DEFAULT_UI } from '../../src/dashboard/shared/protocol';
import type { RenderedMessage } from '../../src/dashboard/panel';
import type { CheckpointSync } from '../../src/dashboard/sync';
import { METRICS30 } from '../../scripts/bench/keys';
import { benchHistory } from './bench-history';
import { benchHost, startCpuProfile } from './bench-setup';

export async function run(): Promise<void> {
  const { boot, api, url, file, key } = await benchHost();
  // SVC_BENCH_ONLY=threads-view: that figure alone (scripts/bench/threads-view.ts).
  if (process.env.SVC_BENCH_ONLY === 'threads-view') return threadsView(api, url, key);
  // SVC_BENCH_ONLY=dashboard: the dashboard figures alone (no upload, no Threads view), for work
  // on the dashboard; SVC_BENCH_PROFILE=<dir> also writes a CPU profile of this host per open.
  const only = process.env.SVC_BENCH_ONLY === 'dashboard';
  if (!only) await benchUpload(boot, api, file);
  await benchDashboard(api);
  if (only) return;

  await threadsView(api, url, key);
}

async function benchUpload(boot: BootApi, api: SvcExtensionApi, file: string): Promise<void> {
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
  console.log(`BENCH ${JSON.stringify({ status: report.status, bytes, ms, startRss, peakRss, activationMs: boot.activationMs, composeMs: api.composeMs })}`);
  if (report.status !== 'done') throw new Error(`upload ${report.status}`);

}

async function benchDashboard(api: SvcExtensionApi): Promise<void> {
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
  const stopProfile = await startProfile('dashboard');
  const t1 = performance.now();
  await vscode.commands.executeCommand('svc.dashboard.open', { modelId: 'bench30' });
  const panel = api.dashboards.panel('bench30')!;
  let fetchedMs = 0;
  const fetched = panel.sync.onDidAppend((e) => e.done && (fetchedMs = performance.now() - t1));
  // When the webview said `ready` (it loaded its script) and when it first painted anything: the
  // parts of the open that are the webview's own start, not the data.
  let readyMs = 0;
  let firstPaintMs = 0;
  const readySub = panel.panel.webview.onDidReceiveMessage((m: { type?: string }) => m?.type === 'ready' && !readyMs && (readyMs = performance.now() - t1));
  const firstPaint = panel.onDidRender(() => firstPaintMs || (firstPaintMs = performance.now() - t1));
  // Every stage's time since the command: pages merged (rows so far), paints (rows drawn).
  const stages: string[] = [];
  const stageSubs = [
    panel.panel.webview.onDidReceiveMessage((m: { type?: string }) => m?.type === 'ready' && stages.push(`ready ${(performance.now() - t1).toFixed(0)}`)),
    panel.sync.onDidAppend(() => stages.push(`page ${panel.sync.series.length} ${(performance.now() - t1).toFixed(0)}`)),
    panel.onDidRender((m) => stages.push(`paint ${m.count}×${m.charts} ${(performance.now() - t1).toFixed(0)} (${m.ms.toFixed(0)})`)),
  ];
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
  await stopProfile();
  for (const d of stageSubs) d.dispose();
  if (process.env.SVC_BENCH_PROFILE) console.log(`BENCH_STAGES ${stages.join('; ')}`);
  fetched.dispose();
  readySub.dispose();
  firstPaint.dispose();
  console.log(`BENCH_DASHBOARD ${JSON.stringify({ openMs, fetchedMs, readyMs, firstPaintMs, clientMs, drawMs: drawn.ms, count: drawn.count, charts: drawn.charts, requests: (panel.sync as CheckpointSync).requests })}`);
  console.log(`BENCH_HISTORY ${JSON.stringify(await benchHistory(api, startProfile))}`);
}

/** Starts a CPU profile of this host when $SVC_BENCH_PROFILE is set; the function returned writes it there as <name>.cpuprofile. */
async function startProfile(name: string): Promise<() => Promise<void>> {
  const dir = process.env.SVC_BENCH_PROFILE;
  if (!dir) return async () => undefined;
  const stop = await startCpuProfile(200);
  return async () => {
    const profile = await stop();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
  };
}

/**
 * First thread rows after opening the Threads view on a project of 100,000 threads, against the
 * time to the first byte of the same request (the view's first page) sent raw from this host.
 * Runs alternate (raw first byte, then the view), THREADS_VIEW_RUNS times: the figure is the median
 * of the per-run differences, printed with every run, since one run on a loaded machine says little.
 */
const THREADS_VIEW_RUNS = Number(process.env.SVC_BENCH_THREADS_RUNS) || 11;

async function threadsView(api: SvcExtensionApi, url: string, key: string): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  await vscode.workspace.getConfiguration('svc').update('project', 'bench/threads', vscode.ConfigurationTarget.Global);
  for (let i = 0; i < 100 && api.threads.project !== 'bench/threads'; i++) await new Promise((r) => setTimeout(r, 20));
  const pageSize = api.connection.config.threadsPageSize;
  const firstRows: number[] = [];
  const firstBytes: number[] = [];
  // Where each open's time goes: when the model asked the client for the page, and when the
  // client had given all of its rows (both from the open, like firstRows).
  const queryAt: number[] = [];
  const pageAt: number[] = [];
  const threads = api.connection.client!.threads;
  const query = threads.query.bind(threads);
  let opened = 0;
  threads.query = (input, options) => {
    queryAt.push(performance.now() - opened);
    const rows = query(input, options);
    return (async function* () {
      yield* rows;
      pageAt.push(performance.now() - opened);
    })();
  };
  try {
    for (let run = 0; run < THREADS_VIEW_RUNS; run++) {
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      api.threads.reset();
      firstBytes.push(await firstByteMs(url, key, JSON.stringify({ project_id: 'bench/threads', sort_by: [{ field: 'last_updated', direction: 'desc' }], limit: pageSize + 1, offset: 0 })));
      opened = performance.now();
      firstRows.push(await firstRowsMs(api));
    }
  } finally {
    threads.query = query;
  }
  console.log(`BENCH_THREADS_VIEW ${JSON.stringify({ firstRows, firstBytes, pageSize, childrenAt, queryAt, pageAt })}`);
}

/** Per open: when VS Code first asked the tree for its root (ms from the open). */
const childrenAt: number[] = [];
let firstRowsRuns = 0;

/** Milliseconds from opening the Threads view to the tree returning its first thread rows. */
async function firstRowsMs(api: SvcExtensionApi): Promise<number> {
  firstRowsRuns++;
  const provider = api.threadsProvider as unknown as { getChildren(node?: unknown): Promise<{ kind: string }[]> };
  const original = provider.getChildren.bind(provider);
  const t0 = performance.now();
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no thread rows within 30 s')), 30_000);
      provider.getChildren = async (node?: unknown) => {
        if (!node && childrenAt.length < firstRowsRuns + 1) childrenAt.push(performance.now() - t0);
        const nodes = await original.call(provider, node);
        if (!node && nodes.some((n) => n.kind === 'thread')) {
          clearTimeout(timer);
          resolve(performance.now() - t0);
        }
        return nodes;
      };
      vscode.commands.executeCommand('svc.threads.focus').then(undefined, reject);
    });
  } finally {
    provider.getChildren = original;
  }
}

/** Milliseconds to the first byte of a threads query sent raw (node:http) from this process. */
function firstByteMs(url: string, key: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.request(`${url}/threads/stream_query`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}`, 'content-type': 'application/json' } }, (res) => {
      res.once('data', () => resolve(performance.now() - t0));
      res.on('error', reject);
      res.resume();
    });
    req.on('error', reject);
    req.end(body);
  });
}
