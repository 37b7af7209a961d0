/**
 * What a JSONL file holds, from its first line: call records (Import Calls) or trajectory groups
 * (Upload Trajectories). Cheap: it reads at most the first 64 KiB. Pure: no vscode import.
 */
import { openRegular } from '../common/regular';

export type JsonlKind = 'calls' | 'trajectories' | 'unknown';

export const SNIFF_BYTES = 64 * 1024;

const TRAJECTORY_KEYS = /"(trajectories|trajectory_groups|messages_and_choices|exchanges|messages)"\s*:/;
const CALL_KEYS = /^\s*\{\s*"(mode"\s*:\s*"(start|end)"|req"\s*:\s*\{\s*"(start|end)"|start"\s*:\s*\{|end"\s*:\s*\{)/;

/** The kind of the first non-blank line of `head` (the file's first bytes). */
export function kindOfHead(head: string): JsonlKind {
  const line = head.replace(/^\uFEFF/, '').split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  if (!line) return 'unknown';
  try {
    const value: unknown = JSON.parse(line);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return 'unknown';
    const keys = Object.keys(value);
    const v = value as Record<string, unknown>;
    if ((v.mode === 'start' || v.mode === 'end') && v.req && typeof v.req === 'object') return 'calls';
    if (keys.length === 1 && (keys[0] === 'start' || keys[0] === 'end')) return 'calls';
    if (keys.some((k) => ['trajectories', 'trajectory_groups', 'messages_and_choices', 'exchanges', 'messages'].includes(k))) return 'trajectories';
    return 'unknown';
  } catch {
    // A first line longer than the sniff: judge by its opening.
    if (CALL_KEYS.test(line)) return 'calls';
    if (TRAJECTORY_KEYS.test(line)) return 'trajectories';
    return 'unknown';
  }
}

/** The kind of a file on disk, from its first `bytes` (at most); 'unknown' when it cannot be read. */
export async function kindOfFile(file: string, bytes = SNIFF_BYTES): Promise<JsonlKind> {
  let handle;
  try {
    // A regular file only: a pipe would wait for a writer, a device never end.
    handle = (await openRegular(file)).handle;
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buf, 0, bytes, 0);
    return kindOfHead(buf.subarray(0, bytesRead).toString('utf8'));
  } catch {
    return 'unknown';
  } finally {
    await handle?.close();
  }
}
