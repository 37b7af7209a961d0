// `npm run bench` only (not a test suite; scripts/bench/distribution.ts runs it): opens the
// dashboard of each run folder in SVC_BENCH_DIST_RUNS (comma-separated model folders, each with a
// history.jsonl and trajectories/train/<step>.parquet) and measures the time from the command until
// the webview reports the reward distribution's heat map drawn with every step of the split read
// (`distributionRendered` with `done`). Then the same dashboard opened again in the same window,
// every step from the step numbers cache, and the extension side's read alone in the same host (the
// feed over a fresh cache, no webview). Prints one `BENCH_DISTRIBUTION {json}` line.
import * as vscode from 'vscode';
import type { Exports } from '../../src/boot/main';
import type { SvcExtensionApi } from '../../src/extension';
import type { DistributionRendered } from '../../src/dashboard/panel';
import { DistributionFeed } from '../../src/dashboard/distributionFeed';
import { StepStatsCache } from '../../src/dashboard/stepStats';

/** What the bench reports per run (scripts/bench/distribution.ts reads it). */
export interface DistributionFigures {
  dir: string;
  /** Steps drawn in the train split. */
  steps: number;
  /** From the command to the webview's report of every step drawn. */
  drawnMs: number;
  /** From the command to the webview's first report of a step drawn. */
  firstMs: number;
  /** From the command until it returned (the history read, the panel created). */
  commandMs: number;
  /** From the command until the extension posted the split's last distribution message, and the messages posted. */
  fedMs: number;
  messages: number;
  /** The same dashboard closed and opened again: every step from the cache. */
  againMs: number;
  /** The extension side alone in this host: every step file's small columns read and the messages built (a fresh cache, no webview). */
  readMs: number;
  startRss: number;
  peakRss: number;
}

async function openUntilDrawn(api: SvcExtensionApi, dir: string): Promise<{ drawnMs: number; firstMs: number; commandMs: number; fedMs: number; messages: number; steps: number }> {
  const t0 = performance.now();
  const key = await vscode.commands.executeCommand<string>('svc.dashboard.open', { file: `${dir}/history.jsonl` });
  const commandMs = performance.now() - t0;
  const panel = api.dashboards.panel(key)!;
  // When the extension posted the split's last distribution message (the feed done), and how many it posted.
  let fedMs = 0;
  let messages = 0;
  const webview = panel.panel.webview;
  const postMessage = webview.postMessage.bind(webview);
  webview.postMessage = (m: { type?: string; done?: boolean; split?: string }) => {
    if (m?.type === 'distribution') {
      messages++;
      if (m.done && m.split === 'train') fedMs = performance.now() - t0;
    }
    return postMessage(m);
  };
  let firstMs = 0;
  const drawn = await new Promise<DistributionRendered['splits'][number]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the distribution of ${dir} was not drawn within 300 s (last: ${JSON.stringify(panel.lastDistribution?.splits.map((s) => ({ split: s.split, steps: s.steps.length, done: s.done })))})`)), 300_000);
    const done = (m: DistributionRendered | undefined) => {
      const train = m?.splits.find((s) => s.split === 'train');
      if (train?.steps.length && !firstMs) firstMs = performance.now() - t0;
      if (!train?.done) return false;
      clearTimeout(timer);
      resolve(train);
      return true;
    };
    if (done(panel.lastDistribution)) return;
    const sub = panel.onDidRenderDistribution((m) => done(m) && sub.dispose());
  });
  const drawnMs = performance.now() - t0;
  if (drawn.errors) throw new Error(`${drawn.errors} step files of ${dir} could not be read`);
  panel.panel.dispose();
  // Let the closed webview go before the next one is measured.
  await new Promise((r) => setTimeout(r, 1000));
  return { drawnMs, firstMs, commandMs, fedMs, messages, steps: drawn.steps.length };
}

async function measure(api: SvcExtensionApi, dir: string): Promise<DistributionFigures> {
  (globalThis as { gc?: () => void }).gc?.();
  const startRss = process.memoryUsage().rss;
  let peakRss = startRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  try {
    const first = await openUntilDrawn(api, dir);
    clearInterval(sampler);
    const again = await openUntilDrawn(api, dir);
    if (again.steps !== first.steps) throw new Error(`${dir}: ${first.steps} steps drawn, then ${again.steps}`);
    const t0 = performance.now();
    let read = 0;
    await new DistributionFeed(dir, new StepStatsCache(), (m) => (read += m.split === 'train' ? m.steps.length : 0)).start();
    const readMs = performance.now() - t0;
    if (read !== first.steps) throw new Error(`${dir}: ${first.steps} steps drawn, ${read} read by the feed alone`);
    return { dir, steps: first.steps, drawnMs: first.drawnMs, firstMs: first.firstMs, commandMs: first.commandMs, fedMs: first.fedMs, messages: first.messages, againMs: again.drawnMs, readMs, startRss, peakRss };
  } finally {
    clearInterval(sampler);
  }
}

/** SVC_BENCH_DIST_MODE=read: the feed alone over a fresh cache, first thing in a fresh window (no dashboard). */
async function readAlone(dir: string): Promise<{ dir: string; readMs: number; steps: number }> {
  const t0 = performance.now();
  let steps = 0;
  await new DistributionFeed(dir, new StepStatsCache(), (m) => (steps += m.split === 'train' ? m.steps.length : 0)).start();
  return { dir, readMs: performance.now() - t0, steps };
}

export async function run(): Promise<void> {
  const ext = vscode.extensions.getExtension<Exports>('svc.svc-vscode')!;
  const api = await (await ext.activate()).getTestApi!().core();
  if (process.env.SVC_BENCH_DIST_MODE === 'read') {
    const reads = [];
    for (const dir of (process.env.SVC_BENCH_DIST_RUNS ?? '').split(',').filter(Boolean)) reads.push(await readAlone(dir));
    console.log(`BENCH_DISTRIBUTION_READ ${JSON.stringify(reads)}`);
    return;
  }
  const out: DistributionFigures[] = [];
  for (const dir of (process.env.SVC_BENCH_DIST_RUNS ?? '').split(',').filter(Boolean)) out.push(await measure(api, dir));
  console.log(`BENCH_DISTRIBUTION ${JSON.stringify(out)}`);
}
