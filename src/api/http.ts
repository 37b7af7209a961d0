// Over 300 lines: the one HTTP client by design (auth, timeouts, cancellation, retries, proxies in one place; how failures are told is httpErrors.ts).
/**
 * The one HTTP client of the extension. Everything that talks to the service goes through it: it
 * carries auth, timeouts, cancellation, retries, proxy settings and request logging. It uses its
 * own undici dispatchers (keep-alive pools per origin) and never the global dispatcher, which is
 * shared with every other extension in the host.
 */

import { Agent, ProxyAgent, request, type Dispatcher, type undici } from './undici';
import { AuthenticationError, CancelledError, ConfigurationError, NetworkError, ProtocolError, RateLimitedError, SvcError, TlsError, type RequestInfo } from './errors';
import { errorFromResponse, mapError, readCapped } from './httpErrors';
import { isLoopbackHost, proxyCredentials, proxyFor, resolveProxy, type ProxyOptions, type ResolvedProxy } from './proxy';
import { DEFAULT_RETRY, backoffDelay, sleep, type RetryOptions } from './retry';
import { loadTrustStore, type TrustOptions, type TrustStore } from './tls';
import { serviceUrlProblem } from './urls';

export interface Credentials {
  /** Basic username; the service's convention is `api`. */
  username?: string;
  /** Basic password: the API key. */
  password?: string;
  /** Bearer token for the model endpoints: usually the same API key. */
  accessToken?: string;
}

/** What the client logs about a request: never headers, bodies or credentials. */
export interface RequestLogEvent {
  method: string;
  /** Path and query of the request, without the origin. */
  path: string;
  status?: number;
  durationMs: number;
  attempt: number;
  /** Set when the attempt failed; the error's user-facing message. */
  error?: string;
  /** Set when another attempt follows, after this many milliseconds. */
  retryInMs?: number;
}

export interface HttpClientOptions {
  traceBaseUrl: string;
  trainingBaseUrl?: string;
  /**
   * The credentials for one request, asked per request and per base URL: the trace and the model
   * endpoints may be on different origins with different keys. `origin` is the origin the request
   * goes to: a key resolved for another origin (the URL changed meanwhile) must not be returned.
   * May throw to refuse the request.
   */
  credentials: (base: 'trace' | 'training', origin: string) => Promise<Credentials>;
  timeoutMs?: number;
  retry?: Partial<RetryOptions>;
  proxy?: ProxyOptions;
  /** Certificates to trust beyond Node's roots; see tls.ts. */
  tls?: TrustOptions;
  userAgent?: string;
  logger?: (event: RequestLogEvent) => void;
  allowInsecureHttp?: boolean;
  /** Cap of a buffered (non-streamed) response body. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Environment used for proxy variables; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Which failures a request may be retried after:
 * - `idempotent`: network errors, 429, 502, 503, 504;
 * - `unsent-only`: only a connection that failed before any byte was written;
 * - `never`.
 */
export type RetryPolicy = 'idempotent' | 'unsent-only' | 'never';

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Which base URL: the trace endpoints' or the model endpoints'. */
  base: 'trace' | 'training';
  /** Path relative to the base URL, already percent-encoded. */
  path: string;
  query?: Record<string, string | number | undefined>;
  auth: 'basic' | 'bearer';
  /** JSON body, serialized once before the first attempt; or bytes already serialized. */
  json?: unknown;
  body?: Uint8Array;
  retry: RetryPolicy;
  signal?: AbortSignal;
  accept?: string;
  /**
   * On a new connection, not an idle pooled one: after this process's event loop was held for
   * seconds (a Parquet page decoding), undici's keep-alive timers lag behind the service's, and a
   * request written on a connection the service is closing is lost. The old pool closes once idle.
   */
  fresh?: boolean;
}

export interface StreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: undici.Dispatcher.ResponseData['body'];
  info: RequestInfo;
}

export class HttpClient {
  private readonly trace: URL;
  private readonly training: URL;
  private readonly timeoutMs: number;
  private readonly retry: RetryOptions;
  private readonly proxy: ResolvedProxy;
  private readonly maxResponseBytes: number;
  private readonly trust: TrustStore | undefined;
  private readonly dispatchers = new Map<string, Dispatcher>();
  private closed = false;

  constructor(private readonly options: HttpClientOptions) {
    this.trace = parseBaseUrl(options.traceBaseUrl, 'traceBaseUrl');
    this.training = parseBaseUrl(options.trainingBaseUrl || options.traceBaseUrl, 'trainingBaseUrl');
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.proxy = resolveProxy(options.proxy, options.env);
    this.maxResponseBytes = options.maxResponseBytes ?? 64 * 1024 * 1024;
    this.trust = loadTrustStore(options.tls, options.env);
  }

