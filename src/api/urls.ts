/** The one URL check for service URLs, and the parts of a URL the views show. No vscode import. */

/**
 * What is wrong with `value` as a service URL, in words that follow its name or the input box
 * ("is not a valid URL"), or undefined when it is usable: http or https, no credentials in it (the
 * key goes in a header, never in the URL).
 */
export function serviceUrlProblem(value: string): { kind: 'invalid' | 'scheme' | 'credentials'; text: string } | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return { kind: 'invalid', text: 'is not a valid URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'scheme', text: `must be an http or https URL, not ${url.protocol}` };
  if (url.username || url.password) return { kind: 'credentials', text: 'must not contain credentials; sign in instead' };
  return undefined;
}

/** The origin of a URL (`https://svc.example.com:8443`), or undefined when it is not one. */
export function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The host of a URL with its port (`svc.example.com:8443`), or '' when it is not one. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/**
 * A service URL as the log and the status bar show it: parsed and normalised (`URL.href`: no line
 * breaks, spaces percent-encoded), so a configured value cannot add lines or markdown of its own.
 * `origin: true` gives the origin only. Undefined when it is not a URL.
 */
export function displayUrl(value: string, options: { origin?: boolean } = {}): string | undefined {
  try {
    const url = new URL(value.trim());
    return options.origin ? url.origin : url.href;
  } catch {
    return undefined;
  }
}
