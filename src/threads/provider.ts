import * as vscode from 'vscode';
import type { ThreadRow } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import { escapeMarkdown, formatDuration, formatLocalDateTime, formatRelative, plural } from '../common/format';
import { treeNode } from '../ui/treeNodes';
import { describeFilter, describeSort } from './filter';
import { threadDescription } from './rowText';

export { threadDescription } from './rowText';
import type { ThreadsModel } from './model';
import { background } from '../common/background';

export type ThreadNode =
  | { kind: 'thread'; project: string; row: ThreadRow }
  | { kind: 'more'; project: string; loaded: number }
  /** `during`: a refresh (the rows below it are those loaded before) or "Load more". */
  | { kind: 'error'; message: string; during: 'refresh' | 'more'; keptRows: number; error: unknown }
  | { kind: 'empty'; message: string };

/** The threads tree: a view of ThreadsModel. Loading starts when the view asks for its items. */
export class ThreadsTreeProvider extends Disposable implements vscode.TreeDataProvider<ThreadNode> {
  private readonly changed = this._register(new vscode.EventEmitter<ThreadNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private view: vscode.TreeView<ThreadNode> | undefined;
  /**
   * How many root requests of the host are resolving. Refreshing the root while one resolves makes
   * the host resolve it twice: it disposes the commands of the rows it then shows ("Actual command
   * not found" on click) or registers ids twice. The pending answer is given once the model has
   * settled (ThreadsModel.whenSettled), so it reflects every change made while it waited, and
   * those refreshes are dropped.
   */
  private resolving = 0;
  private progressShown = false;

  constructor(
    private readonly model: ThreadsModel,
    private readonly errors: ErrorPresenter,
  ) {
    super();
    this._register(
      model.onDidChange(() => {
        this.updateDescription();
        this.showProgress();
        if (this.resolving === 0) this.changed.fire(undefined);
      }),
    );
  }

  attach(view: vscode.TreeView<ThreadNode>): void {
    this.view = view;
    this.updateDescription();
  }

  async getChildren(element?: ThreadNode): Promise<ThreadNode[]> {
    if (element) return [];
    this.resolving++;
    try {
      // Rows on show are answered at once while a refresh or "Load more" runs: VS Code drops the
      // commands of the rows it asked about, so rows left on screen during a long wait would say
      // "Actual command not found" when clicked. The view is asked again when the load ends.
      // Otherwise the answer waits for the model to settle; the view asks because the user
      // opened it, so its first load may ask questions.
      if (!(this.model.isLoading && this.model.rows.length > 0)) await this.model.whenSettled({ interactive: true });
      const status = this.model.status;
      if (status === 'unconfigured' || status === 'signedOut' || status === 'noProject') return []; // welcome views
      return this.nodes();
    } finally {
      this.resolving--;
    }
  }

  /**
   * The current nodes, without loading anything. After a failed load the rows loaded before stay,
   * under a message row that says what failed and retries when clicked.
   */
  nodes(): ThreadNode[] {
    return this.computeNodes().map(treeNode);
  }

  private computeNodes(): ThreadNode[] {
    const project = this.model.project;
    const rows: ThreadNode[] = this.model.rows.map((row) => ({ kind: 'thread', project, row }));
    const error = this.model.error;
    if (error !== undefined) {
      const message: ThreadNode = { kind: 'error', message: this.errors.describe(error), during: this.model.errorDuring, keptRows: rows.length, error };
      // After a failed "Load more", that row stays at the end to try again; the message is on top either way.
      return [message, ...rows, ...(this.model.errorDuring === 'more' ? [{ kind: 'more' as const, project, loaded: rows.length }] : [])];
    }
    if (rows.length === 0 && !this.model.isLoading) {
      const filter = describeFilter(this.model.filter);
      return [
        {
          kind: 'empty',
          message: filter ? `No threads match the filter (${filter}).` : `No threads in ${project} yet.`,
        },
      ];
    }
    if (this.model.hasMore) rows.push({ kind: 'more', project, loaded: this.model.rows.length });
    return rows;
  }

  getTreeItem(node: ThreadNode): vscode.TreeItem {
    switch (node.kind) {
      case 'thread': {
        const row = node.row;
        const item = new vscode.TreeItem(row.thread_id, vscode.TreeItemCollapsibleState.None);
        item.id = `thread:${node.project}:${row.thread_id}`;
        item.description = threadDescription(row, this.model.sort.field);
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        item.contextValue = 'svc.thread';
        item.accessibilityInformation = { label: `Thread ${row.thread_id}, ${item.description}` };
        item.command = { command: 'svc.threads.openDetails', title: 'Open Thread Details', arguments: [node] };
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(this.model.isLoading ? 'Loading…' : 'Load more…');
        item.id = `threads-more:${node.project}:${node.loaded}`;
        item.description = `${node.loaded} loaded`;
        item.iconPath = new vscode.ThemeIcon(this.model.isLoading ? 'loading~spin' : 'fold-down');
        item.contextValue = 'svc.loadMore';
        item.command = { command: 'svc.threads.loadMore', title: 'Load More' };
        return item;
      }
      case 'error': {
        const step = this.errors.nextStep(node.error);
        const what = node.during === 'more' ? 'Could not load more threads' : node.keptRows ? 'Could not refresh threads' : 'Could not load threads';
        const item = new vscode.TreeItem(what);
        item.id = 'threads-error';
        item.description = node.keptRows ? `${node.message} · showing the ${plural(node.keptRows, 'thread')} loaded before` : node.message;
        const retry = node.during === 'more' ? { command: 'svc.threads.loadMore', title: 'Retry' } : { command: 'svc.threads.refresh', title: 'Retry' };
        // The next step when the error has one (sign in, fix the URL in the settings), else retry.
        item.command = step ? { command: step.command, title: step.title, arguments: step.args !== undefined ? [step.args] : [] } : retry;
        item.tooltip = new vscode.MarkdownString(`${escapeMarkdown(node.message)}\n\nClick to ${(step?.title ?? 'Retry').toLowerCase()}.`);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
        item.contextValue = 'svc.error';
        item.accessibilityInformation = { label: `${what}: ${String(item.description)}` };
        return item;
      }
      case 'empty': {
        const item = new vscode.TreeItem(node.message);
        item.id = 'threads-empty';
        item.iconPath = new vscode.ThemeIcon('info');
        item.contextValue = 'svc.empty';
        return item;
      }
    }
  }

  /** Builds the tooltip only when the user hovers. */
  resolveTreeItem(item: vscode.TreeItem, node: ThreadNode): vscode.TreeItem {
    if (node.kind === 'thread' && item.tooltip === undefined) item.tooltip = threadTooltip(node.row);
    return item;
  }

  getParent(): undefined {
    return undefined;
  }

  /** The view's progress bar while a load runs with rows on show (they stay until it ends). */
  private showProgress(): void {
    if (!this.view || this.progressShown || !this.model.isLoading || this.model.rows.length === 0) return;
    this.progressShown = true;
    background(
      vscode.window.withProgress({ location: { viewId: 'svc.threads' } }, () =>
        this.model.loadMore().finally(() => {
          this.progressShown = false;
          // A newer load may have started meanwhile: show it too.
          this.showProgress();
        }),
      ),
      'Loading threads',
    );
  }

  private updateDescription(): void {
    if (!this.view) return;
    const filter = describeFilter(this.model.filter);
    this.view.description = this.model.project
      ? [filter && `filter: ${filter}`, `by ${describeSort(this.model.sort)}`].filter(Boolean).join(' · ')
      : undefined;
  }
}

/** Every field of the row in an untrusted markdown table; null and -1 read "n/a". */
export function threadTooltip(row: ThreadRow): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  const show = (v: unknown) => (v === null || v === undefined || v === -1 ? 'n/a' : typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean));
  const known: [string, string][] = [
    ['Thread', row.thread_id],
    ['Turns', String(row.turn_count)],
    ['Started', row.start_time ? formatLocalDateTime(row.start_time) : 'n/a'],
    ['Last updated', row.last_updated ? `${formatLocalDateTime(row.last_updated)} (${formatRelative(row.last_updated)})` : 'n/a'],
    ['p50 turn duration', formatDuration(row.p50_turn_duration_ms)],
    ['p99 turn duration', formatDuration(row.p99_turn_duration_ms)],
    ['First turn', show(row.first_turn_id)],
    ['Last turn', show(row.last_turn_id)],
  ];
  const knownKeys = new Set(['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms', 'first_turn_id', 'last_turn_id']);
  for (const [key, value] of Object.entries(row)) {
    if (!knownKeys.has(key)) known.push([key, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  md.appendMarkdown('| | |\n|---|---|\n');
  for (const [k, v] of known) md.appendMarkdown(`| ${escapeMarkdown(k)} | ${escapeMarkdown(v)} |\n`);
  return md;
}
