// Over 300 lines: the JSON-syntax and zod-issue mappers share the position machinery they are built on.
/**
 * Problems found in a JSON or JSONL file, each with the exact place it points at, and the
 * machinery that turns JSON syntax errors and zod issues into them. No `vscode` import: the
 * extension maps problems to Diagnostics.
 *
 * Positions are 1-based; columns count UTF-16 code units (as VS Code positions do) from the start
 * of the line, after a byte order mark on line 1. `endLine`/`endColumn` are exclusive.
 */
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type Node, type ParseError, type ParseOptions } from 'jsonc-parser';
import type { z } from 'zod';
import { readLines, type Line } from './lines';
import { formatPath, InputError } from '../api/errors';

export interface Problem {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
  /** Where in the document (for JSONL: in the line's value) the problem is. */
  path?: (string | number)[];
  severity: 'error' | 'warning';
  /** In a Parquet file (line and column are then 1): the 0-based row and group it is in, when known. */
  row?: number;
  group?: number;
  /**
   * Also reported by VS Code itself where a document is open: `json` for JSON syntax (the JSON
   * language service checks every .json file), `schema` for what the generated JSON Schema of
   * `*.trajectories.json` checks. The extension leaves those out there, so a problem shows once.
   */
  shownBy?: 'json' | 'schema';
}

export type JsonPath = (string | number)[];
type Issue = z.core.$ZodIssue;

export const DEFAULT_MAX_PROBLEMS = 1000;

/** Keeps at most `max` problems; `truncated` once one more was offered. */
export class ProblemList {
  readonly items: Problem[] = [];
  truncated = false;
  /** Errors seen, kept or not. */
  errors = 0;
  constructor(readonly max: number = DEFAULT_MAX_PROBLEMS) {}

  /** Whether an error is in the list: a full list of warnings must not hide a later error. */
  get hasError(): boolean {
    return this.errors > 0;
  }

  /** False once the list is full (the problem was dropped, unless an error displaced a warning). */
  add(p: Problem): boolean {
    if (p.severity === 'error') this.errors++;
    if (this.items.length >= this.max) {
      this.truncated = true;
      if (p.severity === 'error') {
        const w = this.items.findIndex((x) => x.severity === 'warning');
        if (w >= 0) this.items[w] = p;
      }
      return false;
    }
    this.items.push(p);
    return true;
  }

  addAll(ps: readonly Problem[]): void {
    for (const p of ps) if (!this.add(p)) return;
  }
}

/** Deepest nesting of arrays and objects a file may have: deeper ones overflow recursive parsers. */
export const MAX_DEPTH = 512;

/** The offset where `text` nests deeper than `limit` arrays/objects, or -1. Iterative, not recursive. */
export function tooDeepAt(text: string, limit: number = MAX_DEPTH): number {
  // Fewer opening brackets than the limit cannot nest deeper: counted with the native indexOf,
  // this settles almost every line without a scan in JavaScript.
  if (fewerThan(text, 0x7b, 0x5b, limit + 1)) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** Whether `text` holds fewer than `n` of the characters `a` and `b` together. */
function fewerThan(text: string, a: number, b: number, n: number): boolean {
  let count = 0;
  for (const code of [a, b]) {
    const ch = String.fromCharCode(code);
    for (let i = text.indexOf(ch); i >= 0; i = text.indexOf(ch, i + 1)) if (++count >= n) return false;
  }
  return true;
}

export const TOO_DEEP = `is nested deeper than ${MAX_DEPTH} levels of arrays and objects`;

/**
 * The non-blank lines of a JSONL file that validated, parsed, from the `start`-th on (earlier
 * ones are skipped without parsing). A line that is not JSON is thrown as a ProblemError.
 */
export async function* readJsonLines(
  path: string,
  opts: { signal?: AbortSignal; maxLineBytes?: number; start?: number },
): AsyncGenerator<{ index: number; line: Line; doc: JsonText; value: unknown }> {
  const start = opts.start ?? 0;
  let index = -1;
  for await (const line of readLines(path, { signal: opts.signal, maxLineBytes: opts.maxLineBytes })) {
    if (isBlank(line.text)) continue;
    index++;
    if (index < start) continue;
    const doc = new JsonText(path, line.text, line.line, false);
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      throw new ProblemError(doc.syntaxProblem() ?? lineProblem(path, line.line, 'Invalid JSON'));
    }
    yield { index, line, doc, value };
  }
}

/**
 * Parses one JSONL line for validation: a line nested too deep or not valid JSON adds its problem
 * to `problems` and gives undefined; otherwise the parsed value and its position finder.
 */
