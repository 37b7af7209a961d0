/**
 * A trajectory as a conversation: one bubble per message, tool calls with their paired results,
 * trainable turns marked, reasoning collapsible, long content collapsed with "Show all" (never
 * cut), and the tools, metrics, metadata and logs as tables.
 */
import type { MessageView, ToolView, TrajectoryView } from '../protocol';
import { exchangeTitle, totalsText } from '../usageText';
import { plural } from '../../common/format';
import { h } from '../../webview/dom';
import { fmt, section, table } from './dom';
import { renderMarkdown } from './markdown';
import { tokenView } from './tokens';

/** Content longer than this starts collapsed. */
const COLLAPSE_CHARS = 3000;
const COLLAPSE_LINES = 40;
/** Bubbles rendered at first; more on demand. */
const FIRST_BUBBLES = 150;

export interface ConversationActions {
  /** `path`: an exchange's message, by its place in the trajectory. */
  reveal(message: number | undefined, history: number, path?: (string | number)[]): void;
  compare(): void;
  /** Follow this trajectory's scenario across the run's steps (only in a step file of a run). */
  follow?(): void;
}

function collapsedLength(text: string): number | undefined {
  if (text.length > COLLAPSE_CHARS) return COLLAPSE_CHARS;
  let lines = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) if (++lines >= COLLAPSE_LINES) return i;
  return undefined;
}

/** Text (or markdown) that starts collapsed when long, with a button that shows all of it. */
function longText(text: string, markdown: boolean, cls: string): HTMLElement {
  const box = h('div', { class: `content ${cls}` });
  const fill = (t: string) => {
    if (markdown) box.innerHTML = renderMarkdown(t); // sanitized: markdown.ts
    else box.textContent = t;
  };
  const cut = collapsedLength(text);
  if (cut === undefined) {
    fill(text);
    return box;
  }
  fill(text.slice(0, cut));
  box.classList.add('collapsed');
  const wrap = h('div', { class: 'long' }, box);
  const more = h('button', { class: 'show-all', type: 'button' }, `Show all (${(text.length - cut).toLocaleString('en-US')} more characters)`);
  more.addEventListener('click', () => {
    fill(text);
    box.classList.remove('collapsed');
    more.remove();
  });
  wrap.append(more);
  return wrap;
}

function roleLabel(m: MessageView): string {
  return m.name ? `${m.role} (${m.name})` : m.role;
}

