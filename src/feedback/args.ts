/**
 * The arguments `svc.attachFeedback` accepts from scripts, keybindings and links. Pure: no vscode
 * import, unit-tested in plain Node.
 *
 *   executeCommand('svc.attachFeedback', {
 *     ref?: 'svc:///<entity>/<project>/call/<id>',   // else: the thread node, the editor, or a prompt
 *     kind?: 'note' | 'reaction' | 'custom',          // inferred from note / emoji / feedbackType+payload
 *     note?: string,                                  // kind 'note': 1..1024 characters
 *     emoji?: string,                                 // kind 'reaction': exactly one emoji
 *     feedbackType?: string, payload?: object | string, // kind 'custom' (payload: object or JSON text)
 *     creator?: string | null,                        // null or '' = none; absent: the svc.feedback.creator setting
 *     turn?: 'first' | 'last',                        // with a thread node as the first argument
 *     id?: string,                                    // a UUID, to retry a create idempotently
 *     via?: 'link',                                   // set by the ref links: a user's click, which asks for the rest
 *   })
 *
 * An arguments object is a script's unless it says `via: 'link'`: a script is never asked anything,
 * so it must give the ref (or a thread node and `turn`, or an editor with one ref), the kind and its
 * content; what is missing is a rejection naming it.
 *
 * With a thread node, these go in the second argument: executeCommand(cmd, node, { turn: 'last', ... }).
 */
import { isObject } from '../api/json';
import { parseRef } from '../api/refs';
import { UUID_SHAPE } from '../api/schemas/common';
import { isTreeNode } from '../ui/treeNodes';
import {
  emojiProblem,
  feedbackTypeProblem,
  noteProblem,
  parsePayloadText,
  payloadProblem,
  payloadProblemFor,
  type JsonObject,
} from './payload';

export type FeedbackKind = 'note' | 'reaction' | 'custom';
export type TurnChoice = 'first' | 'last';

export interface AttachArgs {
  ref?: string;
  kind?: FeedbackKind;
  note?: string;
  emoji?: string;
  feedbackType?: string;
  payload?: JsonObject;
  /** A name, or null for none. Absent: the `svc.feedback.creator` setting (empty: none). */
  creator?: string | null;
  turn?: TurnChoice;
  id?: string;
  /** A ref link's click (a user's), not a script: whatever is missing is asked for. */
  via?: 'link';
}

export const ATTACH_ARG_KEYS = ['ref', 'kind', 'note', 'emoji', 'feedbackType', 'payload', 'creator', 'turn', 'id', 'via'] as const;
const KINDS: readonly FeedbackKind[] = ['note', 'reaction', 'custom'];

type Result = { ok: true; args: AttachArgs } | { ok: false; reason: string };

