/**
 * What a tool needs from where it runs: the VS Code extension (agents/lmTools.ts, on the
 * Connection and its key approvals) or the MCP server (agents/mcp/host.ts, on the environment and
 * netrc). Pure: no vscode import.
 */
import { AuthenticationError, CancelledError, NotFoundError, SvcError, ValidationError, type ServiceClient } from '../../api';
import type { UploadFinished } from '../../trajectories/report';
import type { SentUploads } from '../../trajectories/sent';

export type Base = 'trace' | 'training';

export interface ToolHost {
  /** The service client, or why there is none, as a sentence with its fix. */
  client(): { client: ServiceClient } | { problem: string };
  /**
   * Undefined when a key may be sent to `base` now, without asking anyone; otherwise why not, with
   * the fix (not signed in, a use of the key not approved). Never opens a prompt.
   */
  keyProblem(base: Base): Promise<string | undefined>;
  /** The origin requests to `base` go to, for confirmations. */
  origin(base: Base): string | undefined;
  /** The project of svc_list_threads when none is given. */
  defaultProject(): string | undefined;
  /** An absolute path for a path a model gave (relative: to the workspace or working directory). */
  resolvePath(file: string): string;
  /**
   * The folders the read tools read files under without asking (core/access.ts): the workspace
   * folders in VS Code, the `--root` folders of the MCP server.
   */
  readRoots(): readonly string[];
  /** A file outside the read roots: confirmed by the user first (VS Code) or refused by name (MCP). */
  readonly outsideRoots: 'confirm' | 'refuse';
  /** The creator name sent with feedback, if any. */
  feedbackCreator(): string | undefined;
  /** What fixes a missing or refused key here, e.g. `run "svc: Sign In"`. */
  readonly signInHint: string;
  /** Told about every failed request (a refused key marks the sign-in failed). */
  reportFailure?(error: unknown): void;
  /** What uploads sent from here (trajectories/sent.ts): the same content again is refused unless allowed. */
  readonly sentUploads?: SentUploads;
  /** Told when an upload that sent or tried to send has finished (VS Code: the API's onDidFinishUpload). */
  uploadFinished?(e: UploadFinished): void;
  /**
   * `text` with every key this host may send (and its Basic header values, its bearer token)
   * replaced by `***`, as the log is redacted: a server may echo a key in an error body, and every
   * tool text passes through here.
   */
  redact(text: string): string;
}

/** The tool's refusal, as text: the model reads it and the user sees it. */
export class ToolProblem extends Error {}

/** The client, once the key for `base` may go out; a ToolProblem otherwise. */
export async function readyClient(host: ToolHost, base: Base): Promise<ServiceClient> {
  const c = host.client();
  if ('problem' in c) throw new ToolProblem(c.problem);
  const problem = await host.keyProblem(base);
  if (problem) throw new ToolProblem(problem);
  return c.client;
}

/** An error as a sentence for the model: what failed, and what fixes it when we know. */
export function describeError(e: unknown, host: ToolHost, what: { model?: string } = {}): string {
  if (e instanceof ToolProblem) return e.message;
  if (e instanceof CancelledError) return 'Cancelled.';
  if (e instanceof NotFoundError && what.model !== undefined) {
    return `Model "${what.model}" was not found on ${host.origin('training') ?? 'the service'} (HTTP 404). Check the model id.`;
  }
  if (e instanceof AuthenticationError) {
    const status = e.status !== undefined ? ` (HTTP ${e.status})` : '';
    return `The service refused the key${status}: ${e.serverMessage ?? e.message}. ${host.signInHint}`;
  }
  if (e instanceof ValidationError && e.issues.length) {
    const issues = e.issues.slice(0, 10).map((i) => `${i.loc.join('.')}: ${i.msg}`);
    return `${e.message}\n${issues.map((i) => `- ${i}`).join('\n')}`;
  }
  if (e instanceof SvcError) return e.message;
  if (e instanceof Error) return `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`;
  return String(e);
}
