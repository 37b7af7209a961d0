import * as path from 'node:path';
import * as vscode from 'vscode';
import { hostOf, NotFoundError } from '../api';
import { removeModelAction } from '../checkpoints/commands';
import { forgetRecent, pickOrType, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import { filesFromArgs, notOnDisk, optionsFromArgs, toDiagnostic } from '../common/diagnostics';
import { LiveProblems } from '../common/liveProblems';
import { registerCommand, type Invocation } from '../common/interaction';

import { formatBytes, formatDuration, plural } from '../common/format';
import type { ErrorReporter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { readTrajectoryGroups, validateTrajectoryFile, type ValidationSummary } from './reader';
import { describeLines, uploadGroups, type Chunk, type UploadResult } from './upload';
import { artLayout, uploadOrder } from './layout';
import { background, setContext } from '../common/background';
import { withAbortableProgress } from '../common/progress';


export interface UploadArgs {
  modelId?: string;
  split?: string;
  /** Files, when scripted without explorer arguments. */
  files?: (string | vscode.Uri)[];
  /** Largest request body, bytes (tests use small values to get many requests). */
  maxRequestBytes?: number;
}

export interface FileUploadReport {
  file: string;
  /** The training step, for a step file of the official client's layout. */
  step?: number;
  result?: UploadResult;
  /** Set when validation failed and nothing was sent. */
  problems?: number;
}

export interface UploadReport {
  status: 'invalid' | 'cancelled' | 'done' | 'failed' | 'aborted';
  files: FileUploadReport[];
}

interface Remaining {
  modelId: string;
  split: string;
  maxRequestBytes?: number;
  /**
   * Per file: the group to resume from (files not started yet resume from 0), and the file's
   * size and mtime when the upload began: resuming by group index is only right for the same file.
   */
  files: { uri: vscode.Uri; startGroup: number; size?: number; mtime?: number }[];
  /**
   * The request before `files[0].startGroup` whose outcome is unknown (a 5xx, or a connection
   * lost after sending): the service may have logged it. Retry Remaining skips it unless the
   * user chooses to send it too.
   */
  uncertain?: { chunk: Chunk; why: string };
}

export interface RetryArgs {
  /** Lines whose outcome is unknown: skip them (the default) or send them too. */
  uncertain?: 'skip' | 'send';
}


async function stampOf(uri: vscode.Uri): Promise<{ size?: number; mtime?: number }> {
  try {
    const st = await vscode.workspace.fs.stat(uri);
    return { size: st.size, mtime: st.mtime };
  } catch {
    return {};
  }
}

/** svc.uploadTrajectories and its "Retry remaining" companion. */
export class TrajectoryUploads implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('svc-trajectories');
  /** Edits to a validated file check it again, so its entries follow the file. */
  private readonly live = new LiveProblems(this.diagnostics, async (file) => (await validateTrajectoryFile(file)).problems);
  /** What "Retry remaining" would send; undefined when nothing is left. */
  remaining: Remaining | undefined;
  /** Cancels the upload in progress (the notification's Cancel button does the same). */
  private running: AbortController | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly errors: ErrorReporter,
    private readonly log: Logger,
    private readonly context: vscode.ExtensionContext,
  ) {}

  register(): vscode.Disposable[] {
    return [
      this,
      registerCommand('svc.uploadTrajectories', (how, clicked?: unknown, selected?: unknown, options?: unknown) => this.upload(how, clicked, selected, options)),
      vscode.commands.registerCommand('svc.uploadTrajectories.retryRemaining', (args?: RetryArgs) => this.retryRemaining(args)),
      vscode.commands.registerCommand('svc.uploadTrajectories.cancel', () => this.running?.abort()),
    ];
  }

  dispose(): void {
    this.live.dispose();
    this.diagnostics.dispose();
  }

  async upload(how: Invocation, clicked?: unknown, selected?: unknown, options?: unknown): Promise<UploadReport> {
    // A scripted call (an arguments object) never waits on a prompt: it does the work or rejects.
    const refuse = (message: string): UploadReport => {
      if (!how.interactive) throw new Error(`svc.uploadTrajectories: ${message}`);
      vscode.window.showWarningMessage(`svc: ${message}`);
      return { status: 'aborted', files: [] };
    };
    if (this.running) return refuse('an upload is already running; cancel it or wait for it to finish.');
    const args = optionsFromArgs<UploadArgs>(clicked, selected, options);
    let files = args.files ? filesFromArgs(args.files, undefined) : filesFromArgs(clicked, selected);
    if (!how.interactive) {
      if (files.length === 0) return refuse('no files: pass an explorer selection or { files: [...] }.');
      if (!args.modelId) return refuse('no model: pass { modelId }.');
      if (!args.split) return refuse('no split: pass { split }.');
    }
    if (files.length === 0) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: true,
        openLabel: 'Upload',
        title: 'svc: Upload trajectories',
        filters: { Trajectories: ['json', 'jsonl'] },
      });
      if (!picked?.length) return { status: 'aborted', files: [] };
      files = picked;
    }
    const remote = notOnDisk(files);
    if (remote) return refuse(remote);
    files = uploadOrder(files, (u) => u.fsPath);
    const client = this.connection.client;
    if (!client || this.connection.state === 'signedOut') {
      const host = hostOf(this.connection.config.trainingBaseUrl || this.connection.config.baseUrl);
      if (!how.interactive) return refuse(`not signed in${host ? ` to ${host}` : ''}: run "svc: Sign In" first.`);
      background(this.errors.show(new Error(`Sign in${host ? ` to ${host}` : ' to the svc service'} before uploading.`)), 'Showing an error');
      return { status: 'aborted', files: [] };
    }

    // 1. Validate everything before sending anything.
    const summaries = await this.validate(files);
    if (!summaries) return { status: 'cancelled', files: [] };
    const invalid = summaries.filter((s) => s.problems.some((p) => p.severity === 'error'));
    if (invalid.length) {
      const count = invalid.reduce((n, s) => n + s.problems.filter((p) => p.severity === 'error').length, 0);
      const names = invalid.map((s) => path.basename(s.file)).join(', ');
      background(
        vscode.window
          .showErrorMessage(`svc: ${invalid.some((s) => s.truncated) ? `${count}+ problems` : plural(count, 'problem')} in ${names}; nothing was sent.`, 'Show Problems')
          .then((choice) => choice && vscode.commands.executeCommand('workbench.actions.view.problems')),
        'Show Problems',
      );
      return { status: 'invalid', files: invalid.map((s) => ({ file: s.file, problems: s.problems.length })) };
    }

    // 2. Where to: model and split.
    const layout = artLayout(files[0]!.fsPath);
    const modelId = args.modelId ?? (await this.pickModel(layout?.model));
    if (!modelId) return { status: 'aborted', files: [] };
    const split = args.split ?? (await this.pickSplit(files[0]!, summaries[0]!, layout?.split));
    if (!split) return { status: 'aborted', files: [] };
    await this.remember(modelId, split, files);
    // Run by the user: whether the key may go to the training origin is asked now, not mid-upload.
    if (how.interactive) await this.connection.prepare('training');

    const stamped = await Promise.all(files.map(async (uri) => ({ uri, startGroup: 0, ...(await stampOf(uri)) })));
    const plan: Remaining = { modelId, split, maxRequestBytes: args.maxRequestBytes, files: stamped };
    return this.send(plan, summaries);
  }

  async retryRemaining(args?: RetryArgs): Promise<UploadReport> {
    let plan = this.remaining;
    if (!plan) {
      vscode.window.showInformationMessage('svc: nothing left to upload.');
      return { status: 'done', files: [] };
    }
    if (this.running) {
      vscode.window.showWarningMessage('svc: an upload is already running.');
      return { status: 'aborted', files: [] };
    }
    for (const f of plan.files) {
      const now = await stampOf(f.uri);
      if (f.startGroup > 0 && (now.size !== f.size || now.mtime !== f.mtime)) {
        vscode.window.showErrorMessage(
          `svc: ${path.basename(f.uri.fsPath)} changed since the upload began, so "resume at group ${f.startGroup}" could skip or repeat lines. Nothing was sent; upload the remaining lines as a new file.`,
        );
        return { status: 'aborted', files: [] };
      }
    }
    if (plan.uncertain) {
      const choice = args ? (args.uncertain ?? 'skip') : await this.askUncertain(plan);
      if (!choice) return { status: 'aborted', files: [] };
      if (choice === 'send') plan = { ...plan, files: [{ ...plan.files[0]!, startGroup: plan.uncertain.chunk.firstGroup }, ...plan.files.slice(1)] };
      plan = { ...plan, uncertain: undefined };
    }
    const summaries = await this.validate(plan.files.map((f) => f.uri));
    if (!summaries) return { status: 'cancelled', files: [] };
    if (summaries.some((s) => s.problems.some((p) => p.severity === 'error'))) {
      vscode.window.showErrorMessage('svc: the files changed and now have problems; nothing was sent.');
      return { status: 'invalid', files: [] };
    }
    return this.send(plan, summaries);
  }

  /** Asks what to do with lines the service may already have logged; Skip is the default. */
  private async askUncertain(plan: Remaining): Promise<'skip' | 'send' | undefined> {
    const { chunk, why } = plan.uncertain!;
    const name = path.basename(plan.files[0]!.uri.fsPath);
    const skip = 'Skip Them';
    const send = 'Send Them Too';
    const pick = await vscode.window.showWarningMessage(
      `svc: ${describeLines([chunk])} of ${name} may already be logged: ${why}.`,
      { modal: true, detail: 'Skipping them resumes after them. Sending them again may log them twice.' },
      skip,
      send,
    );
    return pick === skip ? 'skip' : pick === send ? 'send' : undefined;
  }

  private async validate(files: vscode.Uri[]): Promise<ValidationSummary[] | undefined> {
    return withAbortableProgress(
      { location: vscode.ProgressLocation.Notification, title: 'svc: Validating trajectories' },
      async (progress, abort) => {
        const out: ValidationSummary[] = [];
        for (const uri of files) {
          progress.report({ message: path.basename(uri.fsPath) });
          try {
            const summary = await validateTrajectoryFile(uri.fsPath, { signal: abort.signal });
            this.live.set(uri, summary.problems);
            out.push(summary);
          } catch (e) {
            if (abort.signal.aborted) return undefined;
            throw e;
          }
        }
        return out;
      },
    );
  }

  private async send(plan: Remaining, summaries: ValidationSummary[]): Promise<UploadReport> {
    const totalBytes = summaries.reduce((n, s) => n + s.fileBytes, 0);
    const totalGroups = summaries.reduce((n, s) => n + s.groups, 0);
    const started = performance.now();
    const report = await withAbortableProgress(
      { location: vscode.ProgressLocation.Notification, title: `svc: Uploading to ${plan.modelId} (${plan.split})` },
      async (progress, cancel): Promise<UploadReport> => {
        this.running = cancel;
        setContext('svc.uploading', true);
        try {
          return await this.sendFiles(plan, summaries, cancel, progress, totalGroups, totalBytes);
        } finally {
          this.running = undefined;
          setContext('svc.uploading', false);
        }
      },
    );
    background(this.announce(report, plan, performance.now() - started), 'Announcing the upload');
    return report;
  }

  private async sendFiles(
    plan: Remaining,
    summaries: ValidationSummary[],
    cancel: AbortController,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    totalGroups: number,
    totalBytes: number,
  ): Promise<UploadReport> {
    const reports: FileUploadReport[] = [];
    let doneGroups = 0;
    let doneBytes = 0;
    for (let i = 0; i < plan.files.length; i++) {
      const { uri, startGroup } = plan.files[i]!;
      if (cancel.signal.aborted) {
        this.remaining = { ...plan, files: plan.files.slice(i) };
        return { status: 'cancelled', files: reports };
      }
      // The client of now: settings may have changed (and the old client closed) between files.
      const client = this.connection.client;
      if (!client) throw new Error('svc.baseUrl is no longer configured.');
      const name = path.basename(uri.fsPath);
      const summary = summaries[i]!;
      const step = artLayout(uri.fsPath)?.step;
      // The groups go out as the file holds them, so the file must be the one just validated.
      const now = await stampOf(uri);
      if (now.size !== summary.fileBytes || now.mtime === undefined || Math.abs(now.mtime - summary.mtimeMs) >= 1) {
        this.remaining = { ...plan, files: plan.files.slice(i) };
        vscode.window.showErrorMessage(`svc: ${name} changed after it was validated, so none of it was sent. Upload it again to validate the new content.`);
        return { status: 'aborted', files: reports };
      }
      let last = 0;
      // Validated just before (the one schema pass): the reader only frames the groups.
      const result = await uploadGroups(client, readTrajectoryGroups(uri.fsPath, { startGroup, trusted: true, groupTrajectories: summary.groupTrajectories }), {
        modelId: plan.modelId,
        split: plan.split,
        members: summary.members,
        maxRequestBytes: plan.maxRequestBytes,
        cancel: cancel.signal,
        onProgress: (p) => {
          const bytes = doneBytes + p.bytesSent;
          progress.report({
            message: `${name}: ${doneGroups + p.groupsSent}/${plural(totalGroups, 'group')}, ${formatBytes(bytes)} of ${formatBytes(totalBytes)}`,
            increment: totalBytes ? ((p.bytesSent - last) / totalBytes) * 100 : 0,
          });
          last = p.bytesSent;
        },
      });
      doneGroups += result.totals.groupsSent;
      doneBytes += result.totals.bytesSent;
      reports.push(step === undefined ? { file: uri.fsPath, result } : { file: uri.fsPath, step, result });
      this.log.info(
        `Upload ${name} -> ${plan.modelId}/${plan.split}: ${result.outcome.status}; logged ${describeLines(result.logged) || 'nothing'} (${plural(result.totals.groupsSent, 'group')}, ${formatBytes(result.totals.bytesSent)}) in ${formatDuration(result.durationMs)}`,
      );
      if (result.outcome.status !== 'done') {
        const outcome = result.outcome;
        this.remaining = {
          ...plan,
          files: [{ ...plan.files[i]!, startGroup: result.nextGroup }, ...plan.files.slice(i + 1)],
          uncertain: outcome.status === 'failed' && outcome.uncertain ? { chunk: outcome.chunk, why: outcome.uncertainWhy ?? 'the outcome is unknown' } : undefined,
        };
        if (result.outcome.status === 'failed') this.showServerIssues(uri, result);
        return { status: result.outcome.status, files: reports };
      }
    }
    this.remaining = undefined;
    return { status: 'done', files: reports };
  }

  private showServerIssues(uri: vscode.Uri, result: UploadResult): void {
    if (result.outcome.status !== 'failed' || result.outcome.issues.length === 0) return;
    const diags = result.outcome.issues.map((i) =>
      toDiagnostic({
        line: i.line ?? 1,
        column: 1,
        endLine: i.line ?? 1,
        endColumn: 1000,
        message: `The service refused this group (422): ${i.loc.join('.')}: ${i.msg}`,
        severity: 'error',
      }),
    );
    this.diagnostics.set(uri, diags);
  }

  private async announce(report: UploadReport, plan: Remaining, ms: number): Promise<void> {
    const groups = report.files.reduce((n, f) => n + (f.result?.totals.groupsSent ?? 0), 0);
    const trajectories = report.files.reduce((n, f) => n + (f.result?.totals.trajectoriesSent ?? 0), 0);
    const bytes = report.files.reduce((n, f) => n + (f.result?.totals.bytesSent ?? 0), 0);
    const totals = `${plural(groups, 'group')}, ${plural(trajectories, 'trajectory', 'trajectories')}, ${formatBytes(bytes)} in ${formatDuration(ms)}`;
    if (report.status === 'aborted') return;
    const steps = report.files.filter((f) => f.step !== undefined).map((f) => `step ${f.step} (${plural(f.result?.totals.groupsSent ?? 0, 'group')})`);
    const stepList = steps.length ? ` Steps: ${steps.join(', ')}.` : '';
    if (report.status === 'done') {
      vscode.window.showInformationMessage(`svc: uploaded ${plural(report.files.length, 'file')} to ${plan.modelId} (${plan.split}): ${totals}.${stepList}`);
      return;
    }
    const last = report.files.at(-1)!;
    const name = path.basename(last.file);
    const logged = last.result ? describeLines(last.result.logged) : '';
    const sent = logged ? `${name}: ${logged} ${isOneLine(logged) ? 'was' : 'were'} logged.` : `${name}: nothing was logged.`;
    let text: string;
    let unknownModel = false;
    if (report.status === 'cancelled') {
      text = `svc: upload cancelled after ${totals}. ${sent}`;
    } else {
      const outcome = last.result!.outcome as Extract<UploadResult['outcome'], { status: 'failed' }>;
      const lines = describeLines([outcome.chunk]);
      const doubt = outcome.uncertain
        ? ` ${lines[0]!.toUpperCase()}${lines.slice(1)} may already be logged (${outcome.uncertainWhy ?? 'the outcome is unknown'}): "Retry Remaining" asks before sending them again.`
        : ` ${lines[0]!.toUpperCase()}${lines.slice(1)} ${isOneLine(lines) ? 'was' : 'were'} not logged.`;
      text = `svc: upload to ${plan.modelId} failed: ${this.errors.describe(outcome.error)}. ${sent}${doubt}`;
      this.connection.reportFailure(outcome.error);
      this.log.error(text);
      // The service does not know the model: it leaves the recent list, and Remove Model is offered.
      unknownModel = outcome.error instanceof NotFoundError;
      if (unknownModel) await forgetRecent(this.context.globalState, RECENT_MODELS, plan.modelId);
    }
    const remove = unknownModel ? removeModelAction(plan.modelId) : undefined;
    const choice = await (report.status === 'cancelled' ? vscode.window.showWarningMessage : vscode.window.showErrorMessage)(
      text,
      ...(remove ? [remove.title] : []),
      'Retry Remaining',
      'Show Log',
    );
    if (remove && choice === remove.title) await vscode.commands.executeCommand(remove.command, remove.args);
    if (choice === 'Retry Remaining') await vscode.commands.executeCommand('svc.uploadTrajectories.retryRemaining');
    if (choice === 'Show Log') this.log.channel.show(true);
  }

  /** `proposed`: the model named by the file's folder (official client layout), offered first. */
  private async pickModel(proposed?: string): Promise<string | undefined> {
    const known = [...new Set([...(proposed ? [proposed] : []), ...this.connection.config.models, ...recent(this.context.globalState, RECENT_MODELS)])];
    return pickOrType('svc: Upload to which model?', 'Model id', known, proposed ? { [proposed]: 'from the file\'s folder (models/<model>/trajectories/…)' } : {});
  }

  /** `proposed`: the split named by the file's folder (official client layout), offered first. */
  private async pickSplit(file: vscode.Uri, summary: ValidationSummary, proposed?: string): Promise<string | undefined> {
    const remembered = this.context.workspaceState.get<string>(`svc.split:${file.fsPath}`) ?? summary.split;
    const first = proposed ?? remembered;
    const why = (label: string) => (label === proposed ? "from the file's folder (trajectories/<split>/…)" : label === remembered ? 'last used' : undefined);
    const labels = [...new Set([...(first ? [first] : []), 'train', 'val'])];
    const items = labels.map((label) => ({ label, description: why(label) }));
    items.push({ label: 'Custom…', description: 'type a split name' });
    const pick = await vscode.window.showQuickPick(items, { title: `svc: Split for ${path.basename(file.fsPath)}` });
    if (!pick) return undefined;
    if (pick.label !== 'Custom…') return pick.label;
    const typed = await vscode.window.showInputBox({ title: 'svc: Split name', validateInput: (v) => (v.trim() ? undefined : 'Enter a split name') });
    return typed?.trim() || undefined;
  }

  private async remember(modelId: string, split: string, files: vscode.Uri[]): Promise<void> {
    await pushRecent(this.context.globalState, RECENT_MODELS, modelId);
    for (const f of files) await this.context.workspaceState.update(`svc.split:${f.fsPath}`, split);
  }
}

/** Whether describeLines named one line (`line 3`), for was/were. */
function isOneLine(described: string): boolean {
  return /^line \d+$/.test(described);
}
