// Over 300 lines: the read-whole and the streamed paths sit side by side so they keep giving the same problems and groups.
/**
 * `.json` trajectory files: `{split?, trajectory_groups, ...}`, an array of groups, or one group.
 * Files up to `streamJsonAbove` (16 MiB) are read whole and checked with exact positions from one
 * syntax tree. Larger ones are streamed (src/files/jsonScan.ts): memory is bounded by the largest
 * group, never by the file, and positions stay exact. Both paths give the same problems and the
 * same group texts (test/unit/files/jsonFile.test.ts runs every fixture through both).
 */
import { readFile, stat } from 'node:fs/promises';
import { visit } from 'jsonc-parser';
import { formatPath } from '../api/errors';
import { firstInvalidUtf8, isValidUtf8, DEFAULT_MAX_LINE_BYTES } from './lines';
import { formatBytes } from '../common/format';
import { InvalidUtf8Error, JsonScanError, scanJson } from './jsonScan';
import {
  byPosition,
  INVALID_UTF8,
  isBlank,
  lineProblem,
  ProblemError,
  MAX_DEPTH,
  TOO_DEEP,
  tooDeepAt,
  type Problem,
} from './problems';
import { isObject } from '../api/json';
import { kindOf } from './issues';
import { JsonText, type JsonPath } from './jsonText';
import { checkGroup, groupProblems, trajectoryCount, type GroupRecord, type ReadOptions, type ValidateOptions, type ValidationSummary } from './reader';

export const DEFAULT_STREAM_JSON_ABOVE = 16 * 1024 * 1024;
const SHAPES = 'Expected {"trajectory_groups": [...]}, an array of groups or one group {"trajectories": [...]}';

type Shape = 'request' | 'array' | 'single';

/** Where group `i` sits in the document. */
function groupPath(shape: Shape, i: number): JsonPath {
  if (shape === 'single') return [];
  return shape === 'request' ? ['trajectory_groups', i] : [i];
}
const whereOf = (base: JsonPath) => (base.length ? formatPath(base) : 'The file');

export async function validateJsonFile(path: string, opts: ValidateOptions): Promise<ValidationSummary> {
  opts.signal?.throwIfAborted();
  const st = await stat(path);
  const summary: ValidationSummary = { file: path, format: 'json', groups: 0, trajectories: 0, problems: [], truncated: false, fileBytes: st.size, mtimeMs: st.mtimeMs, groupTrajectories: [] };
  const found: Problem[] = [];
  const max = opts.maxProblems ?? 1000;
  const onGroup = (doc: JsonText, value: unknown, base: JsonPath) => {
    const n = trajectoryCount(value);
    summary.trajectories += n;
    summary.groupTrajectories[summary.groupTrajectories.length - 1] = n;
    // Past the limit only the counts are still wanted, once an error is known.
    if (!(found.length > max && found.some((p) => p.severity === 'error'))) found.push(...groupProblems(doc, value, base, whereOf(base), false));
  };
  // A JSON syntax error is the one problem of the file (later ones are mostly its consequences),
  // as for a document read whole.
  const fatal = (p: Problem) => {
    Object.assign(summary, { groups: 0, trajectories: 0, split: undefined, members: undefined, groupTrajectories: [] });
    found.length = 0;
    found.push(p);
  };
  let whole = await loadWhole(path, st.size, opts.streamJsonAbove, opts.signal);
  if (!whole) {
    try {
      for await (const g of streamGroupsIter(path, opts, 0, summary, found)) {
        summary.groups++;
        summary.groupTrajectories.push(0);
        if (!('problem' in g)) onGroup(g.doc, g.value, g.base);
        else if (g.problem.shownBy === 'json') {
          fatal(g.problem);
          break;
        } else found.push(g.problem);
      }
    } catch (e) {
      if (e instanceof NotAGroupList) {
        // Problems of other members stay, as for a whole read; there is no group list.
        Object.assign(summary, { groups: 0, trajectories: 0, split: undefined, members: undefined, groupTrajectories: [] });
        found.push(e.problem);
      }
      // A fault of the top level means no group list: the one problem, as for a whole read.
      else if (e instanceof ProblemError) fatal(e.problem);
      else if (e instanceof SingleGroup) {
        Object.assign(summary, { groups: 0, trajectories: 0, split: undefined, members: undefined, groupTrajectories: [] });
        found.length = 0;
        whole = await loadWhole(path, st.size, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, opts.signal);
        whole ??= { problem: lineProblem(path, 1, singleTooLarge(opts.maxLineBytes)) };
      } else throw e;
    }
  }
  if (whole) {
    if ('problem' in whole) found.push(whole.problem);
    else {
      found.push(...whole.warnings);
      const shape = shapeOf(whole.doc, whole.value, found, summary);
      if (shape) {
        summary.groups = shape.groups.length;
        for (const [i, g] of shape.groups.entries()) {
          if (i % 64 === 0) opts.signal?.throwIfAborted();
          summary.groupTrajectories.push(0);
          onGroup(whole.doc, g, groupPath(shape.kind, i));
        }
        if (shape.groups.length === 0) noGroups(whole.doc, shape.kind, found);
      }
    }
  }
  summary.truncated = found.length > max;
  // Errors first, so a cut never hides that the file has one.
  const rank = (p: Problem) => (p.severity === 'error' ? 0 : 1);
  summary.problems = [...found].sort((a, b) => rank(a) - rank(b)).slice(0, max).sort(byPosition);
  return summary;
}

