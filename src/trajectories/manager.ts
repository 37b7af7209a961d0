import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError, NotFoundError } from '../api';
import { background } from '../common/background';
import { localFiles, type Invocation } from '../ui/commands';
import { nonBlank, parseArgs } from '../ui/args';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import { formatBytes, formatDuration, plural } from '../common/format';
import { LiveProblems } from '../ui/liveProblems';
import { withAbortableProgress, type ContextKeys, type Prompts } from '../ui/prompts';
import type { Logger } from '../common/logger';
import { forgetRecent, pushRecent, recent, RECENT_MODELS } from '../common/pick';
import type { Connection } from '../service/connection';
import { artLayout, artSplitFolder, stepFiles, uploadOrder } from './layout';
import { invalidFiles, repeatsOf, sendFiles, validateFiles, type JobFile } from './job';
import { announceUpload, askRepeat, askUncertain, confirmFolder, pickModel, pickSplit, RetryPlan, serverIssues } from './questions';
import { validateTrajectoryFile } from '../files';
import type { Remaining, RetryArgs, UploadArgs, UploadFinished, UploadReport } from './report';
import { RepeatError, SentUploads } from './sent';
import { describeLines } from './upload';

/** A scripted upload's options (its files are localFiles'): nothing is asked, so model and split are needed. */
const UPLOAD_ARGS = z.object({
  files: z.unknown().optional(),
  modelId: nonBlank('no model: pass { modelId }'),
  split: nonBlank('no split: pass { split }'),
  maxRequestBytes: z.int().min(1).optional(),
  allowRepeat: z.boolean({ error: 'allowRepeat must be true or false' }).optional(),
});

/** Failed uploads whose Retry Remaining is kept. */
const MAX_PLANS = 20;

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
export class UploadManager extends Disposable {
  readonly diagnostics = this._register(vscode.languages.createDiagnosticCollection('svc-trajectories'));
  /** Edits to a validated file check it again, so its entries follow the file. */
  private readonly live = this._register(new LiveProblems(this.diagnostics, async (file) => (await validateTrajectoryFile(file)).problems));
  /**
   * What each failed or cancelled upload has left, by plan id: its notification's Retry Remaining
   * acts on its own plan only, whatever other uploads did since.
   */
  private readonly plans = new Map<number, Remaining>();
  private nextPlanId = 1;
  /** What this editor sent, per workspace (sent.ts): a second upload of the same content asks first. */
  private readonly sent: SentUploads;

  /** What "Retry Remaining" from the palette would send: the latest plan; undefined when nothing is left. */
  get remaining(): Remaining | undefined {
    return [...this.plans.values()].at(-1);
  }
  /** Cancels the upload in progress (the notification's Cancel button does the same). */
  private running: AbortController | undefined;
  private readonly finished = this._register(new vscode.EventEmitter<UploadFinished>());
  /** Fires when an upload (or a retry) that sent or tried to send has finished, whatever its outcome. */
  readonly onDidFinish = this.finished.event;

  constructor(
    private readonly connection: Connection,
    private readonly errors: ErrorPresenter,
    private readonly prompts: Prompts,
    /** `svc.uploading` (the Cancel Upload command's `when`) is set here. */
    private readonly contextKeys: ContextKeys,
    private readonly log: Logger,
    private readonly context: Pick<vscode.ExtensionContext, 'globalState' | 'workspaceState'>,
  ) {
    super();
    this.sent = new SentUploads(context.workspaceState);
  }

  /** Cancels the upload in progress, if any. */
  cancel(): void {
    this.running?.abort();
  }

