/**
 * The Threads view's flows, for its commands (commands.ts parses arguments and asks, then calls
 * here): the order and the filter, a thread's details and JSON, the threads an import wrote, and
 * the selected project (svc.project and the recent projects).
 */
import * as vscode from 'vscode';
import { InputError, isProjectId, type SortBy, type ThreadRow } from '../api';
import { writeSetting, type SettingsScope } from '../common/config';
import { pushRecent, recent, RECENT_PROJECTS } from '../common/pick';
import type { Connection } from '../service/connection';
import { threadDetailsUri, type ThreadDetailsProvider } from './details';
import type { ThreadDetailsPanel } from './detailsPanel';
import type { ThreadFilter } from './filter';
import type { ThreadsModel } from './model';

export class ThreadsManager {
  constructor(
    readonly model: ThreadsModel,
    private readonly details: ThreadDetailsProvider,
    private readonly panel: ThreadDetailsPanel,
    private readonly connection: Connection,
    /** The recent projects live here. */
    private readonly globalState: vscode.Memento,
  ) {}

  /** Orders the view by `next`; nothing happens when it is the order already. */
  async sortBy(next: SortBy): Promise<void> {
    if (next.field !== this.model.sort.field || next.direction !== this.model.sort.direction) await this.model.setSort(next);
  }

  /** Filters the view (undefined: no filter). */
  filter(filter: ThreadFilter | undefined): Promise<void> {
    return this.model.setFilter(filter);
  }

  /** Shows a thread in the details panel (its Open JSON button opens the row as JSON). */
  showThread(project: string, row: ThreadRow): Promise<void> {
    return this.panel.show(project, row, { openJson: () => this.openJson(project, row) });
  }

  /** Opens a thread's row as a read-only JSON document; returns its URI. */
  async openJson(project: string, row: ThreadRow): Promise<string> {
    this.details.remember(project, row);
    const doc = await vscode.workspace.openTextDocument(threadDetailsUri(project, row.thread_id));
    await vscode.languages.setTextDocumentLanguage(doc, 'json');
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc.uri.toString();
  }

  /**
   * After an import: the Threads view filtered by the threads the file held, and, for one thread,
   * its details. The filter is the view's own (Clear Filter undoes it). Not the selected project:
   * says so, since the view shows only that one.
   */
  async showImported(project: string, threadIds: string[]): Promise<void> {
    const model = this.model;
    if (threadIds.length === 0) return;
    if (project !== model.project) throw new InputError(`The calls went to ${project}, but the Threads view shows ${model.project || 'no project'}: select ${project} to see them.`, { field: 'svc.project' }, { fix: { title: `Switch to ${project}`, command: 'svc.selectProject', args: { projectId: project } } });
    await model.setFilter({ kind: 'ids', threadIds });
    await vscode.commands.executeCommand('svc.threads.focus');
    if (threadIds.length !== 1) return;
    await model.ensureLoaded();
    const row = model.findRow(threadIds[0]!);
    if (!row) throw new InputError(`Thread ${threadIds[0]} is not in ${project} yet: refresh the Threads view in a moment.`);
    await this.showThread(project, row);
  }

  /** The projects Select Project offers: the selected one, then the recent ones. */
  knownProjects(): string[] {
    return [...new Set([this.connection.config.project, ...recent(this.globalState, RECENT_PROJECTS)].filter(Boolean))];
  }

  /** The selected project now. */
  get project(): string {
    return this.connection.config.project;
  }

  /**
   * Writes svc.project in `scope` (asked, once the id is known to be one, when a function); the
   * project switched away from is remembered, so the picker offers the way back. Undefined: no
   * scope was chosen.
   */
  async selectProject(projectId: string, scope: SettingsScope | (() => Thenable<SettingsScope | undefined>)): Promise<string | undefined> {
    if (!isProjectId(projectId)) throw new InputError(`svc: "${projectId}" is not a project id of the form <entity>/<project>.`, { field: 'projectId' });
    const previous = this.connection.config.project;
    const where = typeof scope === 'function' ? await scope() : scope;
    if (!where) return undefined;
    await writeSetting('project', projectId, where);
    await pushRecent(this.globalState, RECENT_PROJECTS, projectId, ...(previous ? [previous] : []));
    return projectId;
  }
}
