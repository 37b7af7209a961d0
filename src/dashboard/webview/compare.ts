/**
 * The Compare Runs page: two or more runs (a model's checkpoints, a history.jsonl) on the same
 * charts, one colour per run from the theme, aligned by step; a legend naming each run; a table of
 * each run's best and latest value per metric. Every message in is checked; every text goes in as
 * text.
 */
import 'uplot/dist/uPlot.min.css';
import './style.css';
import './compare.css';
import uPlot from 'uplot';
import { alignByStep, compareCellTexts, compareTable, stepRange, type CompareRow } from '../shared/compare';
import { FromCompare, ToCompare } from '../shared/compareProtocol';
import { defaultCharts, metricGroup, orderedMetrics } from '../shared/metrics';
import { extentOf, flatAxis, type Extent } from '../shared/axis';
import { type SyncStatus } from '../shared/protocol';
import { parseMessage } from '../../webview/protocol';
import { CheckpointSeries, columnsFromWire } from '../shared/series';
import { h } from '../../webview/dom';
import { isHighContrast, themeColor } from './dom';
import { dict } from '../../api/dict';

const vscode = acquireVsCodeApi();
const post = (m: FromCompare) => vscode.postMessage(m);
window.addEventListener('error', (e) => post({ type: 'error', message: String(e.message).slice(0, 500) }));

/** Run colours, in legend order: theme chart colours (each with a fallback for hosts without it). */
const PALETTE: [string, string][] = [
  ['charts-blue', '#3794ff'],
  ['charts-orange', '#d18616'],
  ['charts-green', '#89d185'],
  ['charts-purple', '#b180d7'],
  ['charts-red', '#f14c4c'],
  ['charts-yellow', '#cca700'],
  ['terminal-ansiCyan', '#11a8cd'],
  ['foreground', '#cccccc'],
];
const HEIGHT = 190;

let runs: { label: string; kind: 'model' | 'file' }[] = [];
let series: CheckpointSeries[] = [];
let statuses: (SyncStatus | undefined)[] = [];
let plots: { metric: string; plot: uPlot; lines: number }[] = [];
let chartKey = '';
/** The step range every chart shares (shared/compare.ts), set before each draw. */
let xRange: [number, number] | undefined;

const app = document.getElementById('app')!;
const title = h('h1', { text: 'Compare Runs' });
const statusText = h('span', { class: 'status', role: 'status', 'aria-live': 'polite' });
const refresh = h('button', { type: 'button', class: 'secondary', text: 'Refresh', title: 'Load every run again' });
refresh.addEventListener('click', () => post({ type: 'refresh' }));
const legend = h('ul', { class: 'run-legend', 'aria-label': 'Runs' });
const chartsRoot = h('section', { class: 'chart-grid', 'aria-label': 'Charts' });
const tableRoot = h('section', { class: 'compare-table', 'aria-label': 'Best and latest per run' });
app.replaceChildren(h('header', { class: 'bar' }, title, statusText, h('span', { class: 'spacer' }), refresh), legend, chartsRoot, h('h2', { text: 'Best and latest' }), tableRoot);

const colors = () => PALETTE.map(([v, f]) => themeColor(v, f));

function tick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < 1e-3 || a >= 1e5) return v.toExponential(1).replace('.0e', 'e');
  return String(Number(v.toPrecision(4)));
}

function showLegend(): void {
  const c = colors();
  legend.replaceChildren(
    ...runs.map((r, i) => {
      const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
      swatch.style.background = c[i % c.length]!;
      const s = statuses[i];
      const detail = s ? `${s.count} ${r.kind === 'file' ? 'steps' : 'checkpoints'}${s.loading ? ', loading…' : ''}${s.error ? `, ${s.error}` : ''}` : '';
      return h('li', { class: 'run', 'data-run': i }, swatch, h('span', { class: 'run-label', text: r.label }), h('span', { class: 'run-detail', text: detail ? ` (${detail})` : '' }));
    }),
  );
}

