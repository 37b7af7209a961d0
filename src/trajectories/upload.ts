/**
 * Uploading trajectory groups to a model's log, in requests under a byte budget. Pure: no vscode
 * import. The rules that keep data safe:
 * - a request is never retried once it may have reached the server (the client refuses too);
 * - cancelling lets the request in flight finish, then stops, so its outcome is known;
 * - the result lists exactly which groups (and file lines) were logged, and where a retry resumes.
 */
import { NetworkError, ProtocolError, ValidationError, type ServiceClient } from '../api';
import type { GroupRecord } from './reader';

/** A group as the reader yields it. */
export type UploadGroup = GroupRecord;

/** A run of consecutive groups sent in one request. */
export interface Chunk {
  firstGroup: number;
  lastGroup: number;
  firstLine: number;
  lastLine: number;
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
      /** The failed request may have been logged (no answer after sending): never resend it blindly. */
      uncertain: boolean;
      chunk: Chunk;
      /** For a 422: each issue with the group it points at, when it does. */
      issues: { group?: number; line?: number; loc: (string | number)[]; msg: string }[];
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
  /** Largest request body in bytes. Default 8 MiB. */
  maxRequestBytes?: number;
  /** Checked between requests: a request in flight is allowed to finish. */
  cancel?: AbortSignal;
  onProgress?: (p: UploadProgress, chunk: Chunk) => void;
}

export const DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** Sends `groups` (already validated, in file order) and reports exactly what was logged. */
export async function uploadGroups(
  client: ServiceClient,
  groups: AsyncIterable<UploadGroup>,
  options: UploadOptions,
): Promise<UploadResult> {
  const started = performance.now();
  const budget = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
  const envelope = Buffer.byteLength(JSON.stringify({ split: options.split, trajectory_groups: [] }));
  const totals: UploadProgress = { groupsSent: 0, trajectoriesSent: 0, bytesSent: 0, requests: 0 };
  const logged: Chunk[] = [];
  let nextGroup = 0;
  let pending: UploadGroup[] = [];
  let pendingBytes = envelope;
  let firstSeen: number | undefined;

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
      groups: batch.length,
      trajectories: batch.reduce((n, g) => n + g.trajectories, 0),
      bytes: batch.reduce((n, g) => n + g.bytes, envelope + batch.length - 1),
    };
    try {
      // No signal: cancelling waits for this request, so whether it was logged is never in doubt.
      await client.models.logTrajectories(options.modelId, { split: options.split, trajectory_groups: batch.map((g) => g.group) });
    } catch (error) {
      const uncertain = !(error instanceof ValidationError) && isUncertain(error);
      nextGroup = uncertain ? chunk.lastGroup + 1 : chunk.firstGroup;
      return { status: 'failed', error, uncertain, chunk, issues: issuesOf(error, batch) };
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

  try {
    for await (const g of groups) {
      if (firstSeen === undefined) {
        firstSeen = g.index;
        nextGroup = g.index;
      }
      if (pending.length > 0 && pendingBytes + g.bytes + 1 > budget) {
        const failed = await send();
        if (failed) return result(failed);
      }
      if (options.cancel?.aborted) return result({ status: 'cancelled' });
      pending.push(g);
      pendingBytes += g.bytes + (pending.length > 1 ? 1 : 0);
    }
  } catch (error) {
    // The file could not be read further (it changed, or a line broke): what was logged stays
    // in the ledger, and the groups not sent yet are reported as not logged.
    const first = pending[0];
    const chunk: Chunk = first
      ? { firstGroup: first.index, lastGroup: pending.at(-1)!.index, firstLine: first.line, lastLine: pending.at(-1)!.endLine, groups: pending.length, trajectories: 0, bytes: 0 }
      : { firstGroup: nextGroup, lastGroup: nextGroup - 1, firstLine: 0, lastLine: 0, groups: 0, trajectories: 0, bytes: 0 };
    return result({ status: 'failed', error, uncertain: false, chunk, issues: [] });
  }
  if (options.cancel?.aborted && pending.length) return result({ status: 'cancelled' });
  const failed = await send();
  if (failed) return result(failed);
  return result({ status: 'done' });
}

/**
 * Whether a failed log request may have been stored: no answer after the body may have been
 * sent, or a gateway's 500/502/504 (the backend may have stored it before the gateway gave up).
 * Errors the client raises before writing (closed client, insecure URL, no credentials) and
 * every 4xx or 503 answer mean it was not stored.
 */
function isUncertain(error: unknown): boolean {
  if (error instanceof NetworkError) return !error.beforeSend;
  if (error instanceof ProtocolError) return error.status !== undefined;
  const status = (error as { status?: number }).status;
  return status === 500 || status === 502 || status === 504;
}

function issuesOf(error: unknown, batch: UploadGroup[]) {
  if (!(error instanceof ValidationError)) return [];
  return error.issues.map((issue) => {
    // loc: ["body", "trajectory_groups", <i>, ...]
    const i = issue.loc[0] === 'body' && issue.loc[1] === 'trajectory_groups' && typeof issue.loc[2] === 'number' ? issue.loc[2] : undefined;
    const g = i !== undefined ? batch[i] : undefined;
    return { group: g?.index, line: g?.line, loc: g ? issue.loc.slice(3) : issue.loc, msg: issue.msg };
  });
}

/** "lines 1–40" style ranges of what was logged, merged when consecutive. */
export function describeLines(chunks: Chunk[]): string {
  const ranges: [number, number][] = [];
  for (const c of chunks) {
    const last = ranges.at(-1);
    if (last && c.firstLine <= last[1] + 1) last[1] = Math.max(last[1], c.lastLine);
    else ranges.push([c.firstLine, c.lastLine]);
  }
  return ranges.map(([a, b]) => (a === b ? `line ${a}` : `lines ${a}–${b}`)).join(', ');
}
