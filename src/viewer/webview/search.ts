/** Search across the file's messages: the query goes to the extension, hits come back as they are found. */
import type { ToWebview } from '../protocol';
import { h } from '../../webview/dom';
import { selectGroup } from './groups';
import { maxInput, minInput, results, search, searchStatus } from './layout';
import { page, save, send, state } from './state';
import { applyOrder, selectTrajectory } from './trajectories';

export function runSearch(fromEnter = false): void {
  state.query = search.value;
  save();
  page.hits = [];
  page.hitAt = -1;
  results.replaceChildren();
  results.hidden = !state.query.trim();
  searchStatus.textContent = state.query.trim() ? 'searching…' : '';
  page.goToFirstHit = fromEnter && !!state.query.trim();
  send({ type: 'search', query: state.query });
}

export function onSearch(m: Extract<ToWebview, { type: 'search' }>): void {
  if (m.query !== state.query) return;
  page.hits = m.hits;
  searchStatus.textContent = `${m.hits.length}${m.truncated ? '+' : ''} ${m.hits.length === 1 ? 'hit' : 'hits'}${m.done ? '' : '…'}`;
  results.hidden = m.hits.length === 0 && m.done;
  results.replaceChildren(
    ...m.hits.slice(0, 500).map((hit, i) =>
      h(
        'div',
        { class: 'hit-row', role: 'option', id: `hit-${i}`, tabindex: '-1', onclick: () => goToHit(i) },
        h('span', { class: 'where' }, hit.message < 0 && hit.where ? hit.where.replace(/^./, (c) => c.toUpperCase()) : `Group ${hit.group + 1} · #${hit.trajectory + 1} · ${hit.history >= 0 ? `history ${hit.history + 1} · ` : ''}message ${hit.message + 1} (${hit.field})`),
        h('span', { class: 'snippet' }, hit.snippet),
      ),
    ),
  );
  if (page.goToFirstHit && m.hits.length > 0) {
    page.goToFirstHit = false;
    goToHit(0);
  }
  if (m.done) page.goToFirstHit = false;
  if (m.done && m.hits.length === 0) {
    results.hidden = false;
    results.replaceChildren(h('div', { class: 'empty' }, `Nothing in this file contains “${m.query}” (messages, tool calls, metadata, logs and exceptions were searched).`));
  }
}

export function goToHit(i: number): void {
  const hit = page.hits[i];
  if (!hit) return;
  page.hitAt = i;
  results.querySelectorAll('.hit-row.current').forEach((e) => e.classList.remove('current'));
  results.querySelector(`#hit-${i}`)?.classList.add('current');
  results.setAttribute('aria-activedescendant', `hit-${i}`);
  // A group's own field (an exception, its logs or metadata) shows in the group's pane.
  if (hit.trajectory < 0) {
    page.pendingMessage = undefined;
    page.pendingGroupField = { group: hit.group, field: hit.field };
    selectGroup(hit.group, false, -1);
    return;
  }
  page.pendingMessage = hit.message >= 0 ? { message: hit.message, history: hit.history, query: state.query } : undefined;
  if (hit.group === state.group && page.detail) {
    if (!page.visible.some((t) => t.index === hit.trajectory)) {
      state.min = state.max = undefined;
      minInput.value = maxInput.value = '';
      applyOrder();
    }
    selectTrajectory(hit.trajectory);
  } else selectGroup(hit.group, false, hit.trajectory);
}
