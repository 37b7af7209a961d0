/**
 * Uploading trajectory groups to a model's log, in requests under a byte budget. Pure: no vscode
 * import. The rules that keep data safe:
 * - a request is never retried once it may have reached the server (the client refuses too);
 * - cancelling lets the request in flight finish, then stops, so its outcome is known;
 * - the result lists exactly which groups (and file lines) were logged, and where a retry resumes.
 */
import { NetworkError, ProtocolError, ValidationError, type ServiceClient } from '../api';
import type { GroupRecord } from '../files';
import { dict } from '../api/dict';

/** A run of consecutive groups sent in one request. */
export interface Chunk {
  firstGroup: number;
  lastGroup: number;
  firstLine: number;
  lastLine: number;
  /** What firstLine and lastLine count: file lines (absent), or the 0-based rows of a Parquet file. */
  unit?: 'row';
  groups: number;
  trajectories: number;
  bytes: number;
}

export interface UploadProgress {
  groupsSent: number;
  trajectoriesSent: number;
  bytesSent: number;
  requests: number;
}

export type UploadOutcome =
  | { status: 'done' }
  | { status: 'cancelled' }
  | {
      status: 'failed';
      error: unknown;
      /**
       * The failed request may have been logged: any 5xx, or no answer after the body was sent.
       * Its lines are never resent without the user's explicit choice.
       */
      uncertain: boolean;
      /** Why it may have been logged, for the user ("the service answered 503 after receiving them"). */
      uncertainWhy?: string;
      chunk: Chunk;
      /** For a 422: each issue with the group it points at, when it does. */
      issues: { group?: number; line?: number; rows?: [number, number]; loc: (string | number)[]; msg: string }[];
    };

export interface UploadResult {
  modelId: string;
  split: string;
  /** Requests that the service acknowledged, in order. */
  logged: Chunk[];
  outcome: UploadOutcome;
  /** The first group not known to be logged or in doubt: where "Retry remaining" resumes. */
  nextGroup: number;
  totals: UploadProgress;
  durationMs: number;
}

export interface UploadOptions {
  modelId: string;
  split: string;
  /**
   * Other top-level members of the file's request object (JSON texts), sent with every request.
   * A `model_id` among them is replaced by `modelId`, the model the requests go to.
   */
  members?: Record<string, string>;
  /** Largest request body in bytes. Default 8 MiB. */
  maxRequestBytes?: number;
  /** Checked between requests: a request in flight is allowed to finish. */
  cancel?: AbortSignal;
  onProgress?: (p: UploadProgress, chunk: Chunk) => void;
}

export const DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** Below the shortest keep-alive of common servers (Node's 5 s, less undici's 2 s margin). */
export const FRESH_CONNECTION_AFTER_MS = 2000;

