/**
 * The query of a search: plain text (case-insensitive) or a regular expression, with the guard that
 * keeps a catastrophic pattern from freezing the host. JavaScript's regular expressions backtrack
 * and cannot be interrupted, so the guard is in two parts:
 * - patterns with the shapes of exponential backtracking are refused by name before anything is
 *   read: a quantified group that holds a quantifier (`(a+)+`, `(\w*)*`, `(?:x+y?){2,}`), and
 *   backreferences (`\1`, `\k<name>`);
 * - every text is matched in slices of at most SLICE characters, overlapping by OVERLAP, so one call
 *   of the engine never runs over more than one slice. A match is found wherever it is when it is
 *   shorter than OVERLAP / 2; a longer one may be found shortened or from a later start.
 * No `vscode` import.
 */
import { InputError } from '../api/errors';

/** Characters matched by one call of the engine. */
export const SLICE = 16 * 1024;
/** Overlap of two slices: matches up to half this long are found wherever they are. */
export const OVERLAP = 1024;
const MAX_PATTERN = 1000;

export interface Match {
  at: number;
  length: number;
}

export interface Matcher {
  /** The first match in `text`, if any. */
  first(text: string): Match | undefined;
  /** Whether a raw JSON text may hold a match (a cheap test that rules most groups out unparsed). */
  mayHold(raw: string): boolean;
  readonly describe: string;
}

/** A matcher for `query`: plain text, case-insensitive; or a regular expression (`regex`), case-insensitive unless `caseSensitive`. */
export function matcher(query: string, regex = false, caseSensitive = false): Matcher {
  if (!query) throw new InputError('The search query is empty.');
  if (!regex) return textMatcher(caseSensitive ? query : query.toLowerCase(), caseSensitive);
  return regexMatcher(query, caseSensitive);
}

function textMatcher(q: string, caseSensitive: boolean): Matcher {
  // JSON never escapes printable ASCII other than `"` and `\` (and may escape `/`): such a query
  // is found in the raw text exactly when it can be in a string of it.
  const plain = /^[\x20-\x7e]*$/.test(q) && !/["\\/]/.test(q);
  const fold = (s: string) => (caseSensitive ? s : s.toLowerCase());
  return {
    describe: `“${q}”`,
    first(text) {
      const at = fold(text).indexOf(q);
      return at >= 0 ? { at, length: q.length } : undefined;
    },
    mayHold: (raw) => !plain || fold(raw).includes(q),
  };
}

/** Why a pattern is refused, or undefined when it may run. */
export function regexProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN) return `the pattern is longer than ${MAX_PATTERN} characters`;
  if (/\\[1-9]|\\k</.test(source)) return 'backreferences (\\1, \\k<name>) are not supported: they can take exponential time';
  // Walk the groups: a group that holds a quantifier and is itself quantified can backtrack
  // exponentially on a text that almost matches.
  const stack: { quantified: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') stack.push({ quantified: false });
    else if (c === ')') {
      const inner = stack.pop();
      if (inner?.quantified && isQuantifier(source, i + 1)) return `a quantified group holds a quantifier (near “${source.slice(Math.max(0, i - 20), i + 2)}”), which can take exponential time; rewrite it without the nesting`;
      if (inner?.quantified && stack.length) stack[stack.length - 1]!.quantified = true;
    } else if (isQuantifier(source, i) && stack.length) stack[stack.length - 1]!.quantified = true;
  }
  return undefined;
}

/** Whether an unbounded or repeating quantifier starts at `i`: `*`, `+`, `{n,}`, `{n,m}` with m > 1. */
function isQuantifier(s: string, i: number): boolean {
  const c = s[i];
  if (c === '*' || c === '+') return true;
  if (c !== '{') return false;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(i));
  return !!m && (m[2] !== undefined ? m[3] === '' || Number(m[3]) > 1 : Number(m[1]) > 1);
}

function regexMatcher(source: string, caseSensitive: boolean): Matcher {
  const problem = regexProblem(source);
  if (problem) throw new InputError(`The regular expression /${source}/ is refused: ${problem}.`);
  let re: RegExp;
  try {
    re = new RegExp(source, caseSensitive ? 'gu' : 'giu');
  } catch (e) {
    throw new InputError(`The regular expression /${source}/ is not valid: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}.`);
  }
  // Each position of the text is judged in one slice only, the one whose window [from, to) holds
  // it, with at least OVERLAP / 2 characters of real context on both sides: so `^`, `$` and `\b`
  // never match at a cut, and a match that reaches a cut is looked for again in the next slice.
  const first = (text: string): Match | undefined => {
    const step = SLICE - OVERLAP;
    for (let start = 0; ; start += step) {
      const end = Math.min(text.length, start + SLICE);
      const last = end >= text.length;
      const from = start === 0 ? 0 : OVERLAP / 2;
      const to = last ? Infinity : step + OVERLAP / 2;
      const slice = text.slice(start, end);
      re.lastIndex = from;
      for (let m = re.exec(slice); m && m.index < to; m = re.exec(slice)) {
        if (last || m.index + m[0].length < slice.length) return { at: start + m.index, length: m[0].length };
        if (m[0].length === 0) re.lastIndex++;
      }
      if (last) return undefined;
    }
  };
  return { describe: `/${source}/`, first, mayHold: () => true };
}