function bubble(m: MessageView, all: MessageView[], history: number, actions: ConversationActions, idPrefix: string): HTMLElement {
  const tokens = m.tokens && tokenView(m.tokens, m.index);
  const toggle =
    tokens &&
    h('button', { class: 'tok-toggle', type: 'button', 'aria-pressed': 'false', title: 'Show this turn as its tokens, coloured by probability', onclick: () => {
      const on = toggle!.getAttribute('aria-pressed') !== 'true';
      toggle!.setAttribute('aria-pressed', String(on));
      toggle!.textContent = on ? 'Text' : 'Tokens';
      toggle!.title = on ? 'Show this turn as text' : 'Show this turn as its tokens, coloured by probability';
      toggle!.closest('.bubble')?.classList.toggle('show-tokens', on);
      tokens.show(on);
    } }, 'Tokens');
  const label = `${roleLabel(m)} message ${m.index + 1}${m.trainable ? ', trainable' : ''}${m.callName ? `, result of ${m.callName}` : ''}`;
  const head = h(
    'header',
    { class: 'bubble-head' },
    h('span', { class: 'role' }, roleLabel(m)),
    m.trainable && h('span', { class: 'badge trainable', title: 'A choice: the model is trained on this turn' }, 'trainable'),
    m.finishReason && h('span', { class: 'meta' }, `finish: ${m.finishReason}`),
    m.role === 'tool' &&
      (m.callIndex !== undefined
        ? h('a', { class: 'pair-link', href: `#${idPrefix}${m.callIndex}`, title: 'Go to the call' }, `← result of ${m.callName ?? 'call'}${m.toolCallId ? ` (${m.toolCallId})` : ''}, called in message ${m.callIndex + 1}`)
        : h('span', { class: 'badge warn', title: 'No earlier tool call has this id' }, m.toolCallId ? `no call with id ${m.toolCallId}` : 'no tool_call_id')),
    h('span', { class: 'spacer' }),
    toggle,
    h('span', { class: 'meta' }, `#${m.index + 1}`),
    h('button', { class: 'icon reveal', type: 'button', title: 'Reveal in text editor', 'aria-label': `Reveal message ${m.index + 1} in the text editor`, onclick: () => actions.reveal(m.index, history, m.path) }, '↗'),
  );
  const body: (HTMLElement | undefined | false)[] = [];
  if (m.reasoning) {
    body.push(h('details', { class: 'reasoning' }, h('summary', {}, `Reasoning (${m.reasoning.length.toLocaleString('en-US')} characters)`), longText(m.reasoning, false, 'plain')));
  }
  for (const p of m.parts) {
    if (p.kind === 'text') body.push(longText(p.text, m.role === 'assistant', m.role === 'assistant' ? 'md' : 'plain'));
    else if (p.kind === 'refusal') body.push(h('div', { class: 'refusal' }, h('strong', {}, 'Refusal: '), p.text));
    else body.push(h('div', { class: 'part' }, h('span', { class: 'badge' }, p.label ?? p.kind), longText(p.text, false, 'plain mono')));
  }
  if (m.refusal) body.push(h('div', { class: 'refusal' }, h('strong', {}, 'Refusal: '), m.refusal));
  if (!m.parts.length && !m.toolCalls.length && !m.reasoning && !m.refusal) body.push(h('div', { class: 'empty' }, '(no content)'));
  m.toolCalls.forEach((c, i) => {
    const result = c.resultIndex !== undefined ? all[c.resultIndex] : undefined;
    const preview = result ? result.parts.map((p) => p.text).join('\n') : '';
    body.push(
      h(
        'div',
        { class: 'tool-call', id: `${idPrefix}${m.index}-call-${i}`, 'data-call-id': c.id ?? '' },
        h('div', { class: 'tc-head' }, h('span', { class: 'tc-arrow' }, '→'), h('span', { class: 'tc-name' }, c.name), c.id && h('code', { class: 'tc-id' }, c.id), c.legacy && h('span', { class: 'badge' }, 'function_call')),
        longText(c.arguments, false, 'plain mono args'),
        result
          ? h(
              'div',
              { class: 'tc-result', 'data-result-index': String(result.index) },
              h('a', { class: 'pair-link', href: `#${idPrefix}${result.index}` }, `↳ result in message ${result.index + 1}`),
              h('div', { class: 'tc-preview' }, preview.length > 300 ? `${preview.slice(0, 300)}…` : preview || '(empty)'),
            )
          : h('div', { class: 'tc-result missing' }, h('span', { class: 'badge warn' }, 'no result'), ' no tool message answers this call'),
      ),
    );
  });
  if (tokens) body.push(tokens.el);
  if (m.extras.length) body.push(h('details', { class: 'extras' }, h('summary', {}, `Details (${m.extras.length})`), table('Other fields', m.extras)));
  return h('article', { class: `bubble role-${m.role.replace(/[^\w-]/g, '')}${m.trainable ? ' trainable' : ''}`, id: `${idPrefix}${m.index}`, 'aria-label': label, 'data-index': String(m.index), 'data-role': m.role }, head, ...body.filter((b): b is HTMLElement => !!b));
}

/** Bubbles of a conversation, the first FIRST_BUBBLES at once and the rest on demand; `all` holds paired results. */
function bubbles(messages: MessageView[], history: number, actions: ConversationActions, idPrefix: string, all = messages): HTMLElement {
  const list = h('div', { class: 'bubbles', role: 'list' });
  let shown = 0;
  const more = h('button', { class: 'show-all', type: 'button' });
  const step = () => {
    const next = Math.min(messages.length, shown + FIRST_BUBBLES);
    for (; shown < next; shown++) list.append(bubble(messages[shown]!, all, history, actions, idPrefix));
    if (shown < messages.length) {
      more.textContent = `Show ${Math.min(FIRST_BUBBLES, messages.length - shown)} more messages (${messages.length - shown} left)`;
      list.append(more);
    } else more.remove();
  };
  more.addEventListener('click', () => {
    more.remove();
    step();
  });
  step();
  return list;
}

