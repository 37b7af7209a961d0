/** The viewer page's fixed elements (the two virtual lists are built by groups.ts and trajectories.ts). */
import { h } from '../../webview/dom';
import { send } from './state';

export const app = document.getElementById('app')!;
export const title = h('h1', { class: 'file' }, '');
export const status = h('span', { class: 'status', role: 'status', 'aria-live': 'polite' }, 'Opening…');
export const fileProblems = h('div', { class: 'file-problems' });
export const search = h('input', { type: 'search', id: 'search', placeholder: 'Search ( / )', 'aria-label': 'Search messages, tool calls, metadata, logs and exceptions', spellcheck: 'false' });
export const searchStatus = h('span', { class: 'search-status', 'aria-live': 'polite' });
export const results = h('div', { class: 'results', role: 'listbox', 'aria-label': 'Search results', hidden: true });
export const uploadFile = h('button', { type: 'button', onclick: () => send({ type: 'upload' }) }, 'Upload this file…');
export const help = h('span', { class: 'keys', title: 'Keyboard' }, 'j/k trajectory · [ ] group · / search · n/N next hit · u will not train · l logprobs');
/** The "will not train" filter's toggle (controls.ts and trajectories.ts wire it). */
export const untrainedButton = h('button', { type: 'button', class: 'untrained-toggle', 'aria-pressed': 'false' }, 'Will not train');
/** The Logprobs panel's toggle, and the panel (logprobs.ts). */
export const logprobsButton = h('button', { type: 'button', class: 'logprobs-toggle', 'aria-pressed': 'false', 'aria-controls': 'logprobs', title: "The file's token logprobs and the least likely turns (l)" }, 'Logprobs');
export const logprobsPane = h('section', { class: 'logprobs-pane', id: 'logprobs', 'aria-label': 'Logprobs across the file', hidden: true });
export const bar = h('header', { class: 'bar' }, title, status, h('span', { class: 'spacer' }), help, logprobsButton, untrainedButton, search, searchStatus, uploadFile);

export const groupInfo = h('div', { class: 'group-info' });
export const sortSelect = h('select', { 'aria-label': 'Sort trajectories by' });
export const dirButton = h('button', { type: 'button', class: 'icon', 'aria-label': 'Sort direction' });
export const minInput = h('input', { type: 'number', step: 'any', placeholder: 'min', 'aria-label': 'Lowest reward shown', class: 'num' });
export const maxInput = h('input', { type: 'number', step: 'any', placeholder: 'max', 'aria-label': 'Highest reward shown', class: 'num' });
export const controls = h('div', { class: 'controls' }, h('label', {}, 'Sort ', sortSelect), dirButton, h('label', { class: 'range' }, 'Reward ', minInput, '–', maxInput));
export const trajPane = h('section', { class: 'pane trajectories', 'aria-label': 'Group' }, groupInfo, controls);
export const conversation = h('main', { class: 'pane conversation', 'aria-labelledby': 'traj-title', tabindex: '-1' });
