/**
 * Reading and validating trajectory files before anything is uploaded. No `vscode` import: the
 * commands map problems to Diagnostics.
 *
 * Accepted shapes: a `.json` file holding `{ split?, trajectory_groups }`, an array of groups, or
 * one group `{ trajectories }`; a `.jsonl` file holding one group per line (blank lines allowed).
 * Every problem is reported with its line and column (see src/common/problems.ts), validated
 * against the same zod schemas the upload uses, which mirror the strictest server.
 */
import { readFile, stat } from 'node:fs/promises';
import { visit } from 'jsonc-parser';
import { TrajectoryGroup } from '../api/schemas/models';
import { DEFAULT_MAX_LINE_BYTES, isValidUtf8, readLines } from '../common/lines';
import { formatBytes } from '../common/format';
import {
  byPosition,
  formatPath,
  INVALID_UTF8,
  isBlank,
  isObject,
  JsonText,
  kindOf,
  lineProblem,
  ProblemError,
  ProblemList,
  parseLineForValidation,
  readJsonLines,
  TOO_DEEP,
  tooDeepAt,
  type JsonPath,
  type Problem,
} from '../common/problems';

export { ProblemError, type Problem } from '../common/problems';

export type TrajectoryFileFormat = 'json' | 'jsonl';

export interface GroupRecord {
  /** 0-based group index in the file. */
  index: number;
  /** 1-based lines the group spans. */
  line: number;
  endLine: number;
  /** UTF-8 bytes of JSON.stringify(group). */
  bytes: number;
  trajectories: number;
  group: TrajectoryGroup;
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
  fileBytes: number;
}

export interface ValidateOptions {
  signal?: AbortSignal;
  /** Default 1000. */
  maxProblems?: number;
  /** Longest JSONL line, bytes. Default 64 MiB. */
  maxLineBytes?: number;
  /** Largest `.json` file, read whole. Default (and at most) about 512 MiB, the longest string Node holds. */
  maxJsonBytes?: number;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** Skip the groups before this index (JSONL: without parsing them). */
  startGroup?: number;
  maxLineBytes?: number;
  maxJsonBytes?: number;
  /**
   * JSONL only: skip the schema check of each group (default false). For a file that was just
   * validated, when the client checks every request again before sending it anyway: the upload
   * then pays for one schema pass, not two. A group must still be an object with `trajectories`.
   */
  trusted?: boolean;
}

/** `.jsonl` (and `.ndjson`) files hold a group per line; anything else is read as one JSON document. */
export function formatOf(path: string): TrajectoryFileFormat {
  return /\.(jsonl|ndjson)$/i.test(path) ? 'jsonl' : 'json';
}

/** Validates a whole file and reports every problem (up to maxProblems). Throws only on I/O errors or abort. */
export async function validateTrajectoryFile(path: string, opts: ValidateOptions = {}): Promise<ValidationSummary> {
  return formatOf(path) === 'jsonl' ? validateJsonl(path, opts) : validateJson(path, opts);
}

/**
 * The groups of a file, zod-parsed, in order. Meant for a file that validated: the first problem
 * met is thrown as a ProblemError naming its line.
 */
export async function* readTrajectoryGroups(path: string, opts: ReadOptions = {}): AsyncGenerator<GroupRecord> {
  if (formatOf(path) === 'jsonl') yield* readJsonl(path, opts);
  else yield* readJson(path, opts);
}

// --- JSONL ---------------------------------------------------------------------------------

