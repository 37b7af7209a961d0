/**
 * One uPlot line chart per metric over `step`, in sections by metric group. Hover shows step and
 * value (a live legend, cursors in step across charts), drag zooms every chart to the same steps,
 * double-click resets. Colours come from the theme. New data goes through setData on the charts
 * that exist, so a poll appends without tearing anything down.
 */
import uPlot from 'uplot';
import { formatMetric } from '../../common/format';
import { groupMetrics, metricGroup } from '../shared/metrics';
import type { CheckpointSeries } from '../shared/series';
import { smoothEma } from '../shared/smooth';
import { h } from '../../webview/dom';
import { isHighContrast, themeColor } from './dom';
import { dict } from '../../api/dict';
import { extentOf, flatAxis, type Extent } from '../shared/axis';

export interface ChartMarks {
  /** The best checkpoint: a star on its metric's chart, a dashed line on the others. */
  best?: { metric: string; row: number };
  /** Selected rows: a line at their steps. */
  selected: number[];
  /** The latest step's row: a ring on its point in every chart. */
  latest?: number;
}

interface Theme {
  fg: string;
  grid: string;
  font: string;
  star: string;
  select: string;
  lineWidth: number;
  groups: Record<string, string>;
}

interface Chart {
  metric: string;
  plot: uPlot;
  star: HTMLElement;
}

const HEIGHT = 170;
const GROUP_COLORS: [string, string, string][] = [
  ['train', 'charts-blue', '#3794ff'],
  ['val', 'charts-green', '#89d185'],
  ['loss', 'charts-red', '#f14c4c'],
  ['data', 'charts-purple', '#b180d7'],
  ['time', 'charts-orange', '#d18616'],
];

function readTheme(): Theme {
  const hc = isHighContrast();
  const family = themeColor('font-family', 'sans-serif');
  const groups = dict<string>();
  for (const [g, v, f] of GROUP_COLORS) groups[g] = themeColor(v, f);
  groups[''] = themeColor('charts-yellow', '#cca700');
  return {
    fg: themeColor('charts-foreground', themeColor('foreground', '#cccccc')),
    grid: hc ? themeColor('contrastBorder', '#6fc3df') : themeColor('charts-lines', 'rgba(128,128,128,0.35)'),
    font: `11px ${family}`,
    star: themeColor('charts-yellow', '#cca700'),
    select: themeColor('focusBorder', '#007fd4'),
    lineWidth: hc ? 2 : 1,
    groups,
  };
}

/** Axis labels: short (`4e-6`, `0.025`, `1.2k`) so they fit the axis. */
function tick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a < 1e-3) return v.toExponential(1).replace('.0e', 'e');
  if (a >= 1e5) return v.toExponential(1).replace('.0e', 'e');
  if (a >= 1e4) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(4)));
}

