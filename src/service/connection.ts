import * as vscode from 'vscode';
import { AuthenticationError, ConfigurationError, createServiceClient, displayUrl, hostOf, originOf, type Credentials, type ServiceClient, type ServiceClientOptions } from '../api';
import type { KeyApprovals } from '../auth/approvals';
import type { CredentialManager, CredentialSource, FoundKey } from '../auth/credentials';
import type { KeyApproval } from '../auth/resolve';
import { affectsConnection, readConfig, readProxyConfig, type ConfigChange, type SvcConfig, type UrlSetting } from '../common/config';
import { Disposable } from '../common/disposable';
import type { Logger } from '../common/logger';
import { background } from '../common/background';
import type { ContextKeys } from '../ui/prompts';

/** `checking`: a service is configured and its credentials are being read (activation only). */
export type AuthState = 'unconfigured' | 'checking' | 'signedOut' | 'signedIn' | 'authFailed';

export type Base = 'trace' | 'training';

/** What a Connection change event carries. Every event may have changed the auth state. */
export interface ConnectionChange {
  /** The client, the credentials or the project changed: cached data must be dropped. */
  readonly data: boolean;
  /** The svc.* configuration event behind this change, with the values before and after it. */
  readonly config?: ConfigChange;
  /**
   * A request made for the user was refused (401/403) by a sign-in that worked until then. The
   * state is now `authFailed`; `prompt` is false when the caller shows the failure itself (with
   * its own Sign In) or may not prompt. The UI offers to sign in again; the Connection never does.
   */
  readonly authFailed?: { readonly error: AuthenticationError; readonly prompt: boolean };
}

/**
 * The live connection to the service: configuration, credentials state and the one
 * ServiceClient, rebuilt when the base URLs, timeouts or proxy settings change. Views and
 * commands read the client from here and never build their own.
 *
 * Every request asks the Connection for its credentials, and that is where a key is held back
 * until the user approved its use (see auth/resolve.ts and auth/approvals.ts): a URL a workspace
 * set, another origin's key, or the netrc default entry.
 */