async function validateJsonl(path: string, opts: ValidateOptions): Promise<ValidationSummary> {
  const problems = new ProblemList(opts.maxProblems);
  const maxLineBytes = opts.maxLineBytes;
  let groups = 0;
  let trajectories = 0;
  for await (const line of readLines(path, { signal: opts.signal, maxLineBytes, skipOverlong: true })) {
    if (line.overlong) {
      groups++;
      problems.add(lineProblem(path, line.line, `line ${line.line} is longer than ${formatBytes(maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)}: a group must fit on one line within the limit`));
      continue;
    }
    if (isBlank(line.text)) continue;
    groups++;
    const parsed = parseLineForValidation(path, line, problems);
    if (!parsed) continue;
    const { doc, value } = parsed;
    trajectories += trajectoryCount(value);
    // Past the limit only the counts are still wanted, once an error is known.
    if (problems.truncated && problems.hasError) continue;
    const found = groupProblems(doc, value, [], `line ${line.line}`, true);
    if (line.invalidUtf8) found.push(doc.problem(Math.max(0, line.text.indexOf('\uFFFD')), 1, `line ${line.line} ${INVALID_UTF8}`, 'warning'));
    problems.addAll(found.sort(byPosition));
  }
  const fileBytes = (await stat(path)).size;
  if (groups === 0) problems.add(lineProblem(path, 1, 'The file is empty'));
  return { file: path, format: 'jsonl', groups, trajectories, problems: problems.items, truncated: problems.truncated, fileBytes };
}

async function* readJsonl(path: string, opts: ReadOptions): AsyncGenerator<GroupRecord> {
  for await (const { index, line, doc, value } of readJsonLines(path, { signal: opts.signal, maxLineBytes: opts.maxLineBytes, start: opts.startGroup })) {
    if (opts.trusted && isObject(value) && Array.isArray(value.trajectories)) {
      // The line's own bytes stand in for the serialized size (the same for compact JSON).
      const group = value as unknown as TrajectoryGroup;
      yield { index, line: line.line, endLine: line.line, bytes: line.byteEnd - line.byteStart, trajectories: group.trajectories.length, group };
      continue;
    }
    const group = parseGroup(doc, value, [], `line ${line.line}`, true);
    yield { index, line: line.line, endLine: line.line, bytes: byteLength(group), trajectories: group.trajectories.length, group };
  }
}

// --- JSON ----------------------------------------------------------------------------------

type Shape =
  | { kind: 'request'; groups: unknown[]; split?: string }
  | { kind: 'array'; groups: unknown[] }
  | { kind: 'single'; groups: unknown[] };

/** Where group `i` sits in the document. */
function groupPath(shape: Shape, i: number): JsonPath {
  if (shape.kind === 'single') return [];
  return shape.kind === 'request' ? ['trajectory_groups', i] : [i];
}

async function validateJson(path: string, opts: ValidateOptions): Promise<ValidationSummary> {
  const loaded = await loadJson(path, opts);
  const summary: ValidationSummary = {
    file: path,
    format: 'json',
    groups: 0,
    trajectories: 0,
    problems: [],
    truncated: false,
    fileBytes: loaded.fileBytes,
  };
  if ('problem' in loaded) {
    summary.problems.push(loaded.problem);
    return summary;
  }
  const { doc, value } = loaded;
  const found: Problem[] = [...loaded.warnings];
  const max = opts.maxProblems ?? 1000;
  const shape = shapeOf(doc, value, found);
  if (shape) {
    if (shape.kind === 'request' && shape.split !== undefined) summary.split = shape.split;
    summary.groups = shape.groups.length;
    for (const [i, g] of shape.groups.entries()) {
      summary.trajectories += trajectoryCount(g);
      if (found.length > max && found.some((p) => p.severity === 'error')) continue;
      if (i % 64 === 0) opts.signal?.throwIfAborted();
      const base = groupPath(shape, i);
      found.push(...groupProblems(doc, g, base, base.length ? formatPath(base) : 'The file', false));
    }
    if (shape.groups.length === 0) {
      found.push(doc.problem(doc.locate(shape.kind === 'request' ? ['trajectory_groups'] : []).offset, 1, 'The file holds no trajectory groups: there is nothing to upload', 'warning'));
    }
  }
  summary.truncated = found.length > max;
  // Errors first, so a cut never hides that the file has one.
  const rank = (p: Problem) => (p.severity === 'error' ? 0 : 1);
  summary.problems = [...found].sort((a, b) => rank(a) - rank(b)).slice(0, max).sort(byPosition);
  return summary;
}

