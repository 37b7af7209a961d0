/**
 * The text forms of keys that the log must never show, and the keys typed at sign-in that are not
 * stored yet. Pure: no vscode import, unit-tested in plain Node.
 */
import { DEFAULT_USERNAME, type StoredCredentials } from './resolve';

const base64 = (s: string) => Buffer.from(s).toString('base64');

/**
 * A key, its access token (the bearer token), and the Basic header values made of them: with the
 * username, and with "api" (the username the official clients send), so an echo of either header is
 * caught.
 */
export function secretForms(c: Partial<StoredCredentials> | undefined): string[] {
  const out: string[] = [];
  if (c?.password) {
    const user = c.username || DEFAULT_USERNAME;
    out.push(c.password, base64(`${user}:${c.password}`));
    if (user !== DEFAULT_USERNAME) out.push(base64(`${DEFAULT_USERNAME}:${c.password}`));
  }
  if (c?.accessToken) out.push(c.accessToken, base64(`${DEFAULT_USERNAME}:${c.accessToken}`));
  return out;
}

/**
 * Keys typed at sign-in, redacted from the moment they are typed: the sign-in check sends one
 * before it is stored, and a server may echo it in an error body. A rejected key stays here for the
 * session (it was a secret when typed). Bounded: the oldest go first.
 */
export class TypedKeys {
  private readonly keys: Partial<StoredCredentials>[] = [];
  constructor(private readonly max = 32) {}

  add(c: Partial<StoredCredentials>): void {
    this.keys.push({ ...c });
    if (this.keys.length > this.max) this.keys.shift();
  }

  forms(): string[] {
    return this.keys.flatMap(secretForms);
  }
}