/** The grid fits cards of at least 320 px, each an equal share of the row (as the dashboard's charts). */
function chartWidth(): number {
  const w = chartsRoot.clientWidth || 600;
  const columns = Math.max(1, Math.floor((w + 12) / (320 + 12)));
  return Math.max(240, Math.floor((w - 12 * (columns - 1)) / columns) - 14);
}

function fit(): void {
  const width = chartWidth();
  for (const p of plots) if (Math.abs(p.plot.width - width) > 1) p.plot.setSize({ width, height: HEIGHT });
}

/** The y range of a metric whose values are all `value` in every run: the scale of its group's other metrics over the runs. */
function flatRange(metric: string, value: number): [number, number] {
  const group = metricGroup(metric);
  const siblings: Extent[] = [];
  for (const s of series) {
    for (const [name, values] of s.columns) {
      if (name === metric || metricGroup(name) !== group) continue;
      const e = extentOf(values);
      if (e) siblings.push(e);
    }
  }
  return flatAxis(value, siblings);
}

function drawCharts(): void {
  xRange = stepRange(series);
  const names = orderedMetrics(new Set(series.flatMap((s) => s.metricNames())));
  const shown = defaultCharts(names);
  const key = `${shown.join('\n')}|${runs.length}`;
  const data = (metric: string): uPlot.AlignedData => {
    const a = alignByStep(series, metric);
    return [a.steps, ...a.values] as uPlot.AlignedData;
  };
  const linesOf = (metric: string) => series.filter((s) => s.columns.get(metric)?.some((v) => v !== null)).length;
  if (key === chartKey) {
    for (const p of plots) {
      p.plot.setData(data(p.metric));
      p.lines = linesOf(p.metric);
    }
    return;
  }
  chartKey = key;
  for (const p of plots) p.plot.destroy();
  const c = colors();
  const fg = themeColor('charts-foreground', themeColor('foreground', '#cccccc'));
  const grid = isHighContrast() ? themeColor('contrastBorder', '#6fc3df') : themeColor('charts-lines', 'rgba(128,128,128,0.35)');
  const font = `11px ${themeColor('font-family', 'sans-serif')}`;
  const axis = (size: number): uPlot.Axis => ({ stroke: fg, font, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1, size: 4 }, size });
  const width = chartWidth();
  chartsRoot.replaceChildren();
  plots = shown.map((metric) => {
    const card = h('figure', { class: 'chart-card', 'data-metric': metric }, h('figcaption', { text: metric, title: metric }));
    chartsRoot.append(card);
    const opts: uPlot.Options = {
      width,
      height: HEIGHT,
      // A metric flat in every run (an exception rate at 0) takes its group's scale, not 0–100 (shared/axis.ts).
      scales: { x: { time: false, range: (_u, min, max) => xRange ?? [min, max] }, y: { range: (_u, min, max) => (min === max ? uPlot.rangeNum(...flatRange(metric, min), 0.1, true) : uPlot.rangeNum(min, max, 0.1, true)) } },
      axes: [axis(32), { ...axis(56), values: (_u, splits) => splits.map(tick) }],
      series: [{ label: 'step' }, ...runs.map((r, i) => ({ label: r.label, stroke: c[i % c.length]!, width: isHighContrast() ? 2 : 1.25, spanGaps: true }))],
      cursor: { sync: { key: 'svc-compare-steps' }, drag: { x: true, y: false } },
      legend: { show: true, live: true },
    };
    return { metric, plot: new uPlot(opts, data(metric), card), lines: linesOf(metric) };
  });
}

