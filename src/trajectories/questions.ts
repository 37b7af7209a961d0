/**
 * What Upload Trajectories asks and tells: the model and split to upload to, what to do with lines
 * the service may already have logged, and the outcome. Only the user's actions get the questions
 * (UploadManager never asks a scripted caller).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { NotFoundError, type ErrorFix } from '../api';
import { removeModelAction } from '../checkpoints/commands';
import { background } from '../common/background';
import { toDiagnostic } from '../ui/diagnostics';
import type { ErrorPresenter } from '../common/errors';
import type { Prompts } from '../ui/prompts';
import { formatBytes, formatDuration, plural } from '../common/format';
import { pickOrType } from '../common/pick';
import type { Remaining, UploadReport } from './report';
import { describeRepeats, type Repeat } from './sent';
import { describeLines, describeRows, type UploadResult } from './upload';

/** Asks what to do with lines the service may already have logged; Skip is the default. */
export async function askUncertain(prompts: Prompts, plan: Remaining): Promise<'skip' | 'send' | undefined> {
  const { chunk, why } = plan.uncertain!;
  const name = path.basename(plan.files[0]!.uri.fsPath);
  const skip = 'Skip Them';
  const send = 'Send Them Too';
  const pick = await prompts.showWarningMessage(
    `svc: ${describeLines([chunk])} of ${name} may already be logged: ${why}.`,
    { modal: true, detail: 'Skipping them resumes after them. Sending them again may log them twice.' },
    skip,
    send,
  );
  return pick === skip ? 'skip' : pick === send ? 'send' : undefined;
}

/** Says what a split folder holds before it is uploaded; true to go on. */
export async function confirmFolder(prompts: Prompts, split: { model: string; split: string }, found: { steps: number[]; skipped: string[] }, bytes: number): Promise<boolean> {
  const { steps, skipped } = found;
  const range = steps.length === 1 ? `step ${steps[0]}` : `steps ${steps[0]}–${steps.at(-1)}`;
  const detail = skipped.length ? `Left out (the same step as a .parquet file): ${skipped.map((f) => path.basename(f)).join(', ')}.` : undefined;
  const go = 'Upload';
  const pick = await prompts.showInformationMessage(
    `svc: upload ${plural(steps.length, 'step file')} of ${split.model} / ${split.split} (${range}, ${formatBytes(bytes)})?`,
    { modal: true, detail },
    go,
  );
  return pick === go;
}

/**
 * `proposed`: the model named by the file's folder (official client layout), offered first.
 * `notInView`: it is not a model the user added (the Checkpoints view does not show it), which the
 * pick says, so Enter, Enter does not upload to a model the user never chose without saying so.
 */
export async function pickModel(known: string[], proposed?: string, notInView = false): Promise<string | undefined> {
  const why = notInView
    ? "from the file's folder (models/<model>/…); not in the Checkpoints view: check it is the model to log to"
    : "from the file's folder (models/<model>/trajectories/…)";
  return pickOrType('svc: Upload to which model?', 'Model id', known, proposed ? { [proposed]: why } : {});
}

/** Asks before content already sent to the same model and split goes again; true to send it. */
export async function askRepeat(prompts: Prompts, repeats: readonly Repeat[]): Promise<boolean> {
  const again = 'Upload Again';
  const pick = await prompts.showWarningMessage(
    `svc: ${repeats.length === 1 ? `${path.basename(repeats[0]!.file)} was already uploaded` : `${repeats.length} of these files were already uploaded`} to ${repeats[0]!.sent.modelId} (${repeats[0]!.sent.split}).`,
    { modal: true, detail: `${describeRepeats(repeats)}\nSending it again logs its groups twice.` },
    again,
  );
  return pick === again;
}

/** `proposed`: the split named by the file's folder (official client layout), offered first. */
export async function pickSplit(prompts: Prompts, file: vscode.Uri, remembered: string | undefined, proposed?: string): Promise<string | undefined> {
  const first = proposed ?? remembered;
  const why = (label: string) => (label === proposed ? "from the file's folder (trajectories/<split>/…)" : label === remembered ? 'last used' : undefined);
  const labels = [...new Set([...(first ? [first] : []), 'train', 'val'])];
  const items = labels.map((label) => ({ label, description: why(label) }));
  items.push({ label: 'Custom…', description: 'type a split name' });
  const pick = await prompts.showQuickPick(items, { title: `svc: Split for ${path.basename(file.fsPath)}` });
  if (!pick) return undefined;
  if (pick.label !== 'Custom…') return pick.label;
  const typed = await prompts.showInputBox({ title: 'svc: Split name', validateInput: (v) => (v.trim() ? undefined : 'Enter a split name') });
  return typed?.trim() || undefined;
}

