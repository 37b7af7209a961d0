/**
 * Opens deep links (link.ts): a thread's details, a model's dashboard (revealed in the Checkpoints
 * view), a checkpoint selected in its dashboard. A link is someone else's text, so it only reads:
 * it never changes a setting, a URL or a key, and it asks first (a modal naming what it opens and
 * where) before it opens a project other than the selected one or a model the Checkpoints view
 * does not list. A bad link gets an error that names what is wrong with it.
 */
import * as vscode from 'vscode';
import { ConfigurationError, hostOf, InputError, type ThreadRow } from '../api';
import type { ErrorPresenter } from '../common/errors';
import type { Connection } from '../service/connection';
import { parseLink, type LinkTarget } from './link';

/** What opening a link did: opened it, the user declined the question, or it was refused (shown as an error). */
export type LinkOutcome = 'opened' | 'declined' | 'refused';

export interface LinkHandlerDeps {
  connection: Connection;
  errors: Pick<ErrorPresenter, 'show'>;
  /** Shows a thread's details panel. */
  showThread(project: string, row: ThreadRow): Promise<void>;
  /** The Checkpoints view's models. */
  knownModels(): readonly string[];
  /** Reveals a model the Checkpoints view lists. */
  revealModel(modelId: string): Promise<void>;
  openDashboard(modelId: string): void;
  openDashboardAtStep(modelId: string, step: number): Promise<unknown>;
}

export class LinkHandler {
  constructor(private readonly deps: LinkHandlerDeps) {}

  /** Opens a link; failures are shown (never thrown), and the outcome returned for tests. */
  async handleUri(uri: vscode.Uri): Promise<LinkOutcome> {
    const parsed = parseLink(uri.path, uri.query);
    try {
      if (!parsed.ok) throw new InputError(`This link cannot be opened: ${parsed.reason}. (${describe(uri)})`);
      return await this.open(parsed.target);
    } catch (e) {
      await this.deps.errors.show(e, 'Opening a link');
      return 'refused';
    }
  }

  private async open(target: LinkTarget): Promise<LinkOutcome> {
    const { connection } = this.deps;
    if (!connection.client) throw new ConfigurationError('No svc service is configured: run "svc: Set Service Base URL" first, then open the link again.');
    if (target.kind === 'thread') return this.openThread(target.project, target.threadId);
    const known = this.deps.knownModels().includes(target.modelId);
    if (!known) {
      const host = hostOf(connection.config.trainingBaseUrl || connection.config.baseUrl) || 'the service';
      const what = target.kind === 'model' ? 'the training dashboard' : `step ${target.step} in the training dashboard`;
      const ok = await ask(`Open ${what} of model "${target.modelId}" on ${host}?`, `The link names a model your Checkpoints view does not list. Opening it reads its checkpoints from ${host}; nothing is added to your settings.`, 'Open Dashboard');
      if (!ok) return 'declined';
    }
    // A link is the user's click: the key's use there may be asked about now, as for a command.
    await connection.prepare('training');
    if (known) await this.deps.revealModel(target.modelId);
    if (target.kind === 'model') this.deps.openDashboard(target.modelId);
    else await this.deps.openDashboardAtStep(target.modelId, target.step);
    return 'opened';
  }

  private async openThread(project: string, threadId: string): Promise<LinkOutcome> {
    const { connection } = this.deps;
    const selected = connection.config.project;
    if (project !== selected) {
      const host = hostOf(connection.config.baseUrl) || 'the service';
      const ok = await ask(
        `Open thread "${threadId}" of project "${project}" on ${host}?`,
        `The link names another project than the selected one (${selected ? `"${selected}"` : 'none'}). Opening it reads that thread from ${host}; the Threads view keeps its project.`,
        'Open Thread',
      );
      if (!ok) return 'declined';
    }
    await connection.prepare('trace');
    const client = connection.client;
    if (!client) throw new ConfigurationError('No svc service is configured.');
    let row: ThreadRow | undefined;
    for await (const r of client.threads.query({ project_id: project, filter: { thread_ids: [threadId] }, limit: 1 })) row ??= r;
    if (!row) throw new InputError(`Project "${project}" has no thread "${threadId}" that this key can see.`);
    await this.deps.showThread(project, row);
    return 'opened';
  }
}

/** A modal question; true when the user pressed `button`. */
async function ask(message: string, detail: string, button: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, button)) === button;
}

/** The link as the error names it: path and query, which carry no secret (links hold ids only). */
function describe(uri: vscode.Uri): string {
  const text = `${uri.scheme}://${uri.authority}${uri.path}${uri.query ? `?${uri.query}` : ''}`;
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