/** Checks scripted arguments; every problem is named with the argument it concerns. */
export function parseAttachArgs(raw: unknown): Result {
  if (raw === undefined || raw === null) return { ok: true, args: {} };
  if (!isObject(raw)) return { ok: false, reason: 'svc.attachFeedback takes an object argument such as { ref, kind, note }.' };
  const unknown = Object.keys(raw).filter((k) => !(ATTACH_ARG_KEYS as readonly string[]).includes(k));
  if (unknown.length) {
    return { ok: false, reason: `Unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; use ${ATTACH_ARG_KEYS.join(', ')}.` };
  }
  const args: AttachArgs = {};
  const fail = (reason: string): Result => ({ ok: false, reason });
  const present = (k: (typeof ATTACH_ARG_KEYS)[number]) => raw[k] !== undefined;

  if (present('ref')) {
    if (typeof raw.ref !== 'string') return fail('ref must be a string.');
    const parsed = parseRef(raw.ref.trim());
    if (!parsed.ok) return fail(`ref "${raw.ref}" ${parsed.reason}.`);
    args.ref = raw.ref.trim();
  }
  if (present('kind')) {
    if (!KINDS.includes(raw.kind as FeedbackKind)) return fail(`kind must be one of ${KINDS.join(', ')}.`);
    args.kind = raw.kind as FeedbackKind;
  }
  if (present('note')) {
    const problem = noteProblem(raw.note);
    if (problem) return fail(`note: ${problem}`);
    args.note = raw.note as string;
  }
  if (present('emoji')) {
    const problem = emojiProblem(raw.emoji);
    if (problem) return fail(`emoji: ${problem}`);
    args.emoji = raw.emoji as string;
  }
  if (present('feedbackType')) {
    const problem = feedbackTypeProblem(raw.feedbackType);
    if (problem) return fail(`feedbackType: ${problem}`);
    args.feedbackType = raw.feedbackType as string;
  }
  if (present('payload')) {
    if (typeof raw.payload === 'string') {
      const parsed = parsePayloadText(raw.payload);
      if (!parsed.ok) return fail(`payload: ${parsed.reason}`);
      args.payload = parsed.payload;
    } else {
      const problem = payloadProblem(raw.payload);
      if (problem) return fail(`payload: ${problem}`);
      args.payload = raw.payload as JsonObject;
    }
  }
  if (present('creator')) {
    if (raw.creator !== null && typeof raw.creator !== 'string') return fail('creator must be a string or null.');
    const creator = typeof raw.creator === 'string' ? raw.creator.trim() : '';
    args.creator = creator === '' ? null : creator;
  }
  if (present('turn')) {
    if (raw.turn !== 'first' && raw.turn !== 'last') return fail('turn must be "first" or "last".');
    args.turn = raw.turn;
  }
  if (present('via')) {
    if (raw.via !== 'link') return fail('via must be "link" (set by ref links) or left out.');
    args.via = 'link';
  }
  if (present('id')) {
    if (typeof raw.id !== 'string' || !UUID_SHAPE.test(raw.id)) return fail('id must be a UUID (8-4-4-4-12 hexadecimal digits).');
    args.id = raw.id;
  }

  // The kind follows from the content when it is not given; content of another kind is a mistake.
  const implied = new Set<FeedbackKind>();
  if (args.note !== undefined) implied.add('note');
  if (args.emoji !== undefined) implied.add('reaction');
  if (args.feedbackType !== undefined || args.payload !== undefined) implied.add('custom');
  if (args.kind === undefined) {
    if (implied.size > 1) return fail(`Give one kind of feedback: ${[...implied].join(' and ')} arguments were both given.`);
    const only = [...implied][0];
    if (only) args.kind = only;
  } else {
    const other = [...implied].filter((k) => k !== args.kind);
    if (other.length) {
      const field = { note: 'note', reaction: 'emoji', custom: 'feedbackType/payload' }[other[0]!];
      return fail(`${field} cannot be used with kind "${args.kind}".`);
    }
  }
  if (args.kind === 'custom' && args.feedbackType !== undefined && args.payload !== undefined) {
    const problem = payloadProblemFor(args.feedbackType, args.payload);
    if (problem) return fail(`payload: ${problem}`);
  }
  return { ok: true, args };
}

/** The threads view's node of a thread, as attach feedback reads it. */
export type ThreadArg = { kind: 'thread'; project: string; row: { thread_id: string; first_turn_id?: string | null; last_turn_id?: string | null } };

/**
 * Whether a value is the threads view's node of a thread: a node the tree handed to VS Code
 * (recognised by identity, src/ui/treeNodes.ts), never an object of the same shape from a script.
 */
export function isThreadNode(value: unknown): value is ThreadArg {
  return isTreeNode(value) && (value as { kind?: unknown }).kind === 'thread';
}

/** The turn ids a thread offers, without duplicates: what to ask, or the only answer. */
export function turnChoices(row: { first_turn_id?: string | null; last_turn_id?: string | null }): { turn: TurnChoice; id: string }[] {
  const out: { turn: TurnChoice; id: string }[] = [];
  if (row.first_turn_id) out.push({ turn: 'first', id: row.first_turn_id });
  if (row.last_turn_id && row.last_turn_id !== row.first_turn_id) out.push({ turn: 'last', id: row.last_turn_id });
  return out;
}
