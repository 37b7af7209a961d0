import * as vscode from 'vscode';

/**
 * Where versions before the `svc.feedback.creator` setting kept the creator name they asked for:
 * globalState, under this key (until commit 9b1a0ae).
 */
export const OLD_CREATOR_KEY = 'svc.feedback.creator';

/**
 * Moves a creator name an earlier version remembered in globalState to the `svc.feedback.creator`
 * setting, in the user's settings (never a workspace's), once: the globalState entry is removed.
 * A name the user has already set in their settings wins. Returns what was moved, if anything.
 */
export async function migrateFeedbackCreator(globalState: vscode.Memento): Promise<string | undefined> {
  const old = globalState.get<unknown>(OLD_CREATOR_KEY);
  if (old === undefined) return undefined;
  const name = typeof old === 'string' ? old.trim() : '';
  const svc = vscode.workspace.getConfiguration('svc');
  const moved = name && svc.inspect<string>('feedback.creator')?.globalValue === undefined ? name : undefined;
  if (moved) await svc.update('feedback.creator', moved, vscode.ConfigurationTarget.Global);
  await globalState.update(OLD_CREATOR_KEY, undefined);
  return moved;
}
