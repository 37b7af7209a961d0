/**
 * The two passes of an upload over a file, and nothing else: validation (which also gives the
 * hash the change guard compares against) and the send pass (the groups, checked against the file
 * as validated), as the command (manager.ts) runs them. No vscode import.
 */
import { formatOf, readTrajectoryGroups, validateTrajectoryFile, type GroupRecord, type ValidationSummary } from '../files';
import { fingerprint, HashingBytes, unchangedGroups } from './guard';

/**
 * Validates a file for an upload. A valid file also gets its SHA-256: from the validation pass
 * itself for a JSONL file, from a pass of its own for the others (guard.ts says why).
 */
export async function validateForUpload(path: string, signal?: AbortSignal): Promise<{ summary: ValidationSummary; sha256?: string }> {
  const source = formatOf(path) === 'jsonl' ? await HashingBytes.open(path) : undefined;
  const summary = await validateTrajectoryFile(path, { signal, source }).finally(() => source?.close());
  if (summary.problems.some((p) => p.severity === 'error')) return { summary };
  return { summary, sha256: source?.digest() ?? (await fingerprint(path, signal)).sha256 };
}

/**
 * The groups of a validated file from `startGroup` on, as the upload sends them: framed, not
 * parsed again, and stopped by a change to the file (guard.ts). `close` when done.
 */
export async function groupsForUpload(
  path: string,
  validated: { summary: ValidationSummary; sha256?: string },
  opts: { startGroup?: number; signal?: AbortSignal } = {},
): Promise<{ groups: AsyncIterable<GroupRecord>; close: () => Promise<void> }> {
  const { summary } = validated;
  const source = summary.format === 'jsonl' ? await HashingBytes.open(path) : undefined;
  const groups = readTrajectoryGroups(path, { startGroup: opts.startGroup, trusted: true, groupTrajectories: summary.groupTrajectories, source });
  const fingerprinted = { size: summary.fileBytes, mtimeMs: summary.mtimeMs, sha256: validated.sha256 ?? '' };
  return { groups: unchangedGroups(path, fingerprinted, groups, opts.signal, source), close: async () => source?.close() };
}
