/**
 * One JSON text (a whole `.json` document, or one JSONL line) and how its offsets map to file
 * positions (src/files/problems.ts says how positions count), and the one wording of a JSON syntax
 * error, for problems in files and for any other JSON a user types (a feedback payload).
 */
import { findNodeAtLocation, parse, parseTree, printParseErrorCode, type Node, type ParseError, type ParseOptions } from 'jsonc-parser';
import type { z } from 'zod';
import { formatPath } from '../api/errors';
import { findings, type Finding, type IssueWording } from './issues';
import type { Problem } from './problems';

export type JsonPath = (string | number)[];
type Issue = z.core.$ZodIssue;

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
    const e = firstSyntaxError(this.text, hint);
    return e && this.problem(e.offset, e.length, `Invalid JSON: ${e.description}`);
  }

  /**
   * Problems of zod `issues` found validating `value`, which sits at `base` in this text. `wording`
   * is what the format knows better than the generic messages (src/files/trajectoryWording.ts).
   */
  issueProblems(issues: readonly Issue[], value: unknown, base: JsonPath = [], wording: IssueWording = {}): Problem[] {
    return findings(issues, value, [], wording).map((f) => {
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

/**
 * The first syntax error of `text` in words (`trailing comma`, `value expected: ...`, `unexpected '
 * (strings and names need double quotes)`...) and where it is, or undefined when the text is valid
 * JSON. Later errors are mostly consequences of the first, so they are not reported. `hint` adds to
 * the words of an error code (jsonc-parser's, e.g. `EndOfFileExpected`). The words never quote the
 * text: a file that is not JSON may hold a secret (a token file), and these words reach logs and
 * the agents' tools; the place says where.
 */
export function firstSyntaxError(text: string, hint?: (code: string) => string | undefined): { offset: number; length: number; description: string } | undefined {
  const errors: ParseError[] = [];
  parse(text, errors, STRICT_JSON);
  const e = errors[0];
  if (e) {
    const code = printParseErrorCode(e.error);
    const comma = trailingComma(code, text, e.offset);
    if (comma !== undefined) return { offset: comma, length: 1, description: SYNTAX.trailingComma };
    return { offset: e.offset, length: e.length, description: `${describeSyntaxError(code, text, e.offset, e.length)}${hint?.(code) ?? ''}` };
  }
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    // jsonc-parser is more lenient than JSON.parse in corner cases; JSON.parse is what counts.
    const message = err instanceof Error ? err.message : String(err);
    const at = /position (\d+)/.exec(message);
    return { offset: at ? Number(at[1]) : 0, length: 1, description: parseErrorWords(message) };
  }
}

/** The offset of a comma right before a closing bracket at `offset`, if that is the error. */
function trailingComma(code: string, text: string, offset: number): number | undefined {
  if (code !== 'PropertyNameExpected' && code !== 'ValueExpected') return undefined;
  if (text[offset] !== '}' && text[offset] !== ']') return undefined;
  let i = offset - 1;
  while (i >= 0 && /\s/.test(text[i]!)) i--;
  return text[i] === ',' ? i : undefined;
}

/** Words of syntax errors that the streaming scanner (jsonScan.ts) meets too, so both say them alike. */
export const SYNTAX = {
  trailingComma: 'trailing comma',
  propertyName: 'property name in double quotes expected',
  controlCharacter: 'control character in a string (write it escaped, e.g. \\n or \\t)',
  moreContent: 'more content after the end of the JSON value',
} as const;

/**
 * The leading words of a JSON.parse message ("Unexpected token", "Bad control character in string
 * literal"), without what V8 quotes after them (the token, a piece of the text).
 */
export function parseErrorWords(message: string): string {
  const words = /^[A-Za-z][A-Za-z ]*/.exec(message)?.[0].trim().replace(/ in JSON$/, '');
  return words ? words.charAt(0).toLowerCase() + words.slice(1) : 'not valid JSON';
}

function describeSyntaxError(code: string, text: string, offset: number, _length: number): string {
  switch (code) {
    case 'InvalidSymbol':
      // The token is not quoted: it may be a secret (a token file read as JSON).
      return text[offset] === "'" ? "unexpected ' (strings and names need double quotes)" : 'value expected (a string in double quotes, a number, true, false, null, an object or an array)';
    case 'PropertyNameExpected':
      return SYNTAX.propertyName;
    case 'InvalidCommentToken':
      return 'comments are not allowed';
    case 'UnexpectedEndOfString':
      return 'unterminated string (a line break inside a string must be written \\n)';
    case 'EndOfFileExpected':
      return SYNTAX.moreContent;
    case 'InvalidCharacter':
      return SYNTAX.controlCharacter;
    default:
      // "CloseBraceExpected" -> "close brace expected"
      return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  }
}
