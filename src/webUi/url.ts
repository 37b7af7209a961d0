/**
 * The service's web UI: the spec has no endpoint that reads calls, so the thread details are the
 * thread's metadata and the calls themselves are read in the service's own web UI. The user names
 * its URL as a template (svc.webUiUrl). Pure: no vscode import.
 *
 * The URL is opened in the browser: no key or header ever goes with it, and only the values below
 * (ids from the service, never a credential) are put into it, each percent-encoded.
 */

export const WEB_UI_SETTING = 'svc.webUiUrl';

export const WEB_UI_PLACEHOLDERS = ['entity', 'project', 'threadId', 'callId'] as const;
export type WebUiPlaceholder = (typeof WEB_UI_PLACEHOLDERS)[number];
export type WebUiValues = Partial<Record<WebUiPlaceholder, string>>;

export type WebUiUrl = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Fills `template`: each `{placeholder}` gets its value, encoded with encodeURIComponent; a value
 * not known (a ref has no thread id) becomes empty, so templates that take optional values put them
 * in the query (`?thread={threadId}&call={callId}`). Refuses an empty template, an unknown
 * placeholder, and a result that is not an http(s) URL.
 */
export function buildWebUiUrl(template: string, values: WebUiValues): WebUiUrl {
  const t = template.trim();
  if (!t) return { ok: false, reason: `${WEB_UI_SETTING} is not set: set it to your service's web UI URL, e.g. https://ui.example.com/{entity}/{project}/threads/{threadId}?call={callId}.` };
  const unknown = [...t.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!).filter((name) => !(WEB_UI_PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length) {
    return { ok: false, reason: `${WEB_UI_SETTING} names ${unknown.map((n) => `{${n}}`).join(', ')}; the placeholders are ${WEB_UI_PLACEHOLDERS.map((n) => `{${n}}`).join(', ')}.` };
  }
  const filled = t.replace(/\{(entity|project|threadId|callId)\}/g, (_m, name: WebUiPlaceholder) => encodeURIComponent(values[name] ?? ''));
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return { ok: false, reason: `${WEB_UI_SETTING} is not a URL: it must start with https:// or http://.` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `${WEB_UI_SETTING} must be an https:// or http:// URL, not ${url.protocol}.` };
  if (url.username || url.password) return { ok: false, reason: `${WEB_UI_SETTING} must not carry a user name or password: the web UI signs you in itself.` };
  return { ok: true, url: filled };
}

/** The values for a thread of `projectId` (`<entity>/<project>`); its last turn is the call. */
export function threadValues(projectId: string, threadId: string, callId?: string | null): WebUiValues {
  const [entity = '', project = ''] = projectId.split('/');
  return { entity, project, threadId, ...(callId ? { callId } : {}) };
}
