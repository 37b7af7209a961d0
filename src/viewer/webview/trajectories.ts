/** The selected group's trajectories (sorted and filtered here) and the selected one as a conversation. */
import { plural } from '../../common/format';
import type { GroupDetail, TrajectorySummary, TrajectoryView } from '../protocol';
import { h } from '../../webview/dom';
import { renderTrajectory, showAllBubbles } from './conversation';
import { fmt } from './dom';
import { highlight } from './highlight';
import { conversation, dirButton, logprobsPane, maxInput, minInput } from './layout';
import { page, save, send, state } from './state';
import { VirtualList } from './vlist';

export const trajList = new VirtualList('trajectories', {
  label: 'Trajectories',
  rowHeight: 40,
  render: (i, row) => renderTrajRow(i, row),
  describe: (i) => describeTraj(i),
  onSelect: (i) => selectTrajectory(page.visible[i]!.index),
});

export function applyOrder(keepSelection = true): void {
  if (!page.detail) return;
  const key = state.sort;
  const value = (t: TrajectorySummary): number | undefined => (key === 'index' ? t.index : key === 'reward' ? (t.reward ?? undefined) : t.metrics[key.slice(7)]);
  const sign = state.dir === 'asc' ? 1 : -1;
  page.visible = page.detail.trajectories
    .filter((t) => (state.min === undefined || (t.reward !== null && t.reward >= state.min)) && (state.max === undefined || (t.reward !== null && t.reward <= state.max)))
    .filter((t) => !state.untrained || !t.verdict?.trains)
    .map((t) => ({ t, v: value(t) }))
    .sort((a, b) => (a.v === undefined || b.v === undefined ? (a.v === b.v ? a.t.index - b.t.index : a.v === undefined ? 1 : -1) : a.v === b.v ? a.t.index - b.t.index : (a.v - b.v) * sign))
    .map((x) => x.t);
  dirButton.textContent = state.dir === 'asc' ? '↑' : '↓';
  dirButton.title = state.dir === 'asc' ? 'Ascending' : 'Descending';
  trajList.setLabel(`Trajectories of group ${page.detail.row.index + 1}: ${page.visible.length} of ${page.detail.trajectories.length} shown`);
  trajList.setCount(page.visible.length);
  trajList.refresh();
  const at = page.visible.findIndex((t) => t.index === state.trajectory);
  if (keepSelection && at >= 0) {
    trajList.select(at);
    if (!page.view || page.view.index !== state.trajectory) send({ type: 'trajectory', group: state.group, index: state.trajectory });
  } else if (page.visible.length) {
    selectTrajectory(page.visible[0]!.index);
  } else {
    page.view = undefined;
    conversation.replaceChildren(...emptyPane(page.detail));
    report(undefined);
  }
  save();
}

/**
 * The main pane when no trajectory is shown. A group of only exceptions (every rollout raised)
 * shows them here, open: type, message and traceback, as text.
 */
function emptyPane(d: GroupDetail): HTMLElement[] {
  if (d.trajectories.length) return [h('p', { class: 'empty' }, state.untrained ? 'No trajectory matches the filters: ART trains on every trajectory here in the reward range.' : 'No trajectory matches the reward filter.')];
  if (!d.exceptions.length) return [h('p', { class: 'empty' }, 'This group has no trajectories.')];
  return [
    h(
      'div',
      { class: 'group-exceptions', role: 'region', 'aria-label': `Exceptions of group ${d.row.index + 1}` },
      h('p', { class: 'muted' }, `This group has no trajectories: ${d.exceptions.length === 1 ? 'its rollout raised an exception' : `its rollouts raised ${plural(d.exceptions.length, 'exception')}`}.`),
      ...d.exceptions.map((x, i) =>
        h(
          'section',
          { class: 'exception-card', 'aria-label': `Exception ${i + 1}` },
          h('h3', {}, h('span', { class: 'exception-type' }, x.type), ': ', h('span', { class: 'exception-message' }, x.message)),
          h('pre', { class: 'traceback' }, x.traceback || '(no traceback)'),
        ),
      ),
    ),
  ];
}

