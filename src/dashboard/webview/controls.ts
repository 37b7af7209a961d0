/** The metric picker, the best-checkpoint choice and the smoothing slider. */
import { groupMetrics, guessDirection, type Direction } from '../shared/metrics';
import { MAX_SMOOTHING } from '../shared/protocol';
import { h } from '../../webview/dom';

export interface ControlEvents {
  onMetrics(metrics: string[]): void;
  onBest(metric: string, direction: Direction): void;
  onSmoothing(value: number): void;
  onResetZoom(): void;
}

export class Controls {
  private readonly picker: HTMLDetailsElement;
  private readonly pickerBody: HTMLElement;
  private readonly summary: HTMLElement;
  private readonly bestMetric: HTMLSelectElement;
  private readonly bestDirection: HTMLSelectElement;
  private readonly smoothing: HTMLInputElement;
  private readonly smoothingOut: HTMLOutputElement;
  private names = '';
  private shown: string[] = [];

  constructor(root: HTMLElement, private readonly events: ControlEvents) {
    this.summary = h('summary', { text: 'Metrics' });
    this.pickerBody = h('div', { class: 'picker-body' });
    this.picker = h('details', { class: 'picker' }, this.summary, this.pickerBody);
    this.bestMetric = h('select', { 'aria-label': 'Metric of the best checkpoint' });
    this.bestDirection = h('select', { 'aria-label': 'Direction of the best checkpoint' }, h('option', { value: 'max', text: 'highest' }), h('option', { value: 'min', text: 'lowest' }));
    const changed = () => this.events.onBest(this.bestMetric.value, this.bestDirection.value as Direction);
    this.bestMetric.addEventListener('change', () => {
      // A new metric gets its usual direction; the user can still flip it.
      this.bestDirection.value = guessDirection(this.bestMetric.value);
      changed();
    });
    this.bestDirection.addEventListener('change', changed);
    this.smoothing = h('input', { type: 'range', min: 0, max: MAX_SMOOTHING, step: 0.01, value: 0, 'aria-label': 'Smoothing' });
    this.smoothingOut = h('output', { text: 'off' });
    this.smoothing.addEventListener('input', () => {
      const v = Number(this.smoothing.value);
      this.smoothingOut.textContent = v > 0 ? v.toFixed(2) : 'off';
      this.events.onSmoothing(v);
    });
    const reset = h('button', { type: 'button', class: 'secondary', text: 'Reset zoom', title: 'Or double-click a chart' });
    reset.addEventListener('click', () => this.events.onResetZoom());
    root.append(
      this.picker,
      h('label', { class: 'control' }, h('span', { text: '★ Best by' }), this.bestMetric, this.bestDirection),
      h('label', { class: 'control' }, h('span', { text: 'Smoothing' }), this.smoothing, this.smoothingOut),
      reset,
    );
  }

  /** Shows the metrics there are, which have charts, and the best choice. */
  update(names: string[], shown: string[], best: { metric: string | undefined; direction: Direction }, smoothing: number): void {
    const key = names.join('\n');
    const shownKey = shown.join('\n');
    if (key !== this.names || shownKey !== this.shown.join('\n')) {
      this.names = key;
      this.shown = shown;
      this.buildPicker(names, new Set(shown));
      this.bestMetric.replaceChildren(
        ...(best.metric && !names.includes(best.metric) ? [best.metric, ...names] : names).map((n) => h('option', { value: n, text: n })),
      );
    }
    this.summary.textContent = `Metrics (${shown.length} of ${names.length})`;
    if (best.metric) this.bestMetric.value = best.metric;
    this.bestDirection.value = best.direction;
    if (document.activeElement !== this.smoothing) {
      this.smoothing.value = String(smoothing);
      this.smoothingOut.textContent = smoothing > 0 ? smoothing.toFixed(2) : 'off';
    }
  }

  private buildPicker(names: string[], shown: Set<string>): void {
    const emit = () => {
      const picked = [...this.pickerBody.querySelectorAll<HTMLInputElement>('input[data-metric]')].filter((i) => i.checked).map((i) => i.dataset.metric!);
      this.events.onMetrics(picked);
    };
    const groups = groupMetrics(names).map((g) => {
      const boxes = g.metrics.map((m) => {
        const box = h('input', { type: 'checkbox', 'data-metric': m });
        box.checked = shown.has(m);
        box.addEventListener('change', emit);
        return h('label', { class: 'metric', title: m }, box, h('span', { text: m }));
      });
      const all = h('button', { type: 'button', class: 'link', text: 'all' });
      const none = h('button', { type: 'button', class: 'link', text: 'none' });
      const set = (on: boolean) => {
        for (const l of boxes) (l.querySelector('input') as HTMLInputElement).checked = on;
        emit();
      };
      all.addEventListener('click', () => set(true));
      none.addEventListener('click', () => set(false));
      return h('fieldset', { class: 'group' }, h('legend', {}, h('span', { text: g.label }), all, none), ...boxes);
    });
    this.pickerBody.replaceChildren(...groups);
  }
}
