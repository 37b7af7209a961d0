import type { ServerResponse } from 'node:http';
import type { CallRecord, Store } from './store';

// A small stand-in for the service's web UI, for the demo (svc.webUiUrl): GET /ui/… pages that show
// the project, thread or call named in the URL, as plain escaped HTML. Not part of the service's
// contract (the spec has no web UI): enabled only by the `webUi` option, and read-only. It takes no
// credentials (a browser opens it; the extension never sends a key to svc.webUiUrl), so it lists
// only what the URL names.
//
//   GET /ui/<entity>/<project>/threads/<threadId>?call=<callId>
//
// The path the extension fills in from WEB_UI_TEMPLATE (src/webUi/url.ts: each value
// percent-encoded; a value not known is empty). <threadId> and ?call are each optional: neither
// shows the project's threads; a thread shows its calls; a call shows its fields (within its
// thread, when one is named). A project, thread or call the store does not have answers 404.

/** svc.webUiUrl for a reference server at `baseUrl` with the web UI on. */
export function webUiTemplate(baseUrl: string): string {
  return `${baseUrl}${WEB_UI_PATH}`;
}
export const WEB_UI_PATH = '/ui/{entity}/{project}/threads/{threadId}?call={callId}';

/** Values shown at most this long (inputs, outputs): a page stays small whatever a call holds. */
const MAX_VALUE_CHARS = 20_000;
/** Rows listed at most on a project or thread page. */
const MAX_ROWS = 500;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function page(res: ServerResponse, status: number, title: string, body: string): void {
  const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · svc web UI (reference server)</title>` +
    '<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}pre{white-space:pre-wrap;background:#f4f4f4;padding:.5em}.here{background:#fff4c2}</style>' +
    `</head><body><p><small>svc reference server: a stand-in for the service's web UI (demo only)</small></p><h1>${escapeHtml(title)}</h1>\n${body}\n</body></html>\n`;
  const payload = Buffer.from(html, 'utf8');
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': payload.length,
    // Nothing on the page runs or loads: it is text from the store, escaped.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    'x-content-type-options': 'nosniff',
  });
  res.end(payload);
}

const notFound = (res: ServerResponse, what: string) => page(res, 404, 'Not found', `<p>${escapeHtml(what)}</p>`);

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

const json = (v: unknown) => {
  const text = JSON.stringify(v, null, 2) ?? 'undefined';
  return escapeHtml(text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}\n… (${text.length - MAX_VALUE_CHARS} more characters)` : text);
};

function callRows(calls: readonly CallRecord[], highlight?: string): string {
  const rows = calls.slice(0, MAX_ROWS).map(
    (c) =>
      `<tr${c.id === highlight ? ' class="here"' : ''}><td>${escapeHtml(c.id)}</td><td>${escapeHtml(c.op_name ?? '')}</td><td>${escapeHtml(c.turn_id ?? '')}</td><td>${escapeHtml(c.started_at ?? '')}</td><td>${escapeHtml(c.ended_at ?? '')}</td><td>${escapeHtml(c.exception ?? '')}</td></tr>`,
  );
  const more = calls.length > MAX_ROWS ? `<p>… and ${calls.length - MAX_ROWS} more calls.</p>` : '';
  return `<table><tr><th>call id</th><th>op</th><th>turn</th><th>started</th><th>ended</th><th>exception</th></tr>${rows.join('')}</table>${more}`;
}

function callDetails(c: CallRecord): string {
  const field = (name: string, v: unknown) => (v === undefined ? '' : `<tr><th>${escapeHtml(name)}</th><td>${typeof v === 'string' || typeof v === 'number' ? escapeHtml(String(v)) : `<pre>${json(v)}</pre>`}</td></tr>`);
  return `<h2>Call ${escapeHtml(c.id)}</h2><table>${[
    field('op_name', c.op_name),
    field('display_name', c.display_name),
    field('thread_id', c.thread_id),
    field('turn_id', c.turn_id),
    field('trace_id', c.trace_id),
    field('parent_id', c.parent_id),
    field('started_at', c.started_at),
    field('ended_at', c.ended_at),
    field('exception', c.exception),
    field('inputs', c.inputs),
    field('output', c.output),
    field('summary', c.summary),
    field('attributes', c.attributes),
  ].join('')}</table>`;
}

const byStart = (a: CallRecord, b: CallRecord) => (a.startedUs ?? 0) - (b.startedUs ?? 0) || a.id.localeCompare(b.id);

/** Answers a GET under /ui/ (`rawPath` still percent-encoded, `rawQuery` after the "?"). */
export function serveWebUi(store: Store, method: string, rawPath: string, rawQuery: string, res: ServerResponse): void {
  if (method !== 'GET' && method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain; charset=utf-8' });
    res.end('Method not allowed\n');
    return;
  }
  const m = /^\/ui\/([^/]+)\/([^/]+)(?:\/threads\/([^/]*))?\/?$/.exec(rawPath);
  const entity = m && decode(m[1]!);
  const project = m && decode(m[2]!);
  const threadId = m && m[3] !== undefined ? decode(m[3]) : '';
  if (!entity || !project || threadId === undefined) return notFound(res, `No page at ${rawPath}: pages are /ui/<entity>/<project>/threads/<threadId>?call=<callId>.`);
  let callId: string;
  try {
    callId = new URLSearchParams(rawQuery).get('call') ?? '';
  } catch {
    callId = '';
  }
  const projectId = `${entity}/${project}`;
  const calls = store.calls.get(projectId);
  if (!calls) return notFound(res, `No project ${projectId} on this service.`);

  if (threadId) {
    const inThread = [...calls.values()].filter((c) => c.thread_id === threadId).sort(byStart);
    if (!inThread.length) return notFound(res, `No thread ${threadId} in project ${projectId}.`);
    const call = callId ? inThread.find((c) => c.id === callId) : undefined;
    if (callId && !call) return notFound(res, `No call ${callId} in thread ${threadId} of project ${projectId}.`);
    return page(res, 200, `Thread ${threadId}`, `<p>Project ${escapeHtml(projectId)}; ${inThread.length} calls.</p>${call ? callDetails(call) : ''}<h2>Calls of the thread</h2>${callRows(inThread, callId)}`);
  }
  if (callId) {
    const call = calls.get(callId);
    if (!call) return notFound(res, `No call ${callId} in project ${projectId}.`);
    return page(res, 200, `Call ${callId}`, `<p>Project ${escapeHtml(projectId)}.</p>${callDetails(call)}`);
  }
  const threads = new Map<string, number>();
  for (const c of calls.values()) if (c.thread_id) threads.set(c.thread_id, (threads.get(c.thread_id) ?? 0) + 1);
  const rows = [...threads].slice(0, MAX_ROWS).map(([id, n]) => `<tr><td>${escapeHtml(id)}</td><td>${n}</td></tr>`);
  return page(res, 200, `Project ${projectId}`, `<p>${calls.size} calls in ${threads.size} threads.</p><table><tr><th>thread</th><th>calls</th></tr>${rows.join('')}</table>`);
}
