import * as vscode from 'vscode';
import type { Checkpoint } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorReporter } from '../common/errors';
import { escapeMarkdown, formatMetric } from '../common/format';
import type { CheckpointsModel } from './model';

/** The best checkpoint of each model, as the training dashboard found it (star in the tree). */
export interface BestCheckpoints {
  best(modelId: string): { checkpointId: string; metric: string; direction: 'max' | 'min'; value: number } | undefined;
  readonly onDidChangeBest: vscode.Event<string>;
}

export type CheckpointNode =
  | { kind: 'model'; modelId: string }
  | { kind: 'checkpoint'; modelId: string; checkpoint: Checkpoint }
  | { kind: 'more'; modelId: string; loaded: number }
  | { kind: 'error'; modelId: string; message: string }
  | { kind: 'empty'; modelId: string };

/** The checkpoints tree: models at the top, their checkpoints below, with "Load more". */
export class CheckpointsTreeProvider extends Disposable implements vscode.TreeDataProvider<CheckpointNode> {
  private readonly changed = this._register(new vscode.EventEmitter<CheckpointNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  private view: vscode.TreeView<CheckpointNode> | undefined;
  /** The host finds elements by identity: a refresh must fire the very object it was given. */
  private readonly modelNodes = new Map<string, CheckpointNode>();
  /**
   * Models whose children the host is asking for right now. Refreshing such a node while its
   * children resolve makes the host resolve them twice and register every checkpoint id twice
   * ("Element with id ... is already registered"); the pending answer has the new state anyway.
   */
  private readonly resolving = new Map<string, number>();

  constructor(
    private readonly model: CheckpointsModel,
    private readonly errors: ErrorReporter,
    private readonly bests?: BestCheckpoints,
  ) {
    super();
    const refresh = (modelId: string | undefined) => {
      this.updateDescription();
      if (modelId && this.resolving.has(modelId)) return;
      const node = modelId ? this.modelNodes.get(modelId) : undefined;
      this.changed.fire(node && this.model.models.includes(modelId!) ? node : undefined);
    };
    this._register(model.onDidChange(refresh));
    if (bests) this._register(bests.onDidChangeBest((modelId) => this.model.state(modelId).loaded && refresh(modelId)));
  }

  attach(view: vscode.TreeView<CheckpointNode>): void {
    this.view = view;
    this.updateDescription();
  }

  async getChildren(element?: CheckpointNode): Promise<CheckpointNode[]> {
    if (!element) {
      if (!this.model.ready) return []; // welcome views
      return this.model.models.map((modelId) => this.modelNode(modelId));
    }
    if (element.kind !== 'model') return [];
    const { modelId } = element;
    this.resolving.set(modelId, (this.resolving.get(modelId) ?? 0) + 1);
    try {
      // The user expanded the model: its first load may ask questions.
      await this.model.ensureLoaded(modelId, { interactive: true });
      const s = this.model.state(modelId);
      if (s.loading) await s.loading;
      return this.childrenOf(modelId);
    } finally {
      const n = this.resolving.get(modelId)! - 1;
      if (n > 0) this.resolving.set(modelId, n);
      else this.resolving.delete(modelId);
    }
  }

  private modelNode(modelId: string): CheckpointNode {
    let node = this.modelNodes.get(modelId);
    if (!node) {
      node = { kind: 'model', modelId };
      this.modelNodes.set(modelId, node);
    }
    return node;
  }

  /** The current children of a model node, without loading anything. */
  childrenOf(modelId: string): CheckpointNode[] {
    const s = this.model.state(modelId);
    if (s.error !== undefined) return [{ kind: 'error', modelId, message: this.errors.describe(s.error) }];
    if (s.loaded && s.items.length === 0) return [{ kind: 'empty', modelId }];
    const nodes: CheckpointNode[] = s.items.map((checkpoint) => ({ kind: 'checkpoint', modelId, checkpoint }));
    if (s.hasMore) nodes.push({ kind: 'more', modelId, loaded: s.items.length });
    return nodes;
  }

  getTreeItem(node: CheckpointNode): vscode.TreeItem {
    switch (node.kind) {
      case 'model': {
        const item = new vscode.TreeItem(node.modelId, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `model:${node.modelId}`;
        item.iconPath = new vscode.ThemeIcon('circuit-board');
        item.contextValue = 'svc.model';
        const s = this.model.state(node.modelId);
        item.description = s.loaded ? `${s.items.length}${s.hasMore ? '+' : ''} checkpoints` : undefined;
        return item;
      }
      case 'checkpoint': {
        const c = node.checkpoint;
        const item = new vscode.TreeItem(`step ${c.step}`);
        item.id = `checkpoint:${node.modelId}:${c.id}`;
        item.description = Object.entries(c.metrics)
          .slice(0, 3)
          .map(([k, v]) => `${k} ${formatMetric(v)}`)
          .join(' · ');
        const best = this.bests?.best(node.modelId);
        if (best?.checkpointId === c.id) {
          item.iconPath = new vscode.ThemeIcon('star-full', new vscode.ThemeColor('charts.yellow'));
          item.accessibilityInformation = { label: `step ${c.step}, best by ${best.metric} (${best.direction})` };
        } else {
          item.iconPath = new vscode.ThemeIcon('debug-breakpoint-log');
        }
        item.contextValue = 'svc.checkpoint';
        item.command = { command: 'svc.dashboard.open', title: 'Open Training Dashboard', arguments: [node] };
        return item;
      }
      case 'more': {
        const loading = !!this.model.state(node.modelId).loading;
        const item = new vscode.TreeItem(loading ? 'Loading…' : 'Load more…');
        item.id = `checkpoints-more:${node.modelId}:${node.loaded}`;
        item.description = `${node.loaded} loaded`;
        item.iconPath = new vscode.ThemeIcon(loading ? 'loading~spin' : 'fold-down');
        item.contextValue = 'svc.loadMore';
        item.command = { command: 'svc.checkpoints.loadMore', title: 'Load More', arguments: [node] };
        return item;
      }
      case 'error': {
        const item = new vscode.TreeItem('Could not load checkpoints');
        item.id = `checkpoints-error:${node.modelId}`;
        item.description = node.message;
        item.tooltip = new vscode.MarkdownString(`${escapeMarkdown(node.message)}\n\nClick to retry.`);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
        item.contextValue = 'svc.error';
        item.command = { command: 'svc.checkpoints.refresh', title: 'Retry', arguments: [{ kind: 'model', modelId: node.modelId }] };
        return item;
      }
      case 'empty': {
        const item = new vscode.TreeItem('No checkpoints yet');
        item.id = `checkpoints-empty:${node.modelId}`;
        item.iconPath = new vscode.ThemeIcon('info');
        return item;
      }
    }
  }

  resolveTreeItem(item: vscode.TreeItem, node: CheckpointNode): vscode.TreeItem {
    if (node.kind === 'checkpoint' && item.tooltip === undefined) {
      const best = this.bests?.best(node.modelId);
      item.tooltip = checkpointTooltip(node.modelId, node.checkpoint, best?.checkpointId === node.checkpoint.id ? best : undefined);
    }
    return item;
  }

  getParent(node: CheckpointNode): CheckpointNode | undefined {
    return node.kind === 'model' ? undefined : this.modelNode(node.modelId);
  }

  private updateDescription(): void {
    if (this.view) this.view.description = this.model.order === 'asc' ? 'oldest first' : 'newest first';
  }
}

export function checkpointTooltip(modelId: string, c: Checkpoint, best?: { metric: string; direction: 'max' | 'min' }): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, false);
  md.isTrusted = false;
  md.supportHtml = false;
  md.appendMarkdown(`**${escapeMarkdown(modelId)}** step ${c.step}\n\n`);
  if (best) md.appendMarkdown(`★ Best checkpoint by ${escapeMarkdown(best.metric)} (${best.direction === 'max' ? 'highest' : 'lowest'})\n\n`);
  md.appendMarkdown(`id: ${escapeMarkdown(c.id)}\n\n`);
  const metrics = Object.entries(c.metrics);
  if (metrics.length) {
    md.appendMarkdown('| metric | value |\n|---|---|\n');
    for (const [k, v] of metrics) md.appendMarkdown(`| ${escapeMarkdown(k)} | ${escapeMarkdown(formatMetric(v))} |\n`);
  } else {
    md.appendMarkdown('No metrics.');
  }
  return md;
}