/**
 * Which upload's plan a Retry Remaining button acts on. A class, not a plain object, so the command
 * takes the click for a user's action (it may ask), not for a script's arguments.
 */
export class RetryPlan {
  constructor(readonly id: number) {}
}

export async function announceUpload(prompts: Prompts, report: UploadReport, plan: Remaining, ms: number, errors: ErrorPresenter, which?: RetryPlan): Promise<void> {
  const groups = report.files.reduce((n, f) => n + (f.result?.totals.groupsSent ?? 0), 0);
  const trajectories = report.files.reduce((n, f) => n + (f.result?.totals.trajectoriesSent ?? 0), 0);
  const bytes = report.files.reduce((n, f) => n + (f.result?.totals.bytesSent ?? 0), 0);
  const totals = `${plural(groups, 'group')}, ${plural(trajectories, 'trajectory', 'trajectories')}, ${formatBytes(bytes)} in ${formatDuration(ms)}`;
  if (report.status === 'aborted') return;
  const steps = report.files.filter((f) => f.step !== undefined).map((f) => `step ${f.step} (${plural(f.result?.totals.groupsSent ?? 0, 'group')})`);
  const stepList = steps.length ? ` Steps: ${steps.join(', ')}.` : '';
  if (report.status === 'done') {
    background(prompts.showInformationMessage(`svc: uploaded ${plural(report.files.length, 'file')} to ${plan.modelId} (${plan.split}): ${totals}.${stepList}`), 'Announcing the upload');
    return;
  }
  const last = report.files.at(-1)!;
  const name = path.basename(last.file);
  const logged = last.result ? describeLines(last.result.logged) : '';
  const sent = logged ? `${name}: ${logged} ${isOneLine(logged) ? 'was' : 'were'} logged.` : `${name}: nothing was logged.`;
  let text: string;
  let remove: ErrorFix | undefined;
  if (report.status === 'cancelled') {
    text = `svc: upload cancelled after ${totals}. ${sent}`;
  } else {
    const outcome = last.result!.outcome as Extract<UploadResult['outcome'], { status: 'failed' }>;
    const lines = describeLines([outcome.chunk]);
    const doubt = outcome.uncertain
      ? ` ${lines[0]!.toUpperCase()}${lines.slice(1)} may already be logged (${outcome.uncertainWhy ?? 'the outcome is unknown'}): "Retry Remaining" asks before sending them again.`
      : ` ${lines[0]!.toUpperCase()}${lines.slice(1)} ${isOneLine(lines) ? 'was' : 'were'} not logged.`;
    text = `svc: upload to ${plan.modelId} failed: ${errors.describe(outcome.error)}. ${sent}${doubt}`;
    // The service does not know the model: Remove Model is offered (the manager forgot it as recent).
    if (outcome.error instanceof NotFoundError) remove = removeModelAction(plan.modelId);
  }
  // The button names its own upload's plan: not an arguments object, so it still asks (a user's action).
  const retry = { title: 'Retry Remaining', command: 'svc.uploadTrajectories.retryRemaining', args: which };
  await errors.showMessage(text, { warning: report.status === 'cancelled', actions: [...(remove ? [remove] : []), retry] });
}

/** The groups a 422 refused, as Problems entries at their lines. */
export function serverIssues(result: UploadResult): vscode.Diagnostic[] {
  if (result.outcome.status !== 'failed') return [];
  return result.outcome.issues.map((i) =>
    toDiagnostic({
      line: i.line ?? 1,
      column: 1,
      endLine: i.line ?? 1,
      endColumn: 1000,
      // A Parquet file has no lines: the message names the group's rows.
      message: `The service refused ${i.rows ? `group ${i.group} (${describeRows(i.rows)})` : 'this group'} (422): ${i.loc.join('.')}: ${i.msg}`,
      severity: 'error',
    }),
  );
}

/** Whether describeLines named one line (`line 3`), for was/were. */
function isOneLine(described: string): boolean {
  return /^(line|row) \d+$/.test(described);
}
