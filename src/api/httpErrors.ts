/**
 * How a failed request is told: an error response becomes the SvcError of its status (with the
 * server's own message), and an undici/Node failure a NetworkError, TlsError, ConfigurationError
 * (a proxy's refusal) or CancelledError. Bodies are read with a cap. Used by the HTTP client
 * (http.ts) and the endpoints that read a stream themselves.
 */
import type { undici } from './undici';
import {
  AuthenticationError,
  CancelledError,
  ConfigurationError,
  NetworkError,
  NotFoundError,
  PayloadTooLargeError,
  ProtocolError,
  RateLimitedError,
  ServerError,
  SvcError,
  TlsError,
  ValidationError,
  type FieldIssue,
  type RequestInfo,
} from './errors';
import { parseRetryAfter } from './retry';
import { describeTlsFailure, isTlsCertificateCode } from './tls';

const CONNECT_PHASE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Reads a body as UTF-8 text, refusing more than `cap` bytes. */
export async function readCapped(body: AsyncIterable<Uint8Array> & { destroy?: (e?: Error) => void }, cap: number, info: RequestInfo): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > cap) {
      body.destroy?.();
      throw new ProtocolError(`The response to ${info.method} ${info.path} is larger than ${cap} bytes.`, { request: info });
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads the first message field official clients look at: message, error, detail, reason. */
function serverMessageOf(value: unknown): { message?: string; issues: FieldIssue[]; errorCode?: string } {
  if (!value || typeof value !== 'object') return { issues: [] };
  const obj = value as Record<string, unknown>;
  const issues: FieldIssue[] = [];
  if (Array.isArray(obj.detail)) {
    for (const item of obj.detail) {
      if (item && typeof item === 'object') {
        const d = item as Record<string, unknown>;
        issues.push({
          loc: Array.isArray(d.loc) ? d.loc.filter((x) => typeof x === 'string' || typeof x === 'number') : [],
          msg: typeof d.msg === 'string' ? d.msg : JSON.stringify(d.msg ?? ''),
          type: typeof d.type === 'string' ? d.type : '',
        });
      }
    }
  }
  let message: string | undefined;
  for (const key of ['message', 'error', 'detail', 'reason']) {
    if (typeof obj[key] === 'string' && obj[key]) {
      message = obj[key] as string;
      break;
    }
  }
  if (!message && issues.length) {
    message = issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ');
  }
  const errorCode = typeof obj.error_code === 'string' ? obj.error_code : undefined;
  return { message, issues, errorCode };
}

/** The SvcError of a response whose status is not 2xx, with the server's own message when it gives one. */
export async function errorFromResponse(res: undici.Dispatcher.ResponseData, info: RequestInfo): Promise<SvcError> {
  let text = '';
  try {
    text = await readCapped(res.body, 256 * 1024, info);
  } catch {
    // An oversized or broken error body still yields an error for its status.
  }
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const { message, issues, errorCode } = serverMessageOf(parsed);
  const status = res.statusCode;
  const where = `${info.method} ${info.path}`;
  const said = message ? `: ${message}` : '';
  const base = { request: info, status, serverMessage: message };
  if (status === 401 || status === 403) {
    const what = status === 401 ? 'rejected the credentials' : 'refused access';
    return new AuthenticationError(`The service ${what} (${status}) for ${where}${said}`, base);
  }
  if (status === 400 || status === 422) {
    return new ValidationError(`The service refused ${where} as invalid (${status})${said}`, { ...base, issues, errorCode });
  }
  if (status === 404) return new NotFoundError(`Not found (404): ${where}${said}`, base);
  if (status === 413) return new PayloadTooLargeError(`The request was too large for the service (413): ${where}${said}`, base);
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(res.headers['retry-after']);
    const wait = retryAfterMs !== undefined ? `; try again in ${Math.ceil(retryAfterMs / 1000)} s` : '';
    return new RateLimitedError(`The service is rate limiting requests (429): ${where}${said}${wait}`, { ...base, retryAfterMs });
  }
  if (status >= 500) return new ServerError(`The service failed (${status}) on ${where}${said}`, base);
  return new SvcError(`Unexpected status ${status} from ${where}${said}`, base);
}

