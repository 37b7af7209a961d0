import * as vscode from 'vscode';
import { callRef, type ThreadRow } from '../api';
import { THREAD_SCHEME } from '../common/ids';
import type { ThreadsModel } from './model';

/** The URI of a thread's read-only details document. */
export function threadDetailsUri(project: string, threadId: string): vscode.Uri {
  return vscode.Uri.from({ scheme: THREAD_SCHEME, path: `/${project}/${encodeURIComponent(threadId)}.json` });
}

/** Serves thread rows as read-only JSON documents under the `svc-thread:` scheme. */
export class ThreadDetailsProvider implements vscode.TextDocumentContentProvider {
  /** Rows opened from the view, so a document still shows after the view reset (latest 100). */
  private readonly opened = new Map<string, ThreadRow>();

  constructor(private readonly model: ThreadsModel) {}

  remember(project: string, row: ThreadRow): void {
    const key = `${project}\n${row.thread_id}`;
    this.opened.delete(key);
    this.opened.set(key, row);
    while (this.opened.size > 100) this.opened.delete(this.opened.keys().next().value!);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const match = /^\/([^/]+\/[^/]+)\/(.+)\.json$/.exec(uri.path);
    if (!match) return JSON.stringify({ error: `Unknown thread document ${uri.toString()}` }, null, 2);
    const project = match[1]!;
    const threadId = decodeURIComponent(match[2]!);
    const row = (project === this.model.project ? this.model.findRow(threadId) : undefined) ?? this.opened.get(`${project}\n${threadId}`);
    if (!row) {
      return JSON.stringify({ error: `Thread ${threadId} of ${project} is not loaded; refresh the Threads view.` }, null, 2);
    }
    const refs = {
      first_turn_ref: row.first_turn_id ? callRef(project, row.first_turn_id) : null,
      last_turn_ref: row.last_turn_id ? callRef(project, row.last_turn_id) : null,
    };
    return JSON.stringify({ project_id: project, ...row, ...refs }, null, 2) + '\n';
  }
}
