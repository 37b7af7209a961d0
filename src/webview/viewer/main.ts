// Over 300 lines: the webview bundle's entry: the three panes share one state object that survives hiding the tab.
/**
 * The trajectory viewer's webview: the group list (virtualized; rows fetched as they scroll into
 * view), the selected group's trajectories (sorted and filtered here), and the selected trajectory
 * as a conversation. Every message from the extension is checked (zod) before use, and the state
 * (selection, scroll, sort, filter, search) survives hiding the tab.
 */
import * as z from 'zod/mini';
import { parseToWebview, type FromWebview, type GroupDetail, type GroupRow, type SearchHit, type ToWebview, type TrajectorySummary, type TrajectoryView } from '../../viewer/protocol';
import { renderTrajectory, showAllBubbles } from './conversation';
import { bytes, fmt, h, plural, section, table } from './dom';
import { VirtualList } from './vlist';
import { highlight } from './highlight';
import { totalsText } from '../../viewer/usageText';
import './viewer.css';

const scriptStart = performance.now();
// The CSP allows no eval: skip zod's `new Function` probe.
z.config({ jitless: true });

declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();

interface State {
  group: number;
  trajectory: number;
  sort: string;
  dir: 'asc' | 'desc';
  min?: number;
  max?: number;
  query: string;
  groupScroll: number;
  convScroll: number;
}
const saved = (vscode.getState() ?? {}) as Partial<State>;
const state: State = { group: 0, trajectory: -1, sort: 'index', dir: 'asc', query: '', groupScroll: 0, convScroll: 0, ...saved };
const save = () => vscode.setState(state);
const send = (m: FromWebview) => vscode.postMessage(m);

let version = -1;
let progress: Extract<ToWebview, { type: 'progress' }> | undefined;
const rows = new Map<number, GroupRow>();
const requested = new Set<number>();
let detail: GroupDetail | undefined;
let visible: TrajectorySummary[] = [];
let view: TrajectoryView | undefined;
let hits: SearchHit[] = [];
let hitAt = -1;
/** A message to scroll to once its trajectory is shown. */
let pendingMessage: { message: number; history: number; query?: string } | undefined;
/** The conversation's scroll is restored once, for the trajectory the tab showed before it was hidden. */
let restoreScroll: { group: number; trajectory: number; top: number } | undefined =
  saved.convScroll && saved.trajectory !== undefined && saved.trajectory >= 0 ? { group: state.group, trajectory: state.trajectory, top: saved.convScroll } : undefined;
/** Enter ran a new search: the first hit is shown as soon as it arrives. */
let goToFirstHit = false;
/** An ART Parquet step file: rows where text files have lines, and no text to reveal. */
let parquet = false;
const place = (r: GroupRow) => {
  const unit = parquet ? 'row' : 'line';
  return r.line === r.endLine ? `${unit} ${r.line}` : `${unit}s ${r.line}–${r.endLine}`;
};

// --- layout ---------------------------------------------------------------------------------------

const app = document.getElementById('app')!;
const title = h('h1', { class: 'file' }, '');
const status = h('span', { class: 'status', role: 'status', 'aria-live': 'polite' }, 'Opening…');
const fileProblems = h('div', { class: 'file-problems' });
const search = h('input', { type: 'search', id: 'search', placeholder: 'Search messages ( / )', 'aria-label': 'Search messages', spellcheck: 'false' });
const searchStatus = h('span', { class: 'search-status', 'aria-live': 'polite' });
const results = h('div', { class: 'results', role: 'listbox', 'aria-label': 'Search results', hidden: true });
const uploadFile = h('button', { type: 'button', onclick: () => send({ type: 'upload' }) }, 'Upload this file…');
const help = h('span', { class: 'keys', title: 'Keyboard' }, 'j/k trajectory · [ ] group · / search · n/N next hit');
const bar = h('header', { class: 'bar' }, title, status, h('span', { class: 'spacer' }), help, search, searchStatus, uploadFile);

const groupList = new VirtualList('groups', {
  label: 'Groups',
  rowHeight: 64,
  render: (i, row) => renderGroupRow(i, row),
  describe: (i) => describeGroup(i),
  onSelect: (i) => selectGroup(i),
  onWindow: (first, last) => requestRows(first, last),
});
const groupsHead = h('div', { class: 'pane-head' }, 'Groups');
const groupPane = h('nav', { class: 'pane groups', 'aria-label': 'Groups' }, groupsHead, groupList.element);

