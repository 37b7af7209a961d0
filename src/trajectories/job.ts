/**
 * The upload job: the one way trajectory files are uploaded, whoever asks (the Upload Trajectories
 * command and its Retry Remaining, the public API, the agents' tool in VS Code and in the MCP
 * server, the bench). No vscode import. Its steps, each with its promise:
 * - validate every file before anything is sent, and hash what was validated (passes.ts);
 * - refuse content this editor already sent to the same model and split, unless allowed (sent.ts);
 * - send each file's groups in order, stopped by any change to the file (guard.ts): nothing that
 *   was not validated goes out;
 * - keep the ledger of what the service logged (upload.ts), and report from the ledger only: the
 *   counts are what was logged, never what was planned.
 * What asks the user (the command) or says it to a model (the tools) is the caller's.
 */
import { stat } from 'node:fs/promises';
import { ConfigurationError, type ServiceClient } from '../api';
import { artLayout } from './layout';
import { groupsForUpload, validateForUpload, type Validated } from './passes';
import type { FileUploadReport, UploadReport } from './report';
import { RepeatError, type Repeat, type SentUploads } from './sent';
import type { Chunk, UploadResult } from './upload';
import { uploadGroups } from './upload';

/** A file of the job: its path, as validated. */
export interface JobFile extends Validated {
  path: string;
}

/** Validates each file in turn (`onFile` after each); stops at the first that cannot be read, or on abort. */
export async function validateFiles(paths: readonly string[], opts: { signal?: AbortSignal; maxProblems?: number; onFile?: (file: JobFile) => void; onStart?: (path: string) => void } = {}): Promise<JobFile[]> {
  const out: JobFile[] = [];
  for (const path of paths) {
    opts.onStart?.(path);
    const file: JobFile = { path, ...(await validateForUpload(path, opts.signal, { maxProblems: opts.maxProblems })) };
    opts.onFile?.(file);
    out.push(file);
  }
  return out;
}

/** The files with errors: nothing of any file is sent while one has some. */
export function invalidFiles(files: readonly JobFile[]): JobFile[] {
  return files.filter((f) => f.summary.problems.some((p) => p.severity === 'error'));
}

/** The files whose content this editor already sent to `modelId`/`split`. */
export function repeatsOf(files: readonly JobFile[], modelId: string, split: string, sent: SentUploads | undefined): Repeat[] {
  if (!sent) return [];
  const out: Repeat[] = [];
  for (const f of files) {
    const found = f.fingerprint && sent.find(f.fingerprint.sha256, modelId, split);
    if (found) out.push({ file: f.path, sent: found });
  }
  return out;
}

export interface SendOptions {
  modelId: string;
  split: string;
  /** Largest request body in bytes (upload.ts's default otherwise). */
  maxRequestBytes?: number;
  /** The client of now: asked before each file (settings may change between files). */
  client: () => ServiceClient | undefined;
  /** Checked between requests: a request in flight finishes first. */
  signal?: AbortSignal;
  /** After each logged request: the job's logged groups and bytes so far, and the file's name. */
  onProgress?: (p: { file: string; groups: number; bytes: number; bytesDelta: number }) => void;
  /** After each file: its result (the ledger of its requests). */
  onFileResult?: (file: JobFile, result: UploadResult) => void;
  /** Where what was logged is recorded (sent.ts). */
  sent?: SentUploads;
}

/** Where a job that did not finish resumes: the file it stopped in (from `startGroup`) and those after. */
export interface JobLeft {
  files: { path: string; startGroup: number }[];
  /** The request before `files[0].startGroup` whose outcome is unknown (see report.ts's Remaining). */
  uncertain?: { chunk: Chunk; why: string };
}

export interface JobOutcome {
  report: UploadReport;
  left?: JobLeft;
  /** Set when the job stopped because this file changed after it was validated, before any of it was sent. */
  changedBeforeSend?: string;
}

/** Groups, trajectories, bytes and requests the service logged, over the job: the ledger's sums. */
export function loggedTotals(report: UploadReport): { groups: number; trajectories: number; bytes: number; requests: number } {
  const t = { groups: 0, trajectories: 0, bytes: 0, requests: 0 };
  for (const f of report.files) {
    for (const c of f.result?.logged ?? []) {
      t.groups += c.groups;
      t.trajectories += c.trajectories;
      t.bytes += c.bytes;
      t.requests++;
    }
  }
  return t;
}

