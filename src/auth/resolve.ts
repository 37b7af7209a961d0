/**
 * Which key goes to which origin, and which of those uses the user must approve first. Pure (no
 * vscode import) so every combination is tested in plain Node; auth/credentials.ts supplies the
 * stores and auth/approvals.ts asks the questions.
 *
 * For an origin O, in this order:
 * 1. the key stored for O (SecretStorage, or the session copy when SecretStorage failed);
 * 2. SVC_API_KEY / SVC_PASSWORD / SVC_ACCESS_TOKEN: the user put them in the environment for the
 *    origins they configure themselves (user settings, SVC_BASE_URL, SVC_TRAINING_BASE_URL); an origin
 *    a workspace named is approved first (the Connection adds that approval);
 * 3. the netrc entry whose `machine` is O's host, exactly;
 * 4. for the model endpoints on another origin than the trace endpoints: the trace origin's own
 *    key (1 or 3), after the user approved that pair of origins;
 * 5. the netrc `default` entry, after the user approved it for O.
 */
import type { Credentials } from '../api';
import { findNetrcEntry, netrcDefault, type NetrcEntry } from './netrc';

/** Where the credentials in use came from. */
export type CredentialSource = 'secretStorage' | 'session' | 'environment' | 'netrc' | 'netrcDefault';

export interface StoredCredentials {
  username: string;
  password: string;
  accessToken: string;
}

export const DEFAULT_USERNAME = 'api';

/** A use of a key that needs the user's yes first. */
export type KeyApproval =
  /** An origin named by workspace or folder settings (in a trusted workspace). */
  | { kind: 'workspaceUrl'; origin: string; setting: 'svc.baseUrl' | 'svc.trainingBaseUrl'; file: string }
  /** The key kept for `from` sent to `to` (the model endpoints' origin, which has none of its own). */
  | { kind: 'borrowKey'; from: string; to: string }
  /** The netrc `default` entry, which names no host, sent to `origin`. */
  | { kind: 'netrcDefault'; origin: string; file: string };

/** The id under which a decision about `a` is remembered. */
export function approvalId(a: KeyApproval): string {
  switch (a.kind) {
    case 'workspaceUrl':
      return `url ${a.origin}`;
    case 'borrowKey':
      return `borrow ${a.from} ${a.to}`;
    case 'netrcDefault':
      return `netrc-default ${a.origin}`;
  }
}

export interface FoundKey {
  credentials: Credentials;
  source: CredentialSource;
  /** Set when the key is another origin's (step 4). */
  borrowedFrom?: string;
  /** Uses the user must approve before the key is sent (steps 4 and 5). */
  approvals: KeyApproval[];
}

export interface KeySources {
  /** The key stored for exactly this origin, if any. */
  stored(origin: string): Promise<(StoredCredentials & { source: 'secretStorage' | 'session' }) | undefined>;
  env: NodeJS.ProcessEnv;
  /** The netrc entries (read once per lookup) and the file's path, or undefined without a file. */
  netrc(): { entries: NetrcEntry[]; file: string } | undefined;
}

export function hostOf(origin: string): string {
  try {
    return new URL(origin).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return '';
  }
}

export function fromEnvironment(env: NodeJS.ProcessEnv): Credentials | undefined {
  const key = env.SVC_API_KEY?.trim();
  if (key) return { username: DEFAULT_USERNAME, password: key, accessToken: key };
  const password = env.SVC_PASSWORD?.trim();
  const token = env.SVC_ACCESS_TOKEN?.trim();
  if (!password && !token) return undefined;
  return { username: env.SVC_USERNAME?.trim() || DEFAULT_USERNAME, password, accessToken: token || password };
}

/** The netrc login is not the Basic username (the official SDKs write `login user`): "api" is. */
function fromNetrc(entry: NetrcEntry | undefined): Credentials | undefined {
  if (!entry?.password) return undefined;
  return { username: DEFAULT_USERNAME, password: entry.password, accessToken: entry.password };
}

/** The key of `origin` itself (steps 1-3), without borrowing or the netrc default. */
async function ownKey(sources: KeySources, origin: string, netrcFile: () => ReturnType<KeySources['netrc']>): Promise<FoundKey | undefined> {
  const stored = await sources.stored(origin);
  if (stored) {
    const { source, ...credentials } = stored;
    return { credentials, source, approvals: [] };
  }
  const env = fromEnvironment(sources.env);
  if (env) return { credentials: env, source: 'environment', approvals: [] };
  const netrc = netrcFile();
  const exact = netrc && fromNetrc(findNetrcEntry(netrc.entries, hostOf(origin), { exact: true }));
  if (exact) return { credentials: exact, source: 'netrc', approvals: [] };
  return undefined;
}

/**
 * The key for requests to `origin`. `traceOrigin` is the trace endpoints' origin; when `origin` is
 * the model endpoints' and differs from it, the trace origin's key is a candidate (step 4).
 */
export async function findKey(sources: KeySources, origin: string, role: 'trace' | 'training', traceOrigin?: string): Promise<FoundKey | undefined> {
  // The file is read at most once per lookup, and only when no stored or environment key answers.
  let read: { value: ReturnType<KeySources['netrc']> } | undefined;
  const netrc = () => (read ??= { value: sources.netrc() }).value;
  const own = await ownKey(sources, origin, netrc);
  if (own) return own;
  if (role === 'training' && traceOrigin && traceOrigin !== origin) {
    const theirs = await ownKey(sources, traceOrigin, netrc);
    // An environment key would have been found as the origin's own (step 2).
    if (theirs) return { ...theirs, borrowedFrom: traceOrigin, approvals: [{ kind: 'borrowKey', from: traceOrigin, to: origin }] };
  }
  const file = netrc();
  const fallback = file && fromNetrc(netrcDefault(file.entries));
  if (fallback) return { credentials: fallback, source: 'netrcDefault', approvals: [{ kind: 'netrcDefault', origin, file: file.file }] };
  return undefined;
}
