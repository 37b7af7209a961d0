import type * as vscode from 'vscode';
import { Disposable } from '../common/disposable';

/** What the badge reads of the training dashboards (dashboard/manager.ts): the checkpoints their polls found that nobody looked at. */
export interface NewCheckpointCount {
  readonly newCount: number;
  readonly onDidChangeNewCount: vscode.Event<void>;
  /** The user looked at that model's checkpoints (all models': none given). */
  clearNew(modelId?: string): void;
}

/**
 * The Checkpoints view's badge: how many checkpoints the dashboards' polls found that the user
 * has not looked at. Looking means expanding or selecting in that model's part of the tree, or
 * the view becoming visible again.
 */
export class NewCheckpointsBadge extends Disposable {
  constructor(
    private readonly view: vscode.TreeView<{ modelId: string }>,
    private readonly dashboards: NewCheckpointCount,
  ) {
    super();
    this._register(dashboards.onDidChangeNewCount(() => this.update()));
    this._register(view.onDidExpandElement((e) => dashboards.clearNew(e.element.modelId)));
    this._register(view.onDidChangeSelection((e) => e.selection.forEach((n) => dashboards.clearNew(n.modelId))));
    this._register(view.onDidChangeVisibility((e) => e.visible && dashboards.clearNew()));
    this.update();
  }

  private update(): void {
    const n = this.dashboards.newCount;
    this.view.badge = n > 0 ? { value: n, tooltip: `${n} new checkpoint${n === 1 ? '' : 's'}` } : undefined;
  }
}
