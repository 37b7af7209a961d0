import * as vscode from 'vscode';
import { AuthenticationError, createServiceClient, type ServiceClient } from '../api';
import type { CredentialManager, CredentialSource } from '../auth/credentials';
import { affectsConnection, readConfig, readProxyConfig, type ConfigChange, type SvcConfig } from '../common/config';
import { Disposable } from '../common/disposable';
import type { Logger } from '../common/logger';

/** `checking`: a service is configured and its credentials are being read (activation only). */
export type AuthState = 'unconfigured' | 'checking' | 'signedOut' | 'signedIn' | 'authFailed';

/**
 * The live connection to the service: configuration, credentials state and the one
 * ServiceClient, rebuilt when the base URLs, timeouts or proxy settings change. Views and
 * commands read the client from here and never build their own.
 */
export class Connection extends Disposable {
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires when the client, the credentials or the project changed: caches must be dropped. */
  readonly onDidChange = this.changed.event;
  private readonly stateChanged = this._register(new vscode.EventEmitter<void>());
  /** Fires when the auth state changed without invalidating data (e.g. a 401 was seen). */
  readonly onDidChangeState = this.stateChanged.event;
  private readonly configChanged = this._register(new vscode.EventEmitter<ConfigChange>());
  /** Fires after every svc.* configuration event with the values before and after it. */
  readonly onDidChangeConfig = this.configChanged.event;

  private _config: SvcConfig = readConfig();
  private _client: ServiceClient | undefined;
  private _clientError: string | undefined;
  private _state: AuthState = 'unconfigured';
  private _source: CredentialSource | undefined;
  /** The context keys as last set, for the welcome views (and the tests that check them). */
  readonly contextKeys: Record<string, boolean> = {};

  constructor(
    private readonly credentials: CredentialManager,
    private readonly log: Logger,
    private readonly userAgent: string,
  ) {
    super();
    this.rebuild();
    // Until refreshAuth() has read SecretStorage (slow in some hosts), say so: not "not
    // configured", and no sign-in welcome for a user who is signed in.
    this._state = this._client ? 'checking' : 'unconfigured';
    void this.setContextKeys();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('svc') && !affectsConnection(e)) return;
        const before = this._config;
        this._config = readConfig();
        if (affectsConnection(e)) {
          // A new origin makes the credentials fire, and that refreshes the auth state; refresh
          // here only when it did not, so one change reads the credentials once.
          if (!this.rebuild()) void this.refreshAuth(true);
        } else {
          void this.setContextKeys();
          if (before.project !== this._config.project) this.changed.fire();
          this.stateChanged.fire();
        }
        this.configChanged.fire({ before, after: this._config });
      }),
    );
    this._register(credentials.onDidChange(() => void this.refreshAuth(true)));
  }

  get config(): SvcConfig {
    return this._config;
  }
  get state(): AuthState {
    return this._state;
  }
  get source(): CredentialSource | undefined {
    return this._source;
  }
  /** Why there is no client (an invalid base URL), if so. */
  get clientError(): string | undefined {
    return this._clientError;
  }

  /** The service client, or undefined when no valid base URL is configured. */
  get client(): ServiceClient | undefined {
    return this._client;
  }

  /** Re-reads credentials and updates state and context keys. Makes no network request. */
  async refreshAuth(fire = false): Promise<void> {
    const before = `${this._state}:${this._source}`;
    if (!this._client) {
      this._state = 'unconfigured';
      this._source = undefined;
    } else {
      const creds = await this.credentials.resolve();
      this._source = creds?.source;
      this._state = creds ? 'signedIn' : 'signedOut';
    }
    await this.setContextKeys();
    if (fire || before !== `${this._state}:${this._source}`) this.changed.fire();
    this.stateChanged.fire();
  }

  /**
   * Called with every failure of a request made for the user: a 401/403 marks the state and
   * offers to sign in again (once per failure of a working sign-in; never with `prompt: false`).
   */
  reportFailure(error: unknown, options: { prompt?: boolean } = {}): void {
    if (!(error instanceof AuthenticationError) || this._state !== 'signedIn') return;
    // Only the state changes: the views keep their error items instead of reloading (and
    // failing again) in a loop.
    this._state = 'authFailed';
    void this.setContextKeys();
    this.stateChanged.fire();
    // A command that shows the failure itself (with its own "Sign In") asks for no second prompt.
    // One prompt per signed-in → failed transition: later failures find the state failed and ask
    // nothing. (No "prompt open" flag: a notification that went unanswered into the notification
    // center never settles, and must not silence the prompt after the next sign-in.)
    if (options.prompt === false) return;
    void vscode.window
      .showErrorMessage(`svc: ${this.log.redact(error.message)}`, 'Sign In Again')
      .then((choice) => (choice ? vscode.commands.executeCommand('svc.signIn') : undefined));
  }

  /** Builds the client for the current configuration; returns whether the credentials' origin changed. */
  private rebuild(): boolean {
    const old = this._client;
    this._client = undefined;
    this._clientError = undefined;
    const cfg = this._config;
    if (cfg.baseUrl) {
      const proxy = readProxyConfig();
      try {
        this._client = createServiceClient({
          traceBaseUrl: cfg.baseUrl,
          trainingBaseUrl: cfg.trainingBaseUrl || undefined,
          credentials: async () => (await this.credentials.resolve()) ?? {},
          timeoutMs: cfg.requestTimeoutSeconds * 1000,
          proxy: proxy.url ? { url: proxy.url, noProxy: proxy.noProxy, strictSSL: proxy.strictSSL } : { noProxy: proxy.noProxy, strictSSL: proxy.strictSSL },
          userAgent: this.userAgent,
          logger: (event) => this.log.request(event),
          allowInsecureHttp: cfg.allowInsecureHttp,
        });
        this.log.info(`Service: ${cfg.baseUrl}${cfg.trainingBaseUrl ? `, models at ${cfg.trainingBaseUrl}` : ''}${proxy.url ? ' (through http.proxy)' : ''}`);
      } catch (e) {
        this._clientError = e instanceof Error ? e.message : String(e);
        this.log.error(`svc.baseUrl is not usable: ${this._clientError}`);
      }
    }
    if (old) void old.close();
    // After the client (its listeners refresh the auth state, which must see the new client) and
    // before the views reset (their requests must use the new origin's credentials).
    const credentialsMoved = this.credentials.setBaseUrls(cfg.baseUrl || undefined, cfg.trainingBaseUrl || undefined);
    this.changed.fire();
    return credentialsMoved;
  }

  private async setContextKeys(): Promise<void> {
    const cfg = this._config;
    const keys: Record<string, boolean> = {
      'svc.hasBaseUrl': !!this._client,
      'svc.signedIn': this._state === 'signedIn' || this._state === 'authFailed',
      'svc.checkingAuth': this._state === 'checking',
      'svc.hasProject': !!cfg.project,
      'svc.hasModels': cfg.models.length > 0,
    };
    Object.assign(this.contextKeys, keys);
    await Promise.all(Object.entries(keys).map(([k, v]) => vscode.commands.executeCommand('setContext', k, v)));
  }

  override dispose(): void {
    void this._client?.close();
    super.dispose();
  }
}