  /** Where the trusted certificates beyond Node's roots came from, and files that failed to load. */
  get trustSources(): { sources: string[]; problems: string[] } {
    return { sources: this.trust?.sources ?? [], problems: this.trust?.problems ?? [] };
  }

  /** The retry settings in effect, for operations that resume on their own (streams). */
  get retryOptions(): RetryOptions {
    return this.retry;
  }

  /**
   * Sends a request and parses its JSON response body; errors become SvcError subclasses. A
   * connection lost while the body is read is retried like one lost before the headers (for
   * idempotent requests only: for others the server has processed the request).
   */
  async json(req: HttpRequest): Promise<{ status: number; value: unknown; info: RequestInfo }> {
    // One budget of attempts for failures before and after the response head.
    const attempts = { n: 0 };
    for (;;) {
      const res = await this.stream(req, attempts);
      let text: string;
      try {
        text = await readCapped(res.body, this.maxResponseBytes, res.info);
      } catch (e) {
        const error = mapError(e, res.info, req.signal, this.urlFor(req).host);
        const retryInMs = req.retry === 'idempotent' ? this.retryDelay(error, req.retry, attempts.n) : undefined;
        this.log({ ...res.info, status: res.status, durationMs: 0, attempt: attempts.n, error: `reading the response: ${error.message}`, retryInMs });
        if (retryInMs === undefined) throw error;
        await sleep(retryInMs, req.signal).catch(() => {
          throw new CancelledError({ request: res.info });
        });
        continue;
      }
      if (text.trim() === '') return { status: res.status, value: undefined, info: res.info };
      try {
        return { status: res.status, value: JSON.parse(text), info: res.info };
      } catch {
        throw new ProtocolError(`The service answered ${res.info.method} ${res.info.path} with a body that is not JSON.`, {
          request: res.info,
          status: res.status,
        });
      }
    }
  }

  /**
   * Sends a request and returns the successful response with its body unread, so the caller can
   * stream it. Retries (per `req.retry`) cover everything up to the response headers.
   */
  async stream(req: HttpRequest, attempts: { n: number } = { n: 0 }): Promise<StreamResponse> {
    const url = this.urlFor(req);
    const proxyUrl = proxyFor(url, this.proxy);
    const info: RequestInfo = { method: req.method, path: url.pathname + url.search, connectTo: hostPort(proxyUrl ? new URL(proxyUrl) : url), viaProxy: !!proxyUrl };
    this.checkTransport(url, info);
    const body = req.body ?? (req.json !== undefined ? Buffer.from(JSON.stringify(req.json)) : undefined);

    for (;;) {
      const attempt = ++attempts.n;
      if (req.signal?.aborted) throw new CancelledError({ request: info });
      // Checked on every attempt: a client closed during a Retry-After wait sends nothing more.
      this.checkOpen(info);
      const started = performance.now();
      const written = { value: false };
      let error: SvcError;
      try {
        const headers = await this.headersFor(req, url, info, body);
        // Closed while the credentials were read (the URL changed): these credentials go nowhere.
        this.checkOpen(info);
        const res = await request(url, {
          method: req.method,
          headers,
          body,
          signal: req.signal,
          dispatcher: this.dispatcherFor(url, req.fresh),
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        }, written);
        if (res.statusCode >= 200 && res.statusCode < 300) {
          this.log({ ...info, status: res.statusCode, durationMs: performance.now() - started, attempt });
          return { status: res.statusCode, headers: res.headers, body: res.body, info };
        }
        error = await errorFromResponse(res, info);
      } catch (e) {
        error = mapError(e, info, req.signal, url.host, written.value);
      }
      const retryInMs = this.retryDelay(error, req.retry, attempt);
      this.log({
        ...info,
        status: error.status,
        durationMs: performance.now() - started,
        attempt,
        error: error.message,
        retryInMs,
      });
      if (retryInMs === undefined) throw error;
      await sleep(retryInMs, req.signal).catch(() => {
        throw new CancelledError({ request: info });
      });
    }
  }