export function parseLineForValidation(
  path: string,
  line: { line: number; text: string },
  problems: ProblemList,
): { doc: JsonText; value: unknown } | undefined {
  const doc = new JsonText(path, line.text, line.line, false);
  const deep = tooDeepAt(line.text);
  if (deep >= 0) {
    problems.add(doc.problem(deep, 1, `line ${line.line} ${TOO_DEEP}`));
    return undefined;
  }
  try {
    return { doc, value: JSON.parse(line.text) };
  } catch {
    const p = doc.syntaxProblem();
    if (p) problems.add(p);
    return undefined;
  }
}

/** A problem that points at the start of a line. */
export function lineProblem(file: string, line: number, message: string, severity: Problem['severity'] = 'error'): Problem {
  return { file, line, column: 1, endLine: line, endColumn: 2, message, severity };
}

export function byPosition(a: Problem, b: Problem): number {
  return a.line - b.line || a.column - b.column;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const STRICT_JSON: ParseOptions = { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false };

/**
 * One JSON text (a whole `.json` document, or one JSONL line) and how its offsets map to file
 * positions. The syntax tree is only built when a problem needs a position.
 */
export class JsonText {
  private lineStarts: number[] | undefined;
  private tree: Node | undefined | null = null;

  /**
   * @param firstLine file line of the text's first character.
   * @param multiline false for a JSONL line: the text is one file line whatever it contains.
   * @param firstColumn file column of the text's first character (a value cut out of a larger document).
   * @param basePath where the text sits in its document: paths given to `locate` start with it.
   */
  constructor(
    readonly file: string,
    readonly text: string,
    readonly firstLine = 1,
    readonly multiline = true,
    readonly firstColumn = 1,
    readonly basePath: JsonPath = [],
  ) {}

  position(offset: number): { line: number; column: number } {
    if (!this.multiline) return { line: this.firstLine, column: offset + this.firstColumn };
    const starts = (this.lineStarts ??= lineStarts(this.text));
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: this.firstLine + lo, column: offset - starts[lo]! + (lo === 0 ? this.firstColumn : 1) };
  }

  problem(offset: number, length: number, message: string, severity: Problem['severity'] = 'error', path?: JsonPath): Problem {
    const start = this.position(offset);
    const end = this.position(offset + Math.max(1, length));
    const p: Problem = { file: this.file, line: start.line, column: start.column, endLine: end.line, endColumn: end.column, message, severity };
    if (path) p.path = path;
    return p;
  }

  /** The syntax tree (jsonc-parser), for positions of values and keys. */
  get root(): Node | undefined {
    if (this.tree === null) this.tree = parseTree(this.text, [], STRICT_JSON);
    return this.tree;
  }

  /**
   * The first syntax error, or undefined when the text is valid JSON. Later errors are mostly
   * consequences of the first, so they are not reported.
   */
  syntaxProblem(hint?: (code: string) => string | undefined): Problem | undefined {
    const errors: ParseError[] = [];
    parse(this.text, errors, STRICT_JSON);
    const e = errors[0];
    if (e) {
      const code = printParseErrorCode(e.error);
      const comma = trailingComma(code, this.text, e.offset);
      if (comma !== undefined) return this.problem(comma, 1, 'Invalid JSON: trailing comma');
      return this.problem(e.offset, e.length, `Invalid JSON: ${describeSyntaxError(code, this.text, e.offset, e.length)}${hint?.(code) ?? ''}`);
    }
    try {
      JSON.parse(this.text);
      return undefined;
    } catch (err) {
      // jsonc-parser is more lenient than JSON.parse in corner cases; JSON.parse is what counts.
      const message = err instanceof Error ? err.message : String(err);
      const at = /position (\d+)/.exec(message);
      return this.problem(at ? Number(at[1]) : 0, 1, `Invalid JSON: ${message}`);
    }
  }

  /** Problems of zod `issues` found validating `value`, which sits at `base` in this text. */
  issueProblems(issues: readonly Issue[], value: unknown, base: JsonPath = []): Problem[] {
    return findings(issues, value, []).map((f) => {
      const full = [...base, ...f.path];
      const { offset, length } = this.locate(full, f.at);
      const where = formatPath(full);
      const p = this.problem(offset, length, where ? `${where}: ${f.message}` : f.message, f.severity ?? 'error', full);
      if (f.schema) p.shownBy = 'schema';
      return p;
    });
  }

  /** Offset and length of what a problem at `path` points at; the nearest existing ancestor otherwise. */
  locate(path: JsonPath, at: Finding['at'] = 'value'): { offset: number; length: number } {
    const root = this.root;
    if (!root) return { offset: 0, length: 1 };
    const base = this.basePath;
    const inText = base.every((p, i) => path[i] === p) ? path.slice(base.length) : [];
    let target = at === 'object' ? inText.slice(0, -1) : inText;
    let kind = at;
    for (;;) {
      const node = findNodeAtLocation(root, target);
      if (node) {
        if (kind === 'key' && node.parent?.type === 'property' && node.parent.children?.[0]) {
          const key = node.parent.children[0];
          return { offset: key.offset, length: key.length };
        }
        // An object or array is marked by its opening bracket, not its whole extent.
        const scalar = node.type !== 'object' && node.type !== 'array';
        return { offset: node.offset, length: scalar ? node.length : 1 };
      }
      if (target.length === 0) return { offset: root.offset, length: 1 };
      target = target.slice(0, -1);
      kind = 'value';
    }
  }
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/** The offset of a comma right before a closing bracket at `offset`, if that is the error. */
function trailingComma(code: string, text: string, offset: number): number | undefined {
  if (code !== 'PropertyNameExpected' && code !== 'ValueExpected') return undefined;
  if (text[offset] !== '}' && text[offset] !== ']') return undefined;
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === ',' ? i : undefined;
}

function describeSyntaxError(code: string, text: string, offset: number, length: number): string {
  switch (code) {
    case 'InvalidSymbol':
      return `unexpected ${JSON.stringify(text.slice(offset, offset + Math.min(length, 20)))}${text[offset] === "'" ? ' (strings and names need double quotes)' : ''}`;
    case 'PropertyNameExpected':
      return 'property name in double quotes expected';
    case 'InvalidCommentToken':
      return 'comments are not allowed';
    case 'UnexpectedEndOfString':
      return 'unterminated string (a line break inside a string must be written \\n)';
    case 'EndOfFileExpected':
      return 'more content after the end of the JSON value';
    case 'InvalidCharacter':
      return 'control character in a string (write it escaped, e.g. \\n or \\t)';
    default:
      // "CloseBraceExpected" -> "close brace expected"
      return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  }
}

// --- zod issues -> findings --------------------------------------------------------------

interface Finding {
  path: JsonPath;
  /** What to point at: the value, the key of the property, or the object that lacks the field. */
  at: 'value' | 'key' | 'object';
  message: string;
  severity?: Problem['severity'];
  /** The JSON Schema generated from the same zod schemas reports it too (all but refinements). */
  schema?: boolean;
}

function findings(issues: readonly Issue[], root: unknown, prefix: JsonPath): Finding[] {
  const out: Finding[] = [];
  for (const issue of issues) {
    const before = out.length;
    findingsOf(issue, root, prefix, out);
    if (issue.code !== 'custom') for (let i = before; i < out.length; i++) out[i]!.schema ??= true;
  }
  return out;
}

function findingsOf(issue: Issue, root: unknown, prefix: JsonPath, out: Finding[]): void {
  {
    const path = [...prefix, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
    const value = valueAt(root, path);
    const parent = valueAt(root, path.slice(0, -1));
    const last = path[path.length - 1];
    const missing = last !== undefined && isObject(parent) && !(String(last) in parent);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) out.push({ path: [...path, key], at: 'key', message: unknownKey(key, value) });
        break;
      case 'invalid_union':
        out.push(...unionFindings(issue, root, path, value, missing));
        break;
      case 'invalid_type':
        if (missing) out.push({ path, at: 'object', message: missingField(String(last), parent) });
        else {
          // "expected integer, received 1.5" says more than "received number".
          const received = issue.expected === 'int' && typeof value === 'number' ? String(value) : kindOf(value);
          out.push({ path, at: 'value', message: `expected ${typeName(issue.expected)}, received ${received}` });
        }
        break;
      case 'invalid_value':
        out.push(
          missing
            ? { path, at: 'object', message: 'required field is missing' }
            : { path, at: 'value', message: `expected ${oneOf(issue.values)}, received ${show(value)}` },
        );
        break;
      case 'invalid_format':
        out.push({
          path,
          at: 'value',
          message:
            issue.format === 'datetime'
              ? `expected an ISO 8601 date-time with seconds and a time zone, e.g. 2026-01-31T12:00:00Z; received ${show(value)}`
              : `expected a ${issue.format}, received ${show(value)}`,
        });
        break;
      case 'too_small':
        out.push({
          path,
          at: 'value',
          message: issue.origin === 'string' && Number(issue.minimum) === 1 ? 'must not be empty' : issue.message,
        });
        break;
      default:
        out.push({ path, at: 'value', message: issue.message });
    }
  }
}

