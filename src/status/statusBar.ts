import * as vscode from 'vscode';
import { displayUrl, InputError, isProjectId } from '../api';
import { describeSource } from '../auth/credentials';
import { isSettingsScope, writeSetting, type SettingsScope } from '../common/config';
import { Disposable } from '../common/disposable';
import { escapeMarkdown } from '../common/format';
import { registerCommand, scriptArgs } from '../ui/commands';
import { pickOrType, pickScope, pushRecent, recent, RECENT_PROJECTS } from '../common/pick';
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

export function registerProjectCommand(connection: Connection, globalState: vscode.Memento): vscode.Disposable {
  return registerCommand('svc.selectProject', async (how, arg?: unknown) => {
    // From the Threads view's title menu VS Code passes the focused row: that is a click, not a script.
    const args = scriptArgs(arg) as { projectId?: unknown; scope?: unknown } | undefined;
    if (args !== undefined && typeof args !== 'object') throw new InputError('svc.selectProject takes { projectId: "<entity>/<project>", scope? }.');
    if (args?.projectId !== undefined && typeof args.projectId !== 'string') throw new InputError('svc.selectProject: projectId must be a string such as "acme/chatbot".');
    let projectId = (args?.projectId as string | undefined)?.trim();
    if (args?.scope !== undefined && !isSettingsScope(args.scope)) throw new InputError(`scope must be "user" or "workspace", not ${JSON.stringify(args.scope)}.`);
    if (projectId === undefined) {
      if (args) throw new InputError('svc.selectProject needs { projectId }.');
      const current = connection.config.project;
      const known = [...new Set([current, ...recent(globalState, RECENT_PROJECTS)].filter(Boolean))];
      projectId = await pickOrType('svc: Select a project', '<entity>/<project>', known);
      if (projectId === undefined) return undefined;
    }
    if (!isProjectId(projectId)) throw new InputError(`svc: "${projectId}" is not a project id of the form <entity>/<project>.`, { field: 'projectId' });
    // The project switched away from is remembered too, so the picker offers the way back.
    const previous = connection.config.project;
    const scope = (args?.scope as SettingsScope | undefined) ?? (how.interactive ? await pickScope('project') : 'user');
    if (!scope) return undefined;
    await writeSetting('project', projectId, scope);
    await pushRecent(globalState, RECENT_PROJECTS, projectId, ...(previous ? [previous] : []));
    return projectId;
  });
}
