/**
 * What every trajectory file reader shares (the records and summaries they give, the checks of one
 * group), and the JSONL reader. The room's entry is src/files/index.ts. No `vscode` import: the
 * commands map problems to Diagnostics.
 *
 * Accepted shapes: a `.json` file holding `{ split?, trajectory_groups, ... }`, an array of groups,
 * or one group `{ trajectories }`; a `.jsonl` file holding one group per line (blank lines allowed),
 * as the official training client writes under `.art/<project>/models/<model>/trajectories/<split>/`.
 *
 * Validation refuses what the service refuses and nothing more (behaviour note, "Model endpoints"):
 * invalid JSON, a missing required field, a wrong type for a known field. Every problem carries its
 * line and column (src/files/problems.ts). Reading yields each group's JSON text exactly as the file
 * holds it, so the upload sends the file's bytes, not a re-serialization.
 */
import { stat } from 'node:fs/promises';
import { formatPath } from '../api/errors';
import { isTrajectoryGroup } from '../api/schemas/fastCheck';
import { isBareTrajectory, TrajectoryGroup } from '../api/schemas/models';
import type { ByteSource } from './bytes';
import { DEFAULT_MAX_LINE_BYTES, readLines } from './lines';
import { formatBytes } from '../common/format';
import {
  byPosition,
  invalidUtf8Problem,
  isBlank,
  lineProblem,
  ProblemError,
  ProblemList,
  parseLineForValidation,
  readJsonLines,
  type Problem,
} from './problems';
import { isObject } from '../api/json';
import type { JsonText, JsonPath } from './jsonText';
import { TRAJECTORY_WORDING } from './trajectoryWording';

export { ProblemError, type Problem } from './problems';

export type TrajectoryFileFormat = 'json' | 'jsonl' | 'parquet';

export interface GroupRecord {
  /** 0-based group index in the file. */
  index: number;
  /** 1-based lines the group spans; with `unit: 'row'`, the 0-based rows of a Parquet file. */
  line: number;
  endLine: number;
  /** What `line` and `endLine` count: lines of a text file (absent), or rows of a Parquet file. */
  unit?: 'row';
  /** UTF-8 bytes of `json`. */
  bytes: number;
  trajectories: number;
  /** The group's JSON text, exactly as in the file. */
  json: string;
}

export interface ValidationSummary {
  file: string;
  format: TrajectoryFileFormat;
  /** Groups in the file, valid or not (non-blank JSONL lines; items of the group list). */
  groups: number;
  /** Items of the groups' `trajectories` arrays, valid or not. */
  trajectories: number;
  /** Sorted by position; errors block an upload, warnings do not. */
  problems: Problem[];
  /** There were more problems than maxProblems. */
  truncated: boolean;
  /** From a `{split, trajectory_groups}` JSON file. */
  split?: string;
  /**
   * Other top-level members of a `{split, trajectory_groups, ...}` JSON file (such as the
   * `model_id` the official client sends), as their JSON texts: they are sent with every request.
   */
  members?: Record<string, string>;
  fileBytes: number;
  /** The file's modification time when it was validated. */
  mtimeMs: number;
  /** Trajectories of each group, by group index: the upload's read pass then parses nothing. */
  groupTrajectories: number[];
}

export interface ValidateOptions {
  signal?: AbortSignal;
  /** Default 1000. */
  maxProblems?: number;
  /** Longest JSONL line, and largest group of a `.json` file, in bytes. Default 64 MiB. */
  maxLineBytes?: number;
  /** `.json` files up to this size are read whole; larger ones are streamed group by group. Default 16 MiB. */
  streamJsonAbove?: number;
  /** Bytes read at a time when streaming a `.json` file (tests put chunk boundaries everywhere). */
  streamChunkBytes?: number;
  /**
   * A `.jsonl` file's bytes, read from here (left open) instead of opening the path: the upload
   * hashes what the pass reads (src/trajectories/guard.ts). Other formats open the path.
   */
  source?: ByteSource;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** Skip the groups before this index (without parsing them). */
  startGroup?: number;
  maxLineBytes?: number;
  streamJsonAbove?: number;
  streamChunkBytes?: number;
  /**
   * Skip the schema check of each group (default false), for a file that was just validated
   * (`validateTrajectoryFile`): the upload then pays for one schema pass, not two. A group must
   * still be a JSON object with `trajectories`.
   */
  trusted?: boolean;
  /**
   * With `trusted`: the validation's `groupTrajectories`. Groups are then not even parsed: their
   * texts are framed into requests as they are.
   */
  groupTrajectories?: readonly number[];
  /** As ValidateOptions.source: with `trusted` and `groupTrajectories`, a `.jsonl` file is read from here. */
  source?: ByteSource;
}

// --- JSONL ---------------------------------------------------------------------------------

