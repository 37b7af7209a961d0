/**
 * The tools' host in the MCP server: the service from SVC_BASE_URL / SVC_TRAINING_BASE_URL, the key
 * from SVC_API_KEY (or SVC_PASSWORD / SVC_ACCESS_TOKEN) or the netrc entry whose `machine` is the
 * host exactly. Nobody can approve anything here, so a key that needs an approval in VS Code (the
 * netrc `default` entry, another origin's key) is never sent. No vscode import.
 */
import * as path from 'node:path';
import { createServiceClient, originOf, serviceUrlProblem, type Credentials, type ServiceClient } from '../../api';
import { netrcPath, readNetrc } from '../../auth/netrc';
import { findKey, fromEnvironment, type FoundKey, type KeySources } from '../../auth/resolve';
import { secretForms } from '../../auth/secrets';
import { redactSecrets } from '../../common/redact';
import { MemoryStore, SentUploads } from '../../trajectories/sent';
import type { Base, ToolHost } from '../core/host';

export interface EnvHostOptions {
  env: NodeJS.ProcessEnv;
  /** Relative paths resolve against this directory. */
  cwd: string;
  /** The folders files are read under (`--root`); default: `cwd`. Anything else is refused by name. */
  roots?: readonly string[];
  userAgent: string;
  /** Told about each request (never headers or bodies). */
  log?: (line: string) => void;
}

const SIGN_IN = 'Set SVC_API_KEY in the environment of the MCP server, or add a "machine <host> login user password <key>" entry to your netrc file.';
/** For the server VS Code starts (SVC_MCP_CLIENT=vscode): the key comes from the extension's sign-in. */
const SIGN_IN_VSCODE = 'In VS Code, run "svc: Sign In" (svc.signIn), then restart this server ("MCP: List Servers", svc, Restart Server).';

export class EnvHost implements ToolHost {
  readonly signInHint: string;
  /** What this server sent, while it runs (no workspace state here). */
  readonly sentUploads = new SentUploads(new MemoryStore());
  private readonly baseUrl: string | undefined;
  private readonly trainingBaseUrl: string | undefined;
  private built: { client: ServiceClient } | { problem: string } | undefined;
  private readonly keys = new Map<Base, Promise<FoundKey | undefined>>();
  /** The text forms of every key this server may send (from the environment, and each key found). */
  private readonly secrets = new Set<string>();

  constructor(private readonly options: EnvHostOptions) {
    this.baseUrl = options.env.SVC_BASE_URL?.trim() || undefined;
    this.trainingBaseUrl = options.env.SVC_TRAINING_BASE_URL?.trim() || undefined;
    this.signInHint = options.env.SVC_MCP_CLIENT === 'vscode' ? SIGN_IN_VSCODE : SIGN_IN;
    for (const s of secretForms(fromEnvironment(options.env))) this.secrets.add(s);
    for (const name of ['SVC_API_KEY', 'SVC_PASSWORD', 'SVC_ACCESS_TOKEN']) {
      const value = options.env[name]?.trim();
      if (value) for (const s of secretForms({ username: options.env.SVC_USERNAME?.trim(), password: value })) this.secrets.add(s);
    }
  }

  redact(text: string): string {
    return redactSecrets(text, [...this.secrets]);
  }

  client(): { client: ServiceClient } | { problem: string } {
    if (this.built) return this.built;
    if (!this.baseUrl) return (this.built = { problem: 'No svc service is configured: set SVC_BASE_URL (and SVC_TRAINING_BASE_URL when the model endpoints are elsewhere) in the environment of the MCP server.' });
    for (const [name, url] of [['SVC_BASE_URL', this.baseUrl], ['SVC_TRAINING_BASE_URL', this.trainingBaseUrl]] as const) {
      const problem = url && serviceUrlProblem(url);
      if (problem) return (this.built = { problem: `${name} is not usable: ${problem.text}` });
    }
    try {
      const client = createServiceClient({
        traceBaseUrl: this.baseUrl,
        trainingBaseUrl: this.trainingBaseUrl,
        credentials: (base) => this.credentials(base),
        userAgent: this.options.userAgent,
        env: this.options.env,
        logger: (e) => this.options.log?.(this.redact(`${e.method} ${e.path} ${e.status ?? ''}${e.error ? ` ${e.error}` : ''} (${Math.round(e.durationMs)} ms)`)),
      });
      return (this.built = { client });
    } catch (e) {
      return (this.built = { problem: `SVC_BASE_URL is not usable: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  origin(base: Base): string | undefined {
    const url = base === 'training' ? (this.trainingBaseUrl ?? this.baseUrl) : this.baseUrl;
    return url ? originOf(url) : undefined;
  }

  private find(base: Base): Promise<FoundKey | undefined> {
    let found = this.keys.get(base);
    if (!found) {
      const env = this.options.env;
      const sources: KeySources = {
        stored: async () => undefined,
        env,
        netrc: () => {
          const entries = readNetrc(env);
          return entries ? { entries, file: netrcPath(env) } : undefined;
        },
      };
      const origin = this.origin(base);
      found = origin ? findKey(sources, origin, base, this.origin('trace')) : Promise.resolve(undefined);
      // A netrc key is redacted from the moment it is found, whether it may be sent or not.
      found = found.then((f) => {
        for (const s of secretForms(f?.credentials)) this.secrets.add(s);
        return f;
      });
      this.keys.set(base, found);
    }
    return found;
  }

  async keyProblem(base: Base): Promise<string | undefined> {
    const origin = this.origin(base);
    const found = await this.find(base);
    if (!found) return `No API key for ${origin ?? 'the service'}. ${this.signInHint}`;
    if (found.approvals.length) {
      const why = found.source === 'netrcDefault' ? 'the "default" entry of your netrc file names no host' : `that key belongs to ${found.borrowedFrom}`;
      return `No key was sent to ${origin}: ${why}, and the MCP server only sends a key given for that host. ${this.signInHint}`;
    }
    return undefined;
  }

  private async credentials(base: Base): Promise<Credentials> {
    const found = await this.find(base);
    return found && !found.approvals.length ? found.credentials : {};
  }

  defaultProject(): string | undefined {
    return this.options.env.SVC_PROJECT?.trim() || undefined;
  }

  resolvePath(file: string): string {
    return path.resolve(this.options.cwd, file);
  }

  readRoots(): string[] {
    return (this.options.roots?.length ? this.options.roots : [this.options.cwd]).map((r) => path.resolve(this.options.cwd, r));
  }

  /** Nobody can confirm anything here: a file outside the roots is refused by name. */
  readonly outsideRoots = 'refuse';

  feedbackCreator(): string | undefined {
    return this.options.env.SVC_FEEDBACK_CREATOR?.trim() || undefined;
  }

  async close(): Promise<void> {
    if (this.built && 'client' in this.built) await this.built.client.close();
  }
}
