/**
 * The one error hierarchy of the extension. Every failure a user can see is an SvcError: the
 * service client's (each carries the request's method and path, never its headers, the HTTP
 * status when there was one, and the server's own message) and the bad input a reader or a
 * command refuses (InputError: the file, line, column or field at fault). Messages are written
 * for users and never contain credentials. The one presenter (src/common/errors.ts) shows them.
 */

/** Where a request was going, for error messages. Paths never contain credentials. */
export interface RequestInfo {
  method: string;
  path: string;
  /** Where the connection goes, `host:port` (the proxy's when the request goes through one). */
  connectTo?: string;
  /** Whether `connectTo` is a proxy. */
  viaProxy?: boolean;
}

/** One problem with a field, as the service reports it in a 422 body or as the client finds it. */
export interface FieldIssue {
  /** Location of the offending value, for example `["body", "trajectory_groups", 0, "reward"]`. */
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** The command that fixes an error, offered as a button (e.g. "Review Key Use", "Select Project"). */
export interface ErrorFix {
  title: string;
  command: string;
  /** The command's one argument, if any. */
  args?: unknown;
}

export interface SvcErrorOptions {
  request?: RequestInfo;
  status?: number;
  serverMessage?: string;
  cause?: unknown;
  fix?: ErrorFix;
}

/** Base class of every error the client throws. */
export class SvcError extends Error {
  readonly method?: string;
  readonly path?: string;
  readonly status?: number;
  readonly serverMessage?: string;
  /** The command that fixes this error, when one does. */
  readonly fix?: ErrorFix;

  constructor(message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.method = options.request?.method;
    this.path = options.request?.path;
    this.status = options.status;
    this.serverMessage = options.serverMessage;
    this.fix = options.fix;
  }

  /** Whether a retry of the same operation could succeed. */
  get transient(): boolean {
    return false;
  }
}

/** 401 or 403, or no credentials available for the scheme the endpoint needs. */
export class AuthenticationError extends SvcError {}

/**
 * The request was invalid: a 400 with a reason, a 422 with `detail` items, or an input the client
 * refused before sending (then `status` is undefined and `source` is `client`).
 */
export class ValidationError extends SvcError {
  readonly issues: FieldIssue[];
  readonly source: 'client' | 'server';
  /** The `error_code` some servers add to 400 bodies, e.g. `CALLS_COMPLETE_MODE_REQUIRED`. */
  readonly errorCode?: string;

  constructor(
    message: string,
    options: SvcErrorOptions & { issues?: FieldIssue[]; source?: 'client' | 'server'; errorCode?: string } = {},
  ) {
    super(message, options);
    this.issues = options.issues ?? [];
    this.source = options.source ?? 'server';
    this.errorCode = options.errorCode;
  }
}

/** 413: the request body was larger than the server accepts. */
export class PayloadTooLargeError extends SvcError {}

/** 429: rate limited. `retryAfterMs` is the wait the server asked for, when it said. */
export class RateLimitedError extends SvcError {
  readonly retryAfterMs?: number;
  constructor(message: string, options: SvcErrorOptions & { retryAfterMs?: number } = {}) {
    super(message, options);
    this.retryAfterMs = options.retryAfterMs;
  }
  override get transient(): boolean {
    return true;
  }
}

/** 404: the model, route or object does not exist. */
export class NotFoundError extends SvcError {}

/** 5xx. */
export class ServerError extends SvcError {
  override get transient(): boolean {
    return this.status === 502 || this.status === 503 || this.status === 504;
  }
}

/** Connection refused or reset, DNS failure, TLS failure, or a timeout. */
export class NetworkError extends SvcError {
  readonly code?: string;
  /** True when the failure happened before any byte of the request was written. */
  readonly beforeSend: boolean;
  readonly timeout: boolean;
  constructor(
    message: string,
    options: SvcErrorOptions & { code?: string; beforeSend?: boolean; timeout?: boolean } = {},
  ) {
    super(message, options);
    this.code = options.code;
    this.beforeSend = options.beforeSend ?? false;
    this.timeout = options.timeout ?? false;
  }
  override get transient(): boolean {
    return true;
  }
}

/**
 * A certificate check failed (untrusted issuer, self-signed, expired, wrong host name). Not
 * transient: the same certificate fails the same way, so it is never retried.
 */
export class TlsError extends NetworkError {
  override get transient(): boolean {
    return false;
  }
}

/** A response that does not follow the service's contract: bad JSON, or a schema violation. */
export class ProtocolError extends SvcError {
  /** Path of the offending field inside the response, e.g. `data[3].step`. */
  readonly fieldPath?: string;
  /** 1-based line of a JSONL stream, when the problem is in one line. */
  readonly line?: number;
  constructor(message: string, options: SvcErrorOptions & { fieldPath?: string; line?: number } = {}) {
    super(message, options);
    this.fieldPath = options.fieldPath;
    this.line = options.line;
  }
}

/** The operation was cancelled by its caller. */
export class CancelledError extends SvcError {
  constructor(options: SvcErrorOptions = {}) {
    super('The operation was cancelled.', options);
  }
}

/** The client's configuration forbids the request (for example credentials over plain http). */
export class ConfigurationError extends SvcError {}

/** Where bad input is: a file position (1-based line and column) or a field / argument name. */
export interface InputPlace {
  file?: string;
  line?: number;
  column?: number;
  field?: string;
}

/**
 * Input that cannot be used, found before anything was sent: a file that does not hold what its
 * reader expects, a line too long, a ref or an argument that is not valid. `place` names what is
 * at fault; the message names it too.
 */
export class InputError extends SvcError {
  readonly place: InputPlace;
  constructor(message: string, place: InputPlace = {}, options: SvcErrorOptions = {}) {
    super(message, options);
    this.place = place;
  }
}

/** Formats a zod-style path as `a.b[3].c`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}
