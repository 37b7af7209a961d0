/**
 * The two passes of an upload over a file, and nothing else: validation (which also gives the
 * hashes the change guard compares against) and the send pass (the groups, checked against the file
 * as validated), as the upload job (job.ts) runs them. No vscode import.
 */
import { formatOf, readTrajectoryGroups, validateTrajectoryFile, type GroupRecord, type ValidationSummary } from '../files';
import { fingerprint, HashingBytes, unchangedGroups, type Fingerprint } from './guard';

/** A file as validated for an upload: its summary, and for a valid file its hashes. */
export interface Validated {
  summary: ValidationSummary;
  fingerprint?: Fingerprint;
}

/**
 * Validates a file for an upload. A valid file also gets its hashes: from the validation pass
 * itself for a JSONL file (each block as the validation read it), from a pass of its own for the
 * others (guard.ts says why).
 */
export async function validateForUpload(path: string, signal?: AbortSignal, opts: { maxProblems?: number } = {}): Promise<Validated> {
  const source = formatOf(path) === 'jsonl' ? await HashingBytes.open(path) : undefined;
  const summary = await validateTrajectoryFile(path, { signal, source, maxProblems: opts.maxProblems }).finally(() => source?.close());
  if (summary.problems.some((p) => p.severity === 'error')) return { summary };
  const blocks = source?.blocks();
  if (blocks) return { summary, fingerprint: { size: summary.fileBytes, mtimeMs: summary.mtimeMs, sha256: source!.digest()!, blocks } };
  const f = await fingerprint(path, signal);
  return { summary, fingerprint: { ...f, size: summary.fileBytes, mtimeMs: summary.mtimeMs } };
}

/**
 * The groups of a validated file from `startGroup` on, as the upload sends them: framed, not
 * parsed again, and stopped by a change to the file (guard.ts): a JSONL file's blocks are each
 * checked against the validation's hashes as they are read, so no edited byte is sent. `close`
 * when done.
 */
export async function groupsForUpload(path: string, validated: Validated, opts: { startGroup?: number; signal?: AbortSignal } = {}): Promise<{ groups: AsyncIterable<GroupRecord>; close: () => Promise<void> }> {
  const { summary } = validated;
  const fp = validated.fingerprint ?? { size: summary.fileBytes, mtimeMs: summary.mtimeMs, sha256: '' };
  const source = summary.format === 'jsonl' && fp.blocks ? await HashingBytes.open(path, fp.blocks) : undefined;
  const groups = readTrajectoryGroups(path, { startGroup: opts.startGroup, trusted: true, groupTrajectories: summary.groupTrajectories, source });
  return { groups: unchangedGroups(path, fp, groups, opts.signal, source), close: async () => source?.close() };
}
