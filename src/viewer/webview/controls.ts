/** The page's controls and keys: search box, sort, reward filter, the "will not train" filter, scroll memory, j/k [ ] / n N u. */
import { groupList, selectGroup } from './groups';
import { conversation, dirButton, maxInput, minInput, results, search, sortSelect, untrainedButton } from './layout';
import { goToHit, runSearch } from './search';
import { page, save, state } from './state';
import { applyOrder, selectTrajectory } from './trajectories';
import { toggleUntrained } from './untrained';
import { toggleLogprobs } from './logprobs';

search.value = state.query;
search.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    e.preventDefault();
    if (search.value === state.query && page.hits.length) goToHit((page.hitAt + (e.shiftKey ? page.hits.length - 1 : 1)) % page.hits.length);
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
untrainedButton.addEventListener('click', () => toggleUntrained());
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
  if (!page.visible.length) return;
  const at = page.visible.findIndex((t) => t.index === state.trajectory);
  const next = Math.min(page.visible.length - 1, Math.max(0, (at < 0 ? 0 : at) + delta));
  if (page.visible[next]!.index !== state.trajectory || !page.view) selectTrajectory(page.visible[next]!.index);
}

function moveGroup(delta: number): void {
  if (!page.progress) return;
  selectGroup(Math.min(page.progress.groups - 1, Math.max(0, state.group + delta)));
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
    u: () => toggleUntrained(),
    l: () => toggleLogprobs(),
    n: () => page.hits.length && goToHit((page.hitAt + 1) % page.hits.length),
    N: () => page.hits.length && goToHit((page.hitAt - 1 + page.hits.length) % page.hits.length),
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
