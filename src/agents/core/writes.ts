/**
 * The two write tools: svc_attach_feedback and svc_upload_trajectories. Each has a plan (checked
 * input, what would be sent and where), the confirmation text made from that plan, and the run.
 * Pure: no vscode import.
 */
import { parseRef, type FeedbackCreateRequest } from '../../api';
import { emojiProblem, feedbackTypeProblem, NOTE_TYPE, noteProblem, payloadProblemFor, REACTION_TYPE } from '../../feedback/payload';
import { loggedTotals, repeatsOf, sendFiles, validateFiles, type JobFile } from '../../trajectories/job';
import { uploadOrder } from '../../trajectories/layout';
import { describeRepeats } from '../../trajectories/sent';
import { describeLines, type UploadResult } from '../../trajectories/upload';
import { bytes, count } from './format';
import { describeError, readyClient, ToolProblem, type ToolHost } from './host';
import type { AttachFeedbackInput, UploadTrajectoriesInput } from './schemas';

export interface Confirmation {
  title: string;
  message: string;
}

const where = (host: ToolHost, base: 'trace' | 'training') => host.origin(base) ?? '(no service configured)';

// --- feedback ---------------------------------------------------------------------------------

export function feedbackRequest(host: ToolHost, input: AttachFeedbackInput): FeedbackCreateRequest {
  const parsed = parseRef(input.ref.trim());
  if (!parsed.ok) throw new ToolProblem(`ref "${input.ref}" ${parsed.reason}.`);
  let feedbackType: string;
  let payload: Record<string, unknown>;
  if (input.note !== undefined) {
    const problem = noteProblem(input.note);
    if (problem) throw new ToolProblem(`note: ${problem}`);
    feedbackType = NOTE_TYPE;
    payload = { note: input.note };
  } else if (input.emoji !== undefined) {
    const problem = emojiProblem(input.emoji);
    if (problem) throw new ToolProblem(`emoji: ${problem}`);
    feedbackType = REACTION_TYPE;
    payload = { emoji: input.emoji };
  } else {
    feedbackType = input.feedbackType!;
    payload = input.payload!;
    const problem = feedbackTypeProblem(feedbackType) ?? payloadProblemFor(feedbackType, payload);
    if (problem) throw new ToolProblem(problem);
  }
  const creator = host.feedbackCreator();
  return { project_id: parsed.ref.projectId, svc_ref: input.ref.trim(), feedback_type: feedbackType, payload, ...(creator ? { creator } : {}) };
}

const preview = (value: unknown, max = 400) => {
  const s = JSON.stringify(value);
  return s.length > max ? `${s.slice(0, max)}… (${bytes(Buffer.byteLength(s))})` : s;
};

export function confirmFeedback(host: ToolHost, input: AttachFeedbackInput): Confirmation {
  const req = feedbackRequest(host, input);
  return {
    title: 'Attach feedback?',
    message:
      `Send ${req.feedback_type} feedback to ${where(host, 'trace')} (project ${req.project_id}) for ${req.svc_ref}.\n` +
      `Content: ${preview(req.payload)}${req.creator ? `\nCreator: ${req.creator}` : ''}`,
  };
}

export async function attachFeedback(host: ToolHost, input: AttachFeedbackInput, signal?: AbortSignal): Promise<string> {
  const req = feedbackRequest(host, input);
  const client = await readyClient(host, 'trace');
  try {
    const res = await client.feedback.create(req, { signal });
    return `Attached ${req.feedback_type} feedback ${res.id} to ${req.svc_ref} (project ${req.project_id}, ${where(host, 'trace')}) at ${res.created_at}. Stored payload: ${preview(res.payload)}.`;
  } catch (e) {
    host.reportFailure?.(e);
    throw new ToolProblem(`Could not attach feedback to ${req.svc_ref}: ${describeError(e, host)}`);
  }
}

// --- upload ---------------------------------------------------------------------------------

/** The files, validated by the upload job (job.ts): what the confirmation shows and the run sends. */
export interface UploadPlan {
  files: JobFile[];
  groups: number;
  trajectories: number;
  bytes: number;
  errors: number;
}