const singleTooLarge = (maxLineBytes: number | undefined) =>
  `The file is one group larger than ${formatBytes(maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)}: split it into several groups under "trajectory_groups", or one group per line in a .jsonl file`;

export async function* readJsonGroups(path: string, opts: ReadOptions): AsyncGenerator<GroupRecord> {
  opts.signal?.throwIfAborted();
  const st = await stat(path);
  const start = opts.startGroup ?? 0;
  let whole = await loadWhole(path, st.size, opts.streamJsonAbove, opts.signal);
  // Validated just before, and counted: the groups go out as they are, unparsed.
  const counts = opts.trusted ? opts.groupTrajectories : undefined;
  if (!whole) {
    try {
      for await (const g of streamGroupsIter(path, { ...opts, unparsed: counts !== undefined }, start)) {
        if ('problem' in g) throw new ProblemError(g.problem);
        if (!counts) checkGroup(g.doc, g.value, g.base, whereOf(g.base), false, opts.trusted);
        const json = g.doc.text;
        const trajectories = counts ? (counts[g.index] ?? 0) : trajectoryCount(g.value);
        yield { index: g.index, line: g.doc.firstLine, endLine: g.endLine, bytes: Buffer.byteLength(json), trajectories, json };
      }
      return;
    } catch (e) {
      if (!(e instanceof SingleGroup)) throw e;
      whole = await loadWhole(path, st.size, opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, opts.signal);
      whole ??= { problem: lineProblem(path, 1, singleTooLarge(opts.maxLineBytes)) };
    }
  }
  if ('problem' in whole) throw new ProblemError(whole.problem);
  const problems: Problem[] = [];
  const shape = shapeOf(whole.doc, whole.value, problems, undefined);
  const firstError = [...whole.warnings, ...problems].find((p) => p.severity === 'error');
  if (!shape || firstError) throw new ProblemError(firstError ?? lineProblem(path, 1, 'Not a trajectory file'));
  const spans = groupSpans(whole.doc.text, shape.kind);
  for (let i = start; i < shape.groups.length; i++) {
    opts.signal?.throwIfAborted();
    const base = groupPath(shape.kind, i);
    checkGroup(whole.doc, shape.groups[i], base, whereOf(base), false, opts.trusted);
    const span = spans[i] ?? { line: 1, endLine: 1, start: 0, end: whole.doc.text.length };
    const json = whole.doc.text.slice(span.start, span.end);
    yield { index: i, line: span.line, endLine: span.endLine, bytes: Buffer.byteLength(json), trajectories: trajectoryCount(shape.groups[i]), json };
  }
}