/** Sends `groups` (already validated, in file order) and reports exactly what was logged. */
export async function uploadGroups(
  client: ServiceClient,
  groups: AsyncIterable<GroupRecord>,
  options: UploadOptions,
): Promise<UploadResult> {
  const started = performance.now();
  const budget = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const members = dict(options.members); // the file's own top-level names
  delete members.split;
  if ('model_id' in members) members.model_id = JSON.stringify(options.modelId);
  const envelope =
    Buffer.byteLength(JSON.stringify({ split: options.split, trajectory_groups: [] })) +
    Object.entries(members).reduce((n, [k, v]) => n + Buffer.byteLength(JSON.stringify(k)) + Buffer.byteLength(v) + 2, 0);
  const totals: UploadProgress = { groupsSent: 0, trajectoriesSent: 0, bytesSent: 0, requests: 0 };
  const logged: Chunk[] = [];
  let nextGroup = 0;
  let pending: GroupRecord[] = [];
  let pendingBytes = envelope;
  let firstSeen: number | undefined;
  /** When the last request went out: the service's idle timer started after it. */
  let lastSent: number | undefined;

  const result = (outcome: UploadOutcome): UploadResult => ({
    modelId: options.modelId,
    split: options.split,
    logged,
    outcome,
    nextGroup,
    totals,
    durationMs: performance.now() - started,
  });

  const send = async (): Promise<UploadOutcome | undefined> => {
    if (pending.length === 0) return undefined;
    const batch = pending;
    pending = [];
    pendingBytes = envelope;
    const chunk: Chunk = {
      firstGroup: batch[0]!.index,
      lastGroup: batch.at(-1)!.index,
      firstLine: batch[0]!.line,
      lastLine: batch.at(-1)!.endLine,
      ...(batch[0]!.unit ? { unit: batch[0]!.unit } : {}),
      groups: batch.length,
      trajectories: batch.reduce((n, g) => n + g.trajectories, 0),
      bytes: batch.reduce((n, g) => n + g.bytes, envelope + batch.length - 1),
    };
    try {
      // A connection that may have been idle for seconds is not reused: a reader that held the
      // event loop (a Parquet page decoding) held undici's keep-alive timers too, so undici may
      // not know the service is closing it, and a log request written on it is lost.
      const fresh = lastSent !== undefined && performance.now() - lastSent > FRESH_CONNECTION_AFTER_MS;
      lastSent = performance.now();
      // No signal: cancelling waits for this request, so whether it was logged is never in doubt.
      await client.models.logGroupsJson(options.modelId, { split: options.split, groups: batch.map((g) => g.json), members }, { fresh });
    } catch (error) {
      const why = error instanceof ValidationError ? undefined : uncertainWhy(error);
      nextGroup = why ? chunk.lastGroup + 1 : chunk.firstGroup;
      const failed: UploadOutcome = { status: 'failed', error, uncertain: why !== undefined, chunk, issues: issuesOf(error, batch) };
      if (why) failed.uncertainWhy = why;
      return failed;
    }
    logged.push(chunk);
    nextGroup = chunk.lastGroup + 1;
    totals.requests++;
    totals.groupsSent += chunk.groups;
    totals.trajectoriesSent += chunk.trajectories;
    totals.bytesSent += chunk.bytes;
    options.onProgress?.({ ...totals }, chunk);
    return undefined;
  };

  // One request in flight at most, while the next one is read from the file: the read overlaps the
  // wait for the service, and requests still go one after another, in file order. Every way out
  // waits for the request in flight first, so what it logged is always known.
  let inFlight: Promise<UploadOutcome | undefined> | undefined;
  const settle = async (): Promise<UploadOutcome | undefined> => {
    const outcome = await inFlight;
    inFlight = undefined;
    return outcome;
  };

  try {
    for await (const g of groups) {
      if (firstSeen === undefined) {
        firstSeen = g.index;
        nextGroup = g.index;
      }
      if (pending.length > 0 && pendingBytes + g.bytes + 1 > budget) {
        const failed = await settle();
        if (failed) return result(failed);
        if (options.cancel?.aborted) return result({ status: 'cancelled' });
        inFlight = send();
      }
      if (options.cancel?.aborted) return result((await settle()) ?? { status: 'cancelled' });
      pending.push(g);
      pendingBytes += g.bytes + (pending.length > 1 ? 1 : 0);
    }
  } catch (error) {
    const failed = await settle();
    if (failed) return result(failed);
    // The file could not be read further (it changed, or a line broke): what was logged stays
    // in the ledger, and the groups not sent yet are reported as not logged.
    const first = pending[0];
    const chunk: Chunk = first
      ? { firstGroup: first.index, lastGroup: pending.at(-1)!.index, firstLine: first.line, lastLine: pending.at(-1)!.endLine, ...(first.unit ? { unit: first.unit } : {}), groups: pending.length, trajectories: 0, bytes: 0 }
      : { firstGroup: nextGroup, lastGroup: nextGroup - 1, firstLine: 0, lastLine: 0, groups: 0, trajectories: 0, bytes: 0 };
    return result({ status: 'failed', error, uncertain: false, chunk, issues: [] });
  }
  const failed = (await settle()) ?? (options.cancel?.aborted && pending.length ? { status: 'cancelled' as const } : await send());
  return result(failed ?? { status: 'done' });
}

/**
 * Why a failed log request may have been stored, or undefined when it surely was not. Any 5xx may
 * come after the service stored it (a gateway or proxy in front of a busy service answers 502,
 * 503 or 504 for a request the service went on to finish), and so may a connection lost after the
 * body was sent. Errors the client raises before writing (closed client, insecure URL, no
 * credentials), a connection refused before sending, and every 4xx mean it was not stored.
 */
function uncertainWhy(error: unknown): string | undefined {
  if (error instanceof NetworkError) return error.beforeSend ? undefined : 'the connection was lost after they were sent';
  const status = (error as { status?: number }).status;
  if (typeof status === 'number' && status >= 500) return `the service answered ${status} after receiving them`;
  if (error instanceof ProtocolError && status !== undefined) return `the service's answer could not be read (HTTP ${status})`;
  return undefined;
}

function issuesOf(error: unknown, batch: GroupRecord[]) {
  if (!(error instanceof ValidationError)) return [];
  return error.issues.map((issue) => {
    // loc: ["body", "trajectory_groups", <i>, ...]
    const i = issue.loc[0] === 'body' && issue.loc[1] === 'trajectory_groups' && typeof issue.loc[2] === 'number' ? issue.loc[2] : undefined;
    const g = i !== undefined ? batch[i] : undefined;
    if (g?.unit === 'row') return { group: g.index, rows: [g.line, g.endLine] as [number, number], loc: issue.loc.slice(3), msg: issue.msg };
    return { group: g?.index, line: g?.line, loc: g ? issue.loc.slice(3) : issue.loc, msg: issue.msg };
  });
}

/** "lines 1–40" style ranges of what was logged, merged when consecutive ("rows 0–39" for a Parquet file). */
export function describeLines(chunks: Chunk[]): string {
  const ranges: [number, number][] = [];
  for (const c of chunks) {
    const last = ranges.at(-1);
    if (last && c.firstLine <= last[1] + 1) last[1] = Math.max(last[1], c.lastLine);
    else ranges.push([c.firstLine, c.lastLine]);
  }
  if (chunks[0]?.unit === 'row') return ranges.map(describeRows).join(', ');
  return ranges.map(([a, b]) => (a === b ? `line ${a}` : `lines ${a}–${b}`)).join(', ');
}

/** "rows 0–39": 0-based rows of a Parquet file. */
export function describeRows([a, b]: readonly [number, number]): string {
  return a === b ? `row ${a}` : `rows ${a}–${b}`;
}
