/**
 * Every checkpoint in a virtual grid: only the rows in view exist in the DOM, so 10,000 rows
 * cost what 30 do. Sortable by step or any metric (missing values last), up to two rows selected
 * (a third replaces the older), and per-row Copy id / Copy step.
 */
import { columnFormatter, scrollAfterSort } from '../shared/columnFormat';
import type { CheckpointSeries } from '../shared/series';
import { h } from '../../webview/dom';

export interface Sort {
  key: string;
  direction: 'asc' | 'desc';
}

export interface TableEvents {
  onSelect(ids: string[]): void;
  onSort(sort: Sort): void;
  onCopy(what: 'id' | 'step', id: string): void;
}

const ROW = 26;
const OVERSCAN = 8;
const W = { select: 30, star: 26, step: 80, id: 110, metric: 112, actions: 150 };

export class CheckpointTable {
  private series: CheckpointSeries | undefined;
  private metrics: string[] = [];
  private order: number[] = [];
  private sort: Sort = { key: 'step', direction: 'desc' };
  private selected: string[] = [];
  private bestId: string | undefined;
  private latestId: string | undefined;
  private readonly scroller: HTMLElement;
  private readonly head: HTMLElement;
  private readonly body: HTMLElement;
  private readonly rows = new Map<number, HTMLElement>();
  private sortedFor = -1;
  /** One number format per metric column, from its values (kept until the data or columns change). */
  private formats = new Map<string, (v: number | null) => string>();
  private raf = 0;

  constructor(
    root: HTMLElement,
    private readonly events: TableEvents,
  ) {
    this.head = h('div', { class: 'grid-head', role: 'row' });
    this.body = h('div', { class: 'grid-body', role: 'rowgroup' });
    this.scroller = h('div', { class: 'grid', role: 'grid', 'aria-label': 'Checkpoints', tabindex: 0 }, this.head, this.body);
    this.scroller.addEventListener('scroll', () => {
      if (!this.raf) this.raf = requestAnimationFrame(() => ((this.raf = 0), this.paint()));
    });
    root.append(this.scroller);
  }

  get selection(): string[] {
    return this.selected;
  }

  /** New data, columns, sort, selection or best: rebuilds the header, re-sorts when needed, repaints. */
  update(series: CheckpointSeries, metrics: string[], sort: Sort, selected: string[], bestId: string | undefined, latestId?: string): void {
    const columnsChanged = this.metrics.join('\n') !== metrics.join('\n');
    const sortChanged = this.sort.key !== sort.key || this.sort.direction !== sort.direction;
    this.series = series;
    this.metrics = metrics;
    this.sort = sort;
    this.selected = selected.filter((id) => series.indexOf(id) >= 0);
    this.bestId = bestId;
    this.latestId = latestId;
    if (columnsChanged || sortChanged || this.head.childElementCount === 0) this.header();
    this.formats.clear();
    if (columnsChanged || sortChanged || this.sortedFor !== series.length || this.order.length !== series.length) this.resort();
    // A new sort starts at the top, or keeps the selected row in view.
    if (sortChanged) {
      const sel = this.selected.at(-1);
      const pos = sel === undefined ? undefined : this.order.indexOf(series.indexOf(sel));
      this.scroller.scrollTop = scrollAfterSort(pos, ROW, this.scroller.clientHeight - ROW, this.scroller.scrollTop);
    }
    this.body.style.height = `${series.length * ROW}px`;
    this.body.style.width = `${this.width()}px`;
    for (const el of this.rows.values()) el.remove();
    this.rows.clear();
    this.paint();
  }

  /** Brings a checkpoint's row into view. */
  reveal(id: string): void {
    const row = this.series?.indexOf(id) ?? -1;
    const pos = this.order.indexOf(row);
    if (pos < 0) return;
    const top = pos * ROW;
    const view = this.scroller.clientHeight - ROW;
    if (top < this.scroller.scrollTop || top > this.scroller.scrollTop + view) this.scroller.scrollTop = Math.max(0, top - view / 2);
    this.paint();
  }

  private width(): number {
    return W.select + W.star + W.step + W.id + this.metrics.length * W.metric + W.actions;
  }

