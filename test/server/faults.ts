// Fault injection: tests queue faults that the next matching requests suffer, in order, so the
// client's retry, timeout and stream-error paths can be exercised deterministically.

export interface FaultMatch {
  /** Path prefix (string) or pattern (RegExp) the request path must match; any path if absent. */
  path?: string | RegExp;
  /** HTTP method (case-insensitive); any method if absent. */
  method?: string;
  /** How many matching requests the fault applies to; default 1. */
  times?: number;
}

export type FaultSpec =
  /** Answer this status without processing (e.g. 429 with Retry-After, 500, 502, 503, 504). */
  | { kind: 'status'; status: number; retryAfter?: string; body?: unknown }
  /** Wait, then process normally (a client that gave up meanwhile is dropped unprocessed). */
  | { kind: 'delay'; ms: number }
  /** Read the body, do not process, destroy the socket. */
  | { kind: 'reset-before-response' }
  /** Read and process (data is stored), then destroy the socket without answering. */
  | { kind: 'reset-after-processing' }
  /** Read and process (data is stored), then answer this status instead of the result, as a
   *  proxy in front of a busy service does when it gives up (e.g. 502, 503, 504). */
  | { kind: 'status-after-processing'; status: number }
  /** stream_query only: send `afterRows` rows, then destroy the socket. */
  | { kind: 'reset-mid-stream'; afterRows: number }
  /** stream_query only: send `afterRows` rows and half of the next, then end normally
   *  (with no row at that position the stream just ends normally). */
  | { kind: 'truncate-jsonl'; afterRows: number }
  /** stream_query only: row `atRow` (0-based) is replaced by a line that is not JSON. */
  | { kind: 'malformed-line'; atRow: number }
  /** Process (data is stored), send the headers (and `afterBytes` of the body), then never
   *  finish, until the client disconnects or close() is called. */
  | { kind: 'stall'; afterBytes?: number };

export type Fault = FaultMatch & FaultSpec;
export type FaultKind = FaultSpec['kind'];

/** Kinds that only make sense on a JSONL stream; other requests never consume them. */
const STREAM_ONLY: ReadonlySet<FaultKind> = new Set(['reset-mid-stream', 'truncate-jsonl', 'malformed-line']);

interface Pending {
  fault: Fault;
  remaining: number;
}

export class Faults {
  private queue: Pending[] = [];

  /** Queues one fault or several; they are consumed in the order added. */
  add(fault: Fault | readonly Fault[]): void {
    for (const f of Array.isArray(fault) ? fault : [fault as Fault]) {
      validateFault(f);
      this.queue.push({ fault: f, remaining: f.times ?? 1 });
    }
  }

  clear(): void {
    this.queue = [];
  }

  /** Faults still queued, with how many more requests each will hit. */
  pending(): { fault: Fault; remaining: number }[] {
    return this.queue.map((p) => ({ ...p }));
  }

  /** Takes the first queued fault matching this request, consuming one of its uses. */
  take(method: string, path: string, isStream: boolean): Fault | undefined {
    const i = this.queue.findIndex((p) => matches(p.fault, method, path, isStream));
    if (i < 0) return undefined;
    const p = this.queue[i]!;
    p.remaining -= 1;
    if (p.remaining <= 0) this.queue.splice(i, 1);
    return p.fault;
  }
}

function matches(f: Fault, method: string, path: string, isStream: boolean): boolean {
  if (STREAM_ONLY.has(f.kind) && !isStream) return false;
  if (f.method !== undefined && f.method.toUpperCase() !== method.toUpperCase()) return false;
  if (f.path === undefined) return true;
  return typeof f.path === 'string' ? path.startsWith(f.path) : f.path.test(path);
}

const nonNegativeInt = (n: unknown): boolean => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Rejects malformed faults at add() time, so a typo fails the test that made it. */
function validateFault(f: Fault): void {
  const bad = (why: string): never => {
    throw new TypeError(`invalid fault ${JSON.stringify(f)}: ${why}`);
  };
  if (f.times !== undefined && !(nonNegativeInt(f.times) && f.times > 0)) bad('times must be a positive integer');
  switch (f.kind) {
    case 'status':
    case 'status-after-processing':
      if (!(Number.isInteger(f.status) && f.status >= 100 && f.status <= 599)) bad('status must be 100..599');
      break;
    case 'delay':
      if (!nonNegativeInt(f.ms)) bad('ms must be a non-negative integer');
      break;
    case 'reset-mid-stream':
    case 'truncate-jsonl':
      if (!nonNegativeInt(f.afterRows)) bad('afterRows must be a non-negative integer');
      break;
    case 'malformed-line':
      if (!nonNegativeInt(f.atRow)) bad('atRow must be a non-negative integer');
      break;
    case 'stall':
      if (f.afterBytes !== undefined && !nonNegativeInt(f.afterBytes)) bad('afterBytes must be a non-negative integer');
      break;
    case 'reset-before-response':
    case 'reset-after-processing':
      break;
    default:
      bad('unknown kind');
  }
}
