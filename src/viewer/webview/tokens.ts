/**
 * The token view of a trainable turn: each generated token on a strip coloured by its probability,
 * its text (from the file, or decoded by the host), a hover with logprob, probability, rank and
 * the top alternatives; the turn's mean logprob, perplexity and tokens under a threshold. The
 * strip is built only when shown, CHUNK tokens at a time as it scrolls: a 32k-token turn starts
 * with CHUNK token elements, not 32k.
 */
import type { TokenStrip } from '../protocol';
import { BUCKET_EDGES, bucketOf, rankOf, stripNumbers } from '../tokenStats';
import { h } from '../../webview/dom';
import { fmt } from './dom';
import { save, state } from './state';

export const CHUNK = 400;

/** A token's text as shown on the strip: whitespace made visible. */
export function shownText(t: string | null | undefined, i: number, id: number | undefined): string {
  if (t === null || t === undefined) return id !== undefined ? `#${id}` : `@${i}`;
  if (t === '') return '∅';
  return t.replace(/\n/g, '↵').replace(/\t/g, '→');
}

const quoted = (t: string) => JSON.stringify(t);

function hover(s: TokenStrip, i: number): string {
  const lp = s.logprobs[i];
  const alts = s.top?.[i];
  const rank = rankOf(lp, alts?.map((a) => a[1]));
  const text = s.texts?.[i];
  const lines = [
    `token ${i + 1}${text !== null && text !== undefined ? ` ${quoted(text)}` : ''}${s.ids?.[i] !== undefined ? ` (id ${s.ids[i]})` : ''}`,
    typeof lp === 'number' ? `logprob ${fmt(lp)} · probability ${fmt(Math.exp(lp))}${rank !== undefined ? ` · rank ${rank}${alts && rank > alts.length ? '+' : ''}` : ''}` : 'no logprob',
  ];
  if (alts?.length) lines.push('top alternatives:', ...alts.map(([t, v]) => `  ${t.startsWith('#') ? t : quoted(t)}  ${fmt(v)} (p ${fmt(Math.exp(v))})`));
  return lines.join('\n');
}

/** The strip's colour scale: one key per bucket, labelled with its probabilities. */
function scale(): HTMLElement {
  const labels = BUCKET_EDGES.map((e, i) => (i === 0 ? `p < ${e}` : `${BUCKET_EDGES[i - 1]}–${e}`));
  labels.push(`≥ ${BUCKET_EDGES[BUCKET_EDGES.length - 1]}`);
  return h('span', { class: 'tok-scale', role: 'list', 'aria-label': 'Colour by probability' }, ...labels.map((l, i) => h('span', { class: `tok-key b${i}`, role: 'listitem', 'data-bucket': String(i) }, l)));
}

/** The summary line of a strip at a threshold. */
export function summaryLine(s: TokenStrip, threshold: number): string {
  const n = stripNumbers(s.logprobs, threshold);
  const total = s.cut ?? s.logprobs.length;
  const parts = [`${total.toLocaleString('en-US')} token${total === 1 ? '' : 's'}`];
  if (n.meanLogprob !== undefined) parts.push(`mean logprob ${fmt(n.meanLogprob)}`, `perplexity ${fmt(n.perplexity)}`, `${n.under.toLocaleString('en-US')} under p < ${threshold}`);
  else parts.push('no logprobs');
  return parts.join(' · ');
}

/** The token view of one turn: its summary and threshold always, the strip when `show` is called. */
export function tokenView(s: TokenStrip, message: number): { el: HTMLElement; show(on: boolean): void } {
  const summary = h('span', { class: 'tok-summary' });
  const input = h('input', { class: 'num tok-threshold', type: 'number', min: '0.0001', max: '1', step: '0.01', value: String(state.threshold), 'aria-label': 'Probability threshold of an unlikely token', title: 'Tokens with a probability under this count as unlikely' });
  const update = () => {
    summary.textContent = summaryLine(s, state.threshold);
    el.dataset.summary = summary.textContent;
  };
  input.addEventListener('change', () => {
    const v = Number(input.value);
    if (!(v > 0 && v <= 1)) return void (input.value = String(state.threshold));
    state.threshold = v;
    save();
    update();
    strip.querySelectorAll<HTMLElement>('.tok').forEach((t) => t.classList.toggle('under', Number(t.dataset.lp) < Math.log(v)));
  });
  const strip = h('div', { class: 'token-strip', role: 'group', 'aria-label': `Tokens of message ${message + 1}`, tabindex: '0' });
  const how = [s.form, s.decodedWith ? `text decoded with ${s.decodedWith}` : s.texts ? '' : 'no token text', s.cut ? `first ${s.logprobs.length.toLocaleString('en-US')} shown` : ''].filter(Boolean).join(' · ');
  const el = h(
    'div',
    { class: 'token-view', 'data-message': String(message), 'data-tokens': String(s.cut ?? s.logprobs.length) },
    h('div', { class: 'tok-head' }, summary, h('label', { class: 'muted' }, ' p < ', input), h('span', { class: 'muted tok-form' }, how), scale()),
    s.note && h('div', { class: 'muted tok-note' }, s.note),
    strip,
  );
  update();
  let shown = 0;
  const more = h('button', { class: 'show-all tok-more', type: 'button' });
  const observer = typeof IntersectionObserver === 'function' ? new IntersectionObserver((es) => es.some((e) => e.isIntersecting) && step(), { root: strip, rootMargin: '200px' }) : undefined;
  const step = () => {
    const end = Math.min(s.logprobs.length, shown + CHUNK);
    const cut = Math.log(state.threshold);
    const frag = document.createDocumentFragment();
    for (; shown < end; shown++) {
      const lp = s.logprobs[shown];
      const b = bucketOf(lp);
      const t = h('span', { class: `tok b${b < 0 ? 'n' : b}${typeof lp === 'number' && lp < cut ? ' under' : ''}`, title: hover(s, shown) }, shownText(s.texts?.[shown], shown, s.ids?.[shown]));
      if (typeof lp === 'number') t.dataset.lp = String(lp);
      frag.append(t);
    }
    strip.append(frag);
    if (shown < s.logprobs.length) {
      more.textContent = `${(s.logprobs.length - shown).toLocaleString('en-US')} more tokens`;
      strip.append(more);
    } else {
      more.remove();
      observer?.disconnect();
    }
  };
  more.addEventListener('click', () => step());
  observer?.observe(more);
  let built = false;
  return {
    el,
    show(on) {
      el.classList.toggle('open', on);
      if (on && !built) {
        built = true;
        step();
      }
    },
  };
}