export function renderTrajRow(i: number, row: HTMLElement): void {
  const t = page.visible[i];
  if (!t) return;
  const lo = page.progress?.rewardMin ?? 0;
  const hi = page.progress?.rewardMax ?? 1;
  const bar = h('span', { class: 'bar-fill' });
  bar.style.width = `${t.reward === null ? 0 : hi > lo ? ((t.reward - lo) / (hi - lo)) * 100 : 50}%`;
  const metric = state.sort.startsWith('metric:') ? state.sort.slice(7) : undefined;
  row.append(
    h('span', { class: 't-index' }, `#${t.index + 1}`),
    h('span', { class: 't-reward' }, t.reward === null ? 'invalid' : fmt(t.reward)),
    h('span', { class: 'reward-bar', 'aria-hidden': 'true' }, bar),
    h('span', { class: 't-meta muted' }, metric ? `${metric} ${fmt(t.metrics[metric])}` : `${t.messages} msgs${t.toolCalls ? ` · ${plural(t.toolCalls, 'call')}` : ''}`),
    ...(t.verdict ? [h('span', { class: `badge t-verdict ${VERDICT_CLASS[t.verdict.severity]}`, title: t.verdict.tooltip }, t.verdict.label)] : []),
  );
}

const VERDICT_CLASS = { train: 'trains', note: 'trains note', skip: 'warn', error: 'error' } as const;

export function describeTraj(i: number): string {
  const t = page.visible[i];
  if (!t) return '';
  return `Trajectory ${t.index + 1}, reward ${t.reward === null ? 'invalid' : fmt(t.reward)}, ${plural(t.messages, 'message')}${t.verdict ? `, ${t.verdict.trains ? 'ART trains on it' : `ART does not train on it: ${t.verdict.label}`}` : ''}`;
}

export function selectTrajectory(index: number): void {
  state.trajectory = index;
  const at = page.visible.findIndex((t) => t.index === index);
  if (at >= 0) trajList.select(at);
  send({ type: 'trajectory', group: state.group, index });
  save();
}

export function onTrajectory(v: TrajectoryView | undefined, error: string | undefined): void {
  if (!v) {
    conversation.replaceChildren(h('div', { class: 'banner error' }, error ?? 'This trajectory cannot be shown'));
    return;
  }
  // The first trajectory comes unasked with the first group: take it when nothing is chosen yet,
  // and render an answer only once (a request may cross the unasked copy).
  if (state.trajectory < 0 && page.detail && v.group === page.detail.row.index) state.trajectory = v.index;
  if (v.index !== state.trajectory) return;
  if (page.view && page.view.group === v.group && page.view.index === v.index && !page.pendingMessage) return;
  page.view = v;
  conversation.replaceChildren(
    renderTrajectory(v, page.detail?.trajectories.length ?? 0, {
      reveal: (message, history, path) => send({ type: 'reveal', group: v.group, trajectory: v.index, message, history, path }),
      compare: () => send({ type: 'compare', group: v.group, trajectory: v.index }),
      ...(document.body.dataset.run === 'step' ? { follow: () => send({ type: 'followScenario', group: v.group, trajectory: v.index }) } : {}),
    }),
  );
  if (page.pendingMessage) {
    const { message, history, query: pendingQuery, tokens } = page.pendingMessage;
    page.pendingMessage = undefined;
    if (history >= 0) conversation.querySelectorAll('details.section').forEach((d) => ((d as HTMLDetailsElement).open = true));
    showAllBubbles(conversation);
    const el = document.getElementById(history >= 0 ? `h${history}-m-${message}` : `m-${message}`);
    el?.classList.add('hit');
    const toggle = el?.querySelector<HTMLButtonElement>(':scope > .bubble-head > .tok-toggle');
    if (toggle && tokens !== undefined && (toggle.getAttribute('aria-pressed') === 'true') !== tokens) toggle.click();
    const mark = el && pendingQuery ? highlight(el, pendingQuery) : undefined;
    (mark ?? el)?.scrollIntoView({ block: 'center' });
  } else {
    // A newly selected trajectory opens at its top; only the one shown before the tab hid keeps its place.
    const restore = page.restoreScroll && page.restoreScroll.group === v.group && page.restoreScroll.trajectory === v.index ? page.restoreScroll.top : 0;
    conversation.scrollTop = restore;
    state.convScroll = restore;
    save();
  }
  page.restoreScroll = undefined;
  report(v);
}

