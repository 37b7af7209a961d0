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

/** The first C0 control character, DEL or C1 control character (the URL parser drops tabs and newlines silently). */
function controlAt(t: string): number {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return i;
  }
  return -1;
}
/** A path segment the URL parser resolves away ("." and "..", "%2e" counting as "."). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * Fills `template`: each `{placeholder}` gets its value, encoded with encodeURIComponent; a value
 * not known (a ref has no thread id) becomes empty, so templates that take optional values put them
 * in the query (`?thread={threadId}&call={callId}`). Returns the URL as the parser normalised it
 * (what the browser opens). Refuses an empty template, an unknown placeholder, a result that is
 * not an http(s) URL, a backslash or a control character anywhere (`https://evil.com\@ui.example.com/`
 * is evil.com to the parser), a placeholder in the scheme, host or port (those are written
 * literally), a host the parser would read differently from what is written, and a value that
 * would be a "." or ".." path segment (the parser would move the path).
 */
export function buildWebUiUrl(template: string, values: WebUiValues): WebUiUrl {
  const t = template.trim();
  if (!t) return { ok: false, reason: `${WEB_UI_SETTING} is not set: set it to your service's web UI URL, e.g. https://ui.example.com/{entity}/{project}/threads/{threadId}?call={callId}.` };
  const control = controlAt(t);
  if (control >= 0) {
    const code = t.charCodeAt(control).toString(16).toUpperCase().padStart(4, '0');
    return { ok: false, reason: `${WEB_UI_SETTING} has a control character U+${code} at character ${control + 1}: the URL parser would drop or rewrite it.` };
  }
  const backslash = t.indexOf('\\');
  if (backslash >= 0) return { ok: false, reason: `${WEB_UI_SETTING} has a backslash at character ${backslash + 1}: the URL parser reads it as "/", so the host would not be the one written. Use "/".` };
  const unknown = [...t.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1]!).filter((name) => !(WEB_UI_PLACEHOLDERS as readonly string[]).includes(name));
  if (unknown.length) {
    return { ok: false, reason: `${WEB_UI_SETTING} names ${unknown.map((n) => `{${n}}`).join(', ')}; the placeholders are ${WEB_UI_PLACEHOLDERS.map((n) => `{${n}}`).join(', ')}.` };
  }
  // The scheme, host and port are written literally: values go only into the path, query and fragment.
  const origin = /^([^:/?#]*):\/\/([^/?#]*)/.exec(t);
  if (!origin) return { ok: false, reason: `${WEB_UI_SETTING} is not a URL: it must start with https:// or http://.` };
  const [literal, , authority] = origin as unknown as [string, string, string];
  if (/[{}]/.test(literal)) return { ok: false, reason: `${WEB_UI_SETTING} has a placeholder in its scheme, host or port (${literal}): write those literally; placeholders go into the path, query or fragment.` };
  const filled = t.replace(/\{(entity|project|threadId|callId)\}/g, (_m, name: WebUiPlaceholder) => encodeURIComponent(values[name] ?? ''));
  let url: URL;
  try {
    url = new URL(filled);
  } catch {
    return { ok: false, reason: `${WEB_UI_SETTING} is not a URL: it must start with https:// or http://.` };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: `${WEB_UI_SETTING} must be an https:// or http:// URL, not ${url.protocol}.` };
  if (url.username || url.password || authority.includes('@')) return { ok: false, reason: `${WEB_UI_SETTING} must not carry a user name or password: the web UI signs you in itself.` };
  // The host as written (in any case) must be the host the parser reads: no IPv4 shorthand,
  // percent-encoding or Unicode for it to rewrite. The default port may be written or left out.
  const written = authority.toLowerCase();
  const defaultPort = url.protocol === 'https:' ? '443' : '80';
  if (written !== url.host && written !== `${url.hostname}:${defaultPort}`) {
    return { ok: false, reason: `${WEB_UI_SETTING}'s host "${authority}" is read by the URL parser as "${url.host}": write the host as "${url.host}".` };
  }
  // A value that is a whole path segment "." or ".." would be resolved away, moving the path.
  const pathEnd = t.search(/[?#]/);
  const pathTemplate = t.slice(literal.length, pathEnd < 0 ? undefined : pathEnd);
  for (const segment of pathTemplate.split('/')) {
    const names = [...segment.matchAll(/\{(entity|project|threadId|callId)\}/g)].map((m) => m[1] as WebUiPlaceholder);
    if (!names.length) continue;
    const value = segment.replace(/\{(entity|project|threadId|callId)\}/g, (_m, name: WebUiPlaceholder) => encodeURIComponent(values[name] ?? ''));
    if (DOT_SEGMENT.test(value)) {
      const which = names.map((n) => `{${n}} is "${values[n] ?? ''}"`).join(', ');
      return { ok: false, reason: `${WEB_UI_SETTING}: ${which}, which as a path segment would move the URL to another path; not opened.` };
    }
  }
  return { ok: true, url: url.href };
}

/** The values for a thread of `projectId` (`<entity>/<project>`); its last turn is the call. */
export function threadValues(projectId: string, threadId: string, callId?: string | null): WebUiValues {
  const [entity = '', project = ''] = projectId.split('/');
  return { entity, project, threadId, ...(callId ? { callId } : {}) };
}
