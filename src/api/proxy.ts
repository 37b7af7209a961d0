/**
 * Proxy selection: explicit settings first, otherwise HTTPS_PROXY / HTTP_PROXY / NO_PROXY. Loopback
 * hosts never go through a proxy: a request to 127.0.0.1 over plain http carries credentials in
 * clear text, and a proxy cannot reach the user's loopback anyway.
 */

/** Always in the no-proxy list, whatever the settings and environment say. */
export const LOOPBACK_NO_PROXY = ['localhost', '127.0.0.1', '::1'] as const;

export interface ProxyOptions {
  /** Proxy URL, e.g. `http://proxy.corp:3128`. Empty means no proxy. */
  url?: string;
  /** Hosts that bypass the proxy: comma separated, or a list; `*` matches all. */
  noProxy?: string | string[];
  /** Verify TLS certificates (of the proxy and through it). Default true. */
  strictSSL?: boolean;
}

export interface ResolvedProxy {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string[];
  strictSSL: boolean;
}

function splitList(value: string | string[] | undefined): string[] {
  const list = Array.isArray(value) ? value : (value ?? '').split(/[,\s]+/);
  return list.map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/** Merges explicit proxy options with the conventional environment variables. */
export function resolveProxy(options: ProxyOptions | undefined, env: NodeJS.ProcessEnv = process.env): ResolvedProxy {
  const strictSSL = options?.strictSSL ?? true;
  if (options?.url) {
    return { httpProxy: options.url, httpsProxy: options.url, noProxy: [...LOOPBACK_NO_PROXY, ...splitList(options.noProxy)], strictSSL };
  }
  const pick = (...names: string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v !== '');
  const httpProxy = pick('http_proxy', 'HTTP_PROXY');
  const httpsProxy = pick('https_proxy', 'HTTPS_PROXY') ?? httpProxy;
  const noProxy = [...LOOPBACK_NO_PROXY, ...splitList(options?.noProxy), ...splitList(pick('no_proxy', 'NO_PROXY'))];
  return { httpProxy, httpsProxy, noProxy, strictSSL };
}

/** The proxy URL to use for `target`, or undefined to connect directly. */
export function proxyFor(target: URL, proxy: ResolvedProxy): string | undefined {
  const url = target.protocol === 'https:' ? proxy.httpsProxy : proxy.httpProxy;
  if (!url || isLoopbackHost(target.hostname)) return undefined;
  const host = target.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  for (const entry of proxy.noProxy) {
    if (entry === '*') return undefined;
    const [entryHost, entryPort] = splitHostPort(entry);
    if (entryPort && entryPort !== port) continue;
    const bare = entryHost.replace(/^\*?\./, '');
    if (host === bare) return undefined;
    // `localhost` names itself only: `api.localhost` is resolved through DNS like any other host.
    if (host.endsWith(`.${bare}`) && bare !== 'localhost') return undefined;
  }
  return url;
}

/**
 * A proxy URL split into the address to connect to and its credentials, as the value of a
 * `Proxy-Authorization` header: `http://user:p%40ss@proxy:3128` gives Basic of `user:p@ss`. A
 * user name alone (a token proxy) gives Basic of `user:`.
 */
export function proxyCredentials(proxyUrl: string): { uri: string; authorization?: string } {
  let url: URL;
  try {
    url = new URL(proxyUrl);
  } catch {
    return { uri: proxyUrl };
  }
  if (!url.username && !url.password) return { uri: proxyUrl };
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = '';
  url.password = '';
  return { uri: url.href, authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

function splitHostPort(entry: string): [string, string | undefined] {
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracket) return [bracket[1]!, bracket[2]];
  const parts = entry.split(':');
  if (parts.length === 2 && /^\d+$/.test(parts[1]!)) return [parts[0]!, parts[1]];
  return [entry, undefined];
}

/**
 * Whether `hostname` is a loopback host (127.0.0.0/8, ::1, localhost). `*.localhost` is not: glibc
 * resolves such names through DNS, so they get neither plain http with credentials nor a bypass of
 * the proxy.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
