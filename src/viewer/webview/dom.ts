/** The viewer's own pieces on top of the shared element builder (../shared/dom.ts): numbers, tables, sections. */
import { h, type Child } from '../../webview/dom';

/** Numbers for people: up to 4 significant digits, integers whole, `—` for none. */
export function fmt(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const a = Math.abs(n);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? n.toExponential(2) : String(Number(n.toPrecision(4)));
}

/** A two-column table of key/value rows, or nothing when there are none. */
export function table(caption: string, rows: [string, string][]): HTMLElement | undefined {
  if (!rows.length) return undefined;
  return h(
    'table',
    { class: 'kv' },
    h('caption', {}, caption),
    h('tbody', {}, ...rows.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v.includes('\n') ? h('pre', {}, v) : v)))),
  );
}

export function section(title: string, open: boolean, ...body: (Child | Child[])[]): HTMLDetailsElement {
  return h('details', { class: 'section', open }, h('summary', {}, title), ...body);
}
