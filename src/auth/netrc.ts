/** A `.netrc` reader (the format curl and the official SDKs read). Pure: no vscode import. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface NetrcEntry {
  machine: string;
  login?: string;
  password?: string;
}

/** Parses netrc text: `machine`, `default`, `login`, `password`, `account`, `macdef` tokens. */
export function parseNetrc(text: string): NetrcEntry[] {
  const tokens: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*#/.test(line)) continue;
    if (/^\s*macdef\b/.test(line)) {
      // A macro runs until the next blank line.
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== '') i++;
      continue;
    }
    for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
      tokens.push(match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]!);
    }
  }
  const entries: NetrcEntry[] = [];
  let current: NetrcEntry | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t === 'machine') {
      current = { machine: tokens[++i] ?? '' };
      entries.push(current);
    } else if (t === 'default') {
      current = { machine: '' };
      entries.push(current);
    } else if (t === 'login' && current) {
      current.login = tokens[++i];
    } else if (t === 'password' && current) {
      current.password = tokens[++i];
    } else if (t === 'account' && current) {
      i++;
    }
  }
  return entries;
}

/** The netrc path: `$NETRC`, else `~/.netrc` (`~/_netrc` on Windows). */
export function netrcPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.NETRC) return env.NETRC;
  return path.join(os.homedir(), process.platform === 'win32' ? '_netrc' : '.netrc');
}

/** The entries of the netrc file, or undefined when there is none. */
export function readNetrc(env: NodeJS.ProcessEnv = process.env): NetrcEntry[] | undefined {
  try {
    return parseNetrc(fs.readFileSync(netrcPath(env), 'utf8'));
  } catch {
    return undefined;
  }
}

/** The entry for `host` among `entries`: the exact machine first, then `default` unless `exact`. */
export function findNetrcEntry(entries: NetrcEntry[], host: string, opts: { exact?: boolean } = {}): NetrcEntry | undefined {
  const wanted = host.toLowerCase();
  const exact = entries.find((e) => e.machine.toLowerCase() === wanted);
  return exact ?? (opts.exact ? undefined : entries.find((e) => e.machine === ''));
}

/** The `default` entry, which applies to any host that has none of its own. */
export function netrcDefault(entries: NetrcEntry[]): NetrcEntry | undefined {
  return entries.find((e) => e.machine === '');
}