/** What the panel shows, for the 'rendered' report. */
function logprobsReport(): { tokenBins: number[]; turnBins: number[]; turns: string[]; note: string } | undefined {
  if (!state.logprobs) return undefined;
  const counts = (kind: string) => [...logprobsPane.querySelectorAll(`svg.hist-${kind} rect.hist-bar`)].map((r) => Number(r.getAttribute('data-count')));
  return {
    tokenBins: counts('tokens'),
    turnBins: counts('turns'),
    turns: [...logprobsPane.querySelectorAll('.worst-turns li')].map((li) => li.textContent ?? ''),
    note: logprobsPane.querySelector('.logprobs-note')?.textContent ?? '',
  };
}

/** Tells the extension what is on screen (the tests and the bench read it). */
export function report(v: TrajectoryView | undefined): void {
  const bubbles = [...conversation.querySelectorAll<HTMLElement>(':scope .trajectory > .bubbles > .bubble, :scope .trajectory > .exchange > .bubbles > .bubble')].map((b) => ({
    index: Number(b.dataset.index),
    role: b.dataset.role ?? '',
    // Enough to check what is shown; a huge message is not sent back whole.
    text: [...b.querySelectorAll<HTMLElement>(':scope > .content, :scope > .long > .content')].map((c) => c.textContent ?? '').join('\n').slice(0, 20_000),
    trainable: b.classList.contains('trainable'),
  }));
  const heads = [...conversation.querySelectorAll<HTMLElement>(':scope .trajectory > .exchange > .exchange-head')].map((e) => e.textContent ?? '');
  const totals = conversation.querySelector<HTMLElement>(':scope .traj-head .totals')?.textContent ?? undefined;
  const strips = [...conversation.querySelectorAll<HTMLElement>('.token-view')].map((t) => ({
    message: Number(t.dataset.message),
    tokens: Number(t.dataset.tokens),
    nodes: t.querySelectorAll('.tok').length,
    summary: t.dataset.summary ?? '',
    text: [...t.querySelectorAll('.tok')].slice(0, 2000).map((x) => x.textContent ?? '').join('').slice(0, 2000),
    ...(t.querySelector('.tok-note') ? { note: t.querySelector('.tok-note')!.textContent ?? '' } : {}),
  }));
  // With no trajectory on screen: what the main pane shows instead (rendered text only).
  const pane = v ? undefined : conversation.innerText.slice(0, 20_000);
  const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
  send({
    type: 'rendered',
    group: state.group,
    trajectory: v?.index,
    bubbles,
    ...(heads.length ? { exchanges: heads } : {}),
    ...(totals ? { totals } : {}),
    ...(strips.length ? { strips } : {}),
    ...(pane !== undefined ? { pane } : {}),
    groupRows: document.querySelectorAll('#groups .vrow').length,
    groupsListed: [...document.querySelectorAll<HTMLElement>('#groups .vrow')].map((r) => Number(r.dataset.group) + 1).sort((a, b) => a - b),
    groupStats: [...document.querySelectorAll<HTMLElement>('#groups .vrow')].sort((a, b) => Number(a.dataset.group) - Number(b.dataset.group)).map((r) => r.querySelector('.g-stats')?.textContent ?? ''),
    untrainedOnly: !!state.untrained,
    trainability: document.querySelector('.file-problems .trainability')?.textContent ?? undefined,
    ...(state.logprobs ? { logprobs: logprobsReport() } : {}),
    followScenario: !!conversation.querySelector('.traj-head .follow-scenario'),
    trajectoryRows: [...document.querySelectorAll<HTMLElement>('#trajectories .vrow')]
      .sort((a, b) => Number(a.getAttribute('aria-posinset')) - Number(b.getAttribute('aria-posinset')))
      .map((r) => {
        const badge = r.querySelector<HTMLElement>('.t-verdict');
        return { label: r.querySelector('.t-index')?.textContent ?? '', badge: badge?.textContent ?? '', tooltip: badge?.title ?? '' };
      }),
    liveLinks: conversation.querySelectorAll('a[href]').length,
    sinceLoadMs: performance.now(),
    scriptStartMs: page.scriptStart,
    heapBytes: memory?.usedJSHeapSize,
    domNodes: document.getElementsByTagName('*').length,
  });
}

/** Shows only the trajectories whose reward is in [min, max] (the extension opened the file at a reward band). */
export function setRewardRange(min: number | undefined, max: number | undefined): void {
  state.min = min;
  state.max = max;
  minInput.value = min === undefined ? '' : String(min);
  maxInput.value = max === undefined ? '' : String(max);
  applyOrder();
  save();
}
