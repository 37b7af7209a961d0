// `npm run bench` (and alone: `tsx scripts/bench/render.ts`): the training dashboard's
// render time for 10,000 checkpoints × 30 metrics, in headless Chromium (the engine of VS Code's
// webviews), against a baseline of the same run: bare uPlot drawing the same 30 series into
// charts of the same size. The page is the production bundle (dist/webview/dashboard.js) with a
// stand-in for the VS Code webview API; the data arrives as the extension sends it to a page
// that (re)loads: Float64Arrays of one buffer per message (chunks of 20,000 rows, the last one marked done).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as zlib from 'node:zlib';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';

const root = path.resolve(__dirname, '..', '..');
const RUNS = 5;
const VIEWPORT = { width: 1600, height: 1000 };

/** Theme variables of a dark theme, as VS Code sets them on a webview's <html>. */
const THEME = `:root{--vscode-font-family:sans-serif;--vscode-font-size:13px;--vscode-foreground:#ccc;--vscode-editor-background:#1f1f1f;
--vscode-charts-foreground:#ccc;--vscode-charts-lines:rgba(204,204,204,.3);--vscode-charts-blue:#3794ff;--vscode-charts-green:#89d185;
--vscode-charts-red:#f14c4c;--vscode-charts-yellow:#cca700;--vscode-charts-orange:#d18616;--vscode-charts-purple:#b180d7;--vscode-focusBorder:#0078d4}`;

const OFFICIAL = ['train/reward', 'train/reward_std_dev', 'train/exception_rate', 'val/reward', 'loss/train', 'loss/kl_div', 'loss/entropy', 'loss/grad_norm', 'loss/learning_rate', 'data/step_num_trajectories', 'time/step_wall_s'];

export interface Columns {
  ids: string[];
  steps: number[];
  metrics: Record<string, (number | null)[]>;
}

/** n checkpoints × m metrics: the official names, then more of each group; random walks. */
export function benchColumns(n: number, m: number): Columns {
  const names = [...OFFICIAL];
  const groups = ['train', 'val', 'loss', 'data', 'time'];
  for (let i = 0; names.length < m; i++) names.push(`${groups[i % groups.length]}/extra_${String(i).padStart(2, '0')}`);
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const metrics: Record<string, (number | null)[]> = {};
  for (const name of names.slice(0, m)) {
    const col = new Array<number | null>(n);
    let v = rand();
    for (let i = 0; i < n; i++) {
      v += (rand() - 0.5) * 0.02;
      col[i] = name === 'val/reward' && i % 10 !== 9 ? null : Number(v.toFixed(5));
    }
    metrics[name] = col;
  }
  const hex = (i: number) => i.toString(16).padStart(12, '0');
  return { ids: Array.from({ length: n }, (_, i) => `00000000-0000-4000-8000-${hex(i)}`), steps: Array.from({ length: n }, (_, i) => i + 1), metrics };
}

// Page-side code as plain text: it runs in the browser, untouched by this file's compiler.
const STUB_VSCODE_API = `window.__posted = [];
window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m), getState: () => undefined, setState: () => undefined });`;

/** Sends init (every metric charted) and the data in chunks; returns the webview's own timings. */
const DASHBOARD_RUN = `async (chunk) => {
  const d = window.__data;
  const names = Object.keys(d.metrics);
  const send = (m) => window.postMessage(m, '*');
  const rendered = (pred) => new Promise((resolve) => {
    const poll = () => {
      const hit = window.__posted.find((p) => p.type === 'rendered' && pred(p));
      if (hit) resolve(hit); else setTimeout(poll, 5);
    };
    poll();
  });
  send({ type: 'init', modelId: 'bench', ui: { metrics: names, smoothing: 0, sort: { key: 'step', direction: 'desc' }, selected: [] }, best: { direction: 'max' } });
  const n = d.ids.length;
  // As the extension sends columns: Float64Arrays of one buffer, NaN where missing (WireColumns).
  const wire = (ids, steps, cols) => {
    const buffer = new ArrayBuffer(8 * ids.length * (cols.length + 1));
    const column = (i, values) => {
      const a = new Float64Array(buffer, 8 * ids.length * i, ids.length);
      for (let j = 0; j < values.length; j++) a[j] = values[j] ?? NaN;
      return a;
    };
    const metrics = {};
    cols.forEach(([k, values], i) => (metrics[k] = column(i + 1, values)));
    return { ids, steps: column(0, steps), metrics };
  };
  for (let from = 0; from < n; from += chunk) {
    const to = Math.min(n, from + chunk);
    send({ type: 'data', columns: wire(d.ids.slice(from, to), d.steps.slice(from, to), names.map((k) => [k, d.metrics[k].slice(from, to)])), done: to >= n, fresh: false });
  }
  const first = await rendered((p) => p.count === n && p.charts === names.length);
  // A poll that found one more checkpoint: appended to the charts that exist.
  window.__posted.length = 0;
  send({ type: 'data', columns: wire(['ffffffff-0000-4000-8000-000000000000'], [n + 1], names.map((k) => [k, [0.5]])), done: true, fresh: true });
  const second = await rendered((p) => p.count === n + 1);
  return { render: first.ms, append: second.ms };
}`;

