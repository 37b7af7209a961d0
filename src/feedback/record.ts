/**
 * The user's own record of the feedback attached from this editor, per workspace. The spec has no
 * endpoint that reads feedback back, so this is what the thread details and the ref hover show:
 * what THIS user sent from THIS workspace, labelled so, never presented as the service's data.
 *
 * Kept in workspaceState (never settings): ref, kind, content (cut to MAX_CONTENT), time and the
 * id the service answered. No key, header or creator name goes in. Pure: no vscode import.
 */

export interface FeedbackRecordEntry {
  ref: string;
  /** The feedback type sent: `svc.note.1`, `svc.reaction.1` or a custom one. */
  kind: string;
  /** The note, the emoji, or the payload as JSON; cut to MAX_CONTENT characters. */
  content: string;
  /** When it was attached (the service's `created_at` when it gave one), ISO. */
  time: string;
  /** The id of the feedback row (the service's answer; the client's idempotency id otherwise). */
  id: string;
}

/** What it stores in: a vscode.Memento (workspaceState). */
export interface RecordStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export const RECORD_KEY = 'svc.feedback.record';
export const MAX_ENTRIES = 1000;
export const MAX_CONTENT = 1000;
/** How much of the content a hover or the details show. */
export const DISPLAY_CONTENT = 160;

/** The content of a payload as a person reads it: the note, the emoji, else compact JSON. */
export function payloadContent(payload: Record<string, unknown>): string {
  const text = typeof payload.note === 'string' ? payload.note : typeof payload.emoji === 'string' ? payload.emoji : JSON.stringify(payload);
  return text.length > MAX_CONTENT ? `${text.slice(0, MAX_CONTENT - 1)}…` : text;
}

/** `text` cut to `max` characters, on one line. */
export function displayContent(text: string, max = DISPLAY_CONTENT): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The kind as a short word: `note`, `reaction`, or the custom type. */
export function kindLabel(kind: string): string {
  return /\.note\.1$/.test(kind) ? 'note' : /\.reaction\.1$/.test(kind) ? 'reaction' : kind;
}

function isEntry(v: unknown): v is FeedbackRecordEntry {
  if (!v || typeof v !== 'object') return false;
  const e = v as Record<string, unknown>;
  return ['ref', 'kind', 'content', 'time', 'id'].every((k) => typeof e[k] === 'string');
}

export class FeedbackRecord {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly store: RecordStore) {}

  /** Every entry, oldest first (anything malformed in the store is skipped). */
  all(): FeedbackRecordEntry[] {
    const raw = this.store.get<unknown>(RECORD_KEY);
    return Array.isArray(raw) ? raw.filter(isEntry) : [];
  }

  /** The entries for any of `refs`, newest first. */
  forRefs(refs: readonly string[]): FeedbackRecordEntry[] {
    const wanted = new Set(refs);
    return this.all().filter((e) => wanted.has(e.ref)).reverse();
  }

  /** Adds an entry (the same id again replaces the earlier one); the oldest go past MAX_ENTRIES. */
  async add(entry: FeedbackRecordEntry): Promise<void> {
    const clean: FeedbackRecordEntry = { ref: entry.ref, kind: entry.kind, content: payloadContentOf(entry.content), time: entry.time, id: entry.id };
    const next = [...this.all().filter((e) => e.id !== clean.id), clean].slice(-MAX_ENTRIES);
    await this.store.update(RECORD_KEY, next);
    for (const l of this.listeners) l();
  }

  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }
}

function payloadContentOf(text: string): string {
  return text.length > MAX_CONTENT ? `${text.slice(0, MAX_CONTENT - 1)}…` : text;
}
