// `npm run bench` only (called by test/host/bench.ts): the training dashboard of a run's
// history.jsonl of 10,000 lines (5,000 steps, each a train line and a val line as ART writes
// them, 30 metrics in all), from the command until the webview has drawn every step on 30 charts,
// against JSON.parse of the same lines in the same host.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SvcExtensionApi } from '../../src/extension';
import { DEFAULT_UI } from '../../src/dashboard/shared/protocol';
import type { RenderedMessage } from '../../src/dashboard/panel';
import { METRICS30 } from '../../scripts/bench/keys';

const { pyLine } = require('../../scripts/demo-art-history.js') as { pyLine: (metrics: Record<string, number>, step: number, recordedAt: string) => string };

export interface HistoryFigures {
  lines: number;
  bytes: number;
  steps: number;
  charts: number;
  /** From the command to the webview's report of every step drawn. */
  openMs: number;
  /** The webview's own draw, from the last data message to the painted frame. */
  drawMs: number;
  /** From the command until it returned: the file read into rows, the panel created. */
  readMs: number;
  /** Reading the file and JSON.parse of every line, in this host (the baseline). */
  parseMs: number;
}

const STEPS = 5000;

function lines(): string[] {
  const out: string[] = [];
  const train = METRICS30.filter((m) => !m.startsWith('val/'));
  const val = METRICS30.filter((m) => m.startsWith('val/'));
  const at = (s: number) => new Date(Date.UTC(2026, 10, 1) + s * 30_000).toISOString().slice(0, 19) + '.123456';
  for (let step = 1; step <= STEPS; step++) {
    out.push(pyLine(Object.fromEntries(train.map((m, k) => [m, Math.sin(step / 100 + k) + k / 10])), step, at(step)));
    out.push(pyLine(Object.fromEntries(val.map((m, k) => [m, Math.cos(step / 100 + k)])), step, at(step)));
  }
  return out;
}

export async function benchHistory(api: SvcExtensionApi, startProfile: (name: string) => Promise<() => Promise<void>> = async () => async () => undefined): Promise<HistoryFigures> {
  const file = path.join(os.tmpdir(), `svc-bench-history-${process.pid}`, 'history.jsonl');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const all = lines();
  fs.writeFileSync(file, all.join('\n') + '\n');
  try {
    const parseRuns: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      let n = 0;
      for (const l of fs.readFileSync(file, 'utf8').split('\n')) if (l) n += Object.keys(JSON.parse(l) as object).length;
      parseRuns.push(performance.now() - t);
      if (n === 0) throw new Error('nothing parsed');
    }
    await api.dashboards.saveUiState(`file:${file}`, { ...DEFAULT_UI, metrics: METRICS30 });
    const stopProfile = await startProfile('history');
    const t0 = performance.now();
    const key = await vscode.commands.executeCommand<string>('svc.dashboard.open', { file });
    const readMs = performance.now() - t0;
    const panel = api.dashboards.panel(key)!;
    // Every stage's time since the command (printed with SVC_BENCH_PROFILE): ready, paints (rows drawn).
    const stages: string[] = [`command ${readMs.toFixed(0)}`];
    const at = () => (performance.now() - t0).toFixed(0);
    const stageSubs = [
      panel.panel.webview.onDidReceiveMessage((m: { type?: string }) => m?.type === 'ready' && stages.push(`ready ${at()}`)),
      panel.onDidRender((m) => stages.push(`paint ${m.count}×${m.charts} ${at()} (${m.ms.toFixed(0)})`)),
    ];
    const drawn = await new Promise<RenderedMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the history dashboard did not draw ${STEPS} × 30 within 120 s (last: ${JSON.stringify(panel.lastRendered)})`)), 120_000);
      const done = (m: RenderedMessage | undefined) => {
        if (!m || m.count < STEPS || m.charts < 30) return false;
        clearTimeout(timer);
        resolve(m);
        return true;
      };
      if (done(panel.lastRendered)) return;
      const sub = panel.onDidRender((m) => done(m) && sub.dispose());
    });
    const openMs = performance.now() - t0;
    await stopProfile();
    for (const d of stageSubs) d.dispose();
    if (process.env.SVC_BENCH_PROFILE) console.log(`BENCH_HISTORY_STAGES ${stages.join('; ')}`);
    panel.panel.dispose();
    return { lines: all.length, bytes: fs.statSync(file).size, steps: drawn.count, charts: drawn.charts, openMs, readMs, drawMs: drawn.ms, parseMs: [...parseRuns].sort((a, b) => a - b)[1]! };
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}
