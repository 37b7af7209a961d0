import * as vscode from 'vscode';
import type { ThreadRow } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorReporter } from '../common/errors';
import { escapeMarkdown, formatDuration, formatRelative } from '../common/format';
import { describeFilter, describeSort } from './filter';
import type { ThreadsModel } from './model';

export type ThreadNode =
  | { kind: 'thread'; project: string; row: ThreadRow }
  | { kind: 'more'; project: string; loaded: number }
  | { kind: 'error'; message: string }
  | { kind: 'empty'; message: string };

/** The threads tree: a view of ThreadsModel. Loading starts when the view asks for its items. */
export class ThreadsTreeProvider extends Disposable implements vscode.TreeDataProvider<ThreadNode> {
  private readonly changed = this._register(new vscode.EventEmitter<ThreadNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private view: vscode.TreeView<ThreadNode> | undefined;
  /**
   * How many root requests of the host are resolving. Refreshing the root while one resolves makes
   * the host resolve it twice: it disposes the commands of the rows it then shows ("Actual command
   * not found" on click) or registers ids twice. The pending answer reflects every change made
   * while it waits (see getChildren), so those refreshes are dropped.
   */
  private resolving = 0;

  constructor(
    private readonly model: ThreadsModel,
    private readonly errors: ErrorReporter,
  ) {
    super();
    this._register(
      model.onDidChange(() => {
        this.updateDescription();
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
      // Wait until the model settles: a reset or a new load while waiting is waited for too, so
      // the answer is the state after every change the view was not refreshed for.
      for (let round = 0; ; round++) {
        const status = this.model.status;
        if (round === 20) {
          // Settings changing faster than loads finish: answer now and ask the host again.
          setTimeout(() => this.changed.fire(undefined), 0);
          return this.nodes();
        }
        if (status === 'unconfigured' || status === 'signedOut' || status === 'noProject') return []; // welcome views
        // The view asks because the user opened it: its first load may ask questions.
        if (status === 'idle') await this.model.ensureLoaded({ interactive: true });
        else if (status === 'loading') await this.model.loadMore();
        else return this.nodes();
      }
    } finally {
      this.resolving--;
    }
  }

  /** The current nodes, without loading anything. */
  nodes(): ThreadNode[] {
    const project = this.model.project;
    if (this.model.error !== undefined) {
      return [{ kind: 'error', message: this.errors.describe(this.model.error) }];
    }
    const nodes: ThreadNode[] = this.model.rows.map((row) => ({ kind: 'thread', project, row }));
    if (nodes.length === 0 && !this.model.isLoading) {
      const filter = describeFilter(this.model.filter);
      return [
        {
          kind: 'empty',
          message: filter ? `No threads match the filter (${filter}).` : `No threads in ${project} yet.`,
        },
      ];
    }
    if (this.model.hasMore) nodes.push({ kind: 'more', project, loaded: this.model.rows.length });
    return nodes;
  }

  getTreeItem(node: ThreadNode): vscode.TreeItem {
    switch (node.kind) {
      case 'thread': {
        const row = node.row;
        const item = new vscode.TreeItem(row.thread_id, vscode.TreeItemCollapsibleState.None);
        item.id = `thread:${node.project}:${row.thread_id}`;
        item.description = threadDescription(row);
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
        const item = new vscode.TreeItem('Could not load threads');
        item.id = 'threads-error';
        item.description = node.message;
        item.tooltip = new vscode.MarkdownString(`${escapeMarkdown(node.message)}\n\nClick to retry.`);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
        item.contextValue = 'svc.error';
        item.command = { command: 'svc.threads.refresh', title: 'Retry' };
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

  private updateDescription(): void {
    if (!this.view) return;
    const filter = describeFilter(this.model.filter);
    this.view.description = this.model.project
      ? [filter && `filter: ${filter}`, `by ${describeSort(this.model.sort)}`].filter(Boolean).join(' · ')
      : undefined;
  }
}

export function threadDescription(row: ThreadRow): string {
  const turns = `${row.turn_count} turn${row.turn_count === 1 ? '' : 's'}`;
  return `${turns} · p50 ${formatDuration(row.p50_turn_duration_ms)} · ${formatRelative(row.last_updated)}`;
}

/** Every field of the row in an untrusted markdown table; null and -1 read "n/a". */
export function threadTooltip(row: ThreadRow): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  const show = (v: unknown) => (v === null || v === undefined || v === -1 ? 'n/a' : String(v));
  const known: [string, string][] = [
    ['Thread', row.thread_id],
    ['Turns', String(row.turn_count)],
    ['Started', show(row.start_time)],
    ['Last updated', `${show(row.last_updated)} (${formatRelative(row.last_updated)})`],
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
