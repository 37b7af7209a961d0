/**
 * `svc.attachFeedback`: from a thread item, a ref in an editor, a link, or the palette. A thin
 * registration: the flow is FeedbackManager's (manager.ts).
 *
 * Arguments (see args.ts): none, a `vscode.Uri` (editor menus), `{ ref?, kind?, note?, emoji?,
 * feedbackType?, payload?, creator?, id? }`, or a thread node plus that object (with `turn`) as
 * the second argument. Whatever is missing is asked for, except the creator. When `kind` is given
 * (scripted use) nothing is asked and refusals reject. Returns the service's response
 * (`{ id, created_at, svc_user_id, payload }`), or undefined when cancelled.
 */
import type * as vscode from 'vscode';
import { registerCommand } from '../common/interaction';
import type { FeedbackManager } from './manager';

export const ATTACH_COMMAND = 'svc.attachFeedback';

export function registerFeedbackCommands(manager: FeedbackManager): vscode.Disposable[] {
  return [registerCommand(ATTACH_COMMAND, (_how, target?: unknown, options?: unknown) => manager.attachFrom(target, options))];
}