const groupInfo = h('div', { class: 'group-info' });
const sortSelect = h('select', { 'aria-label': 'Sort trajectories by' });
const dirButton = h('button', { type: 'button', class: 'icon', 'aria-label': 'Sort direction' });
const minInput = h('input', { type: 'number', step: 'any', placeholder: 'min', 'aria-label': 'Lowest reward shown', class: 'num' });
const maxInput = h('input', { type: 'number', step: 'any', placeholder: 'max', 'aria-label': 'Highest reward shown', class: 'num' });
const controls = h('div', { class: 'controls' }, h('label', {}, 'Sort ', sortSelect), dirButton, h('label', { class: 'range' }, 'Reward ', minInput, '–', maxInput));
const trajList = new VirtualList('trajectories', {
  label: 'Trajectories',
  rowHeight: 40,
  render: (i, row) => renderTrajRow(i, row),
  describe: (i) => describeTraj(i),
  onSelect: (i) => selectTrajectory(visible[i]!.index),
});
const trajPane = h('section', { class: 'pane trajectories', 'aria-label': 'Group' }, groupInfo, controls, trajList.element);
const conversation = h('main', { class: 'pane conversation', 'aria-labelledby': 'traj-title', tabindex: '-1' });
app.append(bar, results, fileProblems, h('div', { class: 'panes' }, groupPane, trajPane, conversation));
app.removeAttribute('aria-busy');

// --- messages from the extension ------------------------------------------------------------------

window.addEventListener('message', (e: MessageEvent) => {
  const m = parseToWebview(e.data);
  if (!m) return console.warn('svc viewer: ignored a malformed message');
  switch (m.type) {
    case 'init':
      title.textContent = m.file;
      parquet = m.format === 'parquet';
      document.body.classList.toggle('parquet', parquet);
      return;
    case 'progress':
      return onProgress(m);
    case 'groups':
      if (m.version !== version) return;
      for (const r of m.rows) {
        rows.set(r.index, r);
        requested.delete(r.index);
      }
      groupList.refresh();
      if (detail === undefined && rows.has(state.group)) selectGroup(state.group, false);
      return;
    case 'group':
      if (m.version !== version || m.index !== state.group) return;
      return onGroup(m.detail, m.error);
    case 'trajectory':
      if (m.version !== version || m.group !== state.group) return;
      return onTrajectory(m.view, m.error);
    case 'search':
      return onSearch(m);
    case 'select':
      pendingMessage = m.message !== undefined ? { message: m.message, history: -1 } : undefined;
      return selectGroup(m.group, true, m.trajectory);
  }
});

function onProgress(m: Extract<ToWebview, { type: 'progress' }>): void {
  const changed = m.version !== version;
  const newlyValidated = progress?.validating && !m.validating;
  progress = m;
  if (changed) {
    version = m.version;
    rows.clear();
    requested.clear();
    detail = undefined;
    view = undefined;
  }
  const pct = m.totalBytes ? Math.floor((m.indexedBytes / m.totalBytes) * 100) : 100;
  status.textContent = [
    m.split ? `split ${m.split}` : '',
    bytes(m.totalBytes),
    `${plural(m.groups, 'group')}, ${plural(m.trajectories, 'trajectory', 'trajectories')}`,
    m.done ? '' : `indexing ${pct}%`,
    m.validating ? 'checking…' : '',
  ]
    .filter(Boolean)
    .join(' · ');
  groupsHead.textContent = `Groups (${m.groups.toLocaleString('en-US')}${m.done ? '' : '…'})`;
  fileProblems.replaceChildren(
    ...(m.notice ? [h('div', { class: 'banner warn notice', role: 'note' }, m.notice)] : []),
    ...(m.shapeError ? [h('div', { class: 'banner error', role: 'alert' }, m.shapeError)] : []),
    ...(m.fileProblems.length
      ? [section(`${plural(m.fileProblems.length, 'problem')} outside any group`, false, problemList(m.fileProblems, -1))]
      : []),
  );
  groupList.setCount(m.groups);
  if (changed) groupList.refresh();
  if ((changed || groupList.selected < 0) && m.groups > 0 && (state.group < m.groups || m.done)) {
    // A restored selection may lie past what is indexed so far: wait for it, or clamp once done.
    state.group = Math.min(state.group, m.groups - 1);
    groupList.select(state.group);
    if (state.groupScroll) groupList.scrollTop = state.groupScroll;
  } else if (newlyValidated) {
    // Problem counts arrived: rows and the open group show them.
    rows.clear();
    requested.clear();
    groupList.refresh();
    if (m.groups > 0) send({ type: 'group', index: state.group });
  }
  if (m.groups === 0 && m.done) {
    groupInfo.replaceChildren(h('p', { class: 'empty' }, m.shapeError ? 'Nothing to show.' : 'The file holds no trajectory groups.'));
    conversation.replaceChildren();
    report(undefined);
  }
}

