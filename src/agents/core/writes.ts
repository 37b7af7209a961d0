/**
 * The two write tools: svc_attach_feedback and svc_upload_trajectories. Each has a plan (checked
 * input, what would be sent and where), the confirmation text made from that plan, and the run.
 * Pure: no vscode import.
 */
import { parseRef, type FeedbackCreateRequest } from '../../api';
import { emojiProblem, feedbackTypeProblem, NOTE_TYPE, noteProblem, payloadProblemFor, REACTION_TYPE } from '../../feedback/payload';
import { readTrajectoryGroups, validateTrajectoryFile, type ValidationSummary } from '../../files';
import { uploadOrder } from '../../trajectories/layout';
import { describeLines, uploadGroups } from '../../trajectories/upload';
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

// --- upload -----------------------------------------------------------------------------------

export interface UploadPlan {
  files: { path: string; summary: ValidationSummary }[];
  groups: number;
  trajectories: number;
  bytes: number;
  errors: number;
}

export async function planUpload(host: ToolHost, input: UploadTrajectoriesInput, signal?: AbortSignal): Promise<UploadPlan> {
  const paths = uploadOrder([...new Set(input.files.map((f) => host.resolvePath(f)))], (p) => p);
  const plan: UploadPlan = { files: [], groups: 0, trajectories: 0, bytes: 0, errors: 0 };
  for (const path of paths) {
    let summary: ValidationSummary;
    try {
      summary = await validateTrajectoryFile(path, { signal, maxProblems: 50 });
    } catch (e) {
      throw new ToolProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    }
    plan.files.push({ path, summary });
    plan.groups += summary.groups;
    plan.trajectories += summary.trajectories;
    plan.bytes += summary.fileBytes;
    plan.errors += summary.problems.filter((p) => p.severity === 'error').length;
  }
  return plan;
}

const fileLine = (f: UploadPlan['files'][number]) => `- ${f.path}: ${count(f.summary.groups)} groups, ${count(f.summary.trajectories)} trajectories, ${bytes(f.summary.fileBytes)}`;

export async function confirmUpload(host: ToolHost, input: UploadTrajectoriesInput, signal?: AbortSignal): Promise<Confirmation> {
  const plan = await planUpload(host, input, signal);
  return {
    title: 'Upload trajectories?',
    message:
      `Log ${count(plan.groups)} trajectory groups (${count(plan.trajectories)} trajectories, ${bytes(plan.bytes)}) from ${count(plan.files.length)} files to model ${input.modelId}, split ${input.split}, at ${where(host, 'training')}:\n` +
      plan.files.map(fileLine).join('\n') +
      (plan.errors ? `\n${count(plan.errors)} validation errors: nothing will be sent.` : ''),
  };
}

export async function uploadTrajectories(host: ToolHost, input: UploadTrajectoriesInput, signal?: AbortSignal): Promise<string> {
  const plan = await planUpload(host, input, signal);
  if (plan.errors) {
    const problems = plan.files.flatMap((f) => f.summary.problems.filter((p) => p.severity === 'error').map((p) => `- ${f.path}:${p.line}:${p.column}: ${p.message}`));
    throw new ToolProblem(`Nothing was sent: ${count(plan.errors)} validation errors.\n${problems.slice(0, 20).join('\n')}${problems.length > 20 ? `\n(first 20 of ${count(problems.length)})` : ''}`);
  }
  const client = await readyClient(host, 'training');
  const done: string[] = [];
  for (const [i, f] of plan.files.entries()) {
    const groups = readTrajectoryGroups(f.path, { trusted: true, groupTrajectories: f.summary.groupTrajectories });
    const result = await uploadGroups(client, groups, { modelId: input.modelId, split: input.split, members: f.summary.members, cancel: signal });
    const t = result.totals;
    const sent = `${count(t.groupsSent)} groups (${count(t.trajectoriesSent)} trajectories, ${bytes(t.bytesSent)}) in ${count(t.requests)} requests${result.logged.length ? `, ${describeLines(result.logged)}` : ''}`;
    if (result.outcome.status === 'done') {
      done.push(`- ${f.path}: logged ${sent}.`);
      continue;
    }
    const rest = plan.files.slice(i + 1).map((r) => r.path);
    const notSent = rest.length ? `\nNot sent: ${rest.join(', ')}.` : '';
    const head = `Uploaded to model ${input.modelId}, split ${input.split}, at ${where(host, 'training')}:\n${done.join('\n')}${done.length ? '\n' : ''}`;
    if (result.outcome.status === 'cancelled') return `${head}- ${f.path}: cancelled after ${sent}.${notSent}`;
    const o = result.outcome;
    host.reportFailure?.(o.error);
    const doubt = o.uncertain ? ` Lines ${o.chunk.firstLine}–${o.chunk.lastLine} may have been logged (${o.uncertainWhy}); do not send them again without checking.` : ` Lines ${o.chunk.firstLine}–${o.chunk.lastLine} were not logged.`;
    const issues = o.issues.slice(0, 10).map((x) => `\n  - ${x.line !== undefined ? `line ${x.line}, ` : ''}${x.loc.join('.')}: ${x.msg}`).join('');
    throw new ToolProblem(`${head}- ${f.path}: failed after ${sent}: ${describeError(o.error, host, { model: input.modelId })}${issues}${doubt}${notSent}`);
  }
  return `Uploaded to model ${input.modelId}, split ${input.split}, at ${where(host, 'training')}: ${count(plan.groups)} groups, ${count(plan.trajectories)} trajectories from ${count(plan.files.length)} files.\n${done.join('\n')}`;
}