function withAlpha(color: string, alpha: number): string {
  const hex = /^#([0-9a-f]{6})$/i.exec(color);
  if (!hex) return color;
  const n = parseInt(hex[1]!, 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

export class Charts {
  private charts: Chart[] = [];
  private key = '';
  private theme: Theme = readTheme();
  private zoom: { min: number; max: number } | undefined;
  private syncing = false;
  private marks: ChartMarks = { selected: [] };
  private series: CheckpointSeries | undefined;
  private readonly resize = new ResizeObserver(() => this.fit());

  /** `onThemeChange`: the charts must be drawn again (their colours are read once per build). */
  constructor(
    private readonly root: HTMLElement,
    onThemeChange: () => void,
    /** A click (not a drag) on a chart picks the row nearest to it. */
    private readonly onPick: (row: number) => void = () => undefined,
  ) {
    this.resize.observe(root);
    // VS Code swaps the body's vscode-* classes and the --vscode-* variables with the theme.
    new MutationObserver(() => {
      this.theme = readTheme();
      this.key = '';
      onThemeChange();
    }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  }

  get count(): number {
    return this.charts.length;
  }

  /** The steps the charts are zoomed to, if zoomed. */
  get zoomed(): { min: number; max: number } | undefined {
    return this.zoom;
  }

  /** Draws `metrics`: builds the charts when the set changed, else gives the existing ones new data. */
  render(series: CheckpointSeries, metrics: string[], smoothing: number, marks: ChartMarks): void {
    this.series = series;
    this.marks = marks;
    const key = `${metrics.join('\n')}|${smoothing > 0}`;
    // Scale changes made here are not the user's zoom: no chart tells the others (that would
    // redraw every chart once per chart).
    this.syncing = true;
    try {
      if (key !== this.key) {
        this.build(series, metrics, smoothing);
        this.key = key;
        return;
      }
      for (const c of this.charts) {
        c.plot.setData(this.data(series, c.metric, smoothing), !this.zoom);
        if (this.zoom) c.plot.setScale('x', this.zoom);
      }
    } finally {
      this.syncing = false;
    }
  }

  /** Only the marks changed (selection, best): a redraw, no new data. */
  mark(marks: ChartMarks): void {
    this.marks = marks;
    for (const c of this.charts) c.plot.redraw(false, false);
  }

  resetZoom(): void {
    this.zoom = undefined;
    this.syncing = true;
    try {
      for (const c of this.charts) c.plot.setData(c.plot.data, true);
    } finally {
      this.syncing = false;
    }
  }

  private data(series: CheckpointSeries, metric: string, smoothing: number): uPlot.AlignedData {
    const values = series.columns.get(metric) ?? new Array<number | null>(series.length).fill(null);
    return smoothing > 0 ? [series.steps, values, smoothEma(values, smoothing)] : [series.steps, values];
  }

  private build(series: CheckpointSeries, metrics: string[], smoothing: number): void {
    for (const c of this.charts) c.plot.destroy();
    this.charts = [];
    this.root.replaceChildren();
    const wanted = new Set(metrics);
    const width = this.cardWidth();
    for (const group of groupMetrics(metrics)) {
      const grid = h('div', { class: 'chart-grid' });
      this.root.append(h('section', { class: 'chart-group', 'data-group': group.group }, h('h2', { text: group.label }), grid));
      for (const metric of group.metrics) {
        if (!wanted.has(metric)) continue;
        const card = h('figure', { class: 'chart-card', 'data-metric': metric }, h('figcaption', { text: metric, title: metric }));
        grid.append(card);
        const star = h('span', { class: 'best-star', role: 'img', hidden: true, text: '★' });
        const plot = new uPlot(this.options(metric, width, smoothing), this.data(series, metric, smoothing), card);
        plot.over.append(star);
        this.pickOnClick(plot);
        this.charts.push({ metric, plot, star });
        if (this.zoom) plot.setScale('x', this.zoom);
      }
    }
    if (this.charts.length === 0) this.root.append(h('p', { class: 'empty', text: 'No metric chosen: pick some under Metrics.' }));
  }

  private options(metric: string, width: number, smoothing: number): uPlot.Options {
    const t = this.theme;
    const color = t.groups[metricGroup(metric)] ?? t.groups['']!;
    const axis = (size: number): uPlot.Axis => ({
      stroke: t.fg,
      font: t.font,
      size,
      grid: { stroke: t.grid, width: 1 },
      ticks: { stroke: t.grid, width: 1, size: 4 },
    });
    const value = (_u: uPlot, v: number | null) => (v === null || v === undefined ? '–' : formatMetric(v));
    const series: uPlot.Series[] = [
      { label: 'step', value: (_u, v) => (v === null || v === undefined ? '–' : String(v)) },
      { label: smoothing > 0 ? 'raw' : metric, stroke: smoothing > 0 ? withAlpha(color, 0.3) : color, width: t.lineWidth, spanGaps: true, value },
    ];
    if (smoothing > 0) series.push({ label: 'smoothed', stroke: color, width: t.lineWidth + 0.5, spanGaps: true, value, points: { show: false } });
    return {
      width,
      height: HEIGHT,
      // A flat line (all values equal) takes its group's scale rather than uPlot's 0–100 (shared/axis.ts).
      scales: { x: { time: false }, y: { range: (_u, min, max) => (min === max ? uPlot.rangeNum(...this.flatRange(metric, min), 0.1, true) : uPlot.rangeNum(min, max, 0.1, true)) } },
      series,
      axes: [{ ...axis(32) }, { ...axis(56), values: (_u, splits) => splits.map(tick) }],
      cursor: { sync: { key: 'svc-dashboard-steps' }, drag: { x: true, y: false } },
      legend: { show: true, live: true },
      hooks: {
        draw: [(u) => this.drawMarks(u, metric)],
        setScale: [(u, key) => key === 'x' && this.scaled(u)],
      },
    };
  }

  /** The y range of a metric whose values are all `value`: its siblings' scale (same group), else around the value. */
  private flatRange(metric: string, value: number): [number, number] {
    const series = this.series;
    const group = metricGroup(metric);
    const siblings: Extent[] = [];
    if (series) {
      for (const [name, values] of series.columns) {
        if (name === metric || metricGroup(name) !== group) continue;
        const e = extentOf(values);
        if (e) siblings.push(e);
      }
    }
    return flatAxis(value, siblings);
  }

  /** Each chart's y axis as drawn, [min, max] (the tests read it). */
  yRanges(): Record<string, number[]> {
    const out = dict<number[]>();
    for (const c of this.charts) {
      const { min, max } = c.plot.scales.y ?? {};
      if (typeof min === 'number' && typeof max === 'number') out[c.metric] = [min, max];
    }
    return out;
  }

  private pickOnClick(plot: uPlot): void {
    let down: { x: number; y: number } | undefined;
    plot.over.addEventListener('mousedown', (e) => (down = { x: e.clientX, y: e.clientY }));
    plot.over.addEventListener('mouseup', (e) => {
      const moved = !down || Math.abs(e.clientX - down.x) > 3 || Math.abs(e.clientY - down.y) > 3;
      down = undefined;
      const row = plot.cursor.idx;
      if (!moved && row !== null && row !== undefined) this.onPick(row);
    });
  }

  /** A zoom (drag) or reset (double-click) on one chart applies to all of them. */
  private scaled(u: uPlot): void {
    if (this.syncing || !this.series) return;
    const { min, max } = u.scales.x;
    if (min === undefined || max === undefined || min === null || max === null) return;
    const steps = this.series.steps;
    const full = steps.length === 0 || (min <= steps[0]! && max >= steps[steps.length - 1]!);
    this.zoom = full ? undefined : { min, max };
    this.syncing = true;
    try {
      for (const c of this.charts) if (c.plot !== u) c.plot.setScale('x', { min, max });
    } finally {
      this.syncing = false;
    }
  }

  private drawMarks(u: uPlot, metric: string): void {
    const series = this.series;
    const chart = this.charts.find((c) => c.plot === u);
    if (!series) return;
    const { ctx, bbox } = u;
    const line = (row: number, color: string, dash: number[]) => {
      const step = series.steps[row];
      if (step === undefined) return;
      const x = Math.round(u.valToPos(step, 'x', true));
      if (x < bbox.left || x > bbox.left + bbox.width) return;
      ctx.save();
      ctx.strokeStyle = color;
      ctx.lineWidth = Math.max(1, devicePixelRatio);
      ctx.setLineDash(dash.map((d) => d * devicePixelRatio));
      ctx.beginPath();
      ctx.moveTo(x, bbox.top);
      ctx.lineTo(x, bbox.top + bbox.height);
      ctx.stroke();
      ctx.restore();
    };
    for (const row of this.marks.selected) line(row, this.theme.select, []);
    const latest = this.marks.latest;
    const latestValue = latest === undefined ? null : series.value(metric, latest);
    if (latest !== undefined && latestValue !== null) {
      const x = u.valToPos(series.steps[latest]!, 'x', true);
      const y = u.valToPos(latestValue, 'y', true);
      ctx.save();
      ctx.strokeStyle = this.theme.fg;
      ctx.lineWidth = Math.max(1, devicePixelRatio) * 1.5;
      ctx.beginPath();
      ctx.arc(x, y, 4 * devicePixelRatio, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.restore();
    }
    const best = this.marks.best;
    if (best) line(best.row, withAlpha(this.theme.star, 0.7), [4, 3]);
    if (!chart) return;
    const star = chart.star;
    const value = best && best.metric === metric ? series.value(metric, best.row) : null;
    if (!best || value === null) {
      if (!star.hidden) star.hidden = true;
      return;
    }
    const step = series.steps[best.row]!;
    const left = u.valToPos(step, 'x');
    const top = u.valToPos(value, 'y');
    // The plot area's size from uPlot (canvas pixels), not from the DOM: reading layout here would
    // force a reflow per chart.
    const width = bbox.width / devicePixelRatio;
    const height = bbox.height / devicePixelRatio;
    star.hidden = !(left >= -0.5 && left <= width + 0.5 && top >= -0.5 && top <= height + 0.5);
    star.style.left = `${left}px`;
    star.style.top = `${top}px`;
    star.dataset.step = String(step);
    star.dataset.checkpoint = series.ids[best.row]!;
    star.title = `Best checkpoint: step ${step}, ${metric} ${formatMetric(value)}`;
    star.setAttribute('aria-label', star.title);
  }

  private cardWidth(): number {
    const w = this.root.clientWidth || 600;
    // The grid fits cards of at least 320 px; each takes an equal share of the row.
    const columns = Math.max(1, Math.floor((w + 12) / (320 + 12)));
    return Math.max(240, Math.floor((w - 12 * (columns - 1)) / columns) - 2);
  }

  private fit(): void {
    if (this.charts.length === 0) return;
    const width = this.cardWidth();
    for (const c of this.charts) if (Math.abs(c.plot.width - width) > 1) c.plot.setSize({ width, height: HEIGHT });
  }
}