  async upload(how: Invocation, a?: unknown, b?: unknown, c?: unknown): Promise<UploadReport> {
    if (this.running) throw new InputError('svc.uploadTrajectories: an upload is already running; cancel it or wait for it to finish.');
    const call = await localFiles<UploadArgs>(
      'svc.uploadTrajectories',
      how,
      [a, b, c],
      this.prompts,
      { openLabel: 'Upload', title: 'svc: Upload trajectories', filters: { Trajectories: ['json', 'jsonl', 'parquet'] } },
      (args) => parseArgs('svc.uploadTrajectories', UPLOAD_ARGS, args),
    );
    if (!call) return { status: 'aborted', files: [] };
    const { options: args } = call;
    const expanded = await this.expandFolders(call.files, how.interactive);
    if (typeof expanded === 'string') throw new InputError(`svc.uploadTrajectories: ${expanded}`);
    if (!expanded) return { status: 'aborted', files: [] };
    const files = uploadOrder(expanded, (u) => u.fsPath);
    this.connection.signedInClient('svc.uploadTrajectories', 'training');

    // 1. Validate everything before sending anything.
    const summaries = await this.validate(files);
    if (!summaries) return { status: 'cancelled', files: [] };
    const invalid = invalidFiles(summaries).map((f) => f.summary);
    if (invalid.length) {
      const count = invalid.reduce((n, s) => n + s.problems.filter((p) => p.severity === 'error').length, 0);
      const names = invalid.map((s) => path.basename(s.file)).join(', ');
      background(this.errors.showMessage(`svc: ${invalid.some((s) => s.truncated) ? `${count}+ problems` : plural(count, 'problem')} in ${names}; nothing was sent.`, { actions: [SHOW_PROBLEMS] }), 'Showing an error');
      return { status: 'invalid', files: invalid.map((s) => ({ file: s.file, problems: s.problems.length })) };
    }

    // 2. Where to: model and split.
    const layout = artLayout(files[0]!.fsPath);
    const known = [...new Set([...(layout?.model ? [layout.model] : []), ...this.connection.config.models, ...recent(this.context.globalState, RECENT_MODELS)])];
    // A model named only by the folder, not one the Checkpoints view shows: the pick says so.
    const modelId = args.modelId ?? (await pickModel(known, layout?.model, layout?.model !== undefined && !this.connection.config.models.includes(layout.model)));
    if (!modelId) return { status: 'aborted', files: [] };
    const split = args.split ?? (await pickSplit(this.prompts, files[0]!, this.context.workspaceState.get<string>(`svc.split:${files[0]!.fsPath}`) ?? summaries[0]!.summary.split, layout?.split));
    if (!split) return { status: 'aborted', files: [] };
    // The same content to the same model and split again: asked (a user), refused (a script) unless allowed.
    const repeats = args.allowRepeat ? [] : repeatsOf(summaries, modelId, split, this.sent);
    if (repeats.length) {
      if (!how.interactive) throw new RepeatError(repeats, 'svc.uploadTrajectories');
      if (!(await askRepeat(this.prompts, repeats))) return { status: 'aborted', files: [] };
    }
    await this.remember(modelId, split, files);
    // Run by the user: whether the key may go to the training origin is asked now, not mid-upload.
    if (how.interactive) await this.connection.prepare('training');

    const stamped = await Promise.all(files.map(async (uri) => ({ uri, startGroup: 0, ...(await stampOf(uri)) })));
    const plan: Remaining = { modelId, split, maxRequestBytes: args.maxRequestBytes, files: stamped };
    return this.send(plan, summaries, this.nextPlanId++);
  }

  /** `which`: the plan of one notification's button; else (palette, scripts) the latest plan. */
  async retryRemaining(args?: RetryArgs, which?: RetryPlan): Promise<UploadReport> {
    const id = which ? which.id : [...this.plans.keys()].at(-1);
    let plan = id === undefined ? undefined : this.plans.get(id);
    if (!plan || id === undefined) {
      background(this.prompts.showInformationMessage('svc: nothing left to upload.'), 'Telling nothing is left');
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
      const choice = args ? (args.uncertain ?? 'skip') : await askUncertain(this.prompts, plan);
      if (!choice) return { status: 'aborted', files: [] };
      if (choice === 'send') plan = { ...plan, files: [{ ...plan.files[0]!, startGroup: plan.uncertain.chunk.firstGroup }, ...plan.files.slice(1)] };
      plan = { ...plan, uncertain: undefined };
    }
    const summaries = await this.validate(plan.files.map((f) => f.uri));
    if (!summaries) return { status: 'cancelled', files: [] };
    if (invalidFiles(summaries).length) {
      background(this.errors.showMessage('svc: the files changed and now have problems; nothing was sent.', { actions: [SHOW_PROBLEMS] }), 'Showing an error');
      return { status: 'invalid', files: [] };
    }
    return this.send(plan, summaries, id);
  }

  private async validate(files: vscode.Uri[]): Promise<JobFile[] | undefined> {
    return withAbortableProgress(
      this.prompts,
      'svc: Validating trajectories',
      async (progress, abort) => {
        try {
          return await validateFiles(
            files.map((u) => u.fsPath),
            {
              signal: abort.signal,
              onStart: (p) => progress.report({ message: path.basename(p) }),
              onFile: (f) => this.live.set(vscode.Uri.file(f.path), f.summary.problems),
            },
          );
        } catch (e) {
          if (abort.signal.aborted) return undefined;
          throw e;
        }
      },
    );
  }

