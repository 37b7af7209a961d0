/**
 * ART's Parquet step files as trajectory files: validated and read like JSON and JSONL files
 * (ValidationSummary, GroupRecord), over parquet.ts. A group is sent as the client's `model_dump`
 * gives it (groupText), and checked with the same group checks as the text formats. Problems name
 * the file's row and group (0-based), since a Parquet file has no lines. No `vscode` import.
 */
import { stat } from 'node:fs/promises';
import { isObject } from '../api/json';
import { JsonText } from './jsonText';
import { INVALID_UTF8, ProblemError, ProblemList, type Problem } from './problems';
import { DEFAULT_MAX_LINE_BYTES } from './lines';
import { groupText, openArtParquet, readArtGroups, rowOfTrajectory, type ArtGroup } from './artParquet';
import { ParquetError } from './parquet';
import { groupProblems, type GroupRecord, type ReadOptions, type ValidateOptions, type ValidationSummary } from './reader';

/** Why a version 1 file is not uploaded: its groups cannot be rebuilt as the client dumped them. */
export const V1_LOSSY =
  "is ART's trajectory Parquet format version 1 (no art.trajectory_parquet.version): it holds only the analytics columns, so the groups as the client dumped them (finish reasons, logprobs, additional histories, exceptions, unknown fields) are lost. It is not uploaded: upload the run's .jsonl step files, or a version 2 file";

function parquetProblem(file: string, message: string, where: { row?: number; group?: number } = {}, severity: Problem['severity'] = 'error'): Problem {
  return { file, line: 1, column: 1, endLine: 1, endColumn: 2, message, severity, ...(where.row !== undefined ? { row: where.row } : {}), ...(where.group !== undefined ? { group: where.group } : {}) };
}

const faultProblem = (file: string, e: ParquetError) => parquetProblem(file, e.row === undefined ? `The file ${e.message}` : e.message, e);

/**
 * Problems of one group: its JSON texts must be JSON objects (`group_json` without
 * `trajectories`), and the whole group must pass the group checks of the text formats. Each
 * problem names the row of the trajectory it is in (or the group's first row).
 */
export function artGroupProblems(file: string, g: ArtGroup): Problem[] {
  const at = (row: number) => `row ${row}, group ${g.group}`;
  const first = (message: string, row = g.firstRow) => [parquetProblem(file, `${at(row)}: ${message}`, { row, group: g.group })];
  let group: unknown;
  try {
    group = JSON.parse(g.groupJson);
  } catch {
    return first('group_json is not valid JSON');
  }
  if (!isObject(group)) return first('group_json is not a JSON object');
  if ('trajectories' in group) return first('group_json holds "trajectories": ART writes the group without them');
  const trajectories: unknown[] = [];
  for (const [i, text] of g.trajectories.entries()) {
    let t: unknown;
    try {
      t = JSON.parse(text);
    } catch {
      return first(`trajectory_json of trajectory ${i} is not valid JSON`, rowOfTrajectory(g, i));
    }
    if (!isObject(t)) return first(`trajectory_json of trajectory ${i} is not a JSON object`, rowOfTrajectory(g, i));
    trajectories.push(t);
  }
  const value = g.trajectories.length ? { trajectories, ...group } : group;
  // As for a JSONL line (issue 19): sent, the bytes would become U+FFFD, so the row is refused.
  const warnings = (g.invalidUtf8 ?? []).map((row) => parquetProblem(file, `${at(row)}: the row's JSON ${INVALID_UTF8}`, { row, group: g.group }, 'error'));
  // Positions in this text mean nothing to the user: each problem is placed at its row instead.
  const doc = new JsonText(file, '{}');
  return [...warnings, ...groupProblems(doc, value, [], at(g.firstRow), false).map((p) => {
    const i = p.path?.[0] === 'trajectories' && typeof p.path[1] === 'number' ? p.path[1] : undefined;
    const row = i === undefined ? g.firstRow : rowOfTrajectory(g, i);
    const message = p.message.startsWith(`${at(g.firstRow)}: `) ? p.message.slice(at(g.firstRow).length + 2) : p.message;
    return parquetProblem(file, `${at(row)}: ${message}`, { row, group: g.group }, p.severity);
  })];
}

export async function validateParquet(path: string, opts: ValidateOptions): Promise<ValidationSummary> {
  opts.signal?.throwIfAborted();
  const st = await stat(path);
  const problems = new ProblemList(opts.maxProblems);
  const summary: ValidationSummary = { file: path, format: 'parquet', groups: 0, trajectories: 0, problems: [], truncated: false, fileBytes: st.size, mtimeMs: st.mtimeMs, groupTrajectories: [] };
  try {
    const { file, info } = await openArtParquet(path);
    try {
      if (info.version === 1) problems.add(parquetProblem(path, `The file ${V1_LOSSY}`));
      else {
        for await (const g of readArtGroups(file, { signal: opts.signal, maxGroupBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES })) {
          summary.groups++;
          if ('fault' in g) {
            summary.groupTrajectories.push(0);
            problems.add(faultProblem(path, g.fault));
            continue;
          }
          summary.groupTrajectories.push(g.trajectories.length);
          summary.trajectories += g.trajectories.length;
          // Past the limit only the counts are still wanted, once an error is known.
          if (!(problems.truncated && problems.hasError)) problems.addAll(artGroupProblems(path, g));
        }
        if (summary.groups === 0) problems.add(parquetProblem(path, 'The file holds no trajectory groups: there is nothing to upload', {}, 'warning'));
      }
    } finally {
      await file.close();
    }
  } catch (e) {
    if (!(e instanceof ParquetError)) throw e;
    problems.add(faultProblem(path, e));
  }
  summary.problems = problems.items;
  summary.truncated = problems.truncated;
  return summary;
}

/**
 * The groups of a version 2 file from `startGroup` on, each as the client's dump. Meant for a file
 * that validated: the first problem met is thrown as a ProblemError naming its row and group.
 */
export async function* readParquet(path: string, opts: ReadOptions): AsyncGenerator<GroupRecord> {
  const start = opts.startGroup ?? 0;
  let opened: Awaited<ReturnType<typeof openArtParquet>>;
  try {
    opened = await openArtParquet(path);
  } catch (e) {
    throw e instanceof ParquetError ? new ProblemError(faultProblem(path, e)) : e;
  }
  const { file, info } = opened;
  try {
    if (info.version === 1) throw new ProblemError(parquetProblem(path, `The file ${V1_LOSSY}`));
    for await (const g of readArtGroups(file, { signal: opts.signal, maxGroupBytes: opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES })) {
      if ('fault' in g) throw new ProblemError(faultProblem(path, g.fault));
      if (g.group < start) continue;
      if (!opts.trusted) {
        const first = artGroupProblems(path, g).find((p) => p.severity === 'error');
        if (first) throw new ProblemError(first);
      }
      const json = groupText(g);
      yield { index: g.group, line: g.firstRow, endLine: g.lastRow, unit: 'row', bytes: Buffer.byteLength(json), trajectories: g.trajectories.length, json };
    }
  } catch (e) {
    throw e instanceof ParquetError ? new ProblemError(faultProblem(path, e)) : e;
  } finally {
    await file.close();
  }
}
