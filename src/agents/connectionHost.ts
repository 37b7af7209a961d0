/**
 * The tools' host inside VS Code: the Connection's client, and its key approvals asked without a
 * prompt (a tool never opens one). A key goes only where a command run with arguments could send it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ServiceClient } from '../api';
import type { Connection } from '../service/connection';
import type { UploadFinished } from '../trajectories/report';
import type { SentUploads } from '../trajectories/sent';
import { ToolProblem, type Base, type ToolHost } from './core/host';

const SIGN_IN = 'Run the command "svc: Sign In" (svc.signIn) to sign in.';

export class ConnectionHost implements ToolHost {
  readonly signInHint = SIGN_IN;

  /**
   * `redact`: the logger's (every secret the credential manager knows, and their Basic header values).
   * `sentUploads`: the workspace's record of what uploads sent (the Upload command's too).
   */
  constructor(
    private readonly connection: Connection,
    private readonly redactText: (text: string) => string,
    readonly sentUploads?: SentUploads,
  ) {}

  redact(text: string): string {
    return this.redactText(text);
  }

  client(): { client: ServiceClient } | { problem: string } {
    const client = this.connection.client;
    if (client) return { client };
    const why = this.connection.clientError ? `svc.baseUrl is not usable (${this.connection.clientError}).` : 'No svc service is configured.';
    return { problem: `${why} Run the command "svc: Set Service URL" (svc.setBaseUrl).` };
  }

  async keyProblem(base: Base): Promise<string | undefined> {
    try {
      const found = await this.connection.authorize(base, { prompt: false });
      if (!found) return `Not signed in to ${this.origin(base) ?? 'the service'}. ${SIGN_IN}`;
      return undefined;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  origin(base: Base): string | undefined {
    return this.connection.originOf(base);
  }

  defaultProject(): string | undefined {
    return this.connection.config.project || undefined;
  }

  /** Absolute paths as they are; relative ones in the first workspace folder that has them. */
  resolvePath(file: string): string {
    if (path.isAbsolute(file)) return file;
    const folders = vscode.workspace.workspaceFolders ?? [];
    const local = folders.filter((f) => f.uri.scheme === 'file').map((f) => path.join(f.uri.fsPath, file));
    const found = local.find((p) => fs.existsSync(p));
    if (found) return found;
    if (local[0]) return local[0];
    throw new ToolProblem(`"${file}" is a relative path and no folder is open: give an absolute path.`);
  }

  /** The workspace folders on disk: files under them are read without asking, others after a confirmation. */
  readRoots(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  readonly outsideRoots = 'confirm';

  feedbackCreator(): string | undefined {
    return this.connection.config.feedbackCreator || undefined;
  }

  /** Set by the composition root once the public API's events exist. */
  onUploadFinished: ((e: UploadFinished) => void) | undefined;

  uploadFinished(e: UploadFinished): void {
    this.onUploadFinished?.(e);
  }

  reportFailure(error: unknown): void {
    // The sign-in may have stopped working: the status shows it, and no prompt opens for a tool.
    this.connection.reportFailure(error, { prompt: false });
  }
}
