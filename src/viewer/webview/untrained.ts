/**
 * The "will not train" filter (the toolbar's toggle and the key u): only the groups ART does not
 * fully train on (the extension tells which, ToWebview 'untrained') and, in a group, only the
 * trajectories it does not train on (their verdicts, trajectories.ts).
 */
import { displayOf, groupList, selectGroup, setGroupCount } from './groups';
import { untrainedButton } from './layout';
import { page, save, send, state } from './state';
import { applyOrder, report } from './trajectories';

/** Asks the extension which groups ART does not fully train on. */
export function requestUntrained(): void {
  send({ type: 'untrained' });
}

function showUntrainedState(error?: string): void {
  untrainedButton.setAttribute('aria-pressed', String(!!state.untrained));
  untrainedButton.classList.toggle('on', !!state.untrained);
  untrainedButton.title = error ?? (state.untrained ? 'Showing only what ART will not train on (u): click to show everything' : 'Show only the groups and trajectories ART will not train on (u)');
}

/** Turns the filter on or off (the toolbar's toggle and the key u). */
export function toggleUntrained(on = !state.untrained): void {
  state.untrained = on;
  showUntrainedState();
  save();
  if (on) return requestUntrained();
  page.groupOrder = undefined;
  setGroupCount();
  groupList.refresh();
  groupsLabel();
  groupList.select(displayOf(state.group));
  applyOrder();
  report(page.view);
}

/** The groups the filter keeps arrived: list only them, and move to the first when the shown one is hidden. */
export function onUntrained(groups: number[], error: string | undefined): void {
  if (!state.untrained) return;
  if (error) {
    // The filter cannot be told (a file without logprobs): everything stays listed, and the toggle says why.
    state.untrained = false;
    showUntrainedState(error);
    return;
  }
  page.groupOrder = groups;
  setGroupCount();
  groupList.refresh();
  groupsLabel();
  if (groups.length && displayOf(state.group) < 0) return selectGroup(groups[0]!);
  groupList.select(displayOf(state.group));
  applyOrder();
  report(page.view);
}

function groupsLabel(): void {
  groupList.setLabel(page.groupOrder ? `Groups ART does not fully train on: ${page.groupOrder.length} of ${page.progress?.groups ?? 0}` : 'Groups');
}
showUntrainedState();