export async function validateJsonl(path: string, opts: ValidateOptions): Promise<ValidationSummary> {
  const problems = new ProblemList(opts.maxProblems);
  const maxLineBytes = opts.maxLineBytes;
  let groups = 0;
  let trajectories = 0;
  const groupTrajectories: number[] = [];
  for await (const line of readLines(opts.source ?? path, { signal: opts.signal, maxLineBytes, skipOverlong: true, name: path })) {
    if (line.overlong) {
      groups++;
      groupTrajectories.push(0);
      problems.add(lineProblem(path, line.line, `line ${line.line} is longer than ${formatBytes(maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)}: a group must fit on one line within the limit`));
      continue;
    }
    if (isBlank(line.text)) continue;
    groups++;
    const parsed = parseLineForValidation(path, line, problems);
    groupTrajectories.push(parsed ? trajectoryCount(parsed.value) : 0);
    if (!parsed) continue;
    const { doc, value } = parsed;
    trajectories += groupTrajectories.at(-1)!;
    // Past the limit only the counts are still wanted, once an error is known.
    if (problems.truncated && problems.hasError) continue;
    const found = groupProblems(doc, value, [], `line ${line.line}`, true);
    if (line.invalidUtf8) found.push(invalidUtf8Problem(path, line));
    problems.addAll(found.sort(byPosition));
  }
  const st = await stat(path);
  if (groups === 0) problems.add(lineProblem(path, 1, 'The file is empty'));
  return { file: path, format: 'jsonl', groups, trajectories, problems: problems.items, truncated: problems.truncated, fileBytes: st.size, mtimeMs: st.mtimeMs, groupTrajectories };
}

export async function* readJsonl(path: string, opts: ReadOptions): AsyncGenerator<GroupRecord> {
  const counts = opts.trusted ? opts.groupTrajectories : undefined;
  if (counts) {
    // Validated just before, and counted: the lines go out as they are, unparsed.
    const start = opts.startGroup ?? 0;
    let index = -1;
    for await (const line of readLines(opts.source ?? path, { signal: opts.signal, maxLineBytes: opts.maxLineBytes, name: path })) {
      if (isBlank(line.text)) continue;
      if (++index < start) continue;
      // Changed since it was validated: refused, never sent altered. `bytes`: what is sent.
      if (line.invalidUtf8) throw new ProblemError(invalidUtf8Problem(path, line));
      yield { index, line: line.line, endLine: line.line, bytes: Buffer.byteLength(line.text), trajectories: counts[index] ?? 0, json: line.text };
    }
    return;
  }
  for await (const { index, line, doc, value } of readJsonLines(path, { signal: opts.signal, maxLineBytes: opts.maxLineBytes, start: opts.startGroup })) {
    checkGroup(doc, value, [], `line ${line.line}`, true, opts.trusted);
    if (line.invalidUtf8) throw new ProblemError(invalidUtf8Problem(path, line));
    yield { index, line: line.line, endLine: line.line, bytes: Buffer.byteLength(line.text), trajectories: trajectoryCount(value), json: line.text };
  }
}

// --- shared by .json and .jsonl ---------------------------------------------------------------

/**
 * Problems of one group. `where` names it in a hint: "line 7", "trajectory_groups[3]" or
 * "The file". Unknown fields and `null` in optional fields are not problems: the service takes them.
 */
export function groupProblems(doc: JsonText, value: unknown, base: JsonPath, where: string, jsonl: boolean): Problem[] {
  const prefix = base.length ? `${formatPath(base)}: ` : '';
  if (!isObject(value)) {
    return [doc.problem(doc.locate(base).offset, 1, `${prefix}expected a group {"trajectories": [...]}, received ${kindName(value)}`, 'error', base)];
  }
  if (isBareTrajectory(value)) {
    return [doc.problem(doc.locate(base).offset, 1, `${where} holds a single trajectory, not a group: wrap it as {"trajectories": [ ... ]}`, 'error', base)];
  }
  if (jsonl && !('trajectories' in value) && 'trajectory_groups' in value) {
    return [
      doc.problem(
        doc.locate(base).offset,
        1,
        `${where} holds a whole {"split", "trajectory_groups"} document: a .jsonl file holds one group {"trajectories": [...]} per line (or name the file .json)`,
        'error',
        base,
      ),
    ];
  }
  // Most groups are valid: the fast check says so cheaply; the schema says why when one is not.
  if (isTrajectoryGroup(value)) return [];
  const r = TrajectoryGroup.safeParse(value);
  if (r.success) {
    // zod's records skip a "__proto__" key; the fast check (and the service) do not.
    return [doc.problem(doc.locate(base).offset, 1, `${where}: a value under a "__proto__" key has the wrong type`, 'error', base)];
  }
  return doc.issueProblems(r.error.issues, value, base, TRAJECTORY_WORDING);
}

/**
 * Throws the first problem of a group that should be valid. Trusted: only what framing the
 * request needs (an object whose `trajectories`, if any, is an array) is checked.
 */
export function checkGroup(doc: JsonText, value: unknown, base: JsonPath, where: string, jsonl: boolean, trusted = false): void {
  // A compact group (ART's exclude_defaults) leaves out `trajectories` when it has none.
  if (trusted && isObject(value) && (value.trajectories === undefined || Array.isArray(value.trajectories))) return;
  const first = groupProblems(doc, value, base, where, jsonl).sort(byPosition)[0];
  if (first) throw new ProblemError(first);
}

export function trajectoryCount(group: unknown): number {
  return isObject(group) && Array.isArray(group.trajectories) ? group.trajectories.length : 0;
}

function kindName(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}
