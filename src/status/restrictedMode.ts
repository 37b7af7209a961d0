import type * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import type { Connection } from '../service/connection';

/**
 * Says in the views that Restricted Mode ignores this workspace's service settings: without it the
 * views would look unconfigured (or connected to the user's own service) with no hint why.
 */
export class RestrictedModeNotice extends Disposable {
  constructor(
    private readonly connection: Connection,
    private readonly views: vscode.TreeView<unknown>[],
  ) {
    super();
    this._register(connection.onDidChange((change) => change.config && this.update()));
    this.update();
  }

  /** The message shown at the top of each view, or undefined when nothing is ignored. */
  get message(): string | undefined {
    const ignored = this.connection.config.ignoredWorkspaceSettings;
    if (!ignored.length) return undefined;
    return `Restricted Mode: this workspace's settings ${ignored.join(', ')} are ignored, so no key goes where they point. Trust the workspace to use them.`;
  }

  private update(): void {
    for (const view of this.views) view.message = this.message;
  }
}