export async function planUpload(host: ToolHost, input: UploadTrajectoriesInput, signal?: AbortSignal): Promise<UploadPlan> {
  const paths = uploadOrder([...new Set(input.files.map((f) => host.resolvePath(f)))], (p) => p);
  const plan: UploadPlan = { files: [], groups: 0, trajectories: 0, bytes: 0, errors: 0 };
  for (const path of paths) {
    let file: JobFile;
    try {
      [file] = (await validateFiles([path], { signal, maxProblems: 50 })) as [JobFile];
    } catch (e) {
      throw new ToolProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
    plan.files.push(file);
    plan.groups += file.summary.groups;
    plan.trajectories += file.summary.trajectories;
    plan.bytes += file.summary.fileBytes;
    plan.errors += file.summary.problems.filter((p) => p.severity === 'error').length;
  }
  return plan;
}

const fileLine = (f: UploadPlan['files'][number]) => `- ${f.path}: ${count(f.summary.groups)} groups, ${count(f.summary.trajectories)} trajectories, ${bytes(f.summary.fileBytes)}`;

export async function confirmUpload(host: ToolHost, input: UploadTrajectoriesInput, signal?: AbortSignal): Promise<Confirmation> {
  const plan = await planUpload(host, input, signal);
  const repeats = plan.errors ? [] : repeatsOf(plan.files, input.modelId, input.split, host.sentUploads);
  const again = repeats.length ? `\n${describeRepeats(repeats)} ${input.allowRepeat ? 'allowRepeat is set: it will be logged again.' : 'Nothing will be sent unless allowRepeat is true.'}` : '';
  return {
    title: 'Upload trajectories?',
    message:
      `Log ${count(plan.groups)} trajectory groups (${count(plan.trajectories)} trajectories, ${bytes(plan.bytes)}) from ${count(plan.files.length)} files to model ${input.modelId}, split ${input.split}, at ${where(host, 'training')}:\n` +
      plan.files.map(fileLine).join('\n') +
      (plan.errors ? `\n${count(plan.errors)} validation errors: nothing will be sent.` : '') +
      again,
  };
}

/** "12 groups (30 trajectories, 4.1 KB) in 2 requests, lines 1–12": what the ledger says was logged. */
const loggedText = (result: UploadResult) => {
  const t = result.totals;
  return `${count(t.groupsSent)} groups (${count(t.trajectoriesSent)} trajectories, ${bytes(t.bytesSent)}) in ${count(t.requests)} requests${result.logged.length ? `, ${describeLines(result.logged)}` : ''}`;
};

/** The upload job (job.ts), as the command runs it: every count in the answer is from the ledger. */
export async function uploadTrajectories(host: ToolHost, input: UploadTrajectoriesInput, signal?: AbortSignal): Promise<string> {
  const plan = await planUpload(host, input, signal);
  if (plan.errors) {
    const problems = plan.files.flatMap((f) => f.summary.problems.filter((p) => p.severity === 'error').map((p) => `- ${f.path}:${p.line}:${p.column}: ${p.message}`));
    throw new ToolProblem(`Nothing was sent: ${count(plan.errors)} validation errors.\n${problems.slice(0, 20).join('\n')}${problems.length > 20 ? `\n(first 20 of ${count(problems.length)})` : ''}`);
  }
  const repeats = input.allowRepeat ? [] : repeatsOf(plan.files, input.modelId, input.split, host.sentUploads);
  if (repeats.length) throw new ToolProblem(`Nothing was sent: ${describeRepeats(repeats)} Pass allowRepeat: true to log it again.`);
  const client = await readyClient(host, 'training');
  const { report, changedBeforeSend } = await sendFiles(
    plan.files.map((f) => ({ ...f, startGroup: 0 })),
    { modelId: input.modelId, split: input.split, client: () => client, signal, sent: host.sentUploads },
  );
  host.uploadFinished?.({ modelId: input.modelId, split: input.split, report });
  const head = `Uploaded to model ${input.modelId}, split ${input.split}, at ${where(host, 'training')}`;
  const lines = report.files.map((f) => {
    const r = f.result!;
    return r.outcome.status === 'done' ? `- ${f.file}: logged ${loggedText(r)}.` : undefined;
  });
  const done = lines.filter((l): l is string => l !== undefined);
  const logged = loggedTotals(report);
  if (report.status === 'done') {
    return `${head}: ${count(logged.groups)} groups, ${count(logged.trajectories)} trajectories from ${count(report.files.length)} files (what the service logged).\n${done.join('\n')}`;
  }
  const stopped = report.files.at(-1);
  const rest = plan.files.slice(report.files.length + (changedBeforeSend ? 1 : 0)).map((r) => r.path);
  const notSent = rest.length ? `\nNot sent: ${rest.join(', ')}.` : '';
  const sofar = `${head} (${count(logged.groups)} groups logged in all):\n${done.join('\n')}${done.length ? '\n' : ''}`;
  if (changedBeforeSend) throw new ToolProblem(`${sofar}- ${changedBeforeSend}: it changed after it was validated, so none of it was sent; upload it again.${notSent}`);
  const r = stopped!.result!;
  if (r.outcome.status === 'cancelled') return `${sofar}- ${stopped!.file}: cancelled after ${loggedText(r)}.${notSent}`;
  const o = r.outcome as Extract<UploadResult['outcome'], { status: 'failed' }>;
  host.reportFailure?.(o.error);
  const what = o.chunk.unit === 'row' ? 'Rows' : 'Lines';
  const range = o.chunk.groups ? `${o.chunk.firstLine}–${o.chunk.lastLine}` : '';
  const lastLogged = r.logged.at(-1);
  const after = lastLogged ? `nothing after ${lastLogged.unit === 'row' ? 'row' : 'line'} ${lastLogged.lastLine}` : 'nothing of it';
  const doubt = o.uncertain
    ? ` ${what} ${range} may have been logged (${o.uncertainWhy}); do not send them again without checking. Otherwise ${after} was logged.`
    : ` ${range ? `${what} ${range} were not logged: ` : ''}${after} was logged.`;
  const issues = o.issues.slice(0, 10).map((x) => `\n  - ${x.line !== undefined ? `line ${x.line}, ` : ''}${x.loc.join('.')}: ${x.msg}`).join('');
  throw new ToolProblem(`${sofar}- ${stopped!.file}: failed after logging ${loggedText(r)}: ${describeError(o.error, host, { model: input.modelId })}${issues}${doubt}${notSent}`);
}
