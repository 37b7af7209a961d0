/**
 * The reward distribution per step of a run (a file dashboard): per split, a heat map over steps
 * whose columns are each step's histogram strip (reward low at the bottom, the cell's shade the
 * share of the step's trajectories in that band, the median marked). Hover, or the arrow keys on
 * the focused map, say the step's quantiles and the band's count; a click or Enter opens the step
 * in the viewer filtered to that band. Steps arrive as they are read; the map redraws at most once
 * a frame. Bins are computed here from each step's sketch over the split's range (distribution.ts).
 */
import { BINS, QUANTILES, bandOf, binBounds, binsOf, type StepDistribution } from '../shared/distribution';
import type { FromWebview } from '../shared/protocol';
import { h } from '../../webview/dom';
import { nf, themeColor } from './dom';

const CELL_H = 8;
const num = (x: number) => (Number.isInteger(x) ? String(x) : Math.abs(x) >= 1e4 || (x !== 0 && Math.abs(x) < 1e-3) ? x.toExponential(2) : String(Number(x.toPrecision(4))));
const qName = (p: number) => (p === 0 ? 'min' : p === 1 ? 'max' : `p${Math.round(p * 100)}`);

interface SplitView {
  split: string;
  steps: Map<number, StepDistribution>;
  done: boolean;
  canvas: HTMLCanvasElement;
  caption: HTMLElement;
  readout: HTMLElement;
  /** The drawn layout: steps in order, the range, each step's bins. */
  drawn?: { order: StepDistribution[]; lo: number; hi: number; bins: number[][] };
  cursor: { i: number; b: number };
}