export class Connection extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<ConnectionChange>());
  private readonly keysSet = this._register(new vscode.EventEmitter<Readonly<Record<string, boolean>>>());
  /** Fires with the context keys each time they are set (the walkthrough's ticks follow them). */
  readonly onDidSetContextKeys = this.keysSet.event;
  /**
   * The one change event: fires whenever the client, the credentials, the auth state, the key
   * approvals or the svc.* configuration may have changed, and says what did (ConnectionChange).
   */
  readonly onDidChange = this.changed.event;

  private _config: SvcConfig = readConfig();
  private _client: ServiceClient | undefined;
  private clientOptions: ServiceClientOptions | undefined;
  private _clientError: string | undefined;
  private _state: AuthState = 'unconfigured';
  private _source: CredentialSource | undefined;
  private _trainingKey: FoundKey | undefined;
  /** The context keys as last set, for the welcome views (and the tests that check them). */
  // eslint-disable-next-line svc/null-prototype-records -- fixed context key names written here, not data
  readonly contextKeys: Record<string, boolean> = {};

  constructor(
    private readonly credentials: CredentialManager,
    private readonly approvals: KeyApprovals,
    private readonly log: Logger,
    private readonly userAgent: string,
    /** Where the welcome views' keys (svc.signedIn, …) are set. */
    private readonly contextKeyHost: ContextKeys,
  ) {
    super();
    this.rebuild();
    // Until refreshAuth() has read SecretStorage (slow in some hosts), say so: not "not
    // configured", and no sign-in welcome for a user who is signed in.
    this._state = this._client ? 'checking' : 'unconfigured';
    background(this.setContextKeys(), 'Setting the svc context keys');
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('svc') && !affectsConnection(e)) return;
        this.reload(affectsConnection(e));
      }),
    );
    // Trusting the workspace makes its settings count: read them again.
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.reload(true)));
    this._register(credentials.onDidChange(() => background(this.refreshAuth(true), 'Checking the sign-in')));
    // The client of the moment (it is rebuilt as the settings change) closes with the connection.
    this._register({ dispose: () => this._client && background(this._client.close(), 'Closing the client') });
  }

  /**
   * Reads the configuration again (settings, SVC_BASE_URL / SVC_TRAINING_BASE_URL, workspace trust)
   * and rebuilds the client when the connection may have changed.
   */
  reload(connectionMayHaveChanged = true): void {
    const before = this._config;
    this._config = readConfig();
    const urlsMoved = JSON.stringify([before.baseUrlFrom, before.trainingBaseUrlFrom]) !== JSON.stringify([this._config.baseUrlFrom, this._config.trainingBaseUrlFrom]);
    const config = { before, after: this._config };
    if (connectionMayHaveChanged || urlsMoved) {
      // A new origin makes the credentials fire, and that refreshes the auth state; refresh
      // here only when it did not, so one change reads the credentials once.
      const credentialsMoved = this.rebuild();
      this.changed.fire({ data: true, config });
      if (!credentialsMoved) background(this.refreshAuth(true), 'Checking the sign-in');
    } else {
      background(this.setContextKeys(), 'Setting the svc context keys');
      this.changed.fire({ data: before.project !== this._config.project, config });
    }
  }

  get config(): SvcConfig {
    return this._config;
  }
  get state(): AuthState {
    return this._state;
  }
  /** Where the trace endpoints' key comes from. */
  get source(): CredentialSource | undefined {
    return this._source;
  }
  /** The key the model endpoints would use, as last read (approvals not yet asked). */
  get trainingKey(): FoundKey | undefined {
    return this._trainingKey;
  }
  /** Why there is no client (an invalid base URL), if so. */
  get clientError(): string | undefined {
    return this._clientError;
  }

  /** The service client, or undefined when no valid base URL is configured. */
  get client(): ServiceClient | undefined {
    return this._client;
  }

  /**
   * The client for a command that sends to `base`; refused (an AuthenticationError naming `command`
   * and the host, which the presenter offers Sign In for) without one or when signed out.
   */
  signedInClient(command: string, base: Base): ServiceClient {
    if (this._client && this._state !== 'signedOut') return this._client;
    const host = hostOf(base === 'training' ? this._config.trainingBaseUrl || this._config.baseUrl : this._config.baseUrl);
    throw new AuthenticationError(`${command}: not signed in${host ? ` to ${host}` : ''}: run "svc: Sign In" first.`);
  }

  /** The origin of the trace endpoints or of the model endpoints. */
  originOf(base: Base): string | undefined {
    return base === 'trace' ? this.credentials.traceOrigin : this.credentials.trainingOrigin;
  }

  /** Where the URL of `base` came from. */
  urlFrom(base: Base): UrlSetting {
    return base === 'trace' ? this._config.baseUrlFrom : this._config.trainingBaseUrlFrom;
  }

  /** The approval a URL needs because a workspace set it, if it does. */
  private urlApprovals(base: Base): KeyApproval[] {
    const from = this.urlFrom(base);
    const origin = this.originOf(base);
    if (from.source !== 'workspace' || !origin) return [];
    const setting = base === 'training' && this._config.trainingBaseUrl ? 'svc.trainingBaseUrl' : 'svc.baseUrl';
    return [{ kind: 'workspaceUrl', origin, setting, file: from.file ?? 'the workspace settings' }];
  }

  /**
   * The key for requests to `base`, once every approval its use needs is given: asked in a modal
   * with `prompt` (the user's own action: a view opening, a command from the palette), else an
   * ApprovalError. Undefined when there is no key. `reconsider` asks again about uses refused
   * before (sign-in, review).
   */
  async authorize(base: Base, options: { prompt: boolean; reconsider?: boolean }): Promise<FoundKey | undefined> {
    const found = await this.credentials.find(base);
    if (!found) return undefined;
    await this.approvals.require([...this.urlApprovals(base), ...found.approvals], found, options);
    return found;
  }

  /**
   * Before a user's action loads data from `base`: asks what the key's use there still needs, so
   * the requests that follow find it answered. An answer of no shows as their error.
   */
  async prepare(base: Base): Promise<void> {
    await this.authorize(base, { prompt: true }).catch(() => undefined);
    // The status bar says whether the key may go there: an answer may have just been given.
    this.changed.fire({ data: false });
  }

  /** Approves the origin of `base` itself (a workspace-set URL), before the user types a key for it. */
  async approveOrigin(base: Base, options: { prompt: boolean; reconsider?: boolean }): Promise<void> {
    const approvals = this.urlApprovals(base);
    if (approvals.length) await this.approvals.require(approvals, { source: 'secretStorage', typed: true }, options);
  }

  /** Whether the key of `base` (as last read) may be sent: approved, refused, or still to ask. */
  approvalStatus(base: Base): 'approved' | 'refused' | 'ask' {
    const key = base === 'training' ? this._trainingKey : undefined;
    return this.approvals.status([...this.urlApprovals(base), ...(key?.approvals ?? [])]);
  }

  /** Every request asks here: a request on its way never opens a prompt. */
  private async credentialsFor(base: Base, origin: string): Promise<Credentials> {
    const found = await this.authorize(base, { prompt: false });
    // The key is the one for the current origin of `base`: a request of a client built for an
    // earlier URL (still waiting to retry) must not carry it to the old origin.
    if (this.originOf(base) !== origin) throw new ConfigurationError(`The service URL changed while a request to ${origin} waited; it was not sent.`);
    return found?.credentials ?? {};
  }

  /**
   * A client like the connection's (proxy, certificates, timeout), with fixed credentials and one
   * attempt per request: for checking a key before it is stored. The caller closes it.
   */
  probeClient(credentials: Credentials): ServiceClient {
    if (!this.clientOptions) throw new ConfigurationError('Set svc.baseUrl first.');
    return createServiceClient({ ...this.clientOptions, credentials: async () => credentials, retry: { maxAttempts: 1 }, logger: (event) => this.log.request(event) });
  }

  /** Re-reads credentials and updates state and context keys. Makes no network request. */
  async refreshAuth(fire = false): Promise<void> {
    const before = `${this._state}:${this._source}`;
    if (!this._client) {
      this._state = 'unconfigured';
      this._source = undefined;
      this._trainingKey = undefined;
    } else {
      const creds = await this.credentials.find('trace');
      this._trainingKey = await this.credentials.find('training');
      this._source = creds?.source;
      this._state = creds ? 'signedIn' : 'signedOut';
    }
    await this.setContextKeys();
    this.changed.fire({ data: fire || before !== `${this._state}:${this._source}` });
  }

  /**
   * Called with every failure of a request made for the user: a 401/403 marks the state
   * `authFailed` and fires a change that says so (`authFailed`). The Connection shows nothing:
   * the UI (`ErrorPresenter.offerSignInAgain`, wired in extension.ts) offers to sign in again, once per failure of a working sign-in.
   */
  reportFailure(error: unknown, options: { prompt?: boolean } = {}): void {
    if (!(error instanceof AuthenticationError) || this._state !== 'signedIn') return;
    // A request refused before sending (no key for the model endpoints) says nothing about the key.
    if (error.status === undefined) return;
    // Only the state changes: the views keep their error items instead of reloading (and
    // failing again) in a loop. Later failures find the state failed and fire nothing.
    this._state = 'authFailed';
    background(this.setContextKeys(), 'Setting the svc context keys');
    this.changed.fire({ data: false, authFailed: { error, prompt: options.prompt !== false } });
  }

  /**
   * Builds the client for the current configuration; returns whether the credentials' origins
   * changed. The caller fires the change (after this, so listeners see the new client).
   */
  private rebuild(): boolean {
    const old = this._client;
    this._client = undefined;
    this.clientOptions = undefined;
    this._clientError = undefined;
    const cfg = this._config;
    if (cfg.baseUrl) {
      const proxy = readProxyConfig();
      const options: ServiceClientOptions = {
        traceBaseUrl: cfg.baseUrl,
        trainingBaseUrl: cfg.trainingBaseUrl || undefined,
        credentials: (base, origin) => this.credentialsFor(base, origin),
        timeoutMs: cfg.requestTimeoutSeconds * 1000,
        proxy: proxy.url ? { url: proxy.url, noProxy: proxy.noProxy, strictSSL: proxy.strictSSL } : { noProxy: proxy.noProxy, strictSSL: proxy.strictSSL },
        tls: { systemCertificates: proxy.systemCertificates },
        userAgent: this.userAgent,
        logger: (event) => this.log.request(event),
        allowInsecureHttp: cfg.allowInsecureHttp,
      };
      try {
        this._client = createServiceClient(options);
        this.clientOptions = options;
        const where = (from: UrlSetting) => (from.source === 'workspace' ? ` (from ${from.file})` : from.source === 'environment' ? ' (from the environment)' : '');
        this.log.info(
          `Service: ${displayUrl(cfg.baseUrl)}${where(cfg.baseUrlFrom)}${cfg.trainingBaseUrl ? `, models at ${displayUrl(cfg.trainingBaseUrl)}${where(cfg.trainingBaseUrlFrom)}` : ''}${proxy.url ? ' (through http.proxy)' : ''}`,
        );
        const trust = this._client.trustSources;
        if (trust.sources.length) this.log.info(`Trusted certificates beyond Node's: ${trust.sources.join('; ')}`);
        for (const problem of trust.problems) this.log.warn(problem);
      } catch (e) {
        this._clientError = e instanceof Error ? e.message : String(e);
        this.log.error(`svc.baseUrl is not usable: ${this._clientError}`);
      }
    }
    if (cfg.ignoredWorkspaceSettings.length) {
      this.log.info(`Restricted Mode: ignoring ${cfg.ignoredWorkspaceSettings.join(', ')} from this workspace's settings.`);
    }
    if (old) background(old.close(), 'Closing the previous client');
    // After the client (its listeners refresh the auth state, which must see the new client) and
    // before the views reset (their requests must use the new origins' credentials).
    const trace = this._client ? originOf(cfg.baseUrl) : undefined;
    const training = this._client ? originOf(cfg.trainingBaseUrl || cfg.baseUrl) : undefined;
    return this.credentials.setOrigins(trace, training);
  }

  private async setContextKeys(): Promise<void> {
    const cfg = this._config;
    const keys: Record<string, boolean> = {
      'svc.hasBaseUrl': !!this._client,
      'svc.signedIn': this._state === 'signedIn' || this._state === 'authFailed',
      'svc.checkingAuth': this._state === 'checking',
      'svc.hasProject': !!cfg.project,
      'svc.hasModels': cfg.models.length > 0,
      'svc.workspaceSettingsIgnored': cfg.ignoredWorkspaceSettings.length > 0,
    };
    Object.assign(this.contextKeys, keys);
    this.keysSet.fire(this.contextKeys);
    await Promise.all(Object.entries(keys).map(([k, v]) => this.contextKeyHost.set(k, v)));
  }

}