  /** Closes every connection pool. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.dispatchers.values()];
    this.dispatchers.clear();
    await Promise.all(all.map((d) => d.close().catch(() => undefined)));
  }

  private retryDelay(error: SvcError, policy: RetryPolicy, attempt: number): number | undefined {
    // A certificate check fails the same way every time: never retried, whatever the policy.
    if (attempt >= this.retry.maxAttempts || error instanceof CancelledError || error instanceof TlsError) return undefined;
    const retryable =
      policy === 'idempotent'
        ? error.transient
        : policy === 'unsent-only'
          ? error instanceof NetworkError && error.beforeSend
          : false;
    if (!retryable) return undefined;
    const retryAfterMs = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
    // A server that asks for a longer wait than we are willing to spend gets its error surfaced.
    if (retryAfterMs !== undefined && retryAfterMs > this.retry.maxDelayMs) return undefined;
    return backoffDelay(attempt, this.retry, retryAfterMs);
  }

  private urlFor(req: HttpRequest): URL {
    const base = req.base === 'trace' ? this.trace : this.training;
    const url = new URL(trimSlashes(base.href) + req.path);
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  private checkOpen(info: RequestInfo): void {
    if (this.closed) throw new ConfigurationError('The service client was closed (its settings changed); the request was not sent.', { request: info });
  }

  private checkTransport(url: URL, info: RequestInfo): void {
    this.checkOpen(info);
    if (url.protocol === 'https:') return;
    if (url.protocol === 'http:' && (this.options.allowInsecureHttp || isLoopbackHost(url.hostname))) return;
    throw new ConfigurationError(
      `Refusing to send credentials over plain http to ${url.host}. Use https, or allow insecure http explicitly.`,
      { request: info },
    );
  }

  private async headersFor(req: HttpRequest, url: URL, info: RequestInfo, body: Uint8Array | undefined) {
    const creds = await this.options.credentials(req.base, url.origin);
    const headers: Record<string, string> = {
      accept: req.accept ?? 'application/json',
      'user-agent': this.options.userAgent ?? 'svc-vscode',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (req.auth === 'basic') {
      if (!creds.username || !creds.password) {
        throw new AuthenticationError(`Not signed in: no API key for ${this.trace.origin}.`, { request: info });
      }
      headers.authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    } else {
      if (!creds.accessToken) {
        throw new AuthenticationError(`Not signed in: no key for the model endpoints at ${this.training.origin}.`, { request: info });
      }
      headers.authorization = `Bearer ${creds.accessToken}`;
    }
    return headers;
  }

  private dispatcherFor(url: URL, fresh = false): Dispatcher {
    // close() must stay final: a fresh Agent after it would send for a client that was replaced.
    if (this.closed) throw new ConfigurationError('The service client was closed; the request was not sent.');
    const proxyUrl = proxyFor(url, this.proxy);
    const key = proxyUrl ?? 'direct';
    let dispatcher = this.dispatchers.get(key);
    if (fresh && dispatcher) {
      // Its requests in flight finish; its idle connections close.
      this.dispatchers.delete(key);
      dispatcher.close().catch(() => undefined);
      dispatcher = undefined;
    }
    if (!dispatcher) {
      const tls = { rejectUnauthorized: this.proxy.strictSSL, ...(this.trust ? { secureContext: this.trust.secureContext } : {}) };
      if (proxyUrl) {
        // Credentials in the proxy URL become the Proxy-Authorization of the CONNECT request only.
        const { uri, authorization } = proxyCredentials(proxyUrl);
        dispatcher = new ProxyAgent({ uri, token: authorization, requestTls: tls, proxyTls: tls, connect: { timeout: this.timeoutMs } });
      } else {
        dispatcher = new Agent({ keepAliveTimeout: 10_000, connect: { timeout: this.timeoutMs, ...tls } });
      }
      this.dispatchers.set(key, dispatcher);
    }
    return dispatcher;
  }

  /** Logs an event on behalf of an operation that retries on its own (a resumed stream). */
  logEvent(event: RequestLogEvent & Partial<RequestInfo>): void {
    this.log(event);
  }

  private log(event: RequestLogEvent & Partial<RequestInfo>): void {
    // Only the fields of a log event: RequestInfo's connection details are for error messages.
    const { connectTo: _connectTo, viaProxy: _viaProxy, ...fields } = event;
    try {
      this.options.logger?.({ ...fields, durationMs: Math.round(event.durationMs) });
    } catch {
      // A broken logger must not break requests.
    }
  }
}

function parseBaseUrl(value: string, name: string): URL {
  const problem = serviceUrlProblem(value);
  // JSON-quoted: line breaks in the value show as \n, and cannot forge lines of the log.
  if (problem?.kind === 'invalid') throw new ConfigurationError(`${name} ${JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)} ${problem.text}.`);
  if (problem) throw new ConfigurationError(`${name} ${problem.text}.`);
  return new URL(value.trim());
}

/** `text` without trailing slashes. A loop: `/\/+$/` backtracks on a run of slashes (40,000: 0.8 s). */
export function trimSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 47) end--;
  return text.slice(0, end);
}

/** `host:port` of a URL, with the scheme's default port written out. */
function hostPort(url: URL): string {
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}
