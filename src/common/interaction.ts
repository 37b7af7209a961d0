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
 * What VS Code passes editor-title and editor-context commands after the resource:
 * `{ groupId, editorIndex?, preserveFocus? }`. A click on the editor's Upload button, not a script.
 */
function isEditorContext(value: object): boolean {
  const keys = Object.keys(value);
  return typeof (value as { groupId?: unknown }).groupId === 'number' && keys.every((k) => k === 'groupId' || k === 'editorIndex' || k === 'preserveFocus');
}

/** registerCommand, with the handler told first whether it may prompt (see Invocation). */
export function registerCommand<A extends unknown[]>(id: string, handler: (how: Invocation, ...args: A) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(id, (...args: unknown[]) => handler({ interactive: !args.some(isArgumentsObject) }, ...(args as A)));
}
