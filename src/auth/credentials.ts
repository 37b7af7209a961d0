import * as vscode from 'vscode';
import { Disposable } from '../common/disposable';
import type { Logger } from '../common/logger';
import { netrcPath, readNetrc } from './netrc';
import { secretForms, TypedKeys } from './secrets';
import { DEFAULT_USERNAME, findKey, type CredentialSource, type FoundKey, type KeySources, type StoredCredentials } from './resolve';

export { DEFAULT_USERNAME, type CredentialSource, type FoundKey, type StoredCredentials } from './resolve';

const KEY_PREFIX = 'svc.credentials:';

/** A key is any non-empty string without whitespace; shapes vary too much to check more. */
export function checkApiKey(value: string): string | undefined {
  if (!value) return 'The API key is empty.';
  if (/\s/.test(value)) return 'The API key must not contain spaces or line breaks.';
  return undefined;
}

/** What a user whose key could be kept for this session only is told (SecretStorage failed). */
export const SESSION_ONLY_HINT =
  'VS Code could not save your API key in the system keyring, so it is kept for this session only. ' +
  'On Linux, install a keyring (gnome-keyring or KWallet) or set "password-store": "gnome-libsecret" ' +
  '(or "kwallet5") in argv.json (command "Preferences: Configure Runtime Arguments"), then restart and sign in again.';

/**
 * The keys the extension can use, per origin: SecretStorage (what Sign In stores, one entry per
 * origin), the session-only copy kept when SecretStorage failed, the environment, and the netrc
 * file. Which key goes where is decided in resolve.ts; this class is the stores and their cache.
 */
