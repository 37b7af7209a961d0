/**
 * `svc.uploadTrajectories` (explorer, editor title, palette, or `{ files, modelId, split,
 * maxRequestBytes? }`), `svc.uploadTrajectories.retryRemaining` (`{ uncertain: 'skip' | 'send' }`
 * when scripted) and `svc.uploadTrajectories.cancel`. Thin registrations: the flow is UploadManager's.
 */
import type * as vscode from 'vscode';
import { z } from 'zod';
import { scriptArgs, type Commands } from '../ui/commands';
import { parseArgs } from '../ui/args';
import type { UploadManager } from './manager';
import { RetryPlan } from './questions';

/** A scripted retry: what to do with the lines whose outcome is unknown. */
const RETRY_ARGS = z.object({ uncertain: z.enum(['skip', 'send']).optional() });

export function registerUploadCommands({ commands, manager }: { commands: Commands; manager: UploadManager }): vscode.Disposable[] {
  return [
    manager,
    commands.register('svc.uploadTrajectories', (how, target?: unknown, selection?: unknown, options?: unknown) => manager.upload(how, target, selection, options)),
    commands.register('svc.uploadTrajectories.retryRemaining', (_how, arg?: unknown) => {
      if (arg instanceof RetryPlan) return manager.retryRemaining(undefined, arg);
      const script = scriptArgs(arg);
      return manager.retryRemaining(script === undefined ? undefined : parseArgs('svc.uploadTrajectories.retryRemaining', RETRY_ARGS, script, "{ uncertain?: 'skip' | 'send' }"));
    }),
    commands.register('svc.uploadTrajectories.cancel', () => manager.cancel()),
  ];
}
