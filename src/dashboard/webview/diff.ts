/** The diff of two selected checkpoints: value, Δ (later − earlier) and %, per metric. */
import { formatMetric } from '../../common/format';
import { diffRows, knownDirection, orderPair } from '../shared/metrics';
import type { CheckpointSeries } from '../shared/series';
import { h } from '../../webview/dom';

function signed(v: number): string {
  const text = formatMetric(v);
  return v > 0 ? `+${text}` : text;
}

export function renderDiff(root: HTMLElement, series: CheckpointSeries, selected: string[], metrics: string[]): void {
  const rows = selected.map((id) => series.indexOf(id)).filter((i) => i >= 0);
  if (rows.length !== 2) {
    root.hidden = false;
    root.replaceChildren(h('p', { class: 'hint', text: rows.length === 1 ? 'Select one more checkpoint to compare.' : 'Select two checkpoints in the table to compare their metrics.' }));
    return;
  }
  const [a, b] = orderPair(series, rows[0]!, rows[1]!);
  const head = h('tr', {}, ...['metric', `step ${series.steps[a]}`, `step ${series.steps[b]}`, 'Δ', '%'].map((t) => h('th', { scope: 'col', text: t })));
  const body = diffRows(series, a, b, metrics).map((r) => {
    // Green for better, red for worse, only where the name says which way is better.
    const direction = knownDirection(r.metric);
    const better = !direction || r.delta === null || r.delta === 0 ? '' : (r.delta > 0) === (direction === 'max') ? 'up' : 'down';
    return h(
      'tr',
      { 'data-metric': r.metric },
      h('th', { scope: 'row', text: r.metric, title: r.metric }),
      h('td', { class: 'num', text: r.a === null ? '' : formatMetric(r.a) }),
      h('td', { class: 'num', text: r.b === null ? '' : formatMetric(r.b) }),
      h('td', { class: `num delta ${better}`, 'data-delta': r.delta === null ? undefined : String(r.delta), text: r.delta === null ? '' : signed(r.delta) }),
      h('td', { class: `num ${better}`, text: r.percent === null ? '' : `${signed(Number(r.percent.toFixed(2)))}%` }),
    );
  });
  root.hidden = false;
  root.replaceChildren(
    h('h2', { text: `Diff: step ${series.steps[a]} → step ${series.steps[b]}` }),
    h('table', { class: 'diff-table' }, h('thead', {}, head), h('tbody', {}, ...body)),
  );
}
