/**
 * The one check of a webview message, at both ends of every webview (dashboard, Compare Runs,
 * viewer, thread details): the receiver parses with the protocol's zod/mini schema and acts only on
 * what matches. A refusal says where and why for the log, and never echoes the data.
 * Pure (no DOM, no vscode, no Node): the extension side imports it too.
 */
import type * as z from 'zod/mini';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** Parses a message, or describes what is wrong with it (for the log; never echoes the data). */
export function parseMessage<T>(schema: z.ZodMiniType<T>, raw: unknown): Checked<T> {
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  const type = typeof raw === 'object' && raw !== null && typeof (raw as { type?: unknown }).type === 'string' ? (raw as { type: string }).type : typeof raw;
  return { ok: false, error: `message "${type.slice(0, 40)}" refused at ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}` };
}
