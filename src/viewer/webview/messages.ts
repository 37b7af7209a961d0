/** The extension's messages to the viewer page: checked, then dispatched to the pane they are for. */
import { formatBytes, plural } from '../../common/format';
import { ToWebview } from '../protocol';
import { h } from '../../webview/dom';
import { parseMessage } from '../../webview/protocol';
import { section } from './dom';
import { displayOf, groupList, groupsHead, onGroup, problemList, selectGroup, setGroupCount } from './groups';
import { conversation, fileProblems, groupInfo, status, title } from './layout';
import { onSearch } from './search';
import { page, send, state } from './state';
import { onTrajectory, report, setRewardRange } from './trajectories';
import { onUntrained, requestUntrained, toggleUntrained } from './untrained';
import { clickWorstTurn, onLogprobs, requestLogprobs, toggleLogprobs } from './logprobs';

window.addEventListener('message', (e: MessageEvent) => {
  const parsed = parseMessage(ToWebview, e.data);
  if (!parsed.ok) return console.warn(`svc viewer: ignored a malformed message: ${parsed.error}`);
  const m = parsed.value;
  switch (m.type) {
    case 'init':
      title.textContent = m.file;
      page.parquet = m.format === 'parquet' || m.format === 'eval';
      page.samples = m.format === 'eval';
      document.body.classList.toggle('parquet', page.parquet);
      return;
    case 'progress':
      return onProgress(m);
    case 'groups':
      if (m.version !== page.version) return;
      for (const r of m.rows) {
        page.rows.set(r.index, r);
        page.requested.delete(r.index);
      }
      groupList.refresh();
      if (page.detail === undefined && page.rows.has(state.group)) selectGroup(state.group, false);
      return;
    case 'group':
      if (m.version !== page.version || m.index !== state.group) return;
      return onGroup(m.detail, m.error);
    case 'trajectory':
      if (m.version !== page.version || m.group !== state.group) return;
      return onTrajectory(m.view, m.error);
    case 'search':
      return onSearch(m);
    case 'filter':
      return toggleUntrained(m.untrained);
    case 'rewardRange':
      return setRewardRange(m.min, m.max);
    case 'untrained':
      if (m.version !== page.version) return;
      return onUntrained(m.groups, m.error);
    case 'logprobs':
      if (m.version !== page.version) return;
      return onLogprobs(m);
    case 'logprobsPanel':
      if (m.open !== !!state.logprobs) toggleLogprobs(m.open);
      if (m.click !== undefined) clickWorstTurn(m.click);
      return;
    case 'select':
      page.pendingMessage = m.message !== undefined ? { message: m.message, history: m.history ?? -1, ...(m.tokens !== undefined ? { tokens: m.tokens } : {}) } : undefined;
      return selectGroup(m.group, true, m.trajectory);
  }
});

function onProgress(m: Extract<ToWebview, { type: 'progress' }>): void {
  const changed = m.version !== page.version;
  // An Inspect log lists its groups first and reads their scores after: rows shown before are stale.
  const newlyValidated = (page.progress?.validating && !m.validating) || (page.samples && page.progress?.done === false && m.done);
  // A Parquet file's summary line comes after its index, once its groups are read: the report says so.
  const newSummary = !!m.trainability && m.trainability !== page.progress?.trainability;
  page.progress = m;
  if (changed) {
    page.version = m.version;
    page.rows.clear();
    page.requested.clear();
    page.detail = undefined;
    page.view = undefined;
    page.groupOrder = undefined;
    if (state.untrained) requestUntrained();
    requestLogprobs();
  }
  const pct = m.totalBytes ? Math.floor((m.indexedBytes / m.totalBytes) * 100) : 100;
  status.textContent = [
    m.split ? `split ${m.split}` : '',
    formatBytes(m.totalBytes),
    `${plural(m.groups, 'group')}, ${plural(m.trajectories, 'trajectory', 'trajectories')}`,
    m.done ? '' : `indexing ${pct}%`,
    m.validating ? 'checking…' : '',
  ]
    .filter(Boolean)
    .join(' · ');
  groupsHead.textContent = `Groups (${m.groups.toLocaleString('en-US')}${m.done ? '' : '…'})`;
  fileProblems.replaceChildren(
    ...(m.notice ? [h('div', { class: 'banner warn notice', role: 'note' }, m.notice)] : []),
    ...(m.trainability ? [h('p', { class: 'trainability muted', title: "By the rules of ART's trainer at its default settings (docs/trainability.md)" }, m.trainability)] : []),
    ...(m.shapeError ? [h('div', { class: 'banner error', role: 'alert' }, m.shapeError)] : []),
    ...(m.fileProblems.length
      ? [section(`${plural(m.fileProblems.length, 'problem')} outside any group`, false, problemList(m.fileProblems, -1))]
      : []),
  );
  setGroupCount();
  if (changed) groupList.refresh();
  if ((changed || groupList.selected < 0) && m.groups > 0 && (state.group < m.groups || m.done)) {
    // A restored selection may lie past what is indexed so far: wait for it, or clamp once done.
    state.group = Math.min(state.group, m.groups - 1);
    groupList.select(displayOf(state.group));
    if (state.groupScroll) groupList.scrollTop = state.groupScroll;
  } else if (newlyValidated) {
    // Problem counts (or an Inspect log's scores) arrived: page.rows and the open group show them.
    page.rows.clear();
    page.requested.clear();
    groupList.refresh();
    if (m.groups > 0) send({ type: 'group', index: state.group });
  }
  if (newSummary && page.view) report(page.view);
  if (m.groups === 0 && m.done) {
    groupInfo.replaceChildren(h('p', { class: 'empty' }, m.shapeError ? 'Nothing to show.' : 'The file holds no trajectory groups.'));
    conversation.replaceChildren();
    report(undefined);
  }
}