function drawTable(rows: CompareRow[]): void {
  if (!rows.length) {
    tableRoot.replaceChildren(h('p', { class: 'empty', text: 'No metrics yet.' }));
    return;
  }
  // One number format per metric across the runs (shared/compare.ts).
  const texts = compareCellTexts(rows);
  const c = colors();
  const head = h(
    'tr',
    {},
    h('th', { text: 'metric' }),
    h('th', { text: 'better' }),
    ...runs.flatMap((r, i) => {
      const th = (text: string) => {
        const el = h('th', { class: 'num', text, title: r.label });
        el.style.borderTop = `2px solid ${c[i % c.length]}`;
        return el;
      };
      return [th(`${r.label}: best (step)`), th(`${r.label}: latest (step)`)];
    }),
  );
  const body = rows.map((row, r) =>
    h(
      'tr',
      { 'data-metric': row.metric },
      h('th', { scope: 'row', text: row.metric }),
      h('td', { text: row.direction === 'max' ? 'higher' : 'lower' }),
      ...row.runs.flatMap((_s, i) => [
        h('td', { class: `num${row.leader === i ? ' leader' : ''}`, title: row.leader === i ? 'Best of the runs' : undefined, text: texts[r]![i]!.best }),
        h('td', { class: 'num', text: texts[r]![i]!.latest }),
      ]),
    ),
  );
  tableRoot.replaceChildren(h('table', { class: 'diff-table' }, h('thead', {}, head), h('tbody', {}, ...body)));
}

let frame = 0;
/** Rows merged since the last draw was asked for. */
let undrawn = false;
function schedule(): void {
  if (!frame) frame = requestAnimationFrame(paint);
}
function paint(): void {
  frame = 0;
  if (!runs.length) return;
  showLegend();
  drawCharts();
  const rows = compareTable(series);
  drawTable(rows);
  const loading = statuses.some((s) => s?.loading);
  statusText.textContent = `${runs.length} runs${loading ? ' · loading…' : ''}`;
  const lines = dict<number>();
  for (const p of plots) lines[p.metric] = p.lines;
  // What this paint drew, read now: rows arriving before the next frame must not mix into the report.
  const drawn = {
    counts: series.map((s) => s.length),
    charts: plots.length,
    lines,
    table: rows.map((r) => ({ metric: r.metric, direction: r.direction, runs: r.runs.map((s) => ({ best: s.best, latest: s.latest })) })),
  };
  // The x scales are set once uPlot has committed the draw: read them in the next frame.
  const drawnPlots = [...plots];
  const ranges = (scale: 'x' | 'y') =>
    dict(
      drawnPlots.flatMap((p): [string, number[]][] => {
        const { min, max } = p.plot.scales[scale] ?? {};
        return typeof min === 'number' && typeof max === 'number' ? [[p.metric, [min, max]]] : [];
      }),
    );
  requestAnimationFrame(() => post({ type: 'rendered', ...drawn, xRanges: ranges('x'), yRanges: ranges('y') }));
}

new ResizeObserver(fit).observe(chartsRoot);
new MutationObserver(() => ((chartKey = ''), schedule())).observe(document.body, { attributes: true, attributeFilter: ['class'] });

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = parseMessage(ToCompare, event.data);
  if (!parsed.ok) {
    post({ type: 'error', message: parsed.error });
    return;
  }
  const msg = parsed.value;
  if (msg.type !== 'init' && msg.run >= runs.length) return;
  switch (msg.type) {
    case 'init':
      runs = msg.runs;
      // Kept by VS Code across a window reload: the panel serializer opens the same runs again.
      vscode.setState(msg.state);
      series = runs.map(() => new CheckpointSeries());
      statuses = runs.map(() => undefined);
      chartKey = '';
      document.title = `Compare: ${runs.map((r) => r.label).join(' vs ')}`;
      return;
    case 'data': {
      // A poll or a look at the file that found nothing new ends with an empty `done`: no redraw.
      const merged = series[msg.run]!.mergeColumns(columnsFromWire(msg.columns));
      if (merged.added || merged.updated) undrawn = true;
      if (msg.done && undrawn) {
        undrawn = false;
        schedule();
      }
      return;
    }
    case 'status': {
      // A history file is looked at every 2 s: only what the page shows of a status redraws it.
      const shown = (st: SyncStatus | undefined) => st && `${st.count}|${st.loading}|${st.error ?? ''}`;
      const changed = shown(statuses[msg.run]) !== shown(msg.status);
      statuses[msg.run] = msg.status;
      if (changed) schedule();
      return;
    }
    case 'reset':
      series[msg.run]!.clear();
      schedule();
      return;
  }
});

post({ type: 'ready' });