function errorCode(e: unknown): string | undefined {
  let cur: unknown = e;
  for (let depth = 0; cur && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_SOCKET' && code !== 'ERR_ASSERTION') return code;
    if (typeof code === 'string' && code === 'UND_ERR_SOCKET') {
      const inner = (cur as { cause?: unknown }).cause;
      const innerCode = inner && (inner as { code?: unknown }).code;
      return typeof innerCode === 'string' ? innerCode : code;
    }
    const errors = (cur as { errors?: unknown[] }).errors;
    cur = Array.isArray(errors) && errors.length ? errors[0] : (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The status of a proxy that refused to open a tunnel (undici says "Proxy response (407) !== 200"). */
function proxyRefusal(e: unknown): number | undefined {
  let cur: unknown = e;
  for (let depth = 0; cur && depth < 4; depth++) {
    const m = /^Proxy response \((\d{3})\)/.exec(errorMessageOf(cur));
    if (m) return Number(m[1]);
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Maps undici/Node failures to NetworkError (TlsError for a failed certificate check) or
 * CancelledError. `written`: whether undici had started writing the request (see undici.ts); a
 * request it wrote is never "before send", whatever the error code says (EHOSTUNREACH can come
 * after the body went out).
 */
export function mapError(e: unknown, info: RequestInfo, signal?: AbortSignal, host?: string, written = false): SvcError {
  if (e instanceof SvcError) return e;
  if (signal?.aborted) return new CancelledError({ request: info, cause: e });
  const code = errorCode(e);
  const proxyStatus = proxyRefusal(e);
  if (proxyStatus !== undefined) {
    const fix = proxyStatus === 407 ? ': it wants credentials; put them in the proxy URL (http://user:password@proxy:port)' : '';
    // The proxy's configuration, not the network: the same request gets the same answer.
    return new ConfigurationError(`${info.method} ${info.path}: the proxy refused the connection (${proxyStatus})${fix}.`, { request: info, cause: e });
  }
  if (isTlsCertificateCode(code)) {
    return new TlsError(`${info.method} ${info.path}: ${describeTlsFailure(code!, host ?? 'the service')}`, { request: info, code, beforeSend: !written, cause: e });
  }
  const beforeSend = !written && code !== undefined && CONNECT_PHASE_CODES.has(code);
  const timeout = code !== undefined && TIMEOUT_CODES.has(code);
  // Name where the connection went: "could not connect" alone leaves the user guessing which
  // URL is wrong. No period at the end: callers put these messages inside their own sentences.
  const to = info.connectTo ? ` to ${info.viaProxy ? 'the proxy ' : ''}${info.connectTo}` : '';
  const what = timeout
    ? `timed out${code === 'UND_ERR_CONNECT_TIMEOUT' ? ` connecting${to}` : ''}`
    : code === 'ECONNREFUSED'
      ? `could not connect${to} (connection refused)`
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? `could not resolve the host${info.connectTo ? ` of ${info.connectTo}` : ''}`
        : code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
          ? `could not reach ${info.connectTo ?? 'the host'} (${code === 'EHOSTUNREACH' ? 'host' : 'network'} unreachable)`
          : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE'
            ? 'lost the connection'
            : `failed${code ? ` (${code})` : ''}`;
  return new NetworkError(`${info.method} ${info.path} ${what}`, { request: info, code, beforeSend, timeout, cause: e });
}

/** The `message` of an error-like value, or '' when it has none. */
function errorMessageOf(value: unknown): string {
  const message = (value as { message?: unknown }).message;
  return typeof message === 'string' ? message : '';
}