function requestRows(first: number, last: number): void {
  let start = -1;
  for (let i = first; i <= last; i++) {
    if (rows.has(i) || requested.has(i)) continue;
    if (start < 0) start = i;
    requested.add(i);
  }
  if (start >= 0) send({ type: 'groups', start, count: last - start + 1 + 20 });
}

// --- groups ---------------------------------------------------------------------------------------

function statsLine(r: GroupRow): string {
  const s = r.stats;
  if (r.invalid) return r.invalid;
  const parts = [plural(s.count, 'trajectory', 'trajectories')];
  if (s.mean !== null) parts.push(`μ ${fmt(s.mean)}`, `σ ${fmt(s.std)}`, `${fmt(s.min)} – ${fmt(s.max)}`);
  if (s.exceptions) parts.push(plural(s.exceptions, 'exception'));
  return parts.join(' · ');
}

function strip(r: GroupRow): HTMLElement {
  const lo = progress?.rewardMin ?? 0;
  const hi = progress?.rewardMax ?? 1;
  const el = h('div', { class: 'strip', 'aria-hidden': 'true', title: `rewards on the file's range ${fmt(lo)} – ${fmt(hi)}` });
  for (const v of r.rewards) {
    const tick = h('span', { class: 'tick' });
    tick.style.left = `${hi > lo ? ((v - lo) / (hi - lo)) * 100 : 50}%`;
    el.append(tick);
  }
  return el;
}

function renderGroupRow(i: number, row: HTMLElement): void {
  const r = rows.get(i);
  if (!r) {
    row.append(h('div', { class: 'g-title' }, `Group ${i + 1}`), h('div', { class: 'g-stats muted' }, '…'));
    return;
  }
  row.classList.toggle('invalid', !!r.invalid);
  row.append(
    h(
      'div',
      { class: 'g-title' },
      h('span', {}, `Group ${i + 1}`),
      h('span', { class: 'muted' }, ` ${place(r)}`),
      h('span', { class: 'spacer' }),
      r.stats.zeroVariance && h('span', { class: 'badge warn zero-variance', title: 'No learning signal: every trajectory has the same reward' }, '⚠ no signal'),
      r.stats.count === 1 && h('span', { class: 'badge single', title: 'A group of one has no variance to learn from: GRPO compares trajectories within a group, so it needs two or more' }, 'single'),
      r.errors > 0 && h('span', { class: 'badge error' }, plural(r.errors, 'error')),
      r.warnings > 0 && h('span', { class: 'badge warn' }, plural(r.warnings, 'warning')),
    ),
    h('div', { class: 'g-stats' }, statsLine(r)),
    strip(r),
  );
}

function describeGroup(i: number): string {
  const r = rows.get(i);
  if (!r) return `Group ${i + 1}, loading`;
  return [
    `Group ${i + 1}`,
    statsLine(r),
    r.stats.zeroVariance ? 'no learning signal: every trajectory has the same reward' : '',
    r.stats.count === 1 ? 'a group of one has no variance to learn from' : '',
    r.errors ? plural(r.errors, 'error') : '',
    r.warnings ? plural(r.warnings, 'warning') : '',
  ]
    .filter(Boolean)
    .join(', ');
}

