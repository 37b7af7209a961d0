/**
 * A tiny element builder: text goes in as text nodes, never as HTML, so nothing from a file can
 * become markup. The one exception is sanitized markdown (markdown.ts), set explicitly.
 */
type Child = Node | string | number | false | null | undefined;
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: (Child | Child[])[]): void {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Numbers for people: up to 4 significant digits, integers whole, `—` for none. */
export function fmt(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  if (Number.isInteger(n)) return n.toLocaleString('en-US');
  const a = Math.abs(n);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? n.toExponential(2) : String(Number(n.toPrecision(4)));
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

export function bytes(n: number): string {
  if (n >= 1024 * 1024 * 1024) return `${(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 * 1024) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
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
