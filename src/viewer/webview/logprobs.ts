/**
 * The Logprobs panel (the toolbar's toggle and the key l): across the file, a histogram of the
 * sampled tokens' logprobs and one of each turn's mean logprob (SVG, theme colours only), and the
 * turns with the least likely tokens, each a button that opens its turn's token view (group,
 * trajectory, the strip shown). The extension computes the counts as it indexes the file and
 * answers 'logprobs'; the panel asks when opened, and again when the file changed.
 */
import type { LogprobPanel, ToWebview } from '../protocol';
import { h } from '../../webview/dom';
import { fmt } from './dom';
import { selectGroup } from './groups';
import { logprobsButton, logprobsPane } from './layout';
import { page, save, send, state } from './state';
import { report } from './trajectories';

const SVG = 'http://www.w3.org/2000/svg';
const W = 360;
const H = 90;

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The label of bin k: "< -20", "-20 … -10", "≥ -0.01". */
function binLabel(edges: readonly number[], k: number): string {
  if (k === 0) return `< ${fmt(edges[0])}`;
  if (k === edges.length) return `≥ ${fmt(edges[k - 1])}`;
  return `${fmt(edges[k - 1])} … ${fmt(edges[k])}`;
}

/** One histogram: a bar per bin (its count in its tooltip and data-count), the edges under it. */
function histogram(title: string, unit: string, edges: readonly number[], bins: readonly number[], kind: string): HTMLElement {
  const max = Math.max(1, ...bins);
  const total = bins.reduce((a, b) => a + b, 0);
  const bw = W / bins.length;
  const chart = svg('svg', { class: `hist hist-${kind}`, viewBox: `0 0 ${W} ${H + 14}`, role: 'img', 'aria-label': `${title}: ${bins.map((n, k) => `${binLabel(edges, k)}: ${n}`).join('; ')}` });
  bins.forEach((n, k) => {
    const bh = n ? Math.max(1, (n / max) * H) : 0;
    const bar = svg('rect', { class: 'hist-bar', x: k * bw + 1, y: H - bh, width: bw - 2, height: bh, 'data-count': n });
    const tip = svg('title', {});
    tip.textContent = `${binLabel(edges, k)}: ${n.toLocaleString('en-US')} ${unit}${total ? ` (${fmt((100 * n) / total)}%)` : ''}`;
    bar.append(tip);
    chart.append(bar);
  });
  chart.append(svg('line', { class: 'hist-axis', x1: 0, y1: H + 0.5, x2: W, y2: H + 0.5 }));
  // Every other edge under the bars, so the labels do not run together.
  edges.forEach((e, k) => {
    if (k % 2) return;
    const t = svg('text', { class: 'hist-label', x: (k + 1) * bw, y: H + 12, 'text-anchor': 'middle' });
    t.textContent = fmt(e);
    chart.append(t);
  });
  return h('figure', { class: 'hist-fig' }, h('figcaption', {}, title), chart);
}

/** The panel's content for an answer. */
function render(p: LogprobPanel | undefined, error: string | undefined): void {
  if (!p || error) {
    logprobsPane.replaceChildren(h('p', { class: 'muted logprobs-note' }, error ?? 'No logprobs.'));
    return;
  }
  if (!p.tokens) {
    logprobsPane.replaceChildren(h('p', { class: 'muted logprobs-note' }, 'No turn of this file has logprobs: its choices carry none (ART needs them to train, docs/trainability.md).'));
    return;
  }
  const note = `${p.tokens.toLocaleString('en-US')} sampled tokens in ${p.turns.toLocaleString('en-US')} turns with logprobs${p.positive ? ` · ${p.positive.toLocaleString('en-US')} tokens with a logprob above 0 (not a probability)` : ''}`;
  const list = h(
    'ol',
    { class: 'worst-turns' },
    ...p.worst.map((w) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'link worst-turn',
            title: `Open the token view of this turn (${w.at})`,
            onclick: () => open(w),
          },
          `Group ${w.group + 1}, trajectory ${w.trajectory + 1}, ${w.history >= 0 ? `history ${w.history + 1}, ` : ''}message ${w.message + 1}`,
        ),
        h('span', { class: 'muted' }, ` lowest ${fmt(w.min)} (p ${fmt(Math.exp(w.min))}) at token ${w.minToken + 1} · mean ${fmt(w.mean)} over ${w.tokens.toLocaleString('en-US')} tokens`),
      ),
    ),
  );
  logprobsPane.replaceChildren(
    h('p', { class: 'muted logprobs-note' }, note),
    h('div', { class: 'hists' }, histogram('Logprob of each sampled token', 'tokens', p.edges, p.tokenBins, 'tokens'), histogram('Mean logprob of each turn', 'turns', p.edges, p.turnBins, 'turns')),
    h('div', { class: 'worst' }, h('h2', {}, 'Turns with the least likely tokens'), list),
  );
}

/** One click: the turn's group and trajectory, its message shown as tokens. */
function open(w: LogprobPanel['worst'][number]): void {
  page.pendingMessage = { message: w.message, history: w.history, tokens: true };
  selectGroup(w.group, true, w.trajectory);
}

export function onLogprobs(m: Extract<ToWebview, { type: 'logprobs' }>): void {
  if (!state.logprobs) return;
  render(m.panel, m.error);
  report(page.view);
}

/** Asks the extension for the file's logprobs (when the panel is open). */
export function requestLogprobs(): void {
  if (!state.logprobs) return;
  logprobsPane.replaceChildren(h('p', { class: 'muted logprobs-note' }, 'Reading the logprobs…'));
  send({ type: 'logprobs' });
}

/** Opens or closes the panel (the toolbar's toggle, the key l, a test's message). */
export function toggleLogprobs(on = !state.logprobs): void {
  state.logprobs = on;
  save();
  logprobsButton.setAttribute('aria-pressed', String(on));
  logprobsButton.classList.toggle('on', on);
  logprobsPane.hidden = !on;
  if (on) requestLogprobs();
  else report(page.view);
}

/** Presses the button of listed turn `k`, as a click does (a test's message). */
export function clickWorstTurn(k: number): void {
  logprobsPane.querySelectorAll<HTMLButtonElement>('button.worst-turn')[k]?.click();
}

logprobsButton.addEventListener('click', () => toggleLogprobs());
logprobsButton.setAttribute('aria-pressed', String(!!state.logprobs));
logprobsButton.classList.toggle('on', !!state.logprobs);
logprobsPane.hidden = !state.logprobs;