/** Renders all remaining bubbles (before jumping to a message far down). */
export function showAllBubbles(root: HTMLElement): void {
  for (let b = root.querySelector<HTMLButtonElement>('.bubbles > button.show-all'); b; b = root.querySelector<HTMLButtonElement>('.bubbles > button.show-all')) b.click();
}

function toolsTable(tools: ToolView[]): HTMLElement | undefined {
  if (!tools.length) return undefined;
  return h(
    'table',
    { class: 'tools' },
    h('caption', {}, plural(tools.length, 'tool')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'name'), h('th', { scope: 'col' }, 'description'), h('th', { scope: 'col' }, 'parameters'))),
    h('tbody', {}, ...tools.map((t) => h('tr', {}, h('td', {}, h('code', {}, t.name)), h('td', {}, t.description), h('td', {}, t.parameters ? h('details', {}, h('summary', {}, 'schema'), h('pre', {}, t.parameters)) : '')))),
  );
}

export function renderTrajectory(v: TrajectoryView, total: number, actions: ConversationActions): HTMLElement {
  const s = v.summary;
  const reward = s.reward === null ? `invalid (${s.rewardText ?? '?'})` : `${fmt(s.reward)}${s.rewardMissing ? ' (not set: 0)' : ''}`;
  const head = h(
    'header',
    { class: 'traj-head' },
    h('h2', { id: 'traj-title' }, `Trajectory ${v.index + 1} of ${total}`, h('span', { class: 'reward' }, ` · reward ${reward}`)),
    h('div', { class: 'traj-meta' }, `${plural(s.messages, 'message')} · ${plural(s.choices, 'trainable turn')} · ${plural(s.toolCalls, 'tool call')}`),
    s.totals && h('div', { class: 'traj-meta totals' }, totalsText(s.totals)),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', class: 'reveal-text', onclick: () => actions.reveal(undefined, -1) }, 'Reveal in text editor'),
      h('button', { type: 'button', onclick: () => actions.compare() }, 'Compare with…'),
      actions.follow && h('button', { type: 'button', class: 'follow-scenario', title: "This trajectory's scenario (metadata.scenario_id, else its first user message) at every step of the run", onclick: () => actions.follow!() }, 'Follow scenario across steps'),
    ),
  );
  const infoTables = [table('Trajectory', v.info), table('Metrics', v.metrics), table('Metadata', v.metadata)].filter((x): x is HTMLElement => !!x);
  return h(
    'div',
    { class: 'trajectory' },
    head,
    infoTables.length ? h('div', { class: 'tables' }, ...infoTables) : undefined,
    v.tools.length ? section(`Tools (${v.tools.length})`, false, toolsTable(v.tools)) : undefined,
    ...(v.exchanges ? exchangeSections(v, actions) : [bubbles(v.messages, -1, actions, 'm-')]),
    ...v.histories.map((hist, i) =>
      section(`Additional history ${i + 1} (${plural(hist.messages.length, 'message')})`, false, toolsTable(hist.tools), bubbles(hist.messages, i, actions, `h${i}-m-`)),
    ),
    v.logs.length ? section(`Logs (${v.logs.length})`, false, h('pre', { class: 'logs' }, v.logs.join('\n'))) : undefined,
  );
}

/** An exchange trajectory: each captured request under its model, duration and token usage. */
function exchangeSections(v: TrajectoryView, actions: ConversationActions): HTMLElement[] {
  return (v.exchanges ?? []).map((x, i) =>
    h(
      'section',
      { class: 'exchange', 'aria-label': exchangeTitle(x, i), 'data-kind': x.kind },
      h('h3', { class: 'exchange-head' }, exchangeTitle(x, i)),
      x.startTime && h('div', { class: 'muted exchange-time' }, `started ${x.startTime}`),
      x.skipped > 0 && h('div', { class: 'muted skipped' }, `${plural(x.skipped, 'earlier message')} of the request not repeated (shown above)`),
      bubbles(v.messages.slice(x.start, x.end), -1, actions, 'm-', v.messages),
    ),
  );
}