function selectGroup(i: number, focusList = false, trajectory?: number): void {
  if (!progress || i < 0 || i >= progress.groups) return;
  if (i !== state.group || detail === undefined || trajectory !== undefined) {
    if (i !== state.group) state.trajectory = -1;
    if (trajectory !== undefined) state.trajectory = trajectory;
    state.group = i;
    detail = undefined;
    view = undefined;
    send({ type: 'group', index: i });
  }
  groupList.select(i, focusList);
  save();
}

function problemList(problems: { line: number; column: number; message: string; severity: string }[], group: number): HTMLElement {
  return h(
    'ul',
    { class: 'problems' },
    ...problems.map((p) =>
      h(
        'li',
        { class: p.severity },
        // A Parquet problem names its row and group in its message, and has no text to reveal.
        parquet ? undefined : h('button', { type: 'button', class: 'link', title: 'Reveal in text editor', onclick: () => send({ type: 'reveal', group: Math.max(group, 0), line: p.line, column: p.column }) }, `Ln ${p.line}, Col ${p.column}`),
        parquet ? p.message : ` ${p.message}`,
      ),
    ),
  );
}

function present(...items: (HTMLElement | undefined)[]): HTMLElement[] {
  return items.filter((x): x is HTMLElement => x !== undefined);
}

function onGroup(d: GroupDetail | undefined, error: string | undefined): void {
  detail = d;
  if (!d) {
    groupInfo.replaceChildren(h('div', { class: 'banner error' }, error ?? 'This group cannot be shown'));
    return;
  }
  rows.set(d.row.index, d.row);
  const r = d.row;
  const s = r.stats;
  trajPane.setAttribute('aria-label', `Group ${r.index + 1}`);
  groupInfo.replaceChildren(
    ...present(
    h('h2', {}, `Group ${r.index + 1}`, h('span', { class: 'muted' }, ` · ${place(r)}`)),
    r.invalid ? h('div', { class: 'banner error', role: 'alert' }, r.invalid) : undefined,
    r.bare ? h('div', { class: 'banner warn' }, 'A single trajectory where a group belongs: shown as a group of one.') : undefined,
    s.zeroVariance ? h('div', { class: 'banner warn zero-variance', role: 'note' }, `⚠ No learning signal: every trajectory has the same reward (${fmt(s.min)}).`) : undefined,
    h(
      'dl',
      { class: 'stats' },
      ...(
        [
          ['trajectories', fmt(s.count)],
          ['mean', fmt(s.mean)],
          ['std', fmt(s.std)],
          ['min', fmt(s.min)],
          ['max', fmt(s.max)],
          ['exceptions', fmt(s.exceptions)],
        ] as const
      ).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]),
    ),
    d.totals ? h('p', { class: 'muted group-totals' }, totalsText(d.totals)) : undefined,
    d.problems.length ? section(`${plural(d.problems.length, 'problem')} in this group`, d.problems.length <= 5, problemList(d.problems, r.index)) : undefined,
    d.exceptions.length
      ? section(
          `${plural(d.exceptions.length, 'exception')}`,
          false,
          ...d.exceptions.map((x) => h('details', { class: 'exception' }, h('summary', {}, `${x.type}: ${x.message}`), h('pre', {}, x.traceback || '(no traceback)'))),
        )
      : undefined,
    d.metrics.length || d.metadata.length || d.info.length ? section('Group metrics and metadata', false, table('Metrics', d.metrics), table('Metadata', d.metadata), table('Other fields', d.info)) : undefined,
    d.logs.length ? section(`Logs (${d.logs.length})`, false, h('pre', { class: 'logs' }, d.logs.join('\n'))) : undefined,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: () => send({ type: 'upload', group: r.index }) }, 'Upload this group…'),
      h('button', { type: 'button', class: 'reveal-text', onclick: () => send({ type: 'reveal', group: r.index }) }, 'Reveal in text editor'),
    ),
    ),
  );
  // Sort choices: file order, reward, then each metric.
  const current = state.sort;
  sortSelect.replaceChildren(h('option', { value: 'index' }, 'file order'), h('option', { value: 'reward' }, 'reward'), ...d.metricNames.map((n) => h('option', { value: `metric:${n}` }, n)));
  sortSelect.value = [...sortSelect.options].some((o) => o.value === current) ? current : 'index';
  state.sort = sortSelect.value;
  applyOrder();
}