/**
 * Sends the files (validated, valid, each from its `startGroup`) in order, and reports what was
 * logged. Stops at the first file that does not finish: `left` says where to resume.
 */
export async function sendFiles(files: readonly (JobFile & { startGroup: number })[], o: SendOptions): Promise<JobOutcome> {
  const reports: FileUploadReport[] = [];
  let groups = 0;
  let bytes = 0;
  const leftFrom = (i: number, startGroup?: number, uncertain?: JobLeft['uncertain']): JobLeft => ({
    files: files.slice(i).map((f, j) => ({ path: f.path, startGroup: j === 0 && startGroup !== undefined ? startGroup : f.startGroup })),
    ...(uncertain ? { uncertain } : {}),
  });
  for (let i = 0; i < files.length; i++) {
    const file = files[i]!;
    if (o.signal?.aborted) return { report: { status: 'cancelled', files: reports }, left: leftFrom(i) };
    const client = o.client();
    if (!client) throw new ConfigurationError('svc.baseUrl is no longer configured.');
    const { summary } = file;
    // The groups go out as the file holds them, so the file must be the one just validated.
    const now = await stat(file.path).catch(() => undefined);
    if (!now || now.size !== summary.fileBytes || Math.abs(now.mtimeMs - summary.mtimeMs) >= 1) {
      return { report: { status: 'aborted', files: reports }, left: leftFrom(i), changedBeforeSend: file.path };
    }
    const step = artLayout(file.path)?.step;
    const name = file.path.split(/[\\/]/).at(-1)!;
    let fileBytes = 0;
    const { groups: records, close } = await groupsForUpload(file.path, file, { startGroup: file.startGroup, signal: o.signal });
    const result = await uploadGroups(client, records, {
      modelId: o.modelId,
      split: o.split,
      members: summary.members,
      maxRequestBytes: o.maxRequestBytes,
      cancel: o.signal,
      onProgress: (p) => {
        const delta = p.bytesSent - fileBytes;
        fileBytes = p.bytesSent;
        o.onProgress?.({ file: name, groups: groups + p.groupsSent, bytes: bytes + p.bytesSent, bytesDelta: delta });
      },
    }).finally(close);
    groups += result.totals.groupsSent;
    bytes += result.totals.bytesSent;
    reports.push(step === undefined ? { file: file.path, result } : { file: file.path, step, result });
    if (o.sent && file.fingerprint && result.totals.groupsSent > 0) {
      await o.sent.add({ sha256: file.fingerprint.sha256, modelId: o.modelId, split: o.split, ...(step !== undefined ? { step } : {}), groups: result.totals.groupsSent, file: file.path, at: Date.now() });
    }
    o.onFileResult?.(file, result);
    if (result.outcome.status !== 'done') {
      const outcome = result.outcome;
      const uncertain = outcome.status === 'failed' && outcome.uncertain ? { chunk: outcome.chunk, why: outcome.uncertainWhy ?? 'the outcome is unknown' } : undefined;
      return { report: { status: outcome.status, files: reports }, left: leftFrom(i, result.nextGroup, uncertain) };
    }
  }
  return { report: { status: 'done', files: reports } };
}

/**
 * The whole job in one call, for a caller that asks nobody anything (the bench; a script): validate
 * every file, refuse content already sent (`sent`) unless `allowRepeat`, send, report. A file with
 * errors sends nothing (status 'invalid').
 */
export async function uploadFiles(paths: readonly string[], o: SendOptions & { allowRepeat?: boolean; call?: string }): Promise<JobOutcome & { files: JobFile[] }> {
  const files = await validateFiles(paths, { signal: o.signal });
  const invalid = invalidFiles(files);
  if (invalid.length) return { files, report: { status: 'invalid', files: invalid.map((f) => ({ file: f.path, problems: f.summary.problems.length })) } };
  const repeats = o.allowRepeat ? [] : repeatsOf(files, o.modelId, o.split, o.sent);
  if (repeats.length) throw new RepeatError(repeats, o.call ?? 'upload');
  return { files, ...(await sendFiles(files.map((f) => ({ ...f, startGroup: 0 })), o)) };
}
