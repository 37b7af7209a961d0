/**
 * Signing in and out, the service URL and the key approvals: the flows behind svc.signIn,
 * svc.signOut, svc.setBaseUrl, svc.reviewKeyUse and svc.forgetKeyApprovals (authCommands.ts parses
 * the arguments and calls here). Called with arguments, nothing here prompts.
 */
import * as vscode from 'vscode';
import { AuthenticationError, checkKey, ConfigurationError, InputError, serviceUrlProblem, trimSlashes, type Credentials, type KeyCheck } from '../api';
import { writeSetting, type SettingsScope } from '../common/config';
import type { Invocation } from '../ui/commands';
import type { Prompts } from '../ui/prompts';
import { pickScope } from '../common/pick';
import type { Base, Connection } from './connection';
import { ApprovalError, type KeyApprovals } from '../auth/approvals';
import { checkApiKey, DEFAULT_USERNAME, describeSource, SESSION_ONLY_HINT, type CredentialManager, type StoredCredentials } from '../auth/credentials';
import { background } from '../common/background';

/** Arguments accepted by `svc.signIn` so it can be scripted without prompts. */
export interface SignInArgs {
  apiKey?: string;
  username?: string;
  password?: string;
  accessToken?: string;
  /** The origin the key is for: the trace endpoints' (default) or the model endpoints'. */
  target?: Base;
  /**
   * Signing in to the trace endpoints while the model endpoints are on another origin with no key
   * of their own: also use this key there (true) or not (false). Unset: not decided, not sent.
   */
  useForModels?: boolean;
}

export class AuthManager {
  constructor(
    private readonly connection: Connection,
    private readonly credentials: CredentialManager,
    private readonly approvals: KeyApprovals,
    /** The window's messages, picks and input boxes. */
    private readonly prompts: Prompts,
  ) {}

  /**
   * Signs in to the trace endpoints' origin (or the model endpoints', `target: "training"`): checks
   * the key with one request there (and on the model endpoints' origin when the key will go there
   * too), and stores it unless the service rejected it. `args` undefined: everything is asked.
   */
  async signIn(how: Invocation, args?: SignInArgs): Promise<boolean> {
    const { connection, credentials, approvals } = this;
    if (!connection.client) {
      if (args) throw new ConfigurationError('svc: set svc.baseUrl before signing in.');
      if (!(await this.setBaseUrl())) return false;
      if (!connection.client) return false;
    }
    if (args) await connection.approveOrigin(args.target ?? 'trace', { prompt: false });
    const asked = await this.askCredentials(args);
    if (!asked) return false;
    const { creds, target } = asked;
    // Redacted from here on: the check below sends the key before it is stored.
    credentials.typed.add(creds);
    const origin = connection.originOf(target)!;
    const other = connection.originOf('training')!;

    const first = await this.check(creds, target);
    // The advanced form's separate token goes to the model endpoints on the same origin: check it too.
    const sameOriginToken = target === 'trace' && other === origin && creds.accessToken !== creds.password ? await this.check(creds, 'training') : undefined;
    const rejected = [first, sameOriginToken].find((c) => c?.outcome === 'rejected');
    if (rejected) throw new AuthenticationError(`svc: ${origin} ${said(rejected)}. Nothing was stored.`);

    const where = await credentials.store(origin, creds);
    await connection.refreshAuth();
    const session = where === 'session' ? ' for this session only' : '';
    const lines =
      first.outcome === 'accepted'
        ? [`svc: signed in to ${origin}${session}: the service accepted the key.`]
        : [`svc: the key for ${origin} is stored${session}, but not verified yet: ${origin} ${said(first)}. It will be checked on first use.`];

    // The model endpoints on another origin, with no key of their own, may use this one: ask.
    const models = target === 'trace' && other !== origin ? await credentials.find('training') : undefined;
    if (models?.borrowedFrom === origin) {
      if (args?.useForModels !== undefined) await approvals.record([{ kind: 'borrowKey', from: origin, to: other }], args.useForModels);
      try {
        await connection.authorize('training', { prompt: how.interactive, reconsider: how.interactive });
        const second = await this.check({ accessToken: creds.accessToken }, 'training');
        lines.push(`The model endpoints at ${other} ${said(second)}.`);
      } catch (e) {
        if (!(e instanceof ApprovalError)) throw e;
        lines.push(
          e.refused
            ? `The key is not used for the model endpoints at ${other}: sign in there with its own key.`
            : `The model endpoints at ${other} were not checked: using this key there needs your approval ("useForModels").`,
        );
      }
    }
    if (where === 'session') lines.push(SESSION_ONLY_HINT);
    if (first.outcome === 'accepted' && where !== 'session') this.prompts.showInformationMessage(lines.join(' '));
    else this.prompts.showWarningMessage(lines.join(' '));
    return true;
  }