// --- trajectories ---------------------------------------------------------------------------------

function applyOrder(keepSelection = true): void {
  if (!detail) return;
  const key = state.sort;
  const value = (t: TrajectorySummary): number | undefined => (key === 'index' ? t.index : key === 'reward' ? (t.reward ?? undefined) : t.metrics[key.slice(7)]);
  const sign = state.dir === 'asc' ? 1 : -1;
  visible = detail.trajectories
    .filter((t) => (state.min === undefined || (t.reward !== null && t.reward >= state.min)) && (state.max === undefined || (t.reward !== null && t.reward <= state.max)))
    .map((t) => ({ t, v: value(t) }))
    .sort((a, b) => (a.v === undefined || b.v === undefined ? (a.v === b.v ? a.t.index - b.t.index : a.v === undefined ? 1 : -1) : a.v === b.v ? a.t.index - b.t.index : (a.v - b.v) * sign))
    .map((x) => x.t);
  dirButton.textContent = state.dir === 'asc' ? '↑' : '↓';
  dirButton.title = state.dir === 'asc' ? 'Ascending' : 'Descending';
  trajList.setLabel(`Trajectories of group ${detail.row.index + 1}: ${visible.length} of ${detail.trajectories.length} shown`);
  trajList.setCount(visible.length);
  trajList.refresh();
  const at = visible.findIndex((t) => t.index === state.trajectory);
  if (keepSelection && at >= 0) {
    trajList.select(at);
    if (!view || view.index !== state.trajectory) send({ type: 'trajectory', group: state.group, index: state.trajectory });
  } else if (visible.length) {
    selectTrajectory(visible[0]!.index);
  } else {
    view = undefined;
    conversation.replaceChildren(h('p', { class: 'empty' }, detail.trajectories.length ? 'No trajectory matches the reward filter.' : 'This group has no trajectories.'));
    report(undefined);
  }
  save();
}

function renderTrajRow(i: number, row: HTMLElement): void {
  const t = visible[i];
  if (!t) return;
  const lo = progress?.rewardMin ?? 0;
  const hi = progress?.rewardMax ?? 1;
  const bar = h('span', { class: 'bar-fill' });
  bar.style.width = `${t.reward === null ? 0 : hi > lo ? ((t.reward - lo) / (hi - lo)) * 100 : 50}%`;
  const metric = state.sort.startsWith('metric:') ? state.sort.slice(7) : undefined;
  row.append(
    h('span', { class: 't-index' }, `#${t.index + 1}`),
    h('span', { class: 't-reward' }, t.reward === null ? 'invalid' : fmt(t.reward)),
    h('span', { class: 'reward-bar', 'aria-hidden': 'true' }, bar),
    h('span', { class: 't-meta muted' }, metric ? `${metric} ${fmt(t.metrics[metric])}` : `${t.messages} msgs${t.toolCalls ? ` · ${plural(t.toolCalls, 'call')}` : ''}`),
  );
}

function describeTraj(i: number): string {
  const t = visible[i];
  if (!t) return '';
  return `Trajectory ${t.index + 1}, reward ${t.reward === null ? 'invalid' : fmt(t.reward)}, ${plural(t.messages, 'message')}`;
}

function selectTrajectory(index: number): void {
  state.trajectory = index;
  const at = visible.findIndex((t) => t.index === index);
  if (at >= 0) trajList.select(at);
  send({ type: 'trajectory', group: state.group, index });
  save();
}

