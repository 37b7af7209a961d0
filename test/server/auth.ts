import { createHash } from 'node:crypto';
import { familyError } from './errors';

// Trace endpoints take only HTTP Basic, model endpoints only Bearer (spec section 5). Secrets are
// kept as SHA-256 digests: lookups then compare digests, never the secret itself, and nothing
// here can echo a credential back into a response.

export type AuthScheme = 'basic' | 'bearer' | 'other' | 'none';

export interface ApiKey {
  key: string;
  userId: string;
}
export interface BasicUser {
  username: string;
  password: string;
  userId: string;
}
export interface BearerToken {
  token: string;
  userId: string;
}

/** Username under which an API key is accepted as HTTP Basic (`api:<key>`). */
export const API_KEY_USERNAME = 'api';

const digest = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

export class Credentials {
  private readonly basic = new Map<string, string>();
  private readonly bearer = new Map<string, string>();
  /** The first API key, printed by the CLI so a demo user can paste it. */
  firstApiKey: string | undefined;

  add(c: { apiKeys?: readonly ApiKey[]; basicUsers?: readonly BasicUser[]; bearerTokens?: readonly BearerToken[] }): void {
    for (const { key, userId } of c.apiKeys ?? []) {
      this.firstApiKey ??= key;
      this.addBasic(API_KEY_USERNAME, key, userId);
      this.addBearer(key, userId);
    }
    for (const { username, password, userId } of c.basicUsers ?? []) this.addBasic(username, password, userId);
    for (const { token, userId } of c.bearerTokens ?? []) this.addBearer(token, userId);
  }

  private addBasic(username: string, password: string, userId: string): void {
    if (username.includes(':')) throw new TypeError('a Basic username cannot contain ":"');
    this.basic.set(digest(`${username}:${password}`), userId);
  }

  private addBearer(token: string, userId: string): void {
    if (token === '' || /\s/.test(token)) throw new TypeError('a bearer token must be non-empty without whitespace');
    this.bearer.set(digest(token), userId);
  }

  /** The user id for a trace request, or throws 401 `{reason}`. */
  basicUser(header: string | undefined): string {
    const userId = this.matchBasic(header);
    if (userId !== undefined) return userId;
    throw familyError('trace', 401, unauthorizedMessage(header, 'basic'), { 'www-authenticate': 'Basic realm="svc"' });
  }

  /** The user id for a model request, or throws 401 `{detail}`. */
  bearerUser(header: string | undefined): string {
    const userId = this.matchBearer(header);
    if (userId !== undefined) return userId;
    const challenge = schemeOf(header) === 'bearer' ? 'Bearer error="invalid_token"' : 'Bearer';
    throw familyError('model', 401, unauthorizedMessage(header, 'bearer'), { 'www-authenticate': challenge });
  }

  private matchBasic(header: string | undefined): string | undefined {
    // Exactly one space, then canonical padded base64 (a decoder that skips junk would be lenient).
    const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(header ?? '');
    if (!m || m[1]!.length % 4 !== 0) return undefined;
    const raw = Buffer.from(m[1]!, 'base64');
    if (raw.toString('base64') !== m[1]) return undefined;
    let decoded: string;
    try {
      decoded = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      return undefined;
    }
    if (!decoded.includes(':')) return undefined;
    return this.basic.get(digest(decoded));
  }

  private matchBearer(header: string | undefined): string | undefined {
    const m = /^Bearer (\S+)$/i.exec(header ?? '');
    return m ? this.bearer.get(digest(m[1]!)) : undefined;
  }
}

/** Recorded in stats: which scheme a request used, never its secret. */
export function schemeOf(header: string | undefined): AuthScheme {
  if (header === undefined || header.trim() === '') return 'none';
  const scheme = header.trim().split(/\s+/)[0]!.toLowerCase();
  return scheme === 'basic' ? 'basic' : scheme === 'bearer' ? 'bearer' : 'other';
}

function unauthorizedMessage(header: string | undefined, wanted: 'basic' | 'bearer'): string {
  const scheme = schemeOf(header);
  const name = wanted === 'basic' ? 'HTTP Basic' : 'Bearer';
  if (scheme === 'none') return `Not authenticated: this endpoint requires ${name} authentication`;
  if (scheme !== wanted) return `Wrong authentication scheme: this endpoint requires ${name} authentication`;
  return 'Invalid credentials';
}
