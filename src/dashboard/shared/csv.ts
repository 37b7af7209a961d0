/** CSV export of a model's checkpoints (RFC 4180). Pure, shared with the webview. */
import { orderedMetrics } from './metrics';
import type { CheckpointSeries } from './series';

/**
 * One field. Quoted when it holds a comma, quote, CR or LF, or edge spaces; quotes doubled.
 * Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading `'`:
 * ids and metric names come from training code, not from us. Numbers are written as they are.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  let text = value;
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** id, step, then every metric in group order; one line per checkpoint in step order, CRLF. */
export function toCsv(series: CheckpointSeries): string {
  const metrics = orderedMetrics(series.metricNames());
  const cols = metrics.map((m) => series.columns.get(m)!);
  const lines = [['id', 'step', ...metrics].map(csvField).join(',')];
  for (let i = 0; i < series.length; i++) {
    lines.push([csvField(series.ids[i]), csvField(series.steps[i]), ...cols.map((c) => csvField(c[i]))].join(','));
  }
  return lines.join('\r\n') + '\r\n';
}
