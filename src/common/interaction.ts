/**
 * Whether the code running now may open a prompt. A command called with an arguments object is
 * scripted (a test, another extension, a keybinding with args): it never opens a prompt, it does
 * the work or rejects with a readable error. A command run from the palette, a menu or a view, and
 * a view loading its rows because the user opened it, may ask.
 *
 * The answer travels with the async call chain (AsyncLocalStorage), so a question that comes up
 * deep inside a request (may this key go to that origin?) knows who started it. Code that runs
 * outside any marked chain (an event handler, a timer) may not prompt.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import * as vscode from 'vscode';

const context = new AsyncLocalStorage<boolean>();

/** Runs `fn` with prompts allowed (`true`) or forbidden (`false`) for everything it starts. */
export function withPrompts<T>(allowed: boolean, fn: () => T): T {
  return context.run(allowed, fn);
}

/** Whether a prompt may be opened now. */
export function mayPrompt(): boolean {
  return context.getStore() === true;
}

/**
 * An arguments object: a plain object that is not a tree node (nodes carry `kind`). Uris, arrays
 * and tree nodes are what menus and views pass, so they count as a user's action.
 */
export function isArgumentsObject(value: unknown): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value) || value instanceof vscode.Uri) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && !('kind' in value);
}

/** registerCommand, with prompts allowed unless an argument is an arguments object. */
export function registerCommand(id: string, handler: (...args: never[]) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(id, (...args: unknown[]) =>
    withPrompts(!args.some(isArgumentsObject), () => (handler as (...a: unknown[]) => unknown)(...args)),
  );
}