export class Distribution {
  private readonly views = new Map<string, SplitView>();
  private frame = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly post: (m: FromWebview) => void,
  ) {
    root.hidden = true;
    root.append(h('h2', { text: 'Reward distribution per step' }));
    window.addEventListener('resize', () => this.schedule());
  }

  add(split: string, steps: StepDistribution[], done: boolean): void {
    const v = this.views.get(split) ?? this.view(split);
    for (const s of steps) v.steps.set(s.step, s);
    v.done = done;
    this.root.hidden = false;
    this.schedule();
  }

  /** A reloaded page gets everything again. */
  clear(): void {
    for (const v of this.views.values()) v.canvas.parentElement?.remove();
    this.views.clear();
    this.root.hidden = true;
  }

  private view(split: string): SplitView {
    const canvas = h('canvas', { class: 'dist-map', tabindex: '0', role: 'application', 'aria-label': `Reward distribution per step of ${split}: arrow keys move, Enter opens the step at that reward band` });
    const caption = h('p', { class: 'dist-caption' });
    const readout = h('p', { class: 'dist-readout', role: 'status', 'aria-live': 'polite' });
    const v: SplitView = { split, steps: new Map(), done: false, canvas, caption, readout, cursor: { i: -1, b: 0 } };
    this.root.append(h('div', { class: 'dist-split', 'data-split': split }, h('h3', { text: split }), canvas, caption, readout));
    canvas.addEventListener('mousemove', (e) => {
      const at = this.cellAt(v, e);
      if (at) this.describe(v, at.i, at.b);
    });
    canvas.addEventListener('click', (e) => {
      const at = this.cellAt(v, e);
      if (at) this.open(v, at.i, at.b);
    });
    canvas.addEventListener('keydown', (e) => {
      const d = v.drawn;
      if (!d || !d.order.length) return;
      const c = v.cursor;
      if (c.i < 0) c.i = d.order.length - 1;
      const moves: Record<string, () => void> = {
        ArrowLeft: () => (c.i = Math.max(0, c.i - 1)),
        ArrowRight: () => (c.i = Math.min(d.order.length - 1, c.i + 1)),
        ArrowUp: () => (c.b = Math.min(BINS - 1, c.b + 1)),
        ArrowDown: () => (c.b = Math.max(0, c.b - 1)),
        Home: () => (c.i = 0),
        End: () => (c.i = d.order.length - 1),
        Enter: () => this.open(v, c.i, c.b),
      };
      const move = moves[e.key];
      if (!move) return;
      e.preventDefault();
      move();
      this.describe(v, c.i, c.b);
      this.paint(v);
    });
    this.views.set(split, v);
    return v;
  }

  private cellAt(v: SplitView, e: MouseEvent): { i: number; b: number } | undefined {
    const d = v.drawn;
    if (!d || !d.order.length) return undefined;
    const r = v.canvas.getBoundingClientRect();
    const i = Math.min(d.order.length - 1, Math.max(0, Math.floor(((e.clientX - r.left) / r.width) * d.order.length)));
    const b = Math.min(BINS - 1, Math.max(0, BINS - 1 - Math.floor(((e.clientY - r.top) / r.height) * BINS)));
    return { i, b };
  }

  private describe(v: SplitView, i: number, b: number): void {
    const d = v.drawn;
    const s = d?.order[i];
    if (!d || !s) return;
    v.cursor = { i, b };
    if (s.error) {
      v.readout.textContent = `step ${s.step} (${s.file}): could not be read: ${s.error}`;
      return;
    }
    const band = binBounds(b, d.lo, d.hi);
    const n = d.bins[i]![b]!;
    const qs = s.quantiles.map((q, k) => `${qName(QUANTILES[k]!)} ${num(q)}`).join(', ');
    const text = `step ${s.step} (${s.file}): ${nf.format(s.trajectories)} trajectories in ${nf.format(s.groups)} groups, mean ${s.mean === null ? '–' : num(s.mean)}; ${qs || 'no reward'} · reward ${num(band.min)}–${num(band.max)}: ${nf.format(Math.round(n))}${s.rewards ? ` (${Math.round((100 * n) / s.rewards)}%)` : ''}. Click or Enter: open this step with this reward band.`;
    v.readout.textContent = text;
    v.canvas.title = text;
  }

  private open(v: SplitView, i: number, b: number): void {
    const d = v.drawn;
    const s = d?.order[i];
    if (!d || !s || s.error) return;
    const band = bandOf(b, d.lo, d.hi);
    this.post({ type: 'openStep', step: s.step, split: v.split, reward: { min: band.min, max: band.max } });
  }

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  private draw(): void {
    this.frame = 0;
    const report: Extract<FromWebview, { type: 'distributionRendered' }>['splits'] = [];
    for (const v of this.views.values()) {
      const order = [...v.steps.values()].sort((a, b) => a.step - b.step);
      let lo = Infinity;
      let hi = -Infinity;
      for (const s of order) {
        if (!s.quantiles.length) continue;
        lo = Math.min(lo, s.quantiles[0]!);
        hi = Math.max(hi, s.quantiles[s.quantiles.length - 1]!);
      }
      if (lo === Infinity) lo = hi = 0;
      const bins = order.map((s) => binsOf(s.sketch, s.rewards, lo, hi));
      v.drawn = { order, lo, hi, bins };
      this.paint(v);
      const errors = order.filter((s) => s.error).length;
      v.caption.textContent = order.length
        ? `${nf.format(order.length)} step${order.length === 1 ? '' : 's'} (${order[0]!.step}–${order[order.length - 1]!.step})${v.done ? '' : ', reading…'} · reward ${num(lo)} (bottom) to ${num(hi)} (top) · the stronger a cell's colour, the more of the step's trajectories in that band; the light line is the median${errors ? ` · ${errors} unreadable (marked)` : ''}`
        : v.done
          ? 'No step files.'
          : 'Reading…';
      report.push({ split: v.split, lo, hi, steps: order.map((s) => s.step), bins: bins.map((b) => b.map((x) => Math.round(x * 1000) / 1000)), errors, done: v.done });
    }
    requestAnimationFrame(() => this.post({ type: 'distributionRendered', splits: report }));
  }

  private paint(v: SplitView): void {
    const d = v.drawn;
    if (!d) return;
    const width = Math.max(200, v.canvas.parentElement?.clientWidth ?? 600);
    const height = BINS * CELL_H;
    const ratio = window.devicePixelRatio || 1;
    v.canvas.style.width = `${width}px`;
    v.canvas.style.height = `${height}px`;
    v.canvas.width = Math.round(width * ratio);
    v.canvas.height = Math.round(height * ratio);
    const g = v.canvas.getContext('2d');
    if (!g) return;
    g.scale(ratio, ratio);
    g.clearRect(0, 0, width, height);
    const fill = themeColor('charts-blue', '#3794ff');
    const line = themeColor('foreground', '#cccccc');
    const bad = themeColor('charts-red', '#f14c4c');
    const w = width / Math.max(1, d.order.length);
    d.order.forEach((s, i) => {
      const x = i * w;
      if (s.error) {
        g.globalAlpha = 0.35;
        g.fillStyle = bad;
        g.fillRect(x, 0, Math.max(1, w - 0.5), height);
        return;
      }
      const b = d.bins[i]!;
      for (let k = 0; k < BINS; k++) {
        if (!b[k] || !s.rewards) continue;
        g.globalAlpha = Math.min(1, 0.12 + Math.sqrt(b[k]! / s.rewards) * 0.88);
        g.fillStyle = fill;
        g.fillRect(x, height - (k + 1) * CELL_H, Math.max(1, w - 0.5), CELL_H - 0.5);
      }
      const median = s.quantiles[3];
      if (median !== undefined && d.hi > d.lo) {
        g.globalAlpha = 0.9;
        g.fillStyle = line;
        g.fillRect(x, height - ((median - d.lo) / (d.hi - d.lo)) * height - 1, Math.max(1, w - 0.5), 2);
      }
    });
    const c = v.cursor;
    if (c.i >= 0 && c.i < d.order.length && document.activeElement === v.canvas) {
      g.globalAlpha = 1;
      g.strokeStyle = themeColor('focusBorder', '#007fd4');
      g.lineWidth = 2;
      g.strokeRect(c.i * w + 1, height - (c.b + 1) * CELL_H + 1, Math.max(2, w - 2), CELL_H - 2);
    }
    g.globalAlpha = 1;
  }
}
