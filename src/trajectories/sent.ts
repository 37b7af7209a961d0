/**
 * What this editor sent: one entry per file an upload logged groups of (its content's hash, the
 * model, split and step, how many groups, when). The service cannot say what a model's log already
 * holds, so this record is how a second upload of the same content to the same model and split is
 * caught before it goes out. Kept per workspace (workspaceState in VS Code; the MCP server keeps
 * it while it runs), the latest MAX_SENT entries. No vscode import: the store is injected.
 */
import { basename } from 'node:path';
import { InputError } from '../api';

/** Where the record lives: a vscode.Memento fits (workspaceState); MemoryStore otherwise. */
export interface StateStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): PromiseLike<void>;
}

export class MemoryStore implements StateStore {
  private readonly values = new Map<string, unknown>();
  get<T>(key: string): T | undefined {
    return this.values.get(key) as T | undefined;
  }
  async update(key: string, value: unknown): Promise<void> {
    this.values.set(key, value);
  }
}

export interface SentUpload {
  /** The file's content hash (guard.ts: the SHA-256 over its 1 MiB blocks' SHA-256s). */
  sha256: string;
  modelId: string;
  split: string;
  /** The training step, for a step file of the official client's layout. */
  step?: number;
  /** Groups the service logged from this file in that upload. */
  groups: number;
  /** The file's path then. */
  file: string;
  /** When, ms since the epoch. */
  at: number;
}

export const SENT_KEY = 'svc.sentUploads';
/** Entries kept: the oldest go first. 500 entries are about 100 KB of workspace state. */
export const MAX_SENT = 500;

const isEntry = (e: unknown): e is SentUpload => {
  const o = e as Partial<SentUpload> | null;
  return !!o && typeof o.sha256 === 'string' && typeof o.modelId === 'string' && typeof o.split === 'string' && typeof o.groups === 'number' && typeof o.at === 'number' && typeof o.file === 'string';
};

export class SentUploads {
  constructor(private readonly store: StateStore) {}

  list(): SentUpload[] {
    const raw = this.store.get<unknown>(SENT_KEY);
    return Array.isArray(raw) ? raw.filter(isEntry) : [];
  }

  /** The latest upload of this content to this model and split, if this editor sent one. */
  find(sha256: string, modelId: string, split: string): SentUpload | undefined {
    const all = this.list();
    for (let i = all.length - 1; i >= 0; i--) if (all[i]!.sha256 === sha256 && all[i]!.modelId === modelId && all[i]!.split === split) return all[i];
    return undefined;
  }

  async add(entry: SentUpload): Promise<void> {
    const all = [...this.list(), entry];
    await this.store.update(SENT_KEY, all.slice(Math.max(0, all.length - MAX_SENT)));
  }
}

/** A file about to be sent whose content this editor already sent to the same model and split. */
export interface Repeat {
  file: string;
  sent: SentUpload;
}

/** "Tue, 27 Nov 2026 07:50:12 GMT"-free wording: ISO minutes in UTC, the same in every locale. */
export function sentWhen(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** One sentence per repeated file: which, where, when, how many groups. */
export function describeRepeats(repeats: readonly Repeat[]): string {
  return repeats
    .map(({ file, sent }) => `${basename(file)} (this content) was already uploaded to ${sent.modelId} (${sent.split})${sent.step !== undefined ? `, step ${sent.step},` : ''} on ${sentWhen(sent.at)}: ${sent.groups} ${sent.groups === 1 ? 'group' : 'groups'}.`)
    .join(' ');
}

/** A scripted upload of content already sent to the same model and split, without `allowRepeat`. */
export class RepeatError extends InputError {
  constructor(
    readonly repeats: readonly Repeat[],
    call: string,
  ) {
    super(`${call}: ${describeRepeats(repeats)} Nothing was sent; pass allowRepeat: true to send it again.`, { field: 'allowRepeat' });
  }
}
