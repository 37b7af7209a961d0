import * as vscode from 'vscode';
import type { Credentials } from '../api';
import { Disposable } from '../common/disposable';
import type { Logger } from '../common/logger';
import { findNetrcEntry, readNetrc } from './netrc';

/** Where the credentials in use came from. */
export type CredentialSource = 'secretStorage' | 'session' | 'environment' | 'netrc';

export interface ResolvedCredentials extends Credentials {
  source: CredentialSource;
}

export interface StoredCredentials {
  username: string;
  password: string;
  accessToken: string;
}

const KEY_PREFIX = 'svc.credentials:';
export const DEFAULT_USERNAME = 'api';

/** A key is any non-empty string without whitespace; shapes vary too much to check more. */
export function checkApiKey(value: string): string | undefined {
  if (!value) return 'The API key is empty.';
  if (/\s/.test(value)) return 'The API key must not contain spaces or line breaks.';
  return undefined;
}

/**
 * Credentials for the service at one base-URL origin, found in this order: SecretStorage, the
 * session-only copy kept when SecretStorage failed, the environment (SVC_API_KEY, or SVC_USERNAME /
 * SVC_PASSWORD / SVC_ACCESS_TOKEN), then the netrc file for the base URL's host.
 */
export class CredentialManager extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires when credentials were stored, removed, or may differ (origin change). */
  readonly onDidChange = this.changed.event;

  private origin: string | undefined;
  private trainingHost: string | undefined;
  private cache: StoredCredentials | null | undefined;
  private readonly session = new Map<string, StoredCredentials>();
  private lastResolved: ResolvedCredentials | undefined;
  /** What this window last wrote to (or read from) SecretStorage for the origin; null = nothing. */
  private lastWritten: string | null | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly log: Logger,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    super();
    this._register(
      secrets.onDidChange(async (e) => {
        if (!this.origin || e.key !== KEY_PREFIX + this.origin) return;
        // Our own writes come back as change events, late: they must not reset the views again.
        // Only a change made elsewhere (another window) counts.
        let raw: string | undefined;
        try {
          raw = await secrets.get(e.key);
        } catch {
          raw = undefined;
        }
        if ((raw ?? null) === this.lastWritten) return;
        this.cache = undefined;
        this.lastWritten = raw ?? null;
        this.changed.fire();
      }),
    );
  }

  /**
   * Points the manager at a base URL (the trace base URL; the training one only for netrc).
   * Returns whether that changed anything (and so fired onDidChange).
   */
  setBaseUrls(baseUrl: string | undefined, trainingBaseUrl?: string): boolean {
    const origin = safeOrigin(baseUrl);
    const trainingHost = safeHost(trainingBaseUrl || baseUrl);
    if (origin === this.origin && trainingHost === this.trainingHost) return false;
    this.origin = origin;
    this.trainingHost = trainingHost;
    this.cache = undefined;
    this.changed.fire();
    return true;
  }

  get currentOrigin(): string | undefined {
    return this.origin;
  }

  /** Every secret the extension may hold right now, for the logger's redaction. */
  knownSecrets(): string[] {
    const out: string[] = [];
    const add = (c?: Partial<StoredCredentials>) => {
      if (c?.password) out.push(c.password);
      if (c?.accessToken) out.push(c.accessToken);
      // The Authorization header's Basic value, in case anything ever echoes it.
      if (c?.password) out.push(Buffer.from(`${c.username || DEFAULT_USERNAME}:${c.password}`).toString('base64'));
    };
    add(this.cache ?? undefined);
    for (const c of this.session.values()) add(c);
    add(this.lastResolved);
    for (const name of ['SVC_API_KEY', 'SVC_PASSWORD', 'SVC_ACCESS_TOKEN']) {
      const value = this.env[name];
      if (value) out.push(value, Buffer.from(`${this.env.SVC_USERNAME || DEFAULT_USERNAME}:${value}`).toString('base64'));
    }
    return out;
  }

  /** Resolves the credentials to use now, or undefined when none are found. */
  async resolve(): Promise<ResolvedCredentials | undefined> {
    const resolved = await this.find();
    this.lastResolved = resolved;
    return resolved;
  }

  private async find(): Promise<ResolvedCredentials | undefined> {
    if (!this.origin) return undefined;
    // A key kept for the session (SecretStorage failed to store it) is newer than a stored one.
    const session = this.session.get(this.origin);
    if (session) return { ...session, source: 'session' };
    const stored = await this.readStored();
    if (stored) return { ...stored, source: 'secretStorage' };
    const fromEnv = this.fromEnvironment();
    if (fromEnv) return fromEnv;
    return this.fromNetrc();
  }

  /** Stores credentials for the current origin. Returns where they ended up. */
  async store(creds: StoredCredentials): Promise<'secretStorage' | 'session'> {
    const origin = this.requireOrigin();
    try {
      const raw = JSON.stringify(creds);
      this.lastWritten = raw;
      await this.secrets.store(KEY_PREFIX + origin, raw);
      this.session.delete(origin);
      this.cache = creds;
      this.changed.fire();
      return 'secretStorage';
    } catch (e) {
      this.session.set(origin, creds);
      this.changed.fire();
      this.log.warn(`SecretStorage could not store the credentials (${this.describe(e)}); keeping them for this session only.`);
      void vscode.window.showWarningMessage(
        'svc: VS Code could not save your API key in the system keyring, so it is kept for this session only. ' +
          'On Linux, install a keyring (gnome-keyring or KWallet) or set "password-store": "gnome-libsecret" ' +
          '(or "kwallet5") in argv.json (command "Preferences: Configure Runtime Arguments"), then restart and sign in again.',
      );
      return 'session';
    }
  }

  /** Removes stored and session credentials for the current origin. */
  async clear(): Promise<void> {
    const origin = this.origin;
    if (!origin) return;
    this.session.delete(origin);
    this.cache = null;
    this.lastWritten = null;
    try {
      await this.secrets.delete(KEY_PREFIX + origin);
    } catch (e) {
      this.log.warn(`SecretStorage could not delete the credentials (${this.describe(e)}).`);
    }
    this.changed.fire();
  }

  private async readStored(): Promise<StoredCredentials | undefined> {
    if (this.cache !== undefined) return this.cache ?? undefined;
    const origin = this.requireOrigin();
    let raw: string | undefined;
    try {
      raw = await this.secrets.get(KEY_PREFIX + origin);
    } catch (e) {
      this.log.warn(`SecretStorage could not be read (${this.describe(e)}); looking for credentials elsewhere.`);
      return undefined;
    }
    this.cache = raw ? parseStored(raw) : null;
    this.lastWritten = raw ?? null;
    return this.cache ?? undefined;
  }

  private fromEnvironment(): ResolvedCredentials | undefined {
    const key = this.env.SVC_API_KEY?.trim();
    if (key) return { username: DEFAULT_USERNAME, password: key, accessToken: key, source: 'environment' };
    const password = this.env.SVC_PASSWORD?.trim();
    const token = this.env.SVC_ACCESS_TOKEN?.trim();
    if (!password && !token) return undefined;
    return {
      username: this.env.SVC_USERNAME?.trim() || DEFAULT_USERNAME,
      password,
      accessToken: token || password,
      source: 'environment',
    };
  }

  private fromNetrc(): ResolvedCredentials | undefined {
    const host = safeHost(this.origin);
    if (!host) return undefined;
    const entries = readNetrc(this.env); // read once for both hosts
    if (!entries) return undefined;
    const entry = findNetrcEntry(entries, host);
    // A `default` entry is for whatever host has none; the key of the trace host is a better
    // guess for the model endpoints than someone's anonymous default.
    const trainingExact = this.trainingHost && this.trainingHost !== host ? findNetrcEntry(entries, this.trainingHost, { exact: true }) : undefined;
    const accessToken = trainingExact?.password ?? entry?.password;
    if (!entry?.password && !accessToken) return undefined;
    // The official SDKs write `login user`: the netrc login is not the Basic username, "api" is.
    return { username: DEFAULT_USERNAME, password: entry?.password, accessToken, source: 'netrc' };
  }

  private requireOrigin(): string {
    if (!this.origin) throw new Error('Set svc.baseUrl before signing in.');
    return this.origin;
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

function safeOrigin(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function safeHost(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
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
    default:
      return 'nowhere (signed out)';
  }
}
