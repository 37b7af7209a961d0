/**
 * Shared by the file-validator properties: writing generated documents in the layouts people save
 * them in, mutating them, and checking the problems a validator reports.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Problem } from '../../../src/files/problems';
import { BOM, editorLines } from './helpers';

/** How a JSONL file is laid out around its records. */
export const jsonlLayout = fc.record({
  bom: fc.boolean(),
  finalNewline: fc.boolean(),
  /** Per record: blank lines before it and its line break. */
  rows: fc.array(
    fc.record({
      blanks: fc.array(fc.constantFrom('', ' ', '\t', ' \t ', '\r', '\u00a0'), { maxLength: 2 }),
      eol: fc.constantFrom('\n', '\r\n'),
    }),
    { minLength: 8, maxLength: 8 },
  ),
});
export type JsonlLayout = typeof jsonlLayout extends fc.Arbitrary<infer T> ? T : never;

/** Writes one JSON value per line; returns the text and each value's 1-based line. */
export function writeJsonl(values: readonly unknown[], layout: JsonlLayout): { text: string; lines: number[] } {
  let text = layout.bom ? '\ufeff' : '';
  let line = 0;
  const lines: number[] = [];
  for (const [i, v] of values.entries()) {
    const row = layout.rows[i % layout.rows.length]!;
    for (const b of row.blanks) {
      text += b + row.eol;
      line++;
    }
    line++;
    lines.push(line);
    text += JSON.stringify(v) + (i < values.length - 1 || layout.finalNewline ? row.eol : '');
  }
  return { text, lines };
}

/** How a JSON document is laid out. */
export const jsonLayout = fc.record({
  bom: fc.boolean(),
  indent: fc.constantFrom<undefined | number | string>(undefined, 2, 4, '\t'),
  crlf: fc.boolean(),
  leadingLines: fc.integer({ min: 0, max: 2 }),
  trailing: fc.constantFrom('', '\n', '\r\n', ' \n\n'),
});
export type JsonLayout = typeof jsonLayout extends fc.Arbitrary<infer T> ? T : never;

/** JSON.stringify with the layout; raw line breaks never occur inside JSON strings, so CRLF is safe. */
export function writeJson(value: unknown, layout: JsonLayout): string {
  const eol = layout.crlf ? '\r\n' : '\n';
  const body = JSON.stringify(value, null, layout.indent).replace(/\n/g, eol);
  return (layout.bom ? '\ufeff' : '') + eol.repeat(layout.leadingLines) + body + layout.trailing;
}

/** Lines a value spans when JSON.stringify'd with `indent` (nesting adds indentation, not lines). */
export function spanOf(value: unknown, indent: JsonLayout['indent']): number {
  return JSON.stringify(value, null, indent).split('\n').length;
}

/** Characters that break JSON in interesting ways. */
const insertable = fc.oneof(
  fc.constantFrom('"', '{', '}', '[', ']', ',', ':', '\\', '\n', '\r', '\r\n', ' ', '0', '-', 'e', '.', 'x', 'null', 'true', '\ufeff', '\u2028', 'é', '🎉', '\u0000', '\ud800', '/', '*', "'"),
  fc.string({ maxLength: 3 }),
);

export type Mutation = { op: 'delete'; at: number } | { op: 'insert'; at: number; what: string } | { op: 'replace'; at: number; what: string };

export const textMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('delete' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ op: fc.constant('insert' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), what: insertable }),
  fc.record({ op: fc.constant('replace' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), what: insertable }),
);

/** Applies a mutation at a fraction of the text's length (UTF-16 units: may split a surrogate pair, on purpose). */
export function mutateText(text: string, m: Mutation): string {
  const i = Math.min(text.length, Math.floor(m.at * (text.length + (m.op === 'insert' ? 1 : 0))));
  if (m.op === 'delete') return text.slice(0, i) + text.slice(i + 1);
  if (m.op === 'insert') return text.slice(0, i) + m.what + text.slice(i);
  return text.slice(0, i) + m.what + text.slice(i + 1);
}

/** Replacement values of another JSON type than the one they replace. */
const otherValue = fc.constantFrom<unknown>(null, 0, 1.5, -1, '', 'x', '2026-01-01T00:00:00Z', true, false, [], [1], {}, { role: 'user' }, { trajectories: [] });

export const valueSwap = fc.record({ pick: fc.nat(), replacement: otherValue, remove: fc.boolean() });
export type ValueSwap = typeof valueSwap extends fc.Arbitrary<infer T> ? T : never;

/** Every path into a JSON value, the root included. */
function paths(v: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(prefix);
  if (Array.isArray(v)) v.forEach((x, i) => paths(x, [...prefix, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...prefix, k], out);
  return out;
}

/**
 * A copy of `value` with the node at a picked path replaced by a value of another type, or (with
 * `remove`, for object members) deleted. Returns the path changed.
 */
export function swapValue(value: unknown, swap: ValueSwap): { value: unknown; path: (string | number)[] } {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  const all = paths(copy);
  const path = all[swap.pick % all.length]!;
  if (path.length === 0) return { value: swap.replacement, path };
  let parent = copy as Record<string | number, unknown>;
  for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  const old = parent[last];
  if (swap.remove && !Array.isArray(parent)) delete parent[last];
  else parent[last] = typeof swap.replacement === typeof old && Array.isArray(swap.replacement) === Array.isArray(old) ? { swapped: old } : swap.replacement;
  return { value: copy, path };
}

/**
 * The positions of every problem are inside the file: 1-based, end after
 * start, on an existing line (or just after the last), within the line (or just after its end).
 */
export function checkPositions(problems: readonly Problem[], file: string, text: string, format: 'json' | 'jsonl'): void {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // A JSON document's lines are an editor's (\r, \n, \r\n); a JSONL file's are readLines' (\n, less a final \r).
  const lines = format === 'json' ? editorLines(body) : body.split('\n').map((l) => l.replace(/\r$/, ''));
  for (const p of problems) {
    const where = `${JSON.stringify(p)} in ${JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…` : text)}`;
    assert.equal(p.file, file);
    assert.ok(p.severity === 'error' || p.severity === 'warning', where);
    assert.ok(p.message.length > 0, where);
    for (const n of [p.line, p.column, p.endLine, p.endColumn]) assert.ok(Number.isInteger(n), where);
    assert.ok(p.line >= 1 && p.column >= 1, `position before the start: ${where}`);
    assert.ok(p.endLine > p.line || (p.endLine === p.line && p.endColumn > p.column), `end not after start: ${where}`);
    assert.ok(p.line <= lines.length + 1 && p.endLine <= lines.length + 1, `line past the end of the file: ${where}`);
    const lineText = lines[p.line - 1] ?? '';
    assert.ok(p.column <= lineText.length + 1, `column past the end of line ${p.line} (${lineText.length} characters): ${where}`);
  }
  for (let i = 1; i < problems.length; i++) {
    const a = problems[i - 1]!;
    const b = problems[i]!;
    assert.ok(a.line < b.line || (a.line === b.line && a.column <= b.column), `problems not sorted by position: ${JSON.stringify([a, b])}`);
  }
}

export { BOM };
