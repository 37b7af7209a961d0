/**
 * svc.openInWebUi: opens a thread, a turn or a ref in the service's web UI (svc.webUiUrl). From a
 * thread row, the thread details (thread and turn buttons) and the ref hover. Scripted:
 * `{ threadId, project? }` or `{ ref, threadId? }`; it resolves with the URL it opened and never
 * prompts. Not configured: the error names the setting, and a user gets a button that opens it.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import { InputError, parseRef, type ThreadRow } from '../api';
import { isArgumentsObject, isScriptArgument, type Commands } from '../ui/commands';
import { parseArgs } from '../ui/args';
import { isTreeNode } from '../ui/treeNodes';
import type { Connection } from '../service/connection';
import { buildWebUiUrl, threadValues, WEB_UI_SETTING, type WebUiValues } from './url';

export const OPEN_IN_WEB_UI = 'svc.openInWebUi';

const OPEN_USAGE = 'a thread row, { threadId, project? } or { ref, threadId? }';
/** The scripted forms (and a ref link's `{ ref, via: 'link' }`); any other key is refused by name. */
const OPEN_ARGS = z.strictObject({ ref: z.string().optional(), threadId: z.string().optional(), project: z.string().optional(), via: z.literal('link').optional() });

const OPEN_SETTING = { title: 'Open Setting', command: 'workbench.action.openSettings', args: WEB_UI_SETTING };

/** The ids of a thread row that a URL may hold. */
type ThreadRowIds = Pick<ThreadRow, 'thread_id'> & { last_turn_id?: string | null };

/** What Open in Web UI reads of the Threads view's model (threads/model.ts): the project shown and its loaded rows. */
export interface LoadedThreads {
  readonly project: string;
  findRow(threadId: string): ThreadRow | undefined;
}

export class WebUi {
  /** Opens a URL in the browser; no credential goes with it. Replaced by the in-host tests. */
  open: (url: string) => Thenable<boolean> = (url) => vscode.env.openExternal(vscode.Uri.parse(url, true));

  /** The Threads view's loaded rows (handed over by the threads feature): a row's last turn is found there. */
  private threads: LoadedThreads | undefined;

  constructor(private readonly connection: Connection) {}

  useThreads(threads: LoadedThreads): void {
    this.threads = threads;
  }

  register(commands: Commands): vscode.Disposable[] {
    // A hover's link passes `{ ref, via: 'link' }`: a user's click, so a failure is shown with its fix.
    const fromLink = (a: unknown) => isArgumentsObject(a) && (a as { via?: unknown }).via === 'link';
    return [commands.register(OPEN_IN_WEB_UI, (_how, arg?: unknown) => this.openTarget(arg), { scripted: (args) => !fromLink(args[0]) && args.some(isScriptArgument) })];
  }

  /** The URL for a command argument; throws a readable InputError (with the fix) when it cannot. */
  urlFor(arg: unknown): string {
    return this.built(this.valuesOf(arg));
  }

  async openTarget(arg: unknown): Promise<string> {
    return this.openUrl(this.urlFor(arg));
  }

  /** Opens a thread whose row the caller holds (the thread details' Thread button): its last turn too. */
  async openThread(project: string, row: ThreadRowIds): Promise<string> {
    return this.openUrl(this.built(threadValues(project, row.thread_id, row.last_turn_id)));
  }

  private async openUrl(url: string): Promise<string> {
    await this.open(url);
    return url;
  }

  private built(values: WebUiValues): string {
    const built = buildWebUiUrl(this.connection.config.webUiUrl, values);
    if (!built.ok) throw new InputError(`Open in Web UI: ${built.reason}`, { field: WEB_UI_SETTING }, { fix: OPEN_SETTING });
    return built.url;
  }

  private valuesOf(arg: unknown): WebUiValues {
    // A thread row of the Threads view: a node the tree handed to VS Code (known by identity,
    // src/ui/treeNodes.ts), never a script's object of the same shape.
    if (isTreeNode(arg) && (arg as { kind?: unknown }).kind === 'thread') {
      const node = arg as { project: string; row: ThreadRowIds };
      return threadValues(node.project, node.row.thread_id, node.row.last_turn_id);
    }
    const a = parseArgs(OPEN_IN_WEB_UI, OPEN_ARGS, arg, OPEN_USAGE);
    const threadId = a.threadId?.trim() || undefined;
    if (a.ref !== undefined) {
      const parsed = parseRef(a.ref);
      if (!parsed.ok) throw new InputError(`"${a.ref}" is not a ref: it ${parsed.reason}.`, { field: 'ref' });
      const r = parsed.ref;
      return { entity: r.entity, project: r.project, ...(r.callId ? { callId: r.callId } : {}), ...(threadId ? { threadId } : {}) };
    }
    if (threadId) {
      const project = a.project?.trim() || this.connection.config.project;
      if (!project) throw new InputError(`${OPEN_IN_WEB_UI}: no project: pass { threadId, project } or select a project.`, { field: 'project' });
      const row = project === this.threads?.project ? this.threads.findRow(threadId) : undefined;
      return threadValues(project, threadId, row?.last_turn_id);
    }
    throw new InputError(`${OPEN_IN_WEB_UI}: pass ${OPEN_USAGE}.`);
  }
}
