import { createHash } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { localFiles, type Invocation } from '../ui/commands';
import type { CallBatchItem } from '../api';
import { LiveProblems } from '../ui/liveProblems';
import { formatBytes, formatDuration, plural } from '../common/format';
import type { ErrorPresenter } from '../common/errors';
import type { Logger } from '../common/logger';
import type { Connection } from '../service/connection';
import { readCallItems, validateCallsFile, type CallsValidationSummary } from './reader';
import { background } from '../common/background';
import { withAbortableProgress } from '../common/progress';

/**
 * A start without id or trace_id gets ids derived from the file, the line and its content, so
 * importing the same file again upserts the same calls instead of creating new ones.
 */
export function withStableIds(item: CallBatchItem, file: string, line: number): CallBatchItem {
  if (item.mode !== 'start' || (item.req.start.id && item.req.start.trace_id)) return item;
  const seed = `${file}\n${line}\n${JSON.stringify(item.req.start)}`;
  const start = { ...item.req.start, id: item.req.start.id || stableUuid(`id\n${seed}`), trace_id: item.req.start.trace_id || stableUuid(`trace\n${seed}`) };
  return { ...item, req: { ...item.req, start } };
}

/** A UUID-shaped id (version 5 layout) from a SHA-256 of `text`. */
function stableUuid(text: string): string {
  const h = createHash('sha256').update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

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
export class ImportManager implements vscode.Disposable {
  readonly diagnostics = vscode.languages.createDiagnosticCollection('svc-calls');
  /** Edits to a validated file check it again, so its entries follow the file. */
  private readonly live = new LiveProblems(this.diagnostics, async (file) => (await validateCallsFile(file)).problems);

  constructor(
    private readonly connection: Connection,
    private readonly errors: ErrorPresenter,
    private readonly log: Logger,
    private readonly afterImport: () => void,
    /** Shows the threads an import wrote to (the notification's Show Thread). */
    private readonly showThreads?: (project: string, threadIds: string[]) => Promise<void>,
  ) {}

  dispose(): void {
    this.live.dispose();
    this.diagnostics.dispose();
  }

  async import(how: Invocation, clicked?: unknown, selected?: unknown, options?: unknown): Promise<ImportReport> {
    const call = await localFiles<ImportArgs>('svc.importCalls', how, [clicked, selected, options], { openLabel: 'Import', title: 'svc: Import calls', filters: { 'Call batches': ['jsonl'] } });
    if (!call) return { status: 'aborted', files: [] };
    const { files, options: args } = call;
    const client = this.connection.signedInClient('svc.importCalls', 'trace');

    const summaries: CallsValidationSummary[] = [];
    for (const uri of files) {
      const s = await validateCallsFile(uri.fsPath);
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
    const project = this.connection.config.project;
    await withAbortableProgress(
      { location: vscode.ProgressLocation.Notification, title: 'svc: Importing calls' },
      async (progress, abort) => {
        let done = 0;
        let bytes = 0;
        for (const uri of files) {
          const name = path.basename(uri.fsPath);
          const counts = { file: uri.fsPath, items: 0, starts: 0, ends: 0 };
          report.files.push(counts);
          let batch: { item: CallBatchItem; line: number }[] = [];
          // The lines of the request that failed, for the message (the error itself stays as thrown).
          let failedLines = '';
          const flush = async () => {
            if (!batch.length) return;
            const records = batch;
            batch = [];
            await client.calls.upsertBatch(
              records.map((r) => r.item),
              {
                signal: abort.signal,
                maxBatchBytes: args.maxBatchBytes,
                // Counted per acknowledged request, so a failure later in the batch does not
                // hide what was already stored.
                onChunk: (first, results, sent) => {
                  bytes += sent;
                  done += results.length;
                  for (const r of records.slice(first, first + results.length)) {
                    counts.items++;
                    if (r.item.mode === 'start') counts.starts++;
                    else counts.ends++;
                  }
                  progress.report({ message: `${name}: ${done}/${totalItems} calls, ${formatBytes(bytes)}`, increment: (results.length / totalItems) * 100 });
                },
              },
            ).catch((e: unknown) => {
              failedLines = `lines ${records[0]!.line}–${records.at(-1)!.line}`;
              throw e;
            });
          };
          try {
            for await (const rec of readCallItems(uri.fsPath, { signal: abort.signal, trusted: true })) {
              batch.push({ item: withStableIds(rec.item, uri.fsPath, rec.line), line: rec.line });
              const start = 'start' in rec.item.req ? rec.item.req.start : undefined;
              if (start?.thread_id && threadIds.size < MAX_SHOWN_THREADS && start.project_id === project) threadIds.add(start.thread_id);
              if (batch.length >= perBatch) await flush();
            }
            await flush();
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
          vscode.window.showInformationMessage(
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