function unionFindings(issue: Extract<Issue, { code: 'invalid_union' }>, root: unknown, path: JsonPath, value: unknown, missing: boolean): Finding[] {
  // A discriminated union whose key matched no option: `path` ends with the discriminator.
  if (issue.discriminator !== undefined && 'options' in issue && issue.errors.length === 0) {
    if (missing) return [{ path, at: 'object', message: 'required field is missing' }];
    return [{ path, at: 'value', message: `expected ${oneOf(issue.options ?? [])}, received ${show(value)}` }];
  }
  if (issue.errors.length === 0) return [{ path, at: 'value', message: issue.message }];
  // Items of messages_and_choices: a message when it has `role`, a choice otherwise (as the server decides).
  const field = [...path].reverse().find((p) => typeof p === 'string');
  if (field === 'messages_and_choices' && issue.errors.length === 2) {
    if (!isObject(value)) return [{ path, at: 'value', message: `expected object, received ${kindOf(value)}` }];
    if ('role' in value) return findings(issue.errors[0]!, root, path);
    if ('finish_reason' in value || 'message' in value) return findings(issue.errors[1]!, root, path);
    return [{ path, at: 'value', message: 'expected a chat message (with "role") or a choice (with "finish_reason" and "message")' }];
  }
  // Options that each only want another type: "expected number or boolean, received string".
  const types = issue.errors.map((e) => (e.length === 1 && e[0]!.code === 'invalid_type' && e[0]!.path.length === 0 ? e[0]!.expected : undefined));
  if (types.every((t) => t !== undefined)) {
    if (missing) {
      const parent = valueAt(root, path.slice(0, -1));
      return [{ path, at: 'object', message: isObject(parent) ? missingField(String(path[path.length - 1]), parent) : 'required field is missing' }];
    }
    const names = [...new Set(types.map((t) => typeName(t!)))];
    return [{ path, at: 'value', message: `expected ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}, received ${kindOf(value)}` }];
  }
  // Elsewhere: the option that came closest.
  const best = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
  return findings(best, root, path);
}