async function* readJson(path: string, opts: ReadOptions): AsyncGenerator<GroupRecord> {
  const loaded = await loadJson(path, opts);
  if ('problem' in loaded) throw new ProblemError(loaded.problem);
  const { doc, value } = loaded;
  const shapeProblems: Problem[] = [];
  const shape = shapeOf(doc, value, shapeProblems);
  const firstError = shapeProblems.find((p) => p.severity === 'error');
  if (!shape || firstError) throw new ProblemError(firstError ?? lineProblem(path, 1, 'Not a trajectory file'));
  const spans = groupSpans(doc.text, shape.kind);
  for (let i = opts.startGroup ?? 0; i < shape.groups.length; i++) {
    opts.signal?.throwIfAborted();
    const base = groupPath(shape, i);
    const group = parseGroup(doc, shape.groups[i], base, base.length ? formatPath(base) : 'The file', false);
    const span = spans[i] ?? { line: 1, endLine: 1 };
    yield { index: i, line: span.line, endLine: span.endLine, bytes: byteLength(group), trajectories: group.trajectories.length, group };
  }
}

type Loaded = { fileBytes: number } & ({ problem: Problem } | { doc: JsonText; value: unknown; warnings: Problem[] });

// V8 cannot hold a longer string (0x1fffffe8 UTF-16 code units).
const MAX_JSON_BYTES = 0x1fffffe8;

async function loadJson(path: string, opts: { signal?: AbortSignal; maxJsonBytes?: number }): Promise<Loaded> {
  opts.signal?.throwIfAborted();
  const fileBytes = (await stat(path)).size;
  const limit = Math.min(opts.maxJsonBytes ?? MAX_JSON_BYTES, MAX_JSON_BYTES);
  if (fileBytes > limit) {
    return {
      fileBytes,
      problem: lineProblem(path, 1, `The file is too large to read as one JSON document (${formatBytes(fileBytes)}, limit ${formatBytes(limit)}): store one group per line in a .jsonl file instead`),
    };
  }
  const bytes = await readFile(path, { signal: opts.signal }).catch((e: unknown) => {
    throw opts.signal?.aborted ? opts.signal.reason : e;
  });
  let text = bytes.toString('utf8');
  // Columns count from after a byte order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (isBlank(text)) return { fileBytes, problem: lineProblem(path, 1, 'The file is empty') };
  const doc = new JsonText(path, text);
  const deep = tooDeepAt(text);
  if (deep >= 0) return { fileBytes, problem: doc.problem(deep, 1, `The file ${TOO_DEEP}`) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const hint = (code: string) => (code === 'EndOfFileExpected' ? ' (one group per line belongs in a .jsonl file)' : undefined);
    return { fileBytes, problem: doc.syntaxProblem(hint) ?? lineProblem(path, 1, 'Invalid JSON') };
  }
  const warnings: Problem[] = [];
  if (text.includes('\uFFFD') && !isValidUtf8(bytes)) warnings.push(doc.problem(text.indexOf('\uFFFD'), 1, `The file ${INVALID_UTF8}`, 'warning'));
  return { fileBytes, doc, value, warnings };
}

