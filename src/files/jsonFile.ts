/**
 * `.json` trajectory files: `{split?, trajectory_groups, ...}`, an array of groups, or one group.
 * Files up to `streamJsonAbove` (16 MiB) are read whole and checked with exact positions from one
 * syntax tree. Larger ones are streamed (jsonStream.ts over jsonScan.ts): memory is bounded by the largest
 * group, never by the file, and positions stay exact. Both paths give the same problems and the
 * same group texts (test/unit/files/jsonFile.test.ts runs every fixture through both).
 */
import { visit } from 'jsonc-parser';
import { firstInvalidUtf8, isValidUtf8, DEFAULT_MAX_LINE_BYTES } from './lines';
import { openRegular, readRange, statRegular } from '../common/regular';
import { formatBytes } from '../common/format';
import {
  byPosition,
  INVALID_UTF8,
  isBlank,
  lineProblem,
  ProblemError,
  TOO_DEEP,
  tooDeepAt,
  type Problem,
} from './problems';
import { isObject } from '../api/json';
import { kindOf } from './issues';
import { JsonText, type JsonPath } from './jsonText';
import { groupPath, isSingleKey, jsonlHint, memberProblem, recordMember, SHAPES, syntax, whereOf, type Shape } from './jsonShapes';
import { NotAGroupList, SingleGroup, streamGroupsIter } from './jsonStream';
import { checkGroup, groupProblems, trajectoryCount, type GroupRecord, type ReadOptions, type ValidateOptions, type ValidationSummary } from './reader';

export const DEFAULT_STREAM_JSON_ABOVE = 16 * 1024 * 1024;

export async function validateJsonFile(path: string, opts: ValidateOptions): Promise<ValidationSummary> {
  opts.signal?.throwIfAborted();
  const st = await statRegular(path);
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
  const st = await statRegular(path);
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
  // A regular file, read to the size its handle has (never to an end that keeps moving); one that
  // grew past the limit since it was measured is streamed instead.
  const { handle, stat } = await openRegular(path);
  let bytes: Buffer;
  try {
    if (stat.size > (limit ?? DEFAULT_STREAM_JSON_ABOVE)) return undefined;
    bytes = await readRange(handle, 0, stat.size, signal);
  } catch (e) {
    throw signal?.aborted ? signal.reason : e;
  } finally {
    await handle.close();
  }
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

/** The source text of a top-level member's value. */
function memberText(doc: JsonText, key: string): string {
  const node = doc.root?.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1];
  return node ? doc.text.slice(node.offset, node.offset + node.length) : 'null';
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