function onTrajectory(v: TrajectoryView | undefined, error: string | undefined): void {
  if (!v) {
    conversation.replaceChildren(h('div', { class: 'banner error' }, error ?? 'This trajectory cannot be shown'));
    return;
  }
  // The first trajectory comes unasked with the first group: take it when nothing is chosen yet,
  // and render an answer only once (a request may cross the unasked copy).
  if (state.trajectory < 0 && detail && v.group === detail.row.index) state.trajectory = v.index;
  if (v.index !== state.trajectory) return;
  if (view && view.group === v.group && view.index === v.index && !pendingMessage) return;
  view = v;
  conversation.replaceChildren(
    renderTrajectory(v, detail?.trajectories.length ?? 0, {
      reveal: (message, history, path) => send({ type: 'reveal', group: v.group, trajectory: v.index, message, history, path }),
      compare: () => send({ type: 'compare', group: v.group, trajectory: v.index }),
    }),
  );
  if (pendingMessage) {
    const { message, history, query: pendingQuery } = pendingMessage;
    pendingMessage = undefined;
    if (history >= 0) conversation.querySelectorAll('details.section').forEach((d) => ((d as HTMLDetailsElement).open = true));
    showAllBubbles(conversation);
    const el = document.getElementById(history >= 0 ? `h${history}-m-${message}` : `m-${message}`);
    el?.classList.add('hit');
    const mark = el && pendingQuery ? highlight(el, pendingQuery) : undefined;
    (mark ?? el)?.scrollIntoView({ block: 'center' });
  } else {
    // A newly selected trajectory opens at its top; only the one shown before the tab hid keeps its place.
    const restore = restoreScroll && restoreScroll.group === v.group && restoreScroll.trajectory === v.index ? restoreScroll.top : 0;
    conversation.scrollTop = restore;
    state.convScroll = restore;
    save();
  }
  restoreScroll = undefined;
  report(v);
}

/** Tells the extension what is on screen (the tests and the bench read it). */
function report(v: TrajectoryView | undefined): void {
  const bubbles = [...conversation.querySelectorAll<HTMLElement>(':scope .trajectory > .bubbles > .bubble, :scope .trajectory > .exchange > .bubbles > .bubble')].map((b) => ({
    index: Number(b.dataset.index),
    role: b.dataset.role ?? '',
    // Enough to check what is shown; a huge message is not sent back whole.
    text: [...b.querySelectorAll<HTMLElement>(':scope > .content, :scope > .long > .content')].map((c) => c.textContent ?? '').join('\n').slice(0, 20_000),
    trainable: b.classList.contains('trainable'),
  }));
  const heads = [...conversation.querySelectorAll<HTMLElement>(':scope .trajectory > .exchange > .exchange-head')].map((e) => e.textContent ?? '');
  const totals = conversation.querySelector<HTMLElement>(':scope .traj-head .totals')?.textContent ?? undefined;
  const memory = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory;
  send({
    type: 'rendered',
    group: state.group,
    trajectory: v?.index,
    bubbles,
    ...(heads.length ? { exchanges: heads } : {}),
    ...(totals ? { totals } : {}),
    groupRows: document.querySelectorAll('#groups .vrow').length,
    liveLinks: conversation.querySelectorAll('a[href]').length,
    sinceLoadMs: performance.now(),
    scriptStartMs: scriptStart,
    heapBytes: memory?.usedJSHeapSize,
    domNodes: document.getElementsByTagName('*').length,
  });
}

// --- search ---------------------------------------------------------------------------------------

function runSearch(fromEnter = false): void {
  state.query = search.value;
  save();
  hits = [];
  hitAt = -1;
  results.replaceChildren();
  results.hidden = !state.query.trim();
  searchStatus.textContent = state.query.trim() ? 'searching…' : '';
  goToFirstHit = fromEnter && !!state.query.trim();
  send({ type: 'search', query: state.query });
}

function onSearch(m: Extract<ToWebview, { type: 'search' }>): void {
  if (m.query !== state.query) return;
  hits = m.hits;
  searchStatus.textContent = `${m.hits.length}${m.truncated ? '+' : ''} ${m.hits.length === 1 ? 'hit' : 'hits'}${m.done ? '' : '…'}`;
  results.hidden = m.hits.length === 0 && m.done;
  results.replaceChildren(
    ...m.hits.slice(0, 500).map((hit, i) =>
      h(
        'div',
        { class: 'hit-row', role: 'option', id: `hit-${i}`, tabindex: '-1', onclick: () => goToHit(i) },
        h('span', { class: 'where' }, `Group ${hit.group + 1} · #${hit.trajectory + 1} · ${hit.history >= 0 ? `history ${hit.history + 1} · ` : ''}message ${hit.message + 1} (${hit.field})`),
        h('span', { class: 'snippet' }, hit.snippet),
      ),
    ),
  );
  if (goToFirstHit && m.hits.length > 0) {
    goToFirstHit = false;
    goToHit(0);
  }
  if (m.done) goToFirstHit = false;
  if (m.done && m.hits.length === 0) {
    results.hidden = false;
    results.replaceChildren(h('div', { class: 'empty' }, `No message contains “${m.query}”.`));
  }
}

