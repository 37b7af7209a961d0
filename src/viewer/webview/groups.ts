/** The group list (virtualized; rows fetched as they scroll into view) and the selected group's pane. */
import { plural } from '../../common/format';
import type { GroupDetail, GroupRow } from '../protocol';
import { totalsText } from '../usageText';
import { h } from '../../webview/dom';
import { fmt, section, table } from './dom';
import { groupInfo, sortSelect, trajPane } from './layout';
import { page, place, save, send, state } from './state';
import { applyOrder } from './trajectories';
import { VirtualList } from './vlist';

export const groupList = new VirtualList('groups', {
  label: 'Groups',
  rowHeight: 64,
  render: (i, row) => renderGroupRow(groupAt(i), row),
  describe: (i) => describeGroup(groupAt(i)),
  onSelect: (i) => selectGroup(groupAt(i)),
  onWindow: (first, last) => requestRows(first, last),
});
export const groupsHead = h('div', { class: 'pane-head' }, 'Groups');

/** The group at place `i` of the list (the "will not train" filter lists some groups only). */
export const groupAt = (i: number): number => (page.groupOrder ? (page.groupOrder[i] ?? -1) : i);
/** Group `g`'s place in the list, or -1 when the filter hides it. */
export const displayOf = (g: number): number => (page.groupOrder ? page.groupOrder.indexOf(g) : g);

/** Sets the list's length: every group, or those the filter keeps. */
export function setGroupCount(): void {
  groupList.setCount(page.groupOrder ? page.groupOrder.length : (page.progress?.groups ?? 0));
}

export function requestRows(first: number, last: number): void {
  if (page.groupOrder) {
    // Filtered: ask for each run of consecutive missing groups.
    let start = -1;
    let end = -1;
    const flush = () => start >= 0 && send({ type: 'groups', start, count: end - start + 1 });
    for (let i = first; i <= last; i++) {
      const g = groupAt(i);
      if (g < 0 || page.rows.has(g) || page.requested.has(g)) continue;
      page.requested.add(g);
      if (start >= 0 && g === end + 1) end = g;
      else {
        flush();
        start = end = g;
      }
    }
    flush();
    return;
  }
  let start = -1;
  for (let i = first; i <= last; i++) {
    if (page.rows.has(i) || page.requested.has(i)) continue;
    if (start < 0) start = i;
    page.requested.add(i);
  }
  if (start >= 0) send({ type: 'groups', start, count: last - start + 1 + 20 });
}

// --- groups ---------------------------------------------------------------------------------------

export function statsLine(r: GroupRow): string {
  const s = r.stats;
  if (r.invalid) return r.invalid;
  const parts = [plural(s.count, 'trajectory', 'trajectories')];
  if (s.mean !== null) parts.push(`μ ${fmt(s.mean)}`, `σ ${fmt(s.std)}`, `${fmt(s.min)} – ${fmt(s.max)}`);
  if (s.exceptions) parts.push(plural(s.exceptions, 'exception'));
  return parts.join(' · ');
}

export function strip(r: GroupRow): HTMLElement {
  const lo = page.progress?.rewardMin ?? 0;
  const hi = page.progress?.rewardMax ?? 1;
  const el = h('div', { class: 'strip', 'aria-hidden': 'true', title: `rewards on the file's range ${fmt(lo)} – ${fmt(hi)}` });
  for (const v of r.rewards) {
    const tick = h('span', { class: 'tick' });
    tick.style.left = `${hi > lo ? ((v - lo) / (hi - lo)) * 100 : 50}%`;
    el.append(tick);
  }
  return el;
}

export function renderGroupRow(i: number, row: HTMLElement): void {
  row.dataset.group = String(i);
  const r = page.rows.get(i);
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
      r.verdict && (r.verdict.fails || r.verdict.training < r.verdict.trajectories) && h('span', { class: `badge ${r.verdict.fails ? 'error' : 'warn'} art-trains`, title: `ART trains on ${r.verdict.text} (docs/trainability.md)` }, r.verdict.fails ? 'ART raises' : `ART ${r.verdict.training}/${r.verdict.trajectories}`),
      r.errors > 0 && h('span', { class: 'badge error' }, plural(r.errors, 'error')),
      r.warnings > 0 && h('span', { class: 'badge warn' }, plural(r.warnings, 'warning')),
    ),
    h('div', { class: 'g-stats' }, statsLine(r)),
    strip(r),
  );
}

