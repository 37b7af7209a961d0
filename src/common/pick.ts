import * as vscode from 'vscode';
import { AuthenticationError, NotFoundError } from '../api';
import { settingProblem, workspaceSettingsFile, type SettingsScope } from './config';
import { dict, own } from '../api/dict';

/** globalState keys of the recently used model ids and project ids (offered first in pickers). */
export const RECENT_MODELS = 'svc.recentModels';
export const RECENT_PROJECTS = 'svc.recentProjects';
const MAX_RECENT = 20;

export function recent(memento: vscode.Memento, key: string): string[] {
  return memento.get<string[]>(key, []);
}

/** Puts `ids` first in a recent list (in that order, without repeats), keeping at most 20. */
export async function pushRecent(memento: vscode.Memento, key: string, ...ids: string[]): Promise<void> {
  await memento.update(key, [...new Set([...ids, ...recent(memento, key)])].slice(0, MAX_RECENT));
}

/** Drops `id` from a recent list. */
export async function forgetRecent(memento: vscode.Memento, key: string, id: string): Promise<void> {
  const list = recent(memento, key);
  if (list.includes(id)) await memento.update(key, list.filter((x) => x !== id));
}

/**
 * Whether the service refused the thing itself, not the request: it does not know it (404) or
 * does not let these credentials see it (403). A 401 (bad credentials), a timeout or a 5xx say
 * nothing about the entry, so it stays.
 */
export function refusedByService(error: unknown): boolean {
  return error instanceof NotFoundError || (error instanceof AuthenticationError && error.status === 403);
}

/** A quick pick of known values (with optional descriptions) that also accepts whatever the user types. */
export async function pickOrType(title: string, placeholder: string, known: string[], descriptions: Readonly<Record<string, string>> = dict()): Promise<string | undefined> {
  const qp = vscode.window.createQuickPick();
  qp.title = title;
  qp.placeholder = placeholder;
  // Labels are data (model ids): a description is the record's own, never Object.prototype's.
  const base = known.map((label) => {
    const description = own(descriptions, label);
    return description ? { label, description } : { label };
  });
  qp.items = base;
  qp.onDidChangeValue((v) => {
    const typed = v.trim();
    qp.items = typed && !known.includes(typed) ? [{ label: typed, description: 'use this' }, ...base] : base;
  });
  return new Promise((resolve) => {
    qp.onDidAccept(() => {
      resolve(qp.selectedItems[0]?.label ?? (qp.value.trim() || undefined));
      qp.hide();
    });
    qp.onDidHide(() => {
      resolve(undefined);
      qp.dispose();
    });
    qp.show();
  });
}

/** The quick pick pickScope shows: ui/prompts.ts's Prompts is one (declared here, below ui). */
export interface QuickPicks {
  showQuickPick<T extends vscode.QuickPickItem>(items: readonly T[], options?: vscode.QuickPickOptions): Thenable<T | undefined>;
}

/**
 * Where to save svc.`key`: the user's settings (first, the default) or this workspace only. No
 * question without a workspace, or when the workspace cannot take the value (Restricted Mode)
 * and does not set it. When the workspace already sets it, that is offered first: a user value
 * would change nothing there.
 */
export async function pickScope(key: string, picks: QuickPicks = vscode.window): Promise<SettingsScope | undefined> {
  if (!vscode.workspace.workspaceFolders?.length) return 'user';
  const setInWorkspace = settingProblem(key, 'user') !== undefined;
  if (!setInWorkspace && settingProblem(key, 'workspace')) return 'user';
  const file = workspaceSettingsFile() ?? 'the workspace settings';
  type Item = vscode.QuickPickItem & { scope: SettingsScope };
  const user: Item = {
    label: '$(account) User settings',
    description: setInWorkspace ? 'overridden by this workspace' : 'every window (recommended)',
    scope: 'user',
  };
  const workspace: Item = {
    label: '$(folder) This workspace only',
    description: setInWorkspace ? `where it is set now: ${file}` : `writes ${file}`,
    scope: 'workspace',
  };
  const pick = await picks.showQuickPick(setInWorkspace ? [workspace, user] : [user, workspace], {
    title: `svc: Save svc.${key} in…`,
    ignoreFocusOut: true,
  });
  return pick?.scope;
}
