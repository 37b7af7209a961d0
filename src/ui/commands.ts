/**
 * Whether a command may open a prompt. A command called with an arguments object is scripted (a
 * test, another extension, a keybinding with args): it never opens a prompt, it does the work or
 * rejects with a readable error. A command run from the palette, a menu or a view may ask.
 *
 * The answer is passed on explicitly, down to the one place that asks "may this key go to that
 * origin?" (Connection.authorize): an implicit context (AsyncLocalStorage) does not survive the
 * extension host's own callbacks (withProgress, RPC), which run in whatever context they were
 * created in.
 */
import * as vscode from 'vscode';
import { InputError } from '../api';
import { background } from '../common/background';
import type { ErrorPresenter } from '../common/errors';
import type { Prompts } from './prompts';
import { isTreeNode } from './treeNodes';

export interface Invocation {
  /** False when the command was called with an arguments object: no prompt may open. */
  readonly interactive: boolean;
}

/**
 * An arguments object: a plain object that is not one of this extension's tree nodes (known by
 * identity, see treeNodes.ts: a script's `{ kind: ... }` is still a script). Uris, arrays, tree
 * nodes and the editor context are what menus and views pass, so they count as a user's action.
 */
export function isArgumentsObject(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !isTreeNode(value) && !isEditorContext(value);
}

/**
 * An argument only a script passes: an arguments object, or a bare string, number or boolean (no
 * menu, view or editor passes those to our commands).
 */
export function isScriptArgument(value: unknown): boolean {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'bigint' || isArgumentsObject(value);
}

/**
 * What VS Code passes editor-title and editor-context commands after the resource:
 * `{ groupId, editorIndex?, preserveFocus? }`. A click on the editor's Upload button, not a script.
 */
function isEditorContext(value: object): boolean {
  const keys = Object.keys(value);
  return typeof (value as { groupId?: unknown }).groupId === 'number' && keys.every((k) => k === 'groupId' || k === 'editorIndex' || k === 'preserveFocus');
}

/** Where a command's failure goes: a user's action gets a notification, a script a readable rejection. */
export type CommandPresenter = Pick<ErrorPresenter, 'show' | 'rejection'>;

export interface RegisterOptions {
  /** Tells a scripted call from a user's action, for a command whose arguments blur the two. */
  scripted?: (args: unknown[]) => boolean;
}

/**
 * How a feature registers its commands: passed in its `activate…(deps)` by the composition root,
 * with the one presenter every failure goes to.
 */
export interface Commands {
  register<A extends unknown[]>(id: string, handler: (how: Invocation, ...args: A) => unknown, options?: RegisterOptions): vscode.Disposable;
}

/**
 * vscode.commands.registerCommand, with the handler told first whether it may prompt (see Invocation). Nothing a
 * handler throws reaches VS Code's generic "Error running command": a user's action gets the
 * presenter's notification (the command then resolves to undefined), a scripted call rejects
 * with the presenter's readable message and opens nothing. Without a presenter (a unit test), the
 * handler's error is the rejection as thrown.
 */
export function commandsPresentedBy(presenter: CommandPresenter | undefined): Commands {
  return {
    register<A extends unknown[]>(id: string, handler: (how: Invocation, ...args: A) => unknown, options: RegisterOptions = {}): vscode.Disposable {
      const scripted = options.scripted ?? ((args: unknown[]) => args.some(isScriptArgument));
      return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        const how: Invocation = { interactive: !scripted(args) };
        try {
          return await handler(how, ...(args as A));
        } catch (e) {
          if (!presenter) throw e;
          if (!how.interactive) throw presenter.rejection(e, id);
          // Not awaited: the notification stays until the user answers; the command is done.
          background(presenter.show(e), `Showing why ${id} failed`);
          return undefined;
        }
      });
    },
  };
}

/**
 * The scripting argument of a command: undefined when VS Code passed a tree node (or nothing);
 * otherwise the value itself, for the command to check.
 */
export function scriptArgs(value: unknown): unknown {
  return value === undefined || value === null || isTreeNode(value) ? undefined : value;
}

/** Files a command may receive: explorer (uri, uris[]), editor title (uri), or scripted lists. */
export function filesFromArgs(clicked: unknown, selected: unknown): vscode.Uri[] {
  const list = Array.isArray(selected) && selected.every((u) => u instanceof vscode.Uri) && selected.length ? selected : clicked;
  const items = Array.isArray(list) ? list : list ? [list] : [];
  return items
    .map((x) => (x instanceof vscode.Uri ? x : typeof x === 'string' ? vscode.Uri.file(x) : undefined))
    .filter((u): u is vscode.Uri => !!u);
}

/**
 * Why files cannot be read, when one is not on this machine's disk (a virtual workspace, an
 * untitled buffer): upload and import stream files from disk with Node, so they take local files
 * only (package.json says so: `capabilities.virtualWorkspaces` is "limited").
 */
export function notOnDisk(files: readonly vscode.Uri[]): string | undefined {
  const other = files.find((u) => u.scheme !== 'file');
  return other ? `${other.toString(true)} is not a file on this machine's disk; only local files can be read (a virtual workspace's files cannot).` : undefined;
}

/** The options object of a scripted call: the last argument that is a plain object. */
export function optionsFromArgs<T extends object>(...args: unknown[]): Partial<T> {
  for (let i = args.length - 1; i >= 0; i--) {
    const arg = args[i];
    if (arg && typeof arg === 'object' && !Array.isArray(arg) && !(arg instanceof vscode.Uri)) return arg as Partial<T>;
  }
  return {};
}

/** What the local-files prelude found: the files and the scripted options. */
export interface LocalFilesCall<T> {
  files: vscode.Uri[];
  options: Partial<T>;
}

/**
 * The prelude Upload and Import share: the files a command acts on, from `{ files }` or the
 * explorer selection, else (a user's action only) an open dialog. A scripted call without files,
 * or any file not on this machine's disk, is refused: an InputError naming `command`, which
 * Commands.register hands to the presenter. `check` refuses scripted options before the dialog
 * opens. Undefined: the user closed the dialog.
 */
export async function localFiles<T extends { files?: (string | vscode.Uri)[] }>(
  command: string,
  how: Invocation,
  args: unknown[],
  prompts: Pick<Prompts, 'showOpenDialog'>,
  dialog: vscode.OpenDialogOptions,
  check?: (options: Partial<T>) => void,
): Promise<LocalFilesCall<T> | undefined> {
  const options = optionsFromArgs<T>(...args);
  let files = options.files ? filesFromArgs(options.files, undefined) : filesFromArgs(args[0], args[1]);
  // A scripted call (an arguments object) never waits on a prompt: it does the work or rejects.
  if (!how.interactive) {
    if (files.length === 0) throw new InputError(`${command}: no files: pass an explorer selection or { files: [...] }.`, { field: 'files' });
    check?.(options);
  }
  if (files.length === 0) {
    const picked = await prompts.showOpenDialog({ canSelectMany: true, ...dialog });
    if (!picked?.length) return undefined;
    files = picked;
  }
  const remote = notOnDisk(files);
  if (remote) throw new InputError(`${command}: ${remote}`, { field: 'files' });
  return { files, options };
}