export class CredentialManager extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires when credentials were stored or removed for an origin in use, or the origins changed. */
  readonly onDidChange = this.changed.event;

  private trace: string | undefined;
  private training: string | undefined;
  /** SecretStorage contents per origin, as last read or written; null = nothing stored. */
  private readonly cache = new Map<string, StoredCredentials | null>();
  private readonly session = new Map<string, StoredCredentials>();
  /** Keys typed at sign-in, redacted before the check sends them (see secrets.ts). */
  readonly typed = new TypedKeys();
  /** What this window last wrote to (or read from) SecretStorage per origin; null = nothing. */
  private readonly lastWritten = new Map<string, string | null>();
  private lastResolved: StoredCredentials[] = [];

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    super();
    this._register(
      secrets.onDidChange(async (e) => {
        if (!e.key.startsWith(KEY_PREFIX)) return;
        const origin = e.key.slice(KEY_PREFIX.length);
        if (origin !== this.trace && origin !== this.training) {
          this.cache.delete(origin);
          return;
        }
        // Our own writes come back as change events, late: they must not reset the views again.
        // Only a change made elsewhere (another window) counts.
        let raw: string | undefined;
        try {
          raw = await secrets.get(e.key);
        } catch {
          raw = undefined;
        }
        if ((raw ?? null) === this.lastWritten.get(origin)) return;
        this.cache.delete(origin);
        this.lastWritten.set(origin, raw ?? null);
        this.changed.fire();
      }),
    );
  }

  /**
   * Points the manager at the origins in use (trace endpoints, model endpoints). Returns whether
   * that changed anything (and so fired onDidChange).
   */
  setOrigins(traceOrigin: string | undefined, trainingOrigin: string | undefined): boolean {
    if (traceOrigin === this.trace && trainingOrigin === this.training) return false;
    this.trace = traceOrigin;
    this.training = trainingOrigin;
    this.changed.fire();
    return true;
  }

  get traceOrigin(): string | undefined {
    return this.trace;
  }

  get trainingOrigin(): string | undefined {
    return this.training;
  }

  /** Every secret the extension may hold right now, for the logger's redaction. */
  knownSecrets(): string[] {
    const out: string[] = [...this.typed.forms()];
    // With the Authorization header's Basic value, in case anything ever echoes it.
    const add = (c?: Partial<StoredCredentials>) => out.push(...secretForms(c));
    for (const c of this.cache.values()) add(c ?? undefined);
    for (const c of this.session.values()) add(c);
    for (const c of this.lastResolved) add(c);
    for (const name of ['SVC_API_KEY', 'SVC_PASSWORD', 'SVC_ACCESS_TOKEN']) {
      const value = this.env[name];
      if (value) out.push(...secretForms({ username: this.env.SVC_USERNAME, password: value }));
    }
    return out;
  }

  /**
   * The key for the trace or the model endpoints, with the approvals its use needs (none are
   * asked here). Undefined when there is none, or no origin is configured for that role.
   */
  async find(role: 'trace' | 'training'): Promise<FoundKey | undefined> {
    const origin = role === 'trace' ? this.trace : this.training;
    if (!origin) return undefined;
    const found = await findKey(this.sources(), origin, role, this.trace);
    if (found) {
      const { username = DEFAULT_USERNAME, password = '', accessToken = '' } = found.credentials;
      this.lastResolved = [...this.lastResolved.slice(-3), { username, password, accessToken }];
    }
    return found;
  }

  /** The key stored for exactly `origin` (SecretStorage or this session), if any. */
  async stored(origin: string): Promise<(StoredCredentials & { source: 'secretStorage' | 'session' }) | undefined> {
    // A key kept for the session (SecretStorage failed to store it) is newer than a stored one.
    const session = this.session.get(origin);
    if (session) return { ...session, source: 'session' };
    const stored = await this.readStored(origin);
    return stored ? { ...stored, source: 'secretStorage' } : undefined;
  }

  private sources(): KeySources {
    return {
      stored: (origin) => this.stored(origin),
      env: this.env,
      netrc: () => {
        const entries = readNetrc(this.env);
        return entries ? { entries, file: netrcPath(this.env) } : undefined;
      },
    };
  }

  /** Stores credentials for `origin`. Returns where they ended up (`session`: SecretStorage failed; the caller tells the user). */
  async store(origin: string, creds: StoredCredentials): Promise<'secretStorage' | 'session'> {
    try {
      const raw = JSON.stringify(creds);
      this.lastWritten.set(origin, raw);
      await this.secrets.store(KEY_PREFIX + origin, raw);
      this.session.delete(origin);
      this.cache.set(origin, creds);
      this.changed.fire();
      return 'secretStorage';
    } catch (e) {
      this.session.set(origin, creds);
      this.changed.fire();
      // Reported, not shown: the sign-in says so to the user (SESSION_ONLY_HINT).
      this.log.warn(`SecretStorage could not store the credentials (${this.describe(e)}); keeping them for this session only.`);
      return 'session';
    }
  }

  /** Removes stored and session credentials for `origin`. */
  async clear(origin: string): Promise<void> {
    this.session.delete(origin);
    this.cache.set(origin, null);
    this.lastWritten.set(origin, null);
    try {
      await this.secrets.delete(KEY_PREFIX + origin);
    } catch (e) {
      this.log.warn(`SecretStorage could not delete the credentials (${this.describe(e)}).`);
    }
    this.changed.fire();
  }

  private async readStored(origin: string): Promise<StoredCredentials | undefined> {
    const cached = this.cache.get(origin);
    if (cached !== undefined) return cached ?? undefined;
    let raw: string | undefined;
    try {
      raw = await this.secrets.get(KEY_PREFIX + origin);
    } catch (e) {
      this.log.warn(`SecretStorage could not be read (${this.describe(e)}); looking for credentials elsewhere.`);
      return undefined;
    }
    const parsed = raw ? parseStored(raw) : null;
    this.cache.set(origin, parsed);
    this.lastWritten.set(origin, raw ?? null);
    return parsed ?? undefined;
  }

  private describe(e: unknown): string {
    return this.log.redact(e instanceof Error ? e.message : String(e));
  }
}

function parseStored(raw: string): StoredCredentials | null {
  try {
    const v = JSON.parse(raw) as Partial<StoredCredentials>;
    if (typeof v.password === 'string' || typeof v.accessToken === 'string') {
      return { username: v.username || DEFAULT_USERNAME, password: v.password ?? '', accessToken: v.accessToken ?? v.password ?? '' };
    }
  } catch {
    // A corrupt entry counts as none.
  }
  return null;
}

export function describeSource(source: CredentialSource | undefined): string {
  switch (source) {
    case 'secretStorage':
      return 'VS Code SecretStorage';
    case 'session':
      return 'this session only (SecretStorage unavailable)';
    case 'environment':
      return 'environment variables';
    case 'netrc':
      return 'the netrc file';
    case 'netrcDefault':
      return 'the netrc file (its default entry)';
    default:
      return 'nowhere (signed out)';
  }
}
