/**
 * Finding `svc:///` refs in text (editor lines, selections) and describing them. Pure: no vscode
 * import, unit-tested in plain Node.
 */
import { parseRef, REF_PATTERN, type ParsedRef } from '../api/refs';

/** A ref found in a line: `start` and `end` are 0-based columns, `end` exclusive. */
export interface RefMatch {
  ref: string;
  parsed: ParsedRef;
  start: number;
  end: number;
}

/** Sentence punctuation that can follow a ref in prose but is never its last character. */
const TRAILING = new Set(['.', ',', ';', ':', '!', '?']);

/** At most this many links per document. */
export const MAX_LINKS = 2000;

/** Links are looked for in the first this many characters of a line (a 1 MB line: its first 1 MB). */
export const MAX_LINE_SCAN = 1_048_576;

/** The refs the link provider makes links of in one line: its first MAX_LINE_SCAN characters. */
export function linkRefs(line: string, limit: number = MAX_LINKS): RefMatch[] {
  return findRefs(line.length > MAX_LINE_SCAN ? line.slice(0, MAX_LINE_SCAN) : line, limit);
}

/** The longest ref the hover looks for around the cursor; real refs are under 200 characters. */
export const MAX_REF_LENGTH = 4096;

/**
 * `text` without its trailing sentence punctuation. A loop, not a regex: `/[.,;:!?]+$/` backtracks
 * quadratically on a run of dots followed by anything else (80,000 dots: 6 s).
 */
export function trimTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && TRAILING.has(text[end - 1]!)) end--;
  return text.slice(0, end);
}

/**
 * Every well-formed ref in a line of text, in order. A ref followed by sentence punctuation
 * ("see svc:///a/b/call/1.") is taken without it; malformed candidates are skipped.
 */
export function findRefs(line: string, limit = Number.POSITIVE_INFINITY): RefMatch[] {
  const out: RefMatch[] = [];
  if (!line.includes('svc:///')) return out;
  const re = new RegExp(REF_PATTERN.source, 'g');
  for (let m = re.exec(line); m && out.length < limit; m = re.exec(line)) {
    const candidate = m[0];
    let ref = candidate;
    let parsed = parseRef(ref);
    const trimmed = trimTrailingPunctuation(candidate);
    if (trimmed !== candidate) {
      // Prefer the ref without the punctuation when that parses too.
      const alt = parseRef(trimmed);
      if (alt.ok) {
        ref = trimmed;
        parsed = alt;
      }
    }
    if (parsed.ok) out.push({ ref, parsed: parsed.ref, start: m.index, end: m.index + ref.length });
  }
  return out;
}

/**
 * The ref under a cursor at `column` (0-based) of `line`: a cursor anywhere inside the ref, or just
 * after its last character, selects it.
 */
export function refAt(line: string, column: number): RefMatch | undefined {
  // Only a window around the cursor: a hover on a 1 MB line scans 8 KiB.
  const from = Math.max(0, column - MAX_REF_LENGTH);
  const to = Math.min(line.length, column + MAX_REF_LENGTH);
  for (const m of findRefs(line.slice(from, to))) {
    const match = { ...m, start: m.start + from, end: m.end + from };
    // A ref cut by the window's end would be read shorter than it is: not a ref we can name.
    if (m.end === to - from && to < line.length) continue;
    if (column >= match.start && column <= match.end) return match;
  }
  return undefined;
}

/** The distinct refs in a selected text (which may span lines), in order of appearance. */
export function refsInText(text: string): string[] {
  const seen = new Set<string>();
  for (const line of text.split(/\r\n|\r|\n/)) {
    for (const m of findRefs(line)) seen.add(m.ref);
  }
  return [...seen];
}

/**
 * Why a ref cannot receive feedback in the configured project: malformed, or in another project.
 * Messages name both projects.
 */
export function refProblem(ref: string, project: string): string | undefined {
  const parsed = parseRef(ref.trim());
  if (!parsed.ok) return `"${ref}" is not a ref: it ${parsed.reason}.`;
  return projectMismatch(parsed.ref, project);
}

/** The message for a ref whose project differs from svc.project, or undefined when they match. */
export function projectMismatch(ref: ParsedRef, project: string): string | undefined {
  if (ref.projectId === project) return undefined;
  return `The ref is in project "${ref.projectId}", but svc.project is "${project}". Feedback can only be attached to refs of the selected project.`;
}

/** The parts of a ref as label/value pairs, for hovers. */
export function refParts(ref: ParsedRef): [string, string][] {
  const parts: [string, string][] = [
    ['Kind', ref.kind],
    ['Entity', ref.entity],
    ['Project', ref.project],
  ];
  if (ref.kind === 'call') parts.push(['Call id', ref.callId ?? '']);
  else {
    parts.push(['Name', ref.name ?? '']);
    parts.push(['Digest', ref.digest ?? '']);
  }
  return parts;
}

/** A ref shortened for titles: `…/call/0193abcd…` keeps the kind and the start of the id. */
export function shortRef(ref: string, max = 48): string {
  if (ref.length <= max) return ref;
  return `${ref.slice(0, max - 1)}…`;
}

/**
 * The argument part of a `command:` URI: JSON of the argument list, percent-encoded including the
 * characters encodeURIComponent leaves alone, so the URI cannot break out of a markdown link.
 */
export function commandArgs(args: unknown[]): string {
  return encodeURIComponent(JSON.stringify(args)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