// --- whole documents -------------------------------------------------------------------------

type Whole = { problem: Problem } | { doc: JsonText; value: unknown; warnings: Problem[] };

/** The document read whole, or undefined when it is larger than `limit` (then it is streamed). */
async function loadWhole(path: string, size: number, limit: number | undefined, signal: AbortSignal | undefined): Promise<Whole | undefined> {
  if (size > (limit ?? DEFAULT_STREAM_JSON_ABOVE)) return undefined;
  const bytes = await readFile(path, { signal }).catch((e: unknown) => {
    throw signal?.aborted ? signal.reason : e;
  });
  let text = bytes.toString('utf8');
  // Columns count from after a byte order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (isBlank(text)) return { problem: lineProblem(path, 1, 'The file is empty') };
  const doc = new JsonText(path, text);
  const deep = tooDeepAt(text);
  if (deep >= 0) return { problem: doc.problem(deep, 1, `The file ${TOO_DEEP}`) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { problem: syntax(doc.syntaxProblem(jsonlHint) ?? lineProblem(path, 1, 'Invalid JSON')) };
  }
  const warnings: Problem[] = [];
  if (text.includes('\uFFFD') && !isValidUtf8(bytes)) {
    // Refused at its place: sent, it would be altered (U+FFFD).
    const at = bytes.toString('utf8', 0, firstInvalidUtf8(bytes)).replace(/^\uFEFF/, '').length;
    warnings.push(doc.problem(at, 1, `The file ${INVALID_UTF8}`, 'error'));
  }
  return { doc, value, warnings };
}

/** A JSON syntax problem: VS Code's JSON language service reports it too in an open document. */
function syntax(p: Problem): Problem {
  p.shownBy = 'json';
  return p;
}

const jsonlHint = (code: string) => (code === 'EndOfFileExpected' ? ' (one group per line belongs in a .jsonl file)' : undefined);

/**
 * Which of the accepted shapes a JSON document has; problems of the top level go to `out`, and
 * the split and other top-level members to `summary`.
 */
function shapeOf(doc: JsonText, value: unknown, out: Problem[], summary: ValidationSummary | undefined): { kind: Shape; groups: unknown[] } | undefined {
  if (Array.isArray(value)) return { kind: 'array', groups: value };
  const at = (path: JsonPath, message: string) => {
    const { offset, length } = doc.locate(path);
    out.push(doc.problem(offset, length, message, 'error', path));
  };
  if (!isObject(value)) {
    at([], `${SHAPES}; the file holds a ${kindOf(value)}`);
    return undefined;
  }
  if ('trajectory_groups' in value) {
    const groups = value.trajectory_groups;
    for (const key of Object.keys(value)) {
      if (key === 'trajectory_groups') continue;
      const member = memberProblem(key, value[key]);
      if (member) at([key], member);
      else if (summary && Array.isArray(groups)) recordMember(summary, key, value[key], memberText(doc, key));
    }
    if (!Array.isArray(groups)) {
      at(['trajectory_groups'], `trajectory_groups: expected array, received ${kindOf(groups)}`);
      return undefined;
    }
    return { kind: 'request', groups };
  }
  // A bare trajectory is read as a group here; groupProblems explains what to do with it.
  if (Object.keys(value).some(isSingleKey)) return { kind: 'single', groups: [value] };
  at([], SHAPES);
  return undefined;
}

/** A member that makes a document one group (a compact group may have only `exceptions`) or a bare trajectory. */
const isSingleKey = (key: string) => key === 'trajectories' || key === 'exceptions' || key === 'messages_and_choices' || key === 'exchanges';