function missingField(field: string, parent: Record<string, unknown>): string {
  if (field === 'content' && typeof parent.role === 'string') return 'required field is missing: only assistant messages may leave out content (null is allowed)';
  if (field === 'tool_call_id' && parent.role === 'tool') return 'required field is missing: a tool message names the tool call it answers';
  return 'required field is missing';
}

function unknownKey(key: string, obj: unknown): string {
  const role = isObject(obj) && typeof obj.role === 'string' ? obj.role : undefined;
  if (role !== undefined && key === 'tool_calls' && role !== 'assistant') return `unknown field: only assistant messages have tool_calls, this is a ${role} message`;
  if (role !== undefined && key === 'tool_call_id' && role !== 'tool') return `unknown field: only tool messages have tool_call_id, this is a ${role} message`;
  return 'unknown field';
}

/** The value at `path` in `root` (own fields and array items only), or undefined. */
export function valueAt(root: unknown, path: JsonPath): unknown {
  let v = root;
  for (const p of path) {
    if (Array.isArray(v) && typeof p === 'number') v = v[p];
    else if (isObject(v) && typeof p === 'string' && Object.prototype.hasOwnProperty.call(v, p)) v = v[p];
    else return undefined;
  }
  return v;
}

function typeName(expected: string): string {
  if (expected === 'record') return 'object';
  if (expected === 'int') return 'integer';
  return expected;
}

/** The JSON kind of a value, as named in messages. */
export function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && !Number.isFinite(v)) return 'a number out of range';
  return typeof v;
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (isObject(v) || Array.isArray(v)) return kindOf(v);
  return String(v as number | boolean | null | undefined);
}

function oneOf(values: readonly unknown[]): string {
  const shown = values.map((v) => JSON.stringify(v));
  if (shown.length <= 1) return shown[0] ?? 'nothing';
  return `one of ${shown.join(', ')}`;
}

/** A file that does not hold what a reader expected; `problem` says where. */
export class ProblemError extends InputError {
  constructor(readonly problem: Problem) {
    // A Parquet file has no lines: its problems name their row and group in the message.
    const at = /\.parquet$/i.test(problem.file) ? '' : `:${problem.line}:${problem.column}`;
    super(`${problem.file}${at}: ${problem.message}`, { file: problem.file, line: problem.line, column: problem.column });
  }
}

/** Whether a line holds nothing but whitespace (stops at the first other character). */
export function isBlank(text: string): boolean {
  return !/\S/.test(text);
}

export const INVALID_UTF8 = 'is not valid UTF-8: it would be sent altered (U+FFFD in place of the invalid bytes), so it is not sent; save the file as UTF-8';

/** The error of a line that is not valid UTF-8, at the column of its first invalid sequence. */
export function invalidUtf8Problem(path: string, line: Line): Problem {
  return new JsonText(path, line.text, line.line, false).problem(line.invalidUtf8At ?? Math.max(0, line.text.indexOf('\uFFFD')), 1, `line ${line.line} ${INVALID_UTF8}`, 'error');
}
