import * as path from 'node:path';
import * as vscode from 'vscode';
import { z } from 'zod';
import { localFiles, type Invocation } from '../ui/commands';
import { parseArgs } from '../ui/args';
import { Disposable } from '../common/disposable';
import { LiveProblems } from '../ui/liveProblems';
import { formatBytes, formatDuration, plural } from '../common/format';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { validateCallsFile, type CallsValidationSummary } from './reader';
import { sendCallsFile } from './send';
import { background } from '../common/background';
import { withAbortableProgress, type Prompts } from '../ui/prompts';

/** A scripted import's options (its files are localFiles'). */
const IMPORT_ARGS = z.object({ files: z.unknown().optional(), itemsPerBatch: z.int().min(1).optional(), maxBatchBytes: z.int().min(1).optional() });

export interface ImportArgs {
  files?: (string | vscode.Uri)[];
  /** Items handed to one upsertBatch call (it splits further by bytes). Default 1000. */
  itemsPerBatch?: number;
  /** Byte budget of one request. Default 10 MiB. */
  maxBatchBytes?: number;
}

export interface ImportReport {
  status: 'invalid' | 'cancelled' | 'done' | 'failed' | 'aborted';
  files: { file: string; items: number; starts: number; ends: number; problems?: number }[];
  error?: string;
  /** The thread ids of the calls started by the import (the first MAX_SHOWN_THREADS). */
  threadIds?: string[];
}

/** How many thread ids Show Thread filters the view by. */
const MAX_SHOWN_THREADS = 50;

/**
 * The flow of svc.importCalls: JSONL files of call batch items, validated with line-accurate
 * diagnostics, then sent through calls.upsertBatch. Upserts are idempotent by call id, so a failed
 * or cancelled import can simply be run again. The command (commands.ts) is a thin registration.
 */
export class ImportManager extends Disposable {
  readonly diagnostics = this._register(vscode.languages.createDiagnosticCollection('svc-calls'));
  /** Edits to a validated file check it again, so its entries follow the file. */
  private readonly live = this._register(new LiveProblems(this.diagnostics, async (file) => (await validateCallsFile(file)).problems));

  constructor(
    private readonly connection: Connection,
    private readonly errors: ErrorPresenter,
    private readonly prompts: Prompts,
    private readonly log: Logger,
    private readonly afterImport: () => void,
    /** Shows the threads an import wrote to (the notification's Show Thread). */
    private readonly showThreads?: (project: string, threadIds: string[]) => Promise<void>,
  ) {
    super();
  }

