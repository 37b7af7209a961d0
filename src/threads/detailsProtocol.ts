/**
 * The messages between the thread details webview and the extension, checked with zod on both
 * sides. Pure: no vscode import (the webview bundle uses it too).
 *
 * The extension sends the thread as the service gave it (times as ISO strings, durations in ms):
 * the webview formats times in the user's own time zone, which in a remote window (code-server,
 * SSH) is not the extension host's.
 */
// zod/mini: the same checks with a tree-shakable API, so the webview bundle stays small.
import * as z from 'zod/mini';

const TurnSchema = z.object({
  which: z.enum(['first', 'last']),
  /** `First turn`, `Last turn`, or `First and last turn` when both are one call. */
  label: z.string(),
  callId: z.string(),
  ref: z.string(),
});

export const ThreadDetailsSchema = z.object({
  project: z.string(),
  threadId: z.string(),
  turnCount: z.number(),
  startTime: z.nullable(z.string()),
  lastUpdated: z.nullable(z.string()),
  p50Ms: z.nullable(z.number()),
  p99Ms: z.nullable(z.number()),
  /** The first and last turns; one entry when they are the same call. */
  turns: z.array(TurnSchema),
  /** Fields the spec does not name, as [name, JSON text]. */
  other: z.array(z.tuple([z.string(), z.string()])),
  /** Feedback this user attached from this editor to the thread's turns (the user's own record, not a service read). */
  feedback: z.optional(z.array(z.object({ turn: z.string(), kind: z.string(), content: z.string(), time: z.string(), id: z.string() }))),
  /** Whether svc.webUiUrl is set (else the button says how to set it). */
  webUi: z.optional(z.boolean()),
});
export type ThreadDetails = z.infer<typeof ThreadDetailsSchema>;

/** Extension -> webview. */
export const ToWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('show'), thread: ThreadDetailsSchema }),
  /** Confirms a copy, so the button can say so. */
  z.object({ type: z.literal('copied'), target: z.string() }),
]);
export type ToWebview = z.infer<typeof ToWebviewSchema>;

/** Webview -> extension. `target` of copy: `threadId`, a turn (`first` / `last`) for its ref, or `link` (a deep link). */
export const FromWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('attachFeedback'), turn: z.enum(['first', 'last']) }),
  z.object({ type: z.literal('copy'), target: z.enum(['threadId', 'first', 'last', 'link']) }),
  z.object({ type: z.literal('openJson') }),
  /** Open in Web UI: the thread, or one of its turns. */
  z.object({ type: z.literal('openWebUi'), target: z.enum(['thread', 'first', 'last']) }),
]);
export type FromWebview = z.infer<typeof FromWebviewSchema>;

/** The details of a row for the webview: known fields by name, the rest as JSON text. */
export function threadDetails(
  project: string,
  row: {
    thread_id: string;
    turn_count: number;
    start_time?: string | null;
    last_updated?: string | null;
    first_turn_id?: string | null;
    last_turn_id?: string | null;
    p50_turn_duration_ms?: number | null;
    p99_turn_duration_ms?: number | null;
    [key: string]: unknown;
  },
  refOf: (callId: string) => string,
): ThreadDetails {
  const known = new Set(['thread_id', 'turn_count', 'start_time', 'last_updated', 'first_turn_id', 'last_turn_id', 'p50_turn_duration_ms', 'p99_turn_duration_ms']);
  const turns: ThreadDetails['turns'] = [];
  const same = !!row.first_turn_id && row.first_turn_id === row.last_turn_id;
  if (row.first_turn_id) turns.push({ which: 'first', label: same ? 'First and last turn' : 'First turn', callId: row.first_turn_id, ref: refOf(row.first_turn_id) });
  if (row.last_turn_id && !same) turns.push({ which: 'last', label: 'Last turn', callId: row.last_turn_id, ref: refOf(row.last_turn_id) });
  return {
    project,
    threadId: row.thread_id,
    turnCount: row.turn_count,
    startTime: row.start_time ?? null,
    lastUpdated: row.last_updated ?? null,
    p50Ms: row.p50_turn_duration_ms ?? null,
    p99Ms: row.p99_turn_duration_ms ?? null,
    turns,
    other: Object.entries(row)
      .filter(([k]) => !known.has(k))
      .map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v) ?? 'null']),
  };
}