/** Which of the accepted shapes a JSON document has; problems of the top level go to `out`. */
function shapeOf(doc: JsonText, value: unknown, out: Problem[]): Shape | undefined {
  if (Array.isArray(value)) return { kind: 'array', groups: value };
  const at = (path: JsonPath, message: string, at: 'value' | 'key' = 'value') => {
    const { offset, length } = doc.locate(path, at);
    out.push(doc.problem(offset, length, message, 'error', path));
  };
  if (!isObject(value)) {
    at([], `Expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}; the file holds a ${kindOf(value)}`);
    return undefined;
  }
  if ('trajectory_groups' in value) {
    for (const key of Object.keys(value)) {
      if (key !== 'split' && key !== 'trajectory_groups') at([key], `${key}: unknown field (the file's object holds "split" and "trajectory_groups")`, 'key');
    }
    let split: string | undefined;
    if ('split' in value) {
      if (typeof value.split !== 'string') at(['split'], `split: expected string, received ${kindOf(value.split)}`);
      else if (value.split === '') at(['split'], 'split: must not be empty');
      else split = value.split;
    }
    if (!Array.isArray(value.trajectory_groups)) {
      at(['trajectory_groups'], `trajectory_groups: expected array, received ${kindOf(value.trajectory_groups)}`);
      return undefined;
    }
    return { kind: 'request', groups: value.trajectory_groups, split };
  }
  // A bare trajectory is read as a group here; groupProblems explains what to do with it.
  if ('trajectories' in value || 'messages_and_choices' in value) return { kind: 'single', groups: [value] };
  at([], 'Expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}');
  return undefined;
}

/** `where` names the group in a hint: "line 7", "trajectory_groups[3]" or "The file". */
function groupProblems(doc: JsonText, value: unknown, base: JsonPath, where: string, jsonl: boolean): Problem[] {
  const prefix = base.length ? `${formatPath(base)}: ` : '';
  if (!isObject(value)) {
    return [doc.problem(doc.locate(base).offset, 1, `${prefix}expected a group {"trajectories": [...]}, received ${kindOf(value)}`, 'error', base)];
  }
  if (!('trajectories' in value) && 'messages_and_choices' in value) {
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
  const r = TrajectoryGroup.safeParse(value);
  return r.success ? [] : doc.issueProblems(r.error.issues, value, base);
}

function parseGroup(doc: JsonText, value: unknown, base: JsonPath, where: string, jsonl: boolean): TrajectoryGroup {
  const r = TrajectoryGroup.safeParse(value);
  // The parsed JSON itself, not zod's copy: a record key such as "__proto__" survives only there.
  if (r.success) return value as TrajectoryGroup;
  const first = groupProblems(doc, value, base, where, jsonl).sort(byPosition)[0];
  throw new ProblemError(first ?? doc.problem(0, 1, `${where} is not a valid trajectory group`));
}

/** 1-based line spans of the groups of a JSON document, found without building a tree. */
function groupSpans(text: string, kind: Shape['kind']): { line: number; endLine: number }[] {
  const spans: { line: number; endLine: number }[] = [];
  // Per open object: its group index when it is a group.
  const open: (number | undefined)[] = [];
  let depth = 0; // objects and arrays open around the current token
  const groupDepth = kind === 'single' ? 0 : kind === 'array' ? 1 : 2;
  visit(text, {
    onObjectBegin: (_offset, _length, startLine, _startCharacter, pathSupplier) => {
      let index: number | undefined;
      if (depth === groupDepth) {
        const path = pathSupplier();
        if (kind === 'single') index = 0;
        else if (kind === 'array' && typeof path[0] === 'number') index = path[0];
        else if (kind === 'request' && path[0] === 'trajectory_groups' && typeof path[1] === 'number') index = path[1];
      }
      if (index !== undefined) spans[index] = { line: startLine + 1, endLine: startLine + 1 };
      open.push(index);
      depth++;
    },
    onObjectEnd: (_offset, _length, startLine) => {
      depth--;
      const i = open.pop();
      if (i !== undefined) spans[i]!.endLine = startLine + 1;
    },
    onArrayBegin: () => {
      depth++;
    },
    onArrayEnd: () => {
      depth--;
    },
  });
  return spans;
}

// --- shared --------------------------------------------------------------------------------

function trajectoryCount(group: unknown): number {
  return isObject(group) && Array.isArray(group.trajectories) ? group.trajectories.length : 0;
}

function byteLength(group: TrajectoryGroup): number {
  return Buffer.byteLength(JSON.stringify(group), 'utf8');
}