  /** Clears the stored keys of the configured origins; says when other credentials stay in use. */
  async signOut(): Promise<void> {
    const { credentials, connection } = this;
    for (const origin of new Set([connection.originOf('trace'), connection.originOf('training')])) {
      if (origin) await credentials.clear(origin);
    }
    await connection.refreshAuth();
    if (connection.state === 'signedIn') {
      this.prompts.showInformationMessage(`svc: signed out of SecretStorage; credentials from ${describeSource(connection.source)} are still in use.`);
    } else {
      this.prompts.showInformationMessage('svc: signed out.');
    }
  }

  /** Writes svc.baseUrl: `args` (user settings unless `scope`), or asked for (the URL, then the scope). False: cancelled. */
  async setBaseUrl(args?: { baseUrl?: string; scope?: SettingsScope }): Promise<boolean> {
    if (args && args.baseUrl === undefined) throw new InputError('svc: svc.setBaseUrl needs { baseUrl }.', { field: 'baseUrl' });
    const url =
      args?.baseUrl ??
      (await this.prompts.showInputBox({
        title: 'svc: Service base URL',
        prompt: 'The base URL of the svc service (trace endpoints).',
        placeHolder: 'https://svc.example.com',
        ignoreFocusOut: true,
        validateInput: validateUrl,
      }));
    if (url === undefined) return false;
    const problem = validateUrl(url);
    if (problem) throw new InputError(`svc: ${problem}`, { field: 'baseUrl' });
    const scope = args ? (args.scope ?? 'user') : await pickScope('baseUrl', this.prompts);
    if (!scope) return false;
    await writeSetting('baseUrl', trimSlashes(url.trim()), scope);
    return true;
  }

  /** Asks again every question about where the configured origins' keys may go (refused ones too). */
  async reviewKeyUse(how: Invocation): Promise<string[]> {
    const { connection } = this;
    if (!how.interactive) throw new InputError('svc: Review Key Use asks questions; run it from the palette.');
    const lines: string[] = [];
    for (const base of ['trace', 'training'] as const) {
      const origin = connection.originOf(base);
      if (!origin || (base === 'training' && origin === connection.originOf('trace'))) continue;
      try {
        const found = await connection.authorize(base, { prompt: true, reconsider: true });
        lines.push(found ? `${origin}: ${describeSource(found.source)}${found.borrowedFrom ? ` (the key of ${found.borrowedFrom})` : ''}` : `${origin}: no key`);
      } catch (e) {
        if (!(e instanceof ApprovalError)) throw e;
        lines.push(`${origin}: not sent`);
      }
    }
    await connection.refreshAuth(true);
    this.prompts.showInformationMessage(`svc: keys in use: ${lines.join('; ') || 'no service configured'}.`);
    return lines;
  }

  /** Forgets every answer about where the keys may go: each use asks again. */
  async forgetKeyApprovals(): Promise<void> {
    await this.approvals.forget();
    await this.connection.refreshAuth(true);
    this.prompts.showInformationMessage('svc: forgot every answer about where your keys may go; each use asks again.');
  }

