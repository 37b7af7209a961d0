/**
 * The two passes of an upload over a file, and nothing else: validation (which also gives the
 * hashes the change guard compares against) and the send pass (the groups, checked against the file
 * as validated), as the upload job (job.ts) runs them. No vscode import.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { formatOf, readTrajectoryGroups, validateTrajectoryFile, type GroupRecord, type ValidationSummary } from '../files';
import { changedSinceValidated, fingerprint, HashingBytes, unchangedGroups, type Fingerprint } from './guard';

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
  const read = { startGroup: opts.startGroup, trusted: true, groupTrajectories: summary.groupTrajectories };
  if (summary.format === 'jsonl' && fp.blocks) {
    const source = await HashingBytes.open(path, fp.blocks);
    const groups = readTrajectoryGroups(path, { ...read, source });
    return { groups: unchangedGroups(path, fp, groups, opts.signal, source), close: () => source.close() };
  }
  // A `.json` or Parquet file's reader opens the path itself: it reads a private copy, whose hash
  // is checked against the validation's before the first group goes out, so no byte edited since
  // is sent; the file itself is still watched (size and mtime per group, its hash at the end).
  let dir: string | undefined;
  async function* fromCopy(): AsyncGenerator<GroupRecord> {
    dir = await mkdtemp(join(tmpdir(), 'svc-send-'));
    const copy = join(dir, basename(path));
    await copyFile(path, copy);
    if ((await fingerprint(copy, opts.signal)).sha256 !== fp.sha256) throw changedSinceValidated(path);
    try {
      yield* readTrajectoryGroups(copy, read);
    } catch (e) {
      // Named by the user's file, not by the copy.
      if (e instanceof Error) e.message = e.message.split(copy).join(path);
      throw e;
    }
  }
  const close = async () => {
    if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };
  return { groups: unchangedGroups(path, fp, fromCopy(), opts.signal), close };
}