function goToHit(i: number): void {
  const hit = hits[i];
  if (!hit) return;
  hitAt = i;
  results.querySelectorAll('.hit-row.current').forEach((e) => e.classList.remove('current'));
  results.querySelector(`#hit-${i}`)?.classList.add('current');
  results.setAttribute('aria-activedescendant', `hit-${i}`);
  pendingMessage = { message: hit.message, history: hit.history, query: state.query };
  if (hit.group === state.group && detail) {
    if (!visible.some((t) => t.index === hit.trajectory)) {
      state.min = state.max = undefined;
      minInput.value = maxInput.value = '';
      applyOrder();
    }
    selectTrajectory(hit.trajectory);
  } else selectGroup(hit.group, false, hit.trajectory);
}

// --- controls and keys ----------------------------------------------------------------------------

search.value = state.query;
search.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    if (search.value === state.query && hits.length) goToHit((hitAt + (e.shiftKey ? hits.length - 1 : 1)) % hits.length);
    else runSearch(true);
  } else if (e.key === 'Escape') {
    results.hidden = true;
    conversation.focus();
  }
});
search.addEventListener('search', () => {
  if (!search.value) runSearch();
});
sortSelect.addEventListener('change', () => {
  state.sort = sortSelect.value;
  state.dir = state.sort === 'index' ? 'asc' : 'desc';
  applyOrder();
});
dirButton.addEventListener('click', () => {
  state.dir = state.dir === 'asc' ? 'desc' : 'asc';
  applyOrder();
});
const bound = (input: HTMLInputElement) => (input.value.trim() === '' || Number.isNaN(Number(input.value)) ? undefined : Number(input.value));
for (const input of [minInput, maxInput]) {
  input.addEventListener('change', () => {
    state.min = bound(minInput);
    state.max = bound(maxInput);
    applyOrder();
  });
}
if (state.min !== undefined) minInput.value = String(state.min);
if (state.max !== undefined) maxInput.value = String(state.max);
conversation.addEventListener('scroll', () => {
  state.convScroll = conversation.scrollTop;
  save();
});
groupList.element.addEventListener('scroll', () => {
  state.groupScroll = groupList.scrollTop;
  save();
});

function moveTrajectory(delta: number): void {
  if (!visible.length) return;
  const at = visible.findIndex((t) => t.index === state.trajectory);
  const next = Math.min(visible.length - 1, Math.max(0, (at < 0 ? 0 : at) + delta));
  if (visible[next]!.index !== state.trajectory || !view) selectTrajectory(visible[next]!.index);
}

function moveGroup(delta: number): void {
  if (!progress) return;
  selectGroup(Math.min(progress.groups - 1, Math.max(0, state.group + delta)));
}

document.addEventListener('keydown', (e) => {
  const target = e.target as HTMLElement;
  if (target.closest('input, select, textarea') || e.ctrlKey || e.metaKey || e.altKey) return;
  const actions: Record<string, () => void> = {
    j: () => moveTrajectory(1),
    k: () => moveTrajectory(-1),
    ']': () => moveGroup(1),
    '[': () => moveGroup(-1),
    '/': () => search.focus(),
    n: () => hits.length && goToHit((hitAt + 1) % hits.length),
    N: () => hits.length && goToHit((hitAt - 1 + hits.length) % hits.length),
  };
  const act = actions[e.key];
  if (!act) return;
  e.preventDefault();
  act();
});

// A link to another bubble (call ↔ result) moves focus there too.
conversation.addEventListener('click', (e) => {
  const a = (e.target as HTMLElement).closest('a');
  if (!a) return;
  const href = a.getAttribute('href') ?? '';
  if (href.startsWith('#')) {
    e.preventDefault();
    const el = document.getElementById(href.slice(1));
    el?.scrollIntoView({ block: 'center' });
    el?.classList.add('hit');
    setTimeout(() => el?.classList.remove('hit'), 1500);
  }
});

send({ type: 'ready', group: state.group, trajectory: state.trajectory >= 0 ? state.trajectory : undefined });
if (state.query) runSearch();
