/**
 * `svc.attachFeedback`: from a thread item, a ref in an editor, a link, or the palette. A thin
 * registration: the flow is FeedbackManager's (manager.ts).
 *
 * Arguments (see args.ts): none, a `vscode.Uri` (editor menus), `{ ref?, kind?, note?, emoji?,
 * feedbackType?, payload?, creator?, id? }`, or a thread node plus that object (with `turn`) as
 * the second argument. From a menu, the palette or a ref link (`via: 'link'`) whatever is missing is
 * asked for, except the creator. Any other arguments object is a script's: nothing is asked, and
 * what is missing or wrong is a rejection. Returns the service's response
 * (`{ id, created_at, svc_user_id, payload }`), or undefined when cancelled.
 */
import { Uri, type Disposable } from 'vscode';
import type { Commands } from '../ui/commands';
import { ATTACH_COMMAND, isThreadNode, parseAttachArgs } from './args';
import type { FeedbackManager } from './manager';

export { ATTACH_COMMAND };

export function registerFeedbackCommands({ commands, manager }: { commands: Commands; manager: FeedbackManager }): Disposable[] {
  // A ref link passes { ref, via: 'link' } and then asks the rest, as the palette does; any other object is a script.
  return [commands.register(ATTACH_COMMAND, (_how, target?: unknown, options?: unknown) => manager.attachFrom(target, options), { scripted: isScriptedAttach })];
}

/**
 * Whether an attach call is scripted: it has an arguments object (after a thread node, if any)
 * that is not a ref link's (`via: 'link'`). Menus pass a node, a Uri or nothing.
 */
export function isScriptedAttach(args: unknown[]): boolean {
  const raw = isThreadNode(args[0]) ? args[1] : args[0];
  if (raw === undefined || raw === null || raw instanceof Uri || Array.isArray(raw)) return false;
  try {
    return parseAttachArgs(raw).via !== 'link';
  } catch {
    return true; // refused: a script's mistake, rejected rather than shown
  }
}
