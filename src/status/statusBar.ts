import * as vscode from 'vscode';
import { displayUrl } from '../api';
import { describeSource } from '../auth/credentials';
import { Disposable } from '../common/disposable';
import { escapeMarkdown } from '../common/format';
import type { Connection } from '../service/connection';

/**
 * `svc: <project>` in the status bar, showing the auth state. A click does what the tooltip says:
 * sign in when signed out or after the service rejected the credentials, else select the project.
 */
export class StatusBar extends Disposable {
  readonly item: vscode.StatusBarItem;

  constructor(private readonly connection: Connection) {
    super();
    this.item = this._register(vscode.window.createStatusBarItem('svc.status', vscode.StatusBarAlignment.Left, 50));
    this.item.name = 'svc';
    this.item.command = 'svc.selectProject';
    this._register(connection.onDidChange(() => this.update()));
    this.update();
    this.item.show();
  }

  update(): void {
    const cfg = this.connection.config;
    const project = cfg.project || 'no project';
    // The origin as the client will use it, escaped: a workspace's URL cannot add markdown here.
    const origin = escapeMarkdown(displayUrl(cfg.baseUrl, { origin: true }) ?? 'an invalid URL');
    const md = new vscode.MarkdownString(undefined, true);
    md.isTrusted = false;
    switch (this.connection.state) {
      case 'unconfigured':
        this.item.text = '$(plug) svc: not configured';
        md.appendMarkdown(this.connection.clientError ? `svc.baseUrl is not usable: ${escapeMarkdown(this.connection.clientError)}` : 'Set svc.baseUrl to connect.');
        break;
      case 'checking':
        this.item.text = `$(sync~spin) svc: ${project}`;
        md.appendMarkdown(`Reading the credentials for ${origin}…`);
        break;
      case 'signedOut':
        this.item.text = `$(account) svc: signed out`;
        md.appendMarkdown(`Signed out of ${origin}.`);
        break;
      case 'authFailed':
        this.item.text = `$(warning) svc: ${project}`;
        md.appendMarkdown(`The service rejected the credentials from ${describeSource(this.connection.source)}. Sign in again.`);
        break;
      case 'signedIn':
        this.item.text = `$(cloud) svc: ${project}`;
        md.appendMarkdown(`Signed in to ${origin} via ${describeSource(this.connection.source)}.`);
        break;
    }
    for (const line of this.details()) md.appendMarkdown(`\n\n${line}`);
    const needsSignIn = this.connection.state === 'signedOut' || this.connection.state === 'authFailed';
    this.item.command = needsSignIn ? 'svc.signIn' : 'svc.selectProject';
    md.appendMarkdown(needsSignIn ? '\n\nClick to sign in.' : '\n\nClick to select the project.');
    this.item.tooltip = md;
    this.item.backgroundColor =
      this.connection.state === 'authFailed' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  /** Where the URLs came from, the model endpoints' key, and what Restricted Mode ignores. */
  private details(): string[] {
    const c = this.connection;
    const lines: string[] = [];
    const cfg = c.config;
    const ANSWER = { approved: 'you allowed sending your key there', refused: 'you refused sending your key there', ask: 'svc asks before sending your key there' };
    if (cfg.baseUrlFrom.source === 'workspace') {
      lines.push(`svc.baseUrl comes from ${escapeMarkdown(cfg.baseUrlFrom.file ?? 'the workspace settings')}: ${ANSWER[c.approvalStatus('trace')]}.`);
    }
    if (cfg.baseUrlFrom.source === 'environment') lines.push('svc.baseUrl comes from SVC_BASE_URL.');
    const training = c.originOf('training');
    if (training && training !== c.originOf('trace')) {
      const key = c.trainingKey;
      const what = key ? `${describeSource(key.source)}${key.borrowedFrom ? `, the key of ${key.borrowedFrom}` : ''}` : 'no key';
      const answer = key && (key.approvals.length || cfg.trainingBaseUrlFrom.source === 'workspace') ? ` (${ANSWER[c.approvalStatus('training')]})` : '';
      lines.push(`Models at ${escapeMarkdown(training)}: ${escapeMarkdown(what)}${answer}.`);
    }
    if (cfg.ignoredWorkspaceSettings.length) {
      lines.push(`Restricted Mode ignores this workspace's ${cfg.ignoredWorkspaceSettings.join(', ')}.`);
    }
    return lines;
  }
}
