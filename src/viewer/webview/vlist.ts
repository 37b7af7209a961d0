/**
 * A virtualized list box: only the rows in view (plus a few) exist in the DOM, so 100,000 groups
 * cost what 30 do. Rows have a fixed height. Keyboard: Up/Down/Home/End/PageUp/PageDown move, Enter
 * or Space activates; the selected row is announced through aria-activedescendant.
 */
export interface VirtualListOptions {
  label: string;
  rowHeight: number;
  /** Fills `row` (already positioned and emptied) for item `i`. */
  render(i: number, row: HTMLElement): void;
  /** The accessible name of item `i`. */
  describe(i: number): string;
  onSelect(i: number): void;
  /** The visible window changed (for loading rows on demand). */
  onWindow?(first: number, last: number): void;
}

export class VirtualList {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private count = 0;
  selected = -1;
  private readonly rows = new Map<number, HTMLElement>();
  private frame = 0;

  constructor(
    private readonly id: string,
    private readonly opts: VirtualListOptions,
  ) {
    this.element = document.createElement('div');
    this.element.className = 'vlist';
    this.element.id = id;
    this.element.tabIndex = 0;
    this.element.setAttribute('role', 'listbox');
    this.element.setAttribute('aria-label', opts.label);
    this.spacer = document.createElement('div');
    this.spacer.className = 'vlist-spacer';
    this.element.append(this.spacer);
    this.element.addEventListener('scroll', () => this.schedule());
    this.element.addEventListener('keydown', (e) => this.onKey(e));
    new ResizeObserver(() => this.schedule()).observe(this.element);
  }

  setLabel(label: string): void {
    this.element.setAttribute('aria-label', label);
  }

  setCount(n: number): void {
    this.count = n;
    this.spacer.style.height = `${n * this.opts.rowHeight}px`;
    this.element.setAttribute('aria-setsize', String(n));
    for (const [i, row] of this.rows) {
      if (i >= n) {
        row.remove();
        this.rows.delete(i);
      }
    }
    this.schedule();
  }

  get size(): number {
    return this.count;
  }

  /** Re-renders the rows in view (their data arrived or changed). */
  refresh(): void {
    for (const row of this.rows.values()) row.remove();
    this.rows.clear();
    this.draw();
  }

  select(i: number, focus = false): void {
    if (i < 0 || i >= this.count) return;
    this.selected = i;
    this.reveal(i);
    this.refreshSelection();
    if (focus) this.element.focus();
  }

  /** Scrolls item `i` into view. */
  reveal(i: number): void {
    const top = i * this.opts.rowHeight;
    const el = this.element;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + this.opts.rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + this.opts.rowHeight - el.clientHeight;
    this.draw();
  }

  get scrollTop(): number {
    return this.element.scrollTop;
  }

  set scrollTop(v: number) {
    this.element.scrollTop = v;
    this.draw();
  }

  private refreshSelection(): void {
    for (const [i, row] of this.rows) {
      row.classList.toggle('selected', i === this.selected);
      row.setAttribute('aria-selected', String(i === this.selected));
    }
    if (this.selected >= 0) this.element.setAttribute('aria-activedescendant', `${this.id}-${this.selected}`);
    else this.element.removeAttribute('aria-activedescendant');
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private draw(): void {
    const h = this.opts.rowHeight;
    const first = Math.max(0, Math.floor(this.element.scrollTop / h) - 5);
    const last = Math.min(this.count - 1, Math.ceil((this.element.scrollTop + (this.element.clientHeight || 600)) / h) + 5);
    for (const [i, row] of this.rows) {
      if (i < first || i > last) {
        row.remove();
        this.rows.delete(i);
      }
    }
    for (let i = first; i <= last; i++) {
      if (this.rows.has(i)) continue;
      const row = document.createElement('div');
      row.className = 'vrow';
      row.id = `${this.id}-${i}`;
      row.setAttribute('role', 'option');
      row.setAttribute('aria-posinset', String(i + 1));
      row.style.top = `${i * h}px`;
      row.style.height = `${h}px`;
      row.addEventListener('click', () => {
        this.select(i);
        this.opts.onSelect(i);
      });
      this.opts.render(i, row);
      row.setAttribute('aria-label', this.opts.describe(i));
      this.spacer.append(row);
      this.rows.set(i, row);
    }
    this.refreshSelection();
    if (this.count > 0) this.opts.onWindow?.(first, last);
  }

  private onKey(e: KeyboardEvent): void {
    const page = Math.max(1, Math.floor(this.element.clientHeight / this.opts.rowHeight) - 1);
    const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    let next: number | undefined;
    if (e.key in moves) next = Math.min(this.count - 1, Math.max(0, (this.selected < 0 ? 0 : this.selected) + moves[e.key]!));
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = this.count - 1;
    else if ((e.key === 'Enter' || e.key === ' ') && this.selected >= 0) next = this.selected;
    if (next === undefined || this.count === 0) return;
    e.preventDefault();
    e.stopPropagation();
    this.select(next);
    this.opts.onSelect(next);
  }
}
