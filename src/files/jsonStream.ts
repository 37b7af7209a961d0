/**
 * The streamed path of the `.json` reader (jsonFile.ts): a document larger than `streamJsonAbove`
 * is cut into its groups by src/files/jsonScan.ts, so memory is bounded by the largest group; the
 * problems and group texts are those of the read-whole path. No `vscode` import.
 */
import { formatPath } from '../api/errors';
import { formatBytes } from '../common/format';
import { kindOf } from './issues';
import { scanJson } from './jsonScan';
import { InvalidUtf8Error, JsonScanError } from './jsonScanEvents';
import { isSingleKey, jsonlHint, memberProblem, recordMember, SHAPES, syntax } from './jsonShapes';
import { JsonText, SYNTAX, type JsonPath } from './jsonText';
import { DEFAULT_MAX_LINE_BYTES } from './lines';
import { lineProblem, MAX_DEPTH, ProblemError, TOO_DEEP, tooDeepAt, type Problem } from './problems';
import type { ValidationSummary } from './reader';

export type Streamed = { index: number; doc: JsonText; value: unknown; base: JsonPath; endLine: number } | { index: number; problem: Problem };

/**
 * The groups of a streamed document from `start` on (earlier ones are cut out but not parsed).
 * A fault of the outer structure is thrown as a ProblemError; a group that is not JSON is
 * yielded as a problem. With `summary`, top-level members are recorded there and their problems
 * added to `found`.
 */
export async function* streamGroupsIter(
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
        : e.message + (e.message.includes(SYNTAX.moreContent) ? (jsonlHint('EndOfFileExpected') ?? '') : '');
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
export class NotAGroupList extends ProblemError {}

/** A streamed document that is one group: read whole instead (it must fit the group limit). */
export class SingleGroup extends Error {}

function scalarKind(text: string): string {
  const c = text.charAt(0);
  if (c === '"') return 'string';
  if (c === 't' || c === 'f') return 'boolean';
  if (c === 'n') return 'null';
  return 'number';
}
