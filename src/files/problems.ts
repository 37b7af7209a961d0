/**
 * Problems found in a JSON or JSONL file, each with the exact place it points at; reading a JSONL
 * file's lines as JSON. A JSON text's positions and syntax errors are jsonText.ts, zod issues as
 * findings issues.ts. Format-generic: a format's own words come in from its reader. No `vscode`
 * import: the extension maps problems to Diagnostics.
 *
 * Positions are 1-based; columns count UTF-16 code units (as VS Code positions do) from the start
 * of the line, after a byte order mark on line 1. `endLine`/`endColumn` are exclusive.
 */
import { JsonText } from './jsonText';
import { readLines, type Line } from './lines';
import { InputError } from '../api/errors';

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
    yield { index, line, ...parseJsonLine(path, line) };
  }
}

/** One line parsed, with its text for the problems; a line that is not JSON is thrown as a ProblemError at its first syntax error. */
export function parseJsonLine(path: string, line: Line): { doc: JsonText; value: unknown } {
  const doc = new JsonText(path, line.text, line.line, false);
  try {
    return { doc, value: JSON.parse(line.text) };
  } catch {
    throw new ProblemError(doc.syntaxProblem() ?? lineProblem(path, line.line, 'Invalid JSON'));
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