/** The source text of a top-level member's value. */
function memberText(doc: JsonText, key: string): string {
  const node = doc.root?.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1];
  return node ? doc.text.slice(node.offset, node.offset + node.length) : 'null';
}

/** What the service refuses in a top-level member besides the groups. */
function memberProblem(key: string, value: unknown): string | undefined {
  if (key !== 'split' || value === null) return undefined;
  if (typeof value !== 'string') return `split: expected string, received ${kindOf(value)}`;
  return value === '' ? 'split: must not be empty' : undefined;
}

function noGroups(doc: JsonText, kind: Shape, out: Problem[]): void {
  out.push(doc.problem(doc.locate(kind === 'request' ? ['trajectory_groups'] : []).offset, 1, 'The file holds no trajectory groups: there is nothing to upload', 'warning'));
}

/** 1-based line spans and offsets of the groups of a JSON document, found without building a tree. */
function groupSpans(text: string, kind: Shape): { line: number; endLine: number; start: number; end: number }[] {
  const spans: { line: number; endLine: number; start: number; end: number }[] = [];
  // Per open object: its group index when it is a group.
  const open: (number | undefined)[] = [];
  let depth = 0; // objects and arrays open around the current token
  const groupDepth = kind === 'single' ? 0 : kind === 'array' ? 1 : 2;
  visit(text, {
    onObjectBegin: (offset, _length, startLine, _startCharacter, pathSupplier) => {
      let index: number | undefined;
      if (depth === groupDepth) {
        const path = pathSupplier();
        if (kind === 'single') index = 0;
        else if (kind === 'array' && typeof path[0] === 'number') index = path[0];
        else if (kind === 'request' && path[0] === 'trajectory_groups' && typeof path[1] === 'number') index = path[1];
      }
      if (index !== undefined) spans[index] = { line: startLine + 1, endLine: startLine + 1, start: offset, end: offset + 1 };
      open.push(index);
      depth++;
    },
    onObjectEnd: (offset, length, startLine) => {
      depth--;
      const i = open.pop();
      if (i !== undefined) {
        spans[i]!.endLine = startLine + 1;
        spans[i]!.end = offset + length;
      }
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

// --- streamed documents ----------------------------------------------------------------------

type Streamed = { index: number; doc: JsonText; value: unknown; base: JsonPath; endLine: number } | { index: number; problem: Problem };

/**
 * The groups of a streamed document from `start` on (earlier ones are cut out but not parsed).
 * A fault of the outer structure is thrown as a ProblemError; a group that is not JSON is
 * yielded as a problem. With `summary`, top-level members are recorded there and their problems
 * added to `found`.
 */
async function* streamGroupsIter(
  path: string,
  opts: { signal?: AbortSignal; maxLineBytes?: number; streamChunkBytes?: number; unparsed?: boolean },
  start: number,
  summary?: ValidationSummary,
  found?: Problem[],
): AsyncGenerator<Streamed> {
  const maxBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let root: { container: 'array' | 'object'; line: number; column: number } | undefined;
  let groupsAt: { line: number; column: number } | undefined;
  let single = false;
  let groups = 0;
  try {
    for await (const ev of scanJson(path, { signal: opts.signal, streamMember: 'trajectory_groups', maxValueChars: maxBytes, chunkBytes: opts.streamChunkBytes })) {
      switch (ev.kind) {
        case 'root':
          root = ev;
          if (ev.container === 'array') groupsAt = ev;
          continue;
        case 'stream':
          groupsAt = ev;
          continue;
        case 'scalar': {
          const doc = new JsonText(path, ev.value.text, ev.value.line, true, ev.value.column);
          throw new ProblemError(doc.problem(0, ev.value.text.length, `${SHAPES}; the file holds a ${scalarKind(ev.value.text)}`, 'error', []));
        }
        case 'member': {
          const doc = new JsonText(path, ev.value.text, ev.value.line, true, ev.value.column, [ev.key]);
          let value: unknown;
          try {
            value = JSON.parse(ev.value.text);
          } catch {
            throw new ProblemError(syntax(doc.syntaxProblem() ?? doc.problem(0, 1, 'Invalid JSON')));
          }
          if (ev.key === 'trajectory_groups') {
            // Not an array (an array is streamed item by item).
            throw new NotAGroupList(doc.problem(0, 1, `trajectory_groups: expected array, received ${kindOf(value)}`, 'error', ['trajectory_groups']));
          }
          if (isSingleKey(ev.key)) single = true;
          const problem = memberProblem(ev.key, value);
          if (problem) {
            const p = doc.problem(0, ev.value.text.length, problem, 'error', [ev.key]);
            // Reading stops at the first error, as it does for a document read whole.
            if (!found) throw new ProblemError(p);
            found.push(p);
          } else if (summary) recordMember(summary, ev.key, value, ev.value.text);
          continue;
        }
        case 'item': {
          const index = ev.index;
          groups++;
          if (index < start) continue;
          opts.signal?.throwIfAborted();
          const base: JsonPath = root?.container === 'object' ? ['trajectory_groups', index] : [index];
          const doc = new JsonText(path, ev.value.text, ev.value.line, true, ev.value.column, base);
          if (opts.unparsed) {
            yield { index, doc, value: undefined, base, endLine: ev.value.endLine };
            continue;
          }
          // The scanner counted the nesting: the exact place is only looked for when it is too deep.
          const deep = ev.value.maxDepth > MAX_DEPTH ? tooDeepAt(ev.value.text) : -1;
          if (deep >= 0) {
            yield { index, problem: doc.problem(deep, 1, `${formatPath(base)} ${TOO_DEEP}`) };
            continue;
          }
          let value: unknown;
          try {
            value = JSON.parse(ev.value.text);
          } catch {
            yield { index, problem: syntax(doc.syntaxProblem() ?? doc.problem(0, 1, 'Invalid JSON')) };
            continue;
          }
          yield { index, doc, value, base, endLine: ev.value.endLine };
        }
      }
    }
  } catch (e) {
    if (e instanceof JsonScanError) {
      const message = e.tooLarge
        ? `A group is larger than ${formatBytes(maxBytes)}: split it, or store one group per line in a .jsonl file`
        : e.message + (/more content after the end/.test(e.message) ? (jsonlHint('EndOfFileExpected') ?? '') : '');
      const p: Problem = { file: path, line: e.line, column: e.column, endLine: e.line, endColumn: e.column + 1, message, severity: 'error' };
      throw new ProblemError(e.tooLarge || e instanceof InvalidUtf8Error ? p : syntax(p));
    }
    throw e;
  }
  if (!groupsAt) {
    if (single) throw new SingleGroup();
    throw new ProblemError(root ? { file: path, line: root.line, column: root.column, endLine: root.line, endColumn: root.column + 1, message: SHAPES, severity: 'error' } : lineProblem(path, 1, 'The file is empty'));
  }
  if (groups === 0) {
    const { line, column } = groupsAt;
    found?.push({ file: path, line, column, endLine: line, endColumn: column + 1, message: 'The file holds no trajectory groups: there is nothing to upload', severity: 'warning' });
  }
}

/** `trajectory_groups` is there but not an array. */
class NotAGroupList extends ProblemError {}

/** A streamed document that is one group: read whole instead (it must fit the group limit). */
class SingleGroup extends Error {}

function recordMember(summary: ValidationSummary, key: string, value: unknown, text: string): void {
  if (key !== 'split') (summary.members ??= {})[key] = text;
  else if (typeof value === 'string') summary.split = value;
}

function scalarKind(text: string): string {
  const c = text.charAt(0);
  if (c === '"') return 'string';
  if (c === 't' || c === 'f') return 'boolean';
  if (c === 'n') return 'null';
  return 'number';
}
