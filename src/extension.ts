import * as vscode from 'vscode';

export function activate(context: vscode.ExtensionContext): void {
  const log = vscode.window.createOutputChannel('svc', { log: true });
  context.subscriptions.push(log);
  log.info('svc for VS Code activated');
}

export function deactivate(): void {}
