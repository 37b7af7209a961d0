import * as vscode from 'vscode';
import { updateSetting } from '../common/config';
import type { Connection } from '../service/connection';
import { checkApiKey, DEFAULT_USERNAME, describeSource, type CredentialManager } from './credentials';

/** Arguments accepted by `svc.signIn` so it can be scripted without prompts. */
export interface SignInArgs {
  apiKey?: string;
  username?: string;
  password?: string;
  accessToken?: string;
}

export function registerAuthCommands(creds: CredentialManager, connection: Connection): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('svc.signIn', (args?: SignInArgs) => signIn(creds, connection, args)),
    vscode.commands.registerCommand('svc.signOut', () => signOut(creds, connection)),
    vscode.commands.registerCommand('svc.setBaseUrl', (args?: { baseUrl?: string }) => setBaseUrl(args?.baseUrl)),
  ];
}

async function setBaseUrl(value?: string): Promise<boolean> {
  const url =
    value ??
    (await vscode.window.showInputBox({
      title: 'svc: Service base URL',
      prompt: 'The base URL of the svc service (trace endpoints).',
      placeHolder: 'https://svc.example.com',
      ignoreFocusOut: true,
      validateInput: validateUrl,
    }));
  if (url === undefined) return false;
  const problem = validateUrl(url);
  if (problem) {
    void vscode.window.showErrorMessage(`svc: ${problem}`);
    return false;
  }
  await updateSetting('baseUrl', url.trim().replace(/\/+$/, ''));
  return true;
}

function validateUrl(value: string): string | undefined {
  try {
    const u = new URL(value.trim());
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'Use an http or https URL.';
    if (u.username || u.password) return 'Do not put credentials in the URL; sign in instead.';
    return undefined;
  } catch {
    return 'Enter a URL such as https://svc.example.com';
  }
}

async function signIn(creds: CredentialManager, connection: Connection, args?: SignInArgs): Promise<boolean> {
  if (!connection.client) {
    if (args) {
      void vscode.window.showErrorMessage('svc: set svc.baseUrl before signing in.');
      return false;
    }
    if (!(await setBaseUrl())) return false;
  }
  let username = DEFAULT_USERNAME;
  let password: string | undefined;
  let accessToken: string | undefined;

  if (args && (args.apiKey !== undefined || args.password !== undefined || args.accessToken !== undefined)) {
    if (args.apiKey !== undefined) {
      const problem = checkApiKey(args.apiKey);
      if (problem) throw new Error(problem);
      password = accessToken = args.apiKey;
    } else {
      username = args.username || DEFAULT_USERNAME;
      password = args.password ?? '';
      accessToken = args.accessToken ?? args.password ?? '';
    }
  } else {
    const mode = await vscode.window.showQuickPick(
      [
        { label: '$(key) Paste an API key', description: 'recommended', id: 'key' as const },
        { label: '$(settings) Advanced…', description: 'separate username, password and access token', id: 'advanced' as const },
      ],
      { title: `svc: Sign in to ${creds.currentOrigin}`, ignoreFocusOut: true },
    );
    if (!mode) return false;
    if (mode.id === 'key') {
      const key = await askSecret('API key', 'Used as the Basic password (user "api") and as the Bearer token.');
      if (key === undefined) return false;
      password = accessToken = key;
    } else {
      const user = await vscode.window.showInputBox({ title: 'svc: Username (Basic auth)', value: DEFAULT_USERNAME, ignoreFocusOut: true });
      if (user === undefined) return false;
      username = user.trim() || DEFAULT_USERNAME;
      password = await askSecret('Password (Basic auth, trace endpoints)');
      if (password === undefined) return false;
      const token = await askSecret('Access token (Bearer, model endpoints)', 'Leave empty to use the password.', true);
      if (token === undefined) return false;
      accessToken = token || password;
    }
  }
  const where = await creds.store({ username, password: password ?? '', accessToken: accessToken ?? '' });
  // store() fired the change that resets the views; this only settles the state before returning.
  await connection.refreshAuth();
  void vscode.window.showInformationMessage(
    `svc: signed in to ${creds.currentOrigin}${where === 'session' ? ' for this session only' : ''}.`,
  );
  return true;
}

async function askSecret(what: string, prompt?: string, allowEmpty = false): Promise<string | undefined> {
  const value = await vscode.window.showInputBox({
    title: `svc: ${what}`,
    prompt,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (allowEmpty && v === '' ? undefined : checkApiKey(v.trim())),
  });
  return value === undefined ? undefined : value.trim();
}

async function signOut(creds: CredentialManager, connection: Connection): Promise<void> {
  await creds.clear();
  await connection.refreshAuth();
  if (connection.state === 'signedIn') {
    void vscode.window.showInformationMessage(
      `svc: signed out of SecretStorage; credentials from ${describeSource(connection.source)} are still in use.`,
    );
  } else {
    void vscode.window.showInformationMessage('svc: signed out.');
  }
}
