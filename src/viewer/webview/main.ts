/**
 * The trajectory viewer's webview: the group list (virtualized; rows fetched as they scroll into
 * view), the selected group's trajectories (sorted and filtered here), and the selected trajectory
 * as a conversation. Every message from the extension is checked (zod) before use, and the state
 * (selection, scroll, sort, filter, search) survives hiding the tab. The entry: it lays the panes
 * out and starts; state.ts holds the state, messages.ts the extension's messages, groups.ts,
 * trajectories.ts and search.ts their panes, controls.ts the controls and keys.
 */
import * as z from 'zod/mini';
import { h } from '../../webview/dom';
import './controls';
import { groupList, groupsHead } from './groups';
import { app, bar, conversation, fileProblems, logprobsPane, results, trajPane } from './layout';
import './logprobs';
import './messages';
import { runSearch } from './search';
import { page, send, state } from './state';
import { trajList } from './trajectories';
import './viewer.css';

page.scriptStart = performance.now();
// The CSP allows no eval: skip zod's `new Function` probe.
z.config({ jitless: true });

const groupPane = h('nav', { class: 'pane groups', 'aria-label': 'Groups' }, groupsHead, groupList.element);
trajPane.append(trajList.element);
app.append(bar, results, fileProblems, logprobsPane, h('div', { class: 'panes' }, groupPane, trajPane, conversation));
app.removeAttribute('aria-busy');

send({ type: 'ready', group: state.group, trajectory: state.trajectory >= 0 ? state.trajectory : undefined });
if (state.query) runSearch();