  /** The credentials from the arguments, or asked for; undefined when the user cancelled. */
  private async askCredentials(args: SignInArgs | undefined): Promise<{ creds: StoredCredentials; target: Base } | undefined> {
    const { connection } = this;
    if (args) {
      const target = args.target ?? 'trace';
      if (args.apiKey !== undefined) {
        const problem = checkApiKey(args.apiKey);
        if (problem) throw new InputError(problem);
        return { creds: { username: DEFAULT_USERNAME, password: args.apiKey, accessToken: args.apiKey }, target };
      }
      if (args.password === undefined && args.accessToken === undefined) throw new InputError('svc: svc.signIn needs { apiKey } or { username, password, accessToken }.');
      return {
        creds: { username: args.username || DEFAULT_USERNAME, password: args.password ?? '', accessToken: args.accessToken ?? args.password ?? '' },
        target,
      };
    }
    const trace = connection.originOf('trace')!;
    const training = connection.originOf('training')!;
    type Item = vscode.QuickPickItem & { id: 'key' | 'advanced'; target: Base };
    const items: Item[] = [{ label: '$(key) Paste an API key', description: 'recommended', id: 'key', target: 'trace' }];
    if (training !== trace) {
      items.push({ label: '$(key) Paste an API key for the model endpoints', description: training, id: 'key', target: 'training' });
    }
    items.push({ label: '$(settings) Advanced…', description: 'separate username, password and access token', id: 'advanced', target: 'trace' });
    const mode = await this.prompts.showQuickPick(items, { title: `svc: Sign in to ${trace}`, ignoreFocusOut: true });
    if (!mode) return undefined;
    // The origin first: a URL a workspace set is approved before a key is typed for it.
    await connection.approveOrigin(mode.target, { prompt: true, reconsider: true });
    if (mode.id === 'key') {
      const key = await askSecret(this.prompts, 'API key', `Used for ${connection.originOf(mode.target)}: as the Basic password (user "api") and as the Bearer token.`);
      if (key === undefined) return undefined;
      return { creds: { username: DEFAULT_USERNAME, password: key, accessToken: key }, target: mode.target };
    }
    const user = await this.prompts.showInputBox({ title: 'svc: Username (Basic auth)', value: DEFAULT_USERNAME, ignoreFocusOut: true });
    if (user === undefined) return undefined;
    const password = await askSecret(this.prompts, 'Password (Basic auth, trace endpoints)');
    if (password === undefined) return undefined;
    const token = await askSecret(this.prompts, 'Access token (Bearer, model endpoints)', 'Leave empty to use the password.', true);
    if (token === undefined) return undefined;
    return { creds: { username: user.trim() || DEFAULT_USERNAME, password, accessToken: token || password }, target: 'trace' };
  }

  /** One request with `creds` to `base`, through a client like the connection's. */
  private async check(creds: Credentials, base: Base): Promise<KeyCheck> {
    const client = this.connection.probeClient(creds);
    try {
      const cfg = this.connection.config;
      return await checkKey(client, base, { projectId: cfg.project || undefined, modelId: cfg.models[0] });
    } finally {
      background(client.close(), 'Closing the sign-in check client');
    }
  }
}

/** The input box's words for serviceUrlProblem (the check the client makes too). */
function validateUrl(value: string): string | undefined {
  const problem = serviceUrlProblem(value);
  if (!problem) return undefined;
  if (problem.kind === 'scheme') return 'Use an http or https URL.';
  if (problem.kind === 'credentials') return 'Do not put credentials in the URL; sign in instead.';
  return 'Enter a URL such as https://svc.example.com';
}

function said(c: KeyCheck): string {
  switch (c.outcome) {
    case 'accepted':
      return 'accepted the key';
    case 'rejected':
      return `rejected the key (${c.status})`;
    case 'unverified':
      return `could not be reached to check the key (${c.reason})`;
  }
}

async function askSecret(prompts: Pick<Prompts, 'showInputBox'>, what: string, prompt?: string, allowEmpty = false): Promise<string | undefined> {
  const value = await prompts.showInputBox({
    title: `svc: ${what}`,
    prompt,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (allowEmpty && v === '' ? undefined : checkApiKey(v.trim())),
  });
  return value === undefined ? undefined : value.trim();
}
