import * as vscode from 'vscode';
import type { Checkpoint } from '../api';
import { Disposable } from '../common/disposable';
import type { ErrorPresenter } from '../common/errors';
import { escapeMarkdown, formatMetric } from '../common/format';
import { refusedByService } from '../common/pick';
import { treeNode } from '../ui/treeNodes';
import { countDescription, metricDescription, metricNames, pickMetric } from './metric';
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
  | { kind: 'error'; modelId: string; message: string; unknownModel?: boolean }
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
  /** The description each model node was last rendered with (see getChildren's `finally`). */
  private readonly shown = new Map<string, string | undefined>();
  /** The metric picked for a model's loaded checkpoints (one pass over their names per page, not per row). */
  private readonly picked = new WeakMap<readonly Checkpoint[], { count: number; setting: string; metric: string | undefined }>();

  constructor(
    private readonly model: CheckpointsModel,
    private readonly errors: ErrorPresenter,
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
      // The user expanded the model: its first load may ask questions. The answer waits until
      // the model has settled, so it holds every change made while it waited.
      await this.model.whenSettled(modelId, { interactive: true });
      return this.childrenOf(modelId);
    } finally {
      const n = this.resolving.get(modelId)! - 1;
      if (n > 0) this.resolving.set(modelId, n);
      else {
        this.resolving.delete(modelId);
        // The refreshes held back above also carried the model's own count: once the host has
        // these children, re-render the model node if its description is out of date.
        if (this.shown.has(modelId) && this.shown.get(modelId) !== this.modelDescription(modelId)) {
          setTimeout(() => !this.resolving.has(modelId) && this.model.models.includes(modelId) && this.changed.fire(this.modelNode(modelId)), 0);
        }
      }
    }
  }

  /** The one node of a model (the host finds elements by identity: reveal and refresh need this one). */
  modelNode(modelId: string): CheckpointNode {
    let node = this.modelNodes.get(modelId);
    if (!node) {
      node = treeNode<CheckpointNode>({ kind: 'model', modelId });
      this.modelNodes.set(modelId, node);
    }
    return node;
  }

  /** The current children of a model node, without loading anything. */
  childrenOf(modelId: string): CheckpointNode[] {
    const s = this.model.state(modelId);
    // Every node handed to VS Code is registered: commands tell them from scripting objects.
    if (s.error !== undefined) return [treeNode({ kind: 'error', modelId, message: this.errors.describe(s.error), unknownModel: refusedByService(s.error) })];
    if (s.loaded && s.items.length === 0) return [treeNode({ kind: 'empty', modelId })];
    const nodes: CheckpointNode[] = s.items.map((checkpoint) => treeNode({ kind: 'checkpoint', modelId, checkpoint }));
    if (s.hasMore) nodes.push(treeNode({ kind: 'more', modelId, loaded: s.items.length }));
    return nodes;
  }

  /** svc.checkpoints.metric, or the first reward-like metric of the model's loaded checkpoints. */
  private metricOf(modelId: string): string | undefined {
    const items = this.model.state(modelId).items;
    const setting = this.model.metric;
    const known = this.picked.get(items);
    if (known && known.count === items.length && known.setting === setting) return known.metric;
    const metric = pickMetric(setting, metricNames(items));
    this.picked.set(items, { count: items.length, setting, metric });
    return metric;
  }

  /** "20+ checkpoints", "no checkpoints yet", or nothing before the first page. */
  private modelDescription(modelId: string): string | undefined {
    const s = this.model.state(modelId);
    return s.loaded ? countDescription(s.items.length, s.hasMore) : undefined;
  }

  getTreeItem(node: CheckpointNode): vscode.TreeItem {
    switch (node.kind) {
      case 'model': {
        const item = new vscode.TreeItem(node.modelId, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `model:${node.modelId}`;
        item.iconPath = new vscode.ThemeIcon('circuit-board');
        item.contextValue = 'svc.model';
        item.description = this.modelDescription(node.modelId);
        this.shown.set(node.modelId, item.description);
        return item;
      }
      case 'checkpoint': {
        const c = node.checkpoint;
        const item = new vscode.TreeItem(`step ${c.step}`);
        item.id = `checkpoint:${node.modelId}:${c.id}`;
        item.description = metricDescription(this.metricOf(node.modelId), c.metrics);
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
        const fix = node.unknownModel ? 'The service refused this model: **Remove Model** (the button on this row) takes it out of the view, or click to retry.' : 'Click to retry.';
        item.tooltip = new vscode.MarkdownString(`${escapeMarkdown(node.message)}\n\n${fix}`);
        item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
        // An unknown model (404) or one these credentials may not see (403): Remove Model inline.
        item.contextValue = node.unknownModel ? 'svc.error.unknownModel' : 'svc.error';
        item.command = { command: 'svc.checkpoints.refreshModel', title: 'Retry', arguments: [this.modelNode(node.modelId)] };
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
