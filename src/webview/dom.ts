/**
 * The one element builder of every webview: text goes in as text nodes, never as HTML, so nothing
 * from a file or the service can become markup (the viewer's sanitized markdown is set explicitly).
 * Attributes: `class`, `text` (the element's text), `on<event>` handlers, `true` for a bare
 * attribute; `undefined` and `false` leave one out.
 */
export type Child = Node | string | number | false | null | undefined;
export type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

// eslint-disable-next-line svc/null-prototype-records -- attribute names are written in the code, and only iterated here
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'class') el.className = String(v);
    else if (k === 'text') el.textContent = String(v);
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
