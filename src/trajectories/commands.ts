/**
 * `svc.uploadTrajectories` (explorer, editor title, palette, or `{ files, modelId, split,
 * maxRequestBytes? }`), `svc.uploadTrajectories.retryRemaining` (`{ uncertain: 'skip' | 'send' }`
 * when scripted) and `svc.uploadTrajectories.cancel`. Thin registrations: the flow is UploadManager's.
 */
import type * as vscode from 'vscode';
import { registerCommand } from '../ui/commands';
import type { UploadManager } from './manager';
import { RetryPlan } from './questions';
import type { RetryArgs } from './report';

export function registerUploadCommands(manager: UploadManager): vscode.Disposable[] {
  return [
    manager,
    registerCommand('svc.uploadTrajectories', (how, target?: unknown, selection?: unknown, options?: unknown) => manager.upload(how, target, selection, options)),
    registerCommand('svc.uploadTrajectories.retryRemaining', (_how, args?: RetryArgs | RetryPlan) =>
      args instanceof RetryPlan ? manager.retryRemaining(undefined, args) : manager.retryRemaining(args),
    ),
    registerCommand('svc.uploadTrajectories.cancel', () => manager.cancel()),
  ];
}
