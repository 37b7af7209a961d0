import type { AuthScheme } from './auth';
import type { FaultKind } from './faults';

/** One request as the server saw it; tests assert on these (retries, auth, sizes). */
export interface RequestRecord {
  method: string;
  /** Path without the query string, as sent (not percent-decoded). */
  path: string;
  query: string;
  /** Status sent, or 0 while no response head has gone out (resets, pending requests). */
  status: number;
  /** Which scheme the Authorization header used; the secret itself is never recorded. */
  authScheme: AuthScheme;
  /** The User-Agent header (which client sent it: svc-vscode, or svc-mcp/<version> for the MCP server). */
  userAgent?: string;
  /** Request body bytes the server read. */
  bodyBytes: number;
  /** The fault this request suffered, if any. */
  fault?: FaultKind;
  /** True once the full response was sent; false for resets, stalls and aborted streams. */
  completed: boolean;
}

export type PathMatch = string | RegExp;

/** Per-request records, in arrival order. The admin routes are not recorded. */
export class Stats {
  readonly requests: RequestRecord[] = [];

  begin(record: Omit<RequestRecord, 'status' | 'bodyBytes' | 'completed'>): RequestRecord {
    const full: RequestRecord = { ...record, status: 0, bodyBytes: 0, completed: false };
    this.requests.push(full);
    return full;
  }

  /** Requests whose path starts with the string / matches the RegExp (all if absent). */
  filter(path?: PathMatch, method?: string): RequestRecord[] {
    return this.requests.filter(
      (r) =>
        (method === undefined || r.method === method.toUpperCase()) &&
        (path === undefined || (typeof path === 'string' ? r.path.startsWith(path) : path.test(r.path))),
    );
  }

  count(path?: PathMatch, method?: string): number {
    return this.filter(path, method).length;
  }

  last(path?: PathMatch, method?: string): RequestRecord | undefined {
    const all = this.filter(path, method);
    return all[all.length - 1];
  }

  clear(): void {
    this.requests.length = 0;
  }
}