export function describeGroup(i: number): string {
  const r = page.rows.get(i);
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

export function selectGroup(i: number, focusList = false, trajectory?: number): void {
  if (!page.progress || i < 0 || i >= page.progress.groups) return;
  if (i !== state.group || page.detail === undefined || trajectory !== undefined) {
    if (i !== state.group) state.trajectory = -1;
    if (trajectory !== undefined) state.trajectory = trajectory;
    state.group = i;
    page.detail = undefined;
    page.view = undefined;
    send({ type: 'group', index: i });
  }
  const at = displayOf(i);
  if (at >= 0) groupList.select(at, focusList);
  save();
}

export function problemList(problems: { line: number; column: number; message: string; severity: string }[], group: number): HTMLElement {
  return h(
    'ul',
    { class: 'problems' },
    ...problems.map((p) =>
      h(
        'li',
        { class: p.severity },
        // A Parquet problem names its row and group in its message, and has no text to reveal.
        page.parquet ? undefined : h('button', { type: 'button', class: 'link', title: 'Reveal in text editor', onclick: () => send({ type: 'reveal', group: Math.max(group, 0), line: p.line, column: p.column }) }, `Ln ${p.line}, Col ${p.column}`),
        page.parquet ? p.message : ` ${p.message}`,
      ),
    ),
  );
}

export function present(...items: (HTMLElement | undefined)[]): HTMLElement[] {
  return items.filter((x): x is HTMLElement => x !== undefined);
}

export function onGroup(d: GroupDetail | undefined, error: string | undefined): void {
  page.detail = d;
  if (!d) {
    groupInfo.replaceChildren(h('div', { class: 'banner error' }, error ?? 'This group cannot be shown'));
    return;
  }
  page.rows.set(d.row.index, d.row);
  const r = d.row;
  const s = r.stats;
  // A search hit in the group's own fields: its section open, and in view.
  const hit = page.pendingGroupField?.group === r.index ? page.pendingGroupField.field : undefined;
  page.pendingGroupField = undefined;
  const exceptionHit = hit?.startsWith('exception ') ? Number(hit.slice(10)) - 1 : -1;
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
          exceptionHit >= 0,
          ...d.exceptions.map((x, i) => h('details', { class: `exception${i === exceptionHit ? ' hit' : ''}`, open: i === exceptionHit }, h('summary', {}, `${x.type}: ${x.message}`), h('pre', {}, x.traceback || '(no traceback)'))),
        )
      : undefined,
    d.metrics.length || d.metadata.length || d.info.length ? section('Group metrics and metadata', !!hit?.startsWith('metadata.'), table('Metrics', d.metrics), table('Metadata', d.metadata), table('Other fields', d.info)) : undefined,
    d.logs.length ? section(`Logs (${d.logs.length})`, !!hit?.startsWith('logs['), h('pre', { class: 'logs' }, d.logs.join('\n'))) : undefined,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'button', onclick: () => send({ type: 'upload', group: r.index }) }, 'Upload this group…'),
      h('button', { type: 'button', class: 'reveal-text', onclick: () => send({ type: 'reveal', group: r.index }) }, 'Reveal in text editor'),
    ),
    ),
  );
  if (hit) groupInfo.querySelector('details.exception.hit, details.section[open]')?.scrollIntoView({ block: 'nearest' });
  // Sort choices: file order, reward, then each metric.
  const current = state.sort;
  sortSelect.replaceChildren(h('option', { value: 'index' }, 'file order'), h('option', { value: 'reward' }, 'reward'), ...d.metricNames.map((n) => h('option', { value: `metric:${n}` }, n)));
  sortSelect.value = [...sortSelect.options].some((o) => o.value === current) ? current : 'index';
  state.sort = sortSelect.value;
  applyOrder();
}