/** Bare uPlot: the same series into charts of the same size, default options, to the painted frame. */
const BASELINE_RUN = `async () => {
  const d = window.__data;
  const root = document.getElementById('root');
  const t0 = performance.now();
  for (const [name, values] of Object.entries(d.metrics)) {
    const el = document.createElement('div');
    root.append(el);
    new window.uPlot({ width: 500, height: 170, scales: { x: { time: false } }, series: [{}, { label: name, stroke: 'blue', spanGaps: true }] }, [d.steps, values], el);
  }
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}`;

async function median(values: number[]): Promise<number> {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export interface RenderFigures {
  n: number;
  m: number;
  renderMs: number;
  appendMs: number;
  baselineMs: number;
  runs: { render: number[]; append: number[]; baseline: number[] };
  bundleBytes: number;
  bundleGzip: number;
  cssBytes: number;
  uplotBytes: number;
}

export async function benchRender(): Promise<RenderFigures> {
  const n = 10_000; // the figure the dashboard promises, also with --quick (5 runs take seconds)
  const m = 30;
  const bundle = path.join(root, 'dist', 'webview', 'dashboard.js');
  const css = path.join(root, 'dist', 'webview', 'dashboard.css');
  if (!fs.existsSync(bundle)) throw new Error('dist/webview/dashboard.js missing: run `node esbuild.js --production` first');
  const uplotJs = esbuild.buildSync({ stdin: { contents: "import uPlot from 'uplot'; window.uPlot = uPlot;", resolveDir: root }, bundle: true, minify: true, write: false, format: 'iife', platform: 'browser' }).outputFiles[0]!.text;
  const uplotCss = fs.readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
  const data = benchColumns(n, m);
  const { CHROMIUM_ARGS } = require('../host/run-tests.js') as { CHROMIUM_ARGS: string[] };
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  const runs = { render: [] as number[], append: [] as number[], baseline: [] as number[] };
  try {
    for (let run = 0; run < RUNS; run++) {
      // The dashboard: init with every metric charted, then the data in one message, as the extension sends it.
      const page = await browser.newPage({ viewport: VIEWPORT });
      await page.setContent(`<!DOCTYPE html><html><head><style>${THEME}</style></head><body class="vscode-dark"><main id="app"></main></body></html>`);
      await page.addScriptTag({ content: STUB_VSCODE_API });
      await page.addStyleTag({ path: css });
      await page.addScriptTag({ path: bundle });
      await page.evaluate(`window.__data = ${JSON.stringify(data)}`);
      // SVC_BENCH_PROFILE=<dir>: a CPU profile of the first run's page (dashboard-render.cpuprofile).
      const profile = process.env.SVC_BENCH_PROFILE && run === 0 ? await page.context().newCDPSession(page) : undefined;
      if (profile) {
        await profile.send('Profiler.enable');
        await profile.send('Profiler.setSamplingInterval', { interval: 100 });
        await profile.send('Profiler.start');
      }
      const timing = (await page.evaluate(`(${DASHBOARD_RUN})(20000)`)) as { render: number; append: number };
      if (profile) {
        const { profile: cpu } = await profile.send('Profiler.stop');
        fs.mkdirSync(process.env.SVC_BENCH_PROFILE!, { recursive: true });
        fs.writeFileSync(path.join(process.env.SVC_BENCH_PROFILE!, 'dashboard-render.cpuprofile'), JSON.stringify(cpu));
      }
      runs.render.push(timing.render);
      runs.append.push(timing.append);
      await page.close();

      // Baseline: bare uPlot, the same 30 series, charts of the same size, default options.
      const base = await browser.newPage({ viewport: VIEWPORT });
      await base.setContent(`<!DOCTYPE html><html><head><style>${uplotCss}</style></head><body><div id="root"></div></body></html>`);
      await base.addScriptTag({ content: uplotJs });
      await base.evaluate(`window.__data = ${JSON.stringify(data)}`);
      const baseProfile = process.env.SVC_BENCH_PROFILE && run === 0 ? await base.context().newCDPSession(base) : undefined;
      if (baseProfile) {
        await baseProfile.send('Profiler.enable');
        await baseProfile.send('Profiler.setSamplingInterval', { interval: 100 });
        await baseProfile.send('Profiler.start');
      }
      const baseline = (await base.evaluate(`(${BASELINE_RUN})()`)) as number;
      if (baseProfile) fs.writeFileSync(path.join(process.env.SVC_BENCH_PROFILE!, 'uplot-baseline.cpuprofile'), JSON.stringify((await baseProfile.send('Profiler.stop')).profile));
      runs.baseline.push(baseline);
      await base.close();
    }
  } finally {
    await browser.close();
  }
  const bytes = fs.readFileSync(bundle);
  return {
    n,
    m,
    renderMs: await median(runs.render),
    appendMs: await median(runs.append),
    baselineMs: await median(runs.baseline),
    runs,
    bundleBytes: bytes.length,
    bundleGzip: zlib.gzipSync(bytes, { level: 9 }).length,
    cssBytes: fs.statSync(css).size,
    uplotBytes: Buffer.byteLength(uplotJs),
  };
}

if (require.main === module) {
  if (!process.argv.includes('--no-build')) spawnSync(process.execPath, ['esbuild.js', '--production'], { cwd: root, stdio: 'inherit' });
  benchRender().then(
    (f) => {
      console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}`);
      console.log(JSON.stringify(f, null, 1));
    },
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
