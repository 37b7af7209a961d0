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
 *
 * Checked by one zod schema through parseArgs (src/ui/args.ts), as every command's arguments are: a
 * refusal is an InputError naming the command and the argument (`place.field`).
 */
import { z } from 'zod';
import { parseRef } from '../api/refs';
import { UUID_SHAPE } from '../api/schemas/common';
import { parseArgs } from '../ui/args';
import { isTreeNode } from '../ui/treeNodes';
import { emojiProblem, feedbackTypeProblem, noteProblem, parsePayloadText, payloadProblem, payloadProblemFor, type JsonObject } from './payload';

export const ATTACH_COMMAND = 'svc.attachFeedback';

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

const ATTACH_ARG_KEYS = ['ref', 'kind', 'note', 'emoji', 'feedbackType', 'payload', 'creator', 'turn', 'id', 'via'] as const;
const KINDS = ['note', 'reaction', 'custom'] as const satisfies readonly FeedbackKind[];

/** A value checked by one of payload.ts's rules (`problem` says why it cannot be sent), refused as `<field>: <why>`. */
function checkedBy<T>(field: string, problem: (v: unknown) => string | undefined) {
  return z.custom<T>((v) => problem(v) === undefined, { error: (issue) => `${field}: ${problem(issue.input)}` });
}

/** A ref (trimmed), refused with what is wrong with its form. */
const ref = z.string({ error: 'ref must be a string' }).transform((text, ctx) => {
  const parsed = parseRef(text.trim());
  if (parsed.ok) return text.trim();
  ctx.issues.push({ code: 'custom', message: `ref "${text}" ${parsed.reason}`, input: text });
  return z.NEVER;
});

/** A payload: a JSON object, or its JSON text (parsed); under 1 MiB either way. */
const payload = z.unknown().transform((value, ctx): JsonObject => {
  let problem: string | undefined;
  if (typeof value === 'string') {
    const parsed = parsePayloadText(value);
    if (parsed.ok) return parsed.payload;
    problem = parsed.reason;
  } else {
    problem = payloadProblem(value);
    if (problem === undefined) return value as JsonObject;
  }
  ctx.issues.push({ code: 'custom', message: `payload: ${problem}`, input: value });
  return z.NEVER;
});

const NOT_A_UUID = 'id must be a UUID (8-4-4-4-12 hexadecimal digits)';

/** The fields, each checked on its own (`undefined` is the same as left out). */
const FIELDS = z.strictObject(
  {
    ref: ref.optional(),
    kind: z.enum(KINDS, { error: `kind must be one of ${KINDS.join(', ')}` }).optional(),
    note: checkedBy<string>('note', noteProblem).optional(),
    emoji: checkedBy<string>('emoji', emojiProblem).optional(),
    feedbackType: checkedBy<string>('feedbackType', feedbackTypeProblem).optional(),
    payload: payload.optional(),
    // null or blank: no creator; absent: the setting's.
    creator: z
      .string({ error: 'creator must be a string or null' })
      .nullable()
      .transform((c) => (c?.trim() ? c.trim() : null))
      .optional(),
    turn: z.enum(['first', 'last'], { error: 'turn must be "first" or "last"' }).optional(),
    id: z.string({ error: NOT_A_UUID }).regex(UUID_SHAPE, { error: NOT_A_UUID }).optional(),
    via: z.literal('link', { error: 'via must be "link" (set by ref links) or left out' }).optional(),
  },
  {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys') return `Unknown argument${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}; use ${ATTACH_ARG_KEYS.join(', ')}`;
      if (issue.code === 'invalid_type') return `${ATTACH_COMMAND} takes an object argument such as { ref, kind, note }`;
      return undefined;
    },
  },
);

/** The field that gives content of a kind, in a refusal. */
const CONTENT_FIELD: Record<FeedbackKind, keyof AttachArgs> = { note: 'note', reaction: 'emoji', custom: 'feedbackType' };

/**
 * The arguments together: the kind follows from the content when it is not given, content of
 * another kind is a mistake, and a custom payload follows its type's rules.
 */
const ATTACH_ARGS = FIELDS.transform((fields, ctx): AttachArgs => {
  const args: AttachArgs = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) Object.assign(args, { [key]: value });
  const refuse = (message: string, field: keyof AttachArgs) => {
    ctx.issues.push({ code: 'custom', message, input: fields, path: [field] });
    return z.NEVER;
  };
  const implied = new Set<FeedbackKind>();
  if (args.note !== undefined) implied.add('note');
  if (args.emoji !== undefined) implied.add('reaction');
  if (args.feedbackType !== undefined || args.payload !== undefined) implied.add('custom');
  if (args.kind === undefined) {
    if (implied.size > 1) return refuse(`Give one kind of feedback: ${[...implied].join(' and ')} arguments were both given`, 'kind');
    const only = [...implied][0];
    if (only) args.kind = only;
  } else {
    const other = [...implied].find((k) => k !== args.kind);
    if (other) {
      const field = other === 'custom' && args.feedbackType === undefined ? 'payload' : CONTENT_FIELD[other];
      return refuse(`${other === 'custom' ? 'feedbackType/payload' : field} cannot be used with kind "${args.kind}"`, field);
    }
  }
  if (args.kind === 'custom' && args.feedbackType !== undefined && args.payload !== undefined) {
    const problem = payloadProblemFor(args.feedbackType, args.payload);
    if (problem) return refuse(`payload: ${problem}`, 'payload');
  }
  return args;
});

/**
 * Checks scripted arguments (none: `{}`). Refused: an InputError (src/ui/args.ts) whose message
 * starts with the command's id and names the argument, with `place.field` set to it.
 */
export function parseAttachArgs(raw: unknown): AttachArgs {
  return raw === undefined || raw === null ? {} : parseArgs(ATTACH_COMMAND, ATTACH_ARGS, raw);
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
