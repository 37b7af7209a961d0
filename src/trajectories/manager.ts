import * as path from 'node:path';
import * as vscode from 'vscode';
import { AuthenticationError, ConfigurationError, hostOf, InputError, NotFoundError } from '../api';
import { background, setContext } from '../common/background';
import { filesFromArgs, notOnDisk, optionsFromArgs } from '../common/diagnostics';
import type { ErrorPresenter } from '../common/errors';
import { formatBytes, formatDuration, plural } from '../common/format';
import type { Invocation } from '../common/interaction';
import { LiveProblems } from '../common/liveProblems';
import { withAbortableProgress } from '../common/progress';
import type { Logger } from '../common/logger';
import { forgetRecent, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import type { Connection } from '../service/connection';
import { artLayout, artSplitFolder, stepFiles, uploadOrder } from './layout';
import { announceUpload, askUncertain, confirmFolder, pickModel, pickSplit, serverIssues } from './questions';
import { readTrajectoryGroups, validateTrajectoryFile, type ValidationSummary } from '../files';
import type { FileUploadReport, Remaining, RetryArgs, UploadArgs, UploadReport } from './report';
import { describeLines, uploadGroups } from './upload';

const SHOW_PROBLEMS = { title: 'Show Problems', command: 'workbench.actions.view.problems' };

async function stampOf(uri: vscode.Uri): Promise<{ size?: number; mtime?: number }> {
  try {
    const st = await vscode.workspace.fs.stat(uri);
    return { size: st.size, mtime: st.mtime };
  } catch {
    return {};
  }
}

/**
 * The flow of Upload Trajectories and its Retry Remaining: validate every file before sending
 * anything, pick the model and split, stream the groups, and keep what is left after a failure.
 * The commands (commands.ts) are thin registrations over it.
 */
export class UploadManager implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('svc-trajectories');
  /** Edits to a validated file check it again, so its entries follow the file. */
  private readonly live = new LiveProblems(this.diagnostics, async (file) => (await validateTrajectoryFile(file)).problems);
  /** What "Retry remaining" would send; undefined when nothing is left. */
  remaining: Remaining | undefined;
  /** Cancels the upload in progress (the notification's Cancel button does the same). */
  private running: AbortController | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly errors: ErrorPresenter,
    private readonly log: Logger,
    private readonly context: vscode.ExtensionContext,
  ) {}

  /** Cancels the upload in progress, if any. */
  cancel(): void {
    this.running?.abort();
  }

  dispose(): void {
    this.live.dispose();
    this.diagnostics.dispose();
  }

  async upload(how: Invocation, a?: unknown, b?: unknown, c?: unknown): Promise<UploadReport> {
    // A scripted call (an arguments object) never waits on a prompt: it does the work or rejects.
    const refuse = (message: string, field?: string): UploadReport => {
      const error = new InputError(`svc.uploadTrajectories: ${message}`, { field });
      if (!how.interactive) throw error;
      background(this.errors.show(error), 'Showing an error');
      return { status: 'aborted', files: [] };
    };
    if (this.running) return refuse('an upload is already running; cancel it or wait for it to finish.');
    const args = optionsFromArgs<UploadArgs>(a, b, c);
    let files = args.files ? filesFromArgs(args.files, undefined) : filesFromArgs(a, b);
    if (!how.interactive) {
      if (files.length === 0) return refuse('no files: pass an explorer selection or { files: [...] }.', 'files');
      if (!args.modelId) return refuse('no model: pass { modelId }.', 'modelId');
      if (!args.split) return refuse('no split: pass { split }.', 'split');
    }
    if (files.length === 0) {
      const picked = await vscode.window.showOpenDialog({
        canSelectMany: true,
        openLabel: 'Upload',
        title: 'svc: Upload trajectories',
        filters: { Trajectories: ['json', 'jsonl', 'parquet'] },
      });
      if (!picked?.length) return { status: 'aborted', files: [] };
      files = picked;
    }
    const remote = notOnDisk(files);
    if (remote) return refuse(remote);
    const expanded = await this.expandFolders(files, how.interactive);
    if (typeof expanded === 'string') return refuse(expanded);
    if (!expanded) return { status: 'aborted', files: [] };
    files = uploadOrder(expanded, (u) => u.fsPath);
    const client = this.connection.client;
    if (!client || this.connection.state === 'signedOut') {
      const host = hostOf(this.connection.config.trainingBaseUrl || this.connection.config.baseUrl);
      if (!how.interactive) throw new AuthenticationError(`svc.uploadTrajectories: not signed in${host ? ` to ${host}` : ''}: run "svc: Sign In" first.`);
      background(this.errors.show(new AuthenticationError(`Sign in${host ? ` to ${host}` : ' to the svc service'} before uploading.`)), 'Showing an error');
      return { status: 'aborted', files: [] };
    }

    // 1. Validate everything before sending anything.
    const summaries = await this.validate(files);
    if (!summaries) return { status: 'cancelled', files: [] };
    const invalid = summaries.filter((s) => s.problems.some((p) => p.severity === 'error'));
    if (invalid.length) {
      const count = invalid.reduce((n, s) => n + s.problems.filter((p) => p.severity === 'error').length, 0);
      const names = invalid.map((s) => path.basename(s.file)).join(', ');
      background(this.errors.showMessage(`svc: ${invalid.some((s) => s.truncated) ? `${count}+ problems` : plural(count, 'problem')} in ${names}; nothing was sent.`, { actions: [SHOW_PROBLEMS] }), 'Showing an error');
      return { status: 'invalid', files: invalid.map((s) => ({ file: s.file, problems: s.problems.length })) };
    }

    // 2. Where to: model and split.
    const layout = artLayout(files[0]!.fsPath);
    const known = [...new Set([...(layout?.model ? [layout.model] : []), ...this.connection.config.models, ...recent(this.context.globalState, RECENT_MODELS)])];
    const modelId = args.modelId ?? (await pickModel(known, layout?.model));
    if (!modelId) return { status: 'aborted', files: [] };
    const split = args.split ?? (await pickSplit(files[0]!, this.context.workspaceState.get<string>(`svc.split:${files[0]!.fsPath}`) ?? summaries[0]!.split, layout?.split));
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
      background(vscode.window.showInformationMessage('svc: nothing left to upload.'), 'Telling nothing is left');
      return { status: 'done', files: [] };
    }
    if (this.running) {
      background(this.errors.showMessage('svc: an upload is already running.', { warning: true }), 'Showing an error');
      return { status: 'aborted', files: [] };
    }
    for (const f of plan.files) {
      const now = await stampOf(f.uri);
      if (f.startGroup > 0 && (now.size !== f.size || now.mtime !== f.mtime)) {
        background(this.errors.showMessage(
          `svc: ${path.basename(f.uri.fsPath)} changed since the upload began, so "resume at group ${f.startGroup}" could skip or repeat lines. Nothing was sent; upload the remaining lines as a new file.`,
        ), 'Showing an error');
        return { status: 'aborted', files: [] };
      }
    }
    if (plan.uncertain) {
      const choice = args ? (args.uncertain ?? 'skip') : await askUncertain(plan);
      if (!choice) return { status: 'aborted', files: [] };
      if (choice === 'send') plan = { ...plan, files: [{ ...plan.files[0]!, startGroup: plan.uncertain.chunk.firstGroup }, ...plan.files.slice(1)] };
      plan = { ...plan, uncertain: undefined };
    }
    const summaries = await this.validate(plan.files.map((f) => f.uri));
    if (!summaries) return { status: 'cancelled', files: [] };
    if (summaries.some((s) => s.problems.some((p) => p.severity === 'error'))) {
      background(this.errors.showMessage('svc: the files changed and now have problems; nothing was sent.', { actions: [SHOW_PROBLEMS] }), 'Showing an error');
      return { status: 'invalid', files: [] };
    }
    return this.send(plan, summaries);
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
    const last = report.files.at(-1)?.result?.outcome;
    if (report.status === 'failed' && last?.status === 'failed') {
      this.connection.reportFailure(last.error);
      // The service does not know the model: it leaves the recent list (the message offers Remove Model).
      if (last.error instanceof NotFoundError) await forgetRecent(this.context.globalState, RECENT_MODELS, plan.modelId);
    }
    background(announceUpload(report, plan, performance.now() - started, this.errors), 'Announcing the upload');
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
      if (!client) throw new ConfigurationError('svc.baseUrl is no longer configured.');
      const name = path.basename(uri.fsPath);
      const summary = summaries[i]!;
      const step = artLayout(uri.fsPath)?.step;
      // The groups go out as the file holds them, so the file must be the one just validated.
      const now = await stampOf(uri);
      if (now.size !== summary.fileBytes || now.mtime === undefined || Math.abs(now.mtime - summary.mtimeMs) >= 1) {
        this.remaining = { ...plan, files: plan.files.slice(i) };
        background(this.errors.showMessage(`svc: ${name} changed after it was validated, so none of it was sent. Upload it again to validate the new content.`), 'Showing an error');
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
        const refused = serverIssues(result);
        if (refused.length) this.diagnostics.set(uri, refused);
        return { status: result.outcome.status, files: reports };
      }
    }
    this.remaining = undefined;
    return { status: 'done', files: reports };
  }


  /**
   * A split folder of ART's layout (`…/models/<model>/trajectories/<split>/`) stands for its step
   * files, in step order; the user is told what it holds before anything is read. Another folder is
   * refused (a string: why). Undefined: the user said no.
   */
  private async expandFolders(files: vscode.Uri[], interactive: boolean): Promise<vscode.Uri[] | string | undefined> {
    const out: vscode.Uri[] = [];
    for (const uri of files) {
      const isFolder = await vscode.workspace.fs.stat(uri).then((st) => (st.type & vscode.FileType.Directory) !== 0, () => false);
      if (!isFolder) {
        out.push(uri);
        continue;
      }
      const split = artSplitFolder(uri.fsPath);
      if (!split) return `${uri.fsPath} is a folder: only a split folder of ART's layout (…/models/<model>/trajectories/<split>/) uploads as a whole.`;
      const found = await stepFiles(uri.fsPath);
      if (!found.files.length) return `${uri.fsPath} holds no step files (<step>.parquet or <step>.jsonl).`;
      const bytes = (await Promise.all(found.files.map(async (f) => (await stampOf(vscode.Uri.file(f))).size ?? 0))).reduce((a, b) => a + b, 0);
      if (interactive && !(await confirmFolder(split, found, bytes))) return undefined;
      out.push(...found.files.map((f) => vscode.Uri.file(f)));
    }
    return out;
  }

  private async remember(modelId: string, split: string, files: vscode.Uri[]): Promise<void> {
    await pushRecent(this.context.globalState, RECENT_MODELS, modelId);
    for (const f of files) await this.context.workspaceState.update(`svc.split:${f.fsPath}`, split);
  }
}