  private async send(plan: Remaining, summaries: JobFile[], planId: number): Promise<UploadReport> {
    const totalBytes = summaries.reduce((n, s) => n + s.summary.fileBytes, 0);
    const totalGroups = summaries.reduce((n, s) => n + s.summary.groups, 0);
    const started = performance.now();
    const report = await withAbortableProgress(
      this.prompts,
      `svc: Uploading to ${plan.modelId} (${plan.split})`,
      async (progress, cancel): Promise<UploadReport> => {
        this.running = cancel;
        background(this.contextKeys.set('svc.uploading', true), 'setContext svc.uploading');
        try {
          const report = await this.sendFiles(plan, summaries, cancel, progress, totalGroups, totalBytes);
          // This upload's plan only: another upload's failure keeps its own.
          if (report.left) this.plans.set(planId, report.left);
          else this.plans.delete(planId);
          // The oldest plans go first: a notification that old is long gone.
          for (const id of this.plans.keys()) if (this.plans.size > MAX_PLANS) this.plans.delete(id);
          return report.report;
        } finally {
          this.running = undefined;
          background(this.contextKeys.set('svc.uploading', false), 'setContext svc.uploading');
        }
      },
    );
    const last = report.files.at(-1)?.result?.outcome;
    if (report.status === 'failed' && last?.status === 'failed') {
      this.connection.reportFailure(last.error);
      // The service does not know the model: it leaves the recent list (the message offers Remove Model).
      if (last.error instanceof NotFoundError) await forgetRecent(this.context.globalState, RECENT_MODELS, plan.modelId);
    }
    background(announceUpload(this.prompts, report, plan, performance.now() - started, this.errors, new RetryPlan(planId)), 'Announcing the upload');
    this.finished.fire({ modelId: plan.modelId, split: plan.split, report });
    return report;
  }

  /** The job (job.ts) over the plan's files, with the notification's progress; what is left, as a plan. */
  private async sendFiles(
    plan: Remaining,
    summaries: JobFile[],
    cancel: AbortController,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    totalGroups: number,
    totalBytes: number,
  ): Promise<{ report: UploadReport; left?: Remaining }> {
    const files = plan.files.map((f, i) => ({ ...summaries[i]!, startGroup: f.startGroup }));
    const outcome = await sendFiles(files, {
      modelId: plan.modelId,
      split: plan.split,
      maxRequestBytes: plan.maxRequestBytes,
      client: () => this.connection.client,
      signal: cancel.signal,
      sent: this.sent,
      onProgress: (p) =>
        progress.report({
          message: `${p.file}: ${p.groups}/${plural(totalGroups, 'group')}, ${formatBytes(p.bytes)} of ${formatBytes(totalBytes)}`,
          increment: totalBytes ? (p.bytesDelta / totalBytes) * 100 : 0,
        }),
      onFileResult: (file, result) => {
        this.log.info(
          `Upload ${path.basename(file.path)} -> ${plan.modelId}/${plan.split}: ${result.outcome.status}; logged ${describeLines(result.logged) || 'nothing'} (${plural(result.totals.groupsSent, 'group')}, ${formatBytes(result.totals.bytesSent)}) in ${formatDuration(result.durationMs)}`,
        );
        const refused = serverIssues(result);
        if (refused.length) this.diagnostics.set(vscode.Uri.file(file.path), refused);
      },
    });
    if (outcome.changedBeforeSend) {
      background(this.errors.showMessage(`svc: ${path.basename(outcome.changedBeforeSend)} changed after it was validated, so none of it was sent. Upload it again to validate the new content.`), 'Showing an error');
    }
    if (!outcome.left) return { report: outcome.report };
    const from = plan.files.length - outcome.left.files.length;
    const left: Remaining = {
      ...plan,
      files: outcome.left.files.map((f, j) => ({ ...plan.files[from + j]!, startGroup: f.startGroup })),
      uncertain: outcome.left.uncertain,
    };
    return { report: outcome.report, left };
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
      if (interactive && !(await confirmFolder(this.prompts, split, found, bytes))) return undefined;
      out.push(...found.files.map((f) => vscode.Uri.file(f)));
    }
    return out;
  }

  private async remember(modelId: string, split: string, files: vscode.Uri[]): Promise<void> {
    await pushRecent(this.context.globalState, RECENT_MODELS, modelId);
    for (const f of files) await this.context.workspaceState.update(`svc.split:${f.fsPath}`, split);
  }
}

