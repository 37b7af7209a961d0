/** Signing in and out, the service URL, the key approvals, the walkthrough's ticks and Show Log. */
import type { KeyApprovals } from '../auth/approvals';
import type { CredentialManager } from '../auth/credentials';
import { background } from '../common/background';
import { registerAuthCommands } from './authCommands';
import { AuthManager } from './authManager';
import { feature, type Feature, type FeatureDeps } from './feature';
import { WalkthroughTicks } from './walkthrough';

export interface ServiceDeps extends Pick<FeatureDeps, 'commands' | 'errors' | 'log' | 'connection' | 'prompts'> {
  credentials: CredentialManager;
  approvals: KeyApprovals;
}

export function activateService({ commands, errors, log, connection, prompts, credentials, approvals }: ServiceDeps): Feature {
  return feature(undefined, [
    new WalkthroughTicks(() => connection.contextKeys, connection.onDidSetContextKeys),
    // A sign-in that stopped working: the user is offered to sign in again.
    connection.onDidChange(({ authFailed }) => authFailed?.prompt && background(errors.offerSignInAgain(authFailed.error), 'Offering to sign in again')),
    ...registerAuthCommands({ commands, manager: new AuthManager(connection, credentials, approvals, prompts) }),
    commands.register('svc.showLog', () => log.channel.show()),
  ]);
}