  private header(): void {
    const cell = (label: string, key: string | undefined, width: number, cls = '') => {
      const el = h('div', { class: `cell ${cls}`, role: 'columnheader', title: label });
      el.style.width = `${width}px`;
      if (key) {
        const active = this.sort.key === key;
        el.setAttribute('aria-sort', active ? (this.sort.direction === 'asc' ? 'ascending' : 'descending') : 'none');
        const button = h('button', { class: 'sort', type: 'button', text: `${label}${active ? (this.sort.direction === 'asc' ? ' ▲' : ' ▼') : ''}` });
        button.addEventListener('click', () => {
          const direction = active ? (this.sort.direction === 'asc' ? 'desc' : 'asc') : key === 'step' ? 'desc' : 'desc';
          this.events.onSort({ key, direction });
        });
        el.append(button);
      } else {
        el.textContent = label;
      }
      return el;
    };
    this.head.replaceChildren(
      cell('', undefined, W.select),
      cell('★', undefined, W.star, 'star'),
      cell('step', 'step', W.step, 'num'),
      cell('id', undefined, W.id),
      ...this.metrics.map((m) => cell(m, m, W.metric, 'num')),
      cell('', undefined, W.actions),
    );
    this.head.style.width = `${this.width()}px`;
  }

  private resort(): void {
    const s = this.series!;
    const n = s.length;
    const order = Array.from({ length: n }, (_, i) => i);
    const { key, direction } = this.sort;
    const sign = direction === 'asc' ? 1 : -1;
    if (key === 'step') {
      if (direction === 'desc') order.reverse();
    } else {
      const col = s.columns.get(key);
      order.sort((a, b) => {
        const va = col?.[a] ?? null;
        const vb = col?.[b] ?? null;
        if (va === null || vb === null) return va === vb ? a - b : va === null ? 1 : -1;
        return va === vb ? s.steps[a]! - s.steps[b]! : (va - vb) * sign;
      });
    }
    this.order = order;
    this.sortedFor = n;
  }

  private paint(): void {
    const s = this.series;
    if (!s) return;
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(this.order.length, Math.ceil((this.scroller.scrollTop + (this.scroller.clientHeight || 400)) / ROW) + OVERSCAN);
    for (const [pos, el] of this.rows) {
      if (pos < first || pos >= last) {
        el.remove();
        this.rows.delete(pos);
      }
    }
    for (let pos = first; pos < last; pos++) {
      if (this.rows.has(pos)) continue;
      const el = this.row(this.order[pos]!, pos);
      this.rows.set(pos, el);
      this.body.append(el);
    }
  }

  private row(i: number, pos: number): HTMLElement {
    const s = this.series!;
    const id = s.ids[i]!;
    const selected = this.selected.includes(id);
    const best = id === this.bestId;
    const latest = id === this.latestId;
    const el = h('div', { class: `row${selected ? ' selected' : ''}${best ? ' best' : ''}${latest ? ' latest' : ''}`, role: 'row', 'aria-selected': String(selected), 'data-id': id, 'data-step': s.steps[i]! });
    el.style.top = `${pos * ROW}px`;
    el.style.width = `${this.width()}px`;
    const cell = (width: number, cls: string, content?: Node | string) => {
      const c = h('div', { class: `cell ${cls}`, role: 'gridcell' }, content);
      c.style.width = `${width}px`;
      return c;
    };
    const box = h('input', { type: 'checkbox', 'aria-label': `Select step ${s.steps[i]}` });
    box.checked = selected;
    box.addEventListener('click', (e) => e.stopPropagation());
    box.addEventListener('change', () => this.toggle(id));
    const copy = (what: 'id' | 'step', label: string) => {
      const b = h('button', { type: 'button', class: 'link', text: label, title: `${label} of step ${s.steps[i]}` });
      b.addEventListener('click', (e) => {
        e.stopPropagation();
        this.events.onCopy(what, id);
      });
      return b;
    };
    el.append(
      cell(W.select, 'select', box),
      cell(W.star, 'star', best ? h('span', { class: 'best-mark', title: latest ? 'Best and latest' : 'Best checkpoint', text: '★' }) : latest ? h('span', { class: 'latest-mark', title: 'Latest step', text: '●' }) : ''),
      cell(W.step, 'num step', String(s.steps[i])),
      cell(W.id, 'id', h('span', { title: id, text: id.length > 13 ? `${id.slice(0, 8)}…` : id })),
      ...this.metrics.map((m) => {
        return cell(W.metric, 'num', this.format(m)(s.value(m, i)));
      }),
      cell(W.actions, 'actions', h('span', {}, copy('id', 'Copy id'), copy('step', 'Copy step'))),
    );
    el.addEventListener('click', () => this.toggle(id));
    return el;
  }

  private format(metric: string): (v: number | null) => string {
    let f = this.formats.get(metric);
    if (!f) this.formats.set(metric, (f = columnFormatter(this.series?.columns.get(metric) ?? [])));
    return f;
  }

  private toggle(id: string): void {
    const next = this.selected.includes(id) ? this.selected.filter((x) => x !== id) : [...this.selected, id].slice(-2);
    this.events.onSelect(next);
  }
}
