/**
 * Marks each occurrence of the search query in a message (case-insensitive, as the search matches):
 * text nodes are split and the matches wrapped in `<mark>` elements built from text, never HTML.
 */
export function highlight(root: HTMLElement, query: string): HTMLElement | undefined {
  const q = query.trim().toLowerCase();
  if (!q) return undefined;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement?.closest('mark.search-hit')) continue;
    if ((n.nodeValue ?? '').toLowerCase().includes(q)) nodes.push(n as Text);
  }
  let first: HTMLElement | undefined;
  for (const node of nodes) {
    const text = node.nodeValue ?? '';
    const lower = text.toLowerCase();
    const out = document.createDocumentFragment();
    let at = 0;
    for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, i + q.length)) {
      if (i > at) out.append(document.createTextNode(text.slice(at, i)));
      const mark = document.createElement('mark');
      mark.className = 'search-hit';
      mark.textContent = text.slice(i, i + q.length);
      out.append(mark);
      first ??= mark;
      at = i + q.length;
    }
    if (at < text.length) out.append(document.createTextNode(text.slice(at)));
    node.replaceWith(out);
  }
  return first;
}
