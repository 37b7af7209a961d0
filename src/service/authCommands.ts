/** Sign in and out, the service URL, the key approvals: thin commands over the AuthManager (authManager.ts). */
import type * as vscode from 'vscode';
import { z } from 'zod';
import { InputError } from '../api';
import { scriptArgs, type Commands, type Invocation } from '../ui/commands';
import { parseArgs, settingsScope } from '../ui/args';
import type { AuthManager } from './authManager';

/** svc.signIn's arguments object. The values are never echoed in a refusal (keys are secrets). */
const SIGN_IN_ARGS = z.strictObject({
  apiKey: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  accessToken: z.string().optional(),
  target: z.enum(['trace', 'training'], { error: (issue) => `target must be "trace" or "training", not ${JSON.stringify(issue.input)}` }).optional(),
  useForModels: z.boolean().optional(),
});
const SET_BASE_URL_ARGS = z.object({ baseUrl: z.string().optional(), scope: settingsScope.optional() });

const SIGN_IN_USAGE = '{ apiKey } or { username?, password, accessToken? }, with target? and useForModels?';

/** A scripted call whose arguments object is not the first argument: refused, never a prompt. */
function firstArgument(command: string, how: Invocation, script: unknown, usage: string): void {
  if (!how.interactive && script === undefined) throw new InputError(`${command} takes ${usage} as its first argument.`);
}

export interface AuthCommandsDeps {
  commands: Commands;
  manager: AuthManager;
}

/** Sign in and out, the service URL, the key approvals. */
export function registerAuthCommands({ commands, manager }: AuthCommandsDeps): vscode.Disposable[] {
  return [
    commands.register('svc.signIn', (how, arg?: unknown) => {
      const script = scriptArgs(arg);
      firstArgument('svc.signIn', how, script, SIGN_IN_USAGE);
      return manager.signIn(how, script === undefined ? undefined : parseArgs('svc.signIn', SIGN_IN_ARGS, script, SIGN_IN_USAGE));
    }),
    commands.register('svc.signOut', () => manager.signOut()),
    commands.register('svc.setBaseUrl', (how, arg?: unknown) => {
      const script = scriptArgs(arg);
      firstArgument('svc.setBaseUrl', how, script, '{ baseUrl, scope? }');
      return manager.setBaseUrl(script === undefined ? undefined : parseArgs('svc.setBaseUrl', SET_BASE_URL_ARGS, script, '{ baseUrl, scope? }'));
    }),
    commands.register('svc.reviewKeyUse', (how) => manager.reviewKeyUse(how)),
    commands.register('svc.forgetKeyApprovals', () => manager.forgetKeyApprovals()),
  ];
}
