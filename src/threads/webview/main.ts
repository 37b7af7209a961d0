/**
 * The thread details webview: renders the thread the extension sends, with times in the user's
 * own time zone and durations rounded for people; the buttons ask the extension to act. Text goes
 * in as text nodes only, so nothing from the service can become markup.
 */
import * as z from 'zod/mini';
import { formatDuration, formatLocalDateTime, formatRelative, formatUtcOffset, plural } from '../../common/format';
import { ToWebviewSchema, type FromWebview, type ThreadDetails } from '../detailsProtocol';
import { h } from '../../webview/dom';
import { parseMessage } from '../../webview/protocol';
import './style.css';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void };

// The CSP allows no eval: zod must not probe for it.
z.config({ jitless: true });

const vscode = acquireVsCodeApi();
const post = (message: FromWebview) => vscode.postMessage(message);
const app = document.getElementById('app')!;

function button(label: string, onClick: () => void, options: { secondary?: boolean; title?: string; id?: string } = {}): HTMLButtonElement {
  const b = h('button', { type: 'button', ...(options.secondary ? { class: 'secondary' } : {}), ...(options.title ? { title: options.title } : {}), ...(options.id ? { 'data-action': options.id } : {}) }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** A time as `2026-11-15 14:03:07 (UTC+01:00)`, plus how long ago when asked. */
function time(iso: string | null, withRelative = false): Node {
  if (!iso) return h('span', { class: 'muted' }, 'n/a');
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return document.createTextNode(iso);
  return h('span', { title: iso }, formatLocalDateTime(iso), h('span', { class: 'muted' }, ` (${formatUtcOffset(t)})`), withRelative ? ` · ${formatRelative(iso)}` : '');
}

function duration(ms: number | null): Node {
  const text = formatDuration(ms);
  return text === 'n/a' ? h('span', { class: 'muted', title: 'not computed by the service' }, text) : h('span', { title: `${ms} ms` }, text);
}

const copyButtons = new Map<string, HTMLButtonElement>();

function render(thread: ThreadDetails): void {
  copyButtons.clear();
  const copyId = button('Copy Id', () => post({ type: 'copy', target: 'threadId' }), { secondary: true, title: 'Copy the thread id', id: 'copy-threadId' });
  copyButtons.set('threadId', copyId);
  const copyLink = button('Copy Link', () => post({ type: 'copy', target: 'link' }), { secondary: true, title: 'Copy a link that opens this thread in VS Code', id: 'copy-link' });
  copyButtons.set('link', copyLink);
  const header = h(
    'header',
    {},
    h('div', { class: 'title' }, h('h1', {}, `Thread ${thread.threadId}`), h('p', { class: 'sub' }, `in ${thread.project} · ${plural(thread.turnCount, 'turn')}`)),
    h('div', { class: 'actions' }, button('Open in Web UI', () => post({ type: 'openWebUi', target: 'thread' }), { title: thread.webUi ? "Open this thread in the service's web UI" : 'Set svc.webUiUrl to open threads in the web UI', id: 'webui-thread' }), copyId, copyLink, button('Open JSON', () => post({ type: 'openJson' }), { secondary: true, title: 'The row as the service sent it', id: 'open-json' })),
  );
  const summary = h(
    'table',
    { 'aria-label': 'Summary' },
    h(
      'tbody',
      {},
      h('tr', {}, h('th', { scope: 'row' }, 'Turns'), h('td', {}, String(thread.turnCount))),
      h('tr', {}, h('th', { scope: 'row' }, 'Started'), h('td', {}, time(thread.startTime))),
      h('tr', {}, h('th', { scope: 'row' }, 'Last updated'), h('td', {}, time(thread.lastUpdated, true))),
      h('tr', {}, h('th', { scope: 'row' }, 'p50 turn duration'), h('td', {}, duration(thread.p50Ms))),
      h('tr', {}, h('th', { scope: 'row' }, 'p99 turn duration'), h('td', {}, duration(thread.p99Ms))),
    ),
  );
  const turns = thread.turns.length
    ? thread.turns.map((turn) => {
        const copy = button('Copy Ref', () => post({ type: 'copy', target: turn.which }), { secondary: true, title: `Copy ${turn.ref}`, id: `copy-${turn.which}` });
        copyButtons.set(turn.which, copy);
        return h(
          'div',
          { class: 'turn', 'data-turn': turn.which },
          h('div', { class: 'label' }, turn.label),
          h('div', { class: 'actions' }, button('Open in Web UI', () => post({ type: 'openWebUi', target: turn.which }), { secondary: true, title: `Open ${turn.ref} in the service's web UI`, id: `webui-${turn.which}` }), button('Attach Feedback…', () => post({ type: 'attachFeedback', turn: turn.which }), { title: `Attach feedback to ${turn.ref}`, id: `feedback-${turn.which}` }), copy),
          h('code', { class: 'ref' }, turn.ref),
        );
      })
    : [h('p', { class: 'empty' }, 'The service gave no turn ids for this thread.')];
  const other = thread.other.length
    ? [h('h2', {}, 'Other fields'), h('table', { 'aria-label': 'Other fields' }, h('tbody', {}, ...thread.other.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, h('code', {}, v))))))]
    : [];
  // Tracing is write-only: the spec has no endpoint that reads calls, so say where they are read.
  const notice = h(
    'p',
    { class: 'notice', 'data-notice': 'metadata' },
    "These are the thread's metadata: the service's API has no endpoint that reads calls back. Read the calls in the service's web UI (Open in Web UI",
    thread.webUi ? ')' : '; set svc.webUiUrl first)',
    '.',
  );
  const feedback = thread.feedback ?? [];
  const mine = [
    h('h2', {}, 'Feedback attached from this editor'),
    h('p', { class: 'muted' }, 'Your own record of what you attached from this workspace, not read from the service.'),
    feedback.length
      ? h('ul', { class: 'feedback', 'aria-label': 'Feedback attached from this editor' }, ...feedback.map((f) => h('li', { 'data-id': f.id }, time(f.time), ` · ${f.turn} · ${f.kind}: `, h('span', { class: 'content' }, f.content))))
      : h('p', { class: 'empty' }, 'None yet: Attach Feedback… on a turn adds it here.'),
  ];
  app.replaceChildren(header, notice, summary, h('h2', {}, 'Turns'), ...turns, ...mine, ...other);
  app.removeAttribute('aria-busy');
}

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = parseMessage(ToWebviewSchema, event.data);
  if (!parsed.ok) return;
  const msg = parsed.value;
  if (msg.type === 'show') render(msg.thread);
  else {
    const b = copyButtons.get(msg.target);
    if (!b) return;
    // The button keeps its width while it says "Copied" (the labels are longer, so the row
    // does not shift); a second click during the confirmation keeps the first label.
    const label = b.dataset.label ?? b.textContent ?? '';
    b.dataset.label = label;
    b.style.minWidth = `${b.getBoundingClientRect().width}px`;
    b.textContent = 'Copied';
    setTimeout(() => {
      b.textContent = label;
      b.style.minWidth = '';
      delete b.dataset.label;
    }, 1500);
  }
});

post({ type: 'ready' });
