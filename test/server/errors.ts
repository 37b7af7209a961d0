import type { OutgoingHttpHeaders } from 'node:http';
import { issuesToReason, type Issue } from './validate';

// The two endpoint families answer errors in different shapes, as production does: the trace
// endpoints `{"reason": ...}`, the model endpoints (a FastAPI service) `{"detail": ...}`.
export type Family = 'trace' | 'model';

/** Thrown by handlers; the request loop turns it into the response. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/** An error in the family's shape: `{reason}` for trace endpoints, `{detail}` for model ones. */
export function familyError(family: Family, status: number, message: string, headers?: OutgoingHttpHeaders): HttpError {
  return new HttpError(status, family === 'trace' ? { reason: message } : { detail: message }, headers);
}

/** 400 `{"reason": ...}` naming the offending field paths (trace endpoints). */
export function invalidRequest(issues: readonly Issue[]): HttpError {
  return new HttpError(400, { reason: issuesToReason(issues) });
}

/** 422 in FastAPI's shape; `where` is the first element of every loc (`body` or `query`). */
export function unprocessable(issues: readonly Issue[], where: 'body' | 'query' = 'body'): HttpError {
  return new HttpError(422, {
    detail: issues.map((i) => ({ loc: [where, ...i.path], msg: i.msg, type: i.type })),
  });
}