  async import(how: Invocation, clicked?: unknown, selected?: unknown, options?: unknown): Promise<ImportReport> {
    const dialog = { openLabel: 'Import', title: 'svc: Import calls', filters: { 'Call batches': ['jsonl'] } };
    const call = await localFiles<ImportArgs>('svc.importCalls', how, [clicked, selected, options], this.prompts, dialog, (args) => parseArgs('svc.importCalls', IMPORT_ARGS, args));
    if (!call) return { status: 'aborted', files: [] };
    const { files, options: args } = call;
    const client = this.connection.signedInClient('svc.importCalls', 'trace');

    const project = this.connection.config.project;
    const summaries: CallsValidationSummary[] = [];
    for (const uri of files) {
      // The plan lets the send pass send each item's bytes as written, parsing only those that change.
      const s = await validateCallsFile(uri.fsPath, { plan: true, threadsOf: project });
      this.live.set(uri, s.problems);
      summaries.push(s);
    }
    const invalid = summaries.filter((s) => s.problems.some((p) => p.severity === 'error'));
    if (invalid.length) {
      background(
        this.errors.showMessage(`svc: problems in ${invalid.map((s) => path.basename(s.file)).join(', ')}; nothing was imported.`, {
          actions: [{ title: 'Show Problems', command: 'workbench.actions.view.problems' }],
        }),
        'Showing an error',
      );
      return { status: 'invalid', files: invalid.map((s) => ({ file: s.file, items: s.items, starts: s.starts, ends: s.ends, problems: s.problems.length })) };
    }

    // Run by the user: the key's use may be asked about before the first batch, not mid-import.
    if (how.interactive) await this.connection.prepare('trace');
    const totalItems = summaries.reduce((n, s) => n + s.items, 0);
    const perBatch = args.itemsPerBatch ?? 1000;
    const started = performance.now();
    const report: ImportReport = { status: 'done', files: [] };
    const threadIds = new Set<string>();
    await withAbortableProgress(
      this.prompts,
      'svc: Importing calls',
      async (progress, abort) => {
        let done = 0;
        let bytes = 0;
        for (const uri of files) {
          const name = path.basename(uri.fsPath);
          const counts = { file: uri.fsPath, items: 0, starts: 0, ends: 0 };
          report.files.push(counts);
          // The lines of the request that failed, for the message (the error itself stays as thrown).
          let failedLines = '';
          try {
            const sent = await sendCallsFile(client.calls, uri.fsPath, {
              signal: abort.signal,
              itemsPerBatch: perBatch,
              maxBatchBytes: args.maxBatchBytes,
              plan: summaries[files.indexOf(uri)]?.plan,
              threadsOf: project,
              // Counted per acknowledged request, so a failure later in the file does not hide
              // what was already stored.
              onChunk: (stored) => {
                bytes += stored.bytes;
                done += stored.starts + stored.ends;
                counts.items += stored.starts + stored.ends;
                counts.starts += stored.starts;
                counts.ends += stored.ends;
                progress.report({ message: `${name}: ${done}/${totalItems} calls, ${formatBytes(bytes)}`, increment: ((stored.starts + stored.ends) / totalItems) * 100 });
              },
              onFailedLines: (first, last) => {
                failedLines = `lines ${first}–${last}`;
              },
            });
            for (const id of sent.threadIds) if (threadIds.size < MAX_SHOWN_THREADS) threadIds.add(id);
          } catch (e) {
            report.status = abort.signal.aborted ? 'cancelled' : 'failed';
            report.error = `${name}${failedLines ? `, a request with ${failedLines}` : ''}: ${this.errors.describe(e)}`;
            if (report.status === 'failed') this.connection.reportFailure(e);
            this.log.error(`Import of ${name} ${report.status} after ${counts.items} calls: ${report.error}`);
            return;
          }
        }
      },
    );
    const starts = report.files.reduce((n, f) => n + f.starts, 0);
    const ends = report.files.reduce((n, f) => n + f.ends, 0);
    const took = formatDuration(performance.now() - started);
    if (starts + ends > 0) this.afterImport();
    if (report.status === 'done') {
      const warnings = summaries.reduce((n, s) => n + s.problems.length, 0);
      report.threadIds = [...threadIds];
      const show = threadIds.size === 1 ? 'Show Thread' : threadIds.size > 1 ? `Show ${threadIds.size} Threads` : undefined;
      background(
        Promise.resolve(
          this.prompts.showInformationMessage(
            `svc: imported ${plural(starts + ends, 'call record')} (${starts} started, ${ends} ended) from ${plural(files.length, 'file')} in ${took}.` +
              (warnings ? ` ${plural(warnings, 'warning')} in the Problems panel.` : ''),
            ...(show ? [show] : []),
          ),
        ).then(async (choice) => {
          if (!choice || !this.showThreads) return;
          try {
            await this.showThreads(project, [...threadIds]);
          } catch (e) {
            await this.errors.show(e);
          }
        }),
        'Offering to show the imported threads',
      );
    } else {
      const done = `${starts} started and ${ends} ended calls were imported`;
      background(
        this.errors.showMessage(`svc: import ${report.status === 'cancelled' ? 'cancelled' : `failed: ${report.error}`}. ${done}; importing again is safe (upserts by call id).`, {
          actions: [{ title: 'Import Again', command: 'svc.importCalls', args: { files: files.map((f) => f.fsPath) } }],
        }),
        'Showing an error',
      );
    }
    return report;
  }
}
