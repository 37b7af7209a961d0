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
import { Uri, type Disposable } from 'vscode';
import { registerCommand } from '../common/interaction';
import { isThreadNode, parseAttachArgs } from './args';
import type { FeedbackManager } from './manager';

export const ATTACH_COMMAND = 'svc.attachFeedback';

export function registerFeedbackCommands(manager: FeedbackManager): Disposable[] {
  // Scripted means "kind given": a link passes { ref } and then asks the rest, as the palette does.
  return [registerCommand(ATTACH_COMMAND, (_how, target?: unknown, options?: unknown) => manager.attachFrom(target, options), { scripted: isScriptedAttach })];
}

/**
 * Whether an attach call is scripted: its arguments object (after a thread node, if any) gives
 * `kind`, or is not valid at all (no menu or link passes a wrong one).
 */
function isScriptedAttach(args: unknown[]): boolean {
  const raw = isThreadNode(args[0]) ? args[1] : args[0];
  if (raw === undefined || raw === null || raw instanceof Uri || Array.isArray(raw)) return false;
  const parsed = parseAttachArgs(raw);
  return !parsed.ok || parsed.args.kind !== undefined;
}
