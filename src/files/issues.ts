/**
 * zod issues turned into findings a user can act on: what is wrong, and what to point at (the
 * value, the key of a property, or the object that lacks a field). Format-generic: a format's own
 * words (chat messages of a trajectory, src/files/trajectoryWording.ts) come in as an IssueWording.
 */
import type { z } from 'zod';
import { isObject } from '../api/json';
import type { JsonPath } from './jsonText';
import type { Problem } from './problems';

type Issue = z.core.$ZodIssue;

/** What a format says better than the generic messages; each hook gives undefined to leave it to them. */
export interface IssueWording {
  /**
   * A union whose option is chosen by looking at the value (a chat message or a choice): the index
   * of the option whose issues apply, or what to say of the value.
   */
  unionOption?(path: JsonPath, value: unknown, options: number): number | string | undefined;
  /** Why `field` of `parent` may not be left out. */
  missingField?(field: string, parent: Record<string, unknown>): string | undefined;
  /** Why `key` is unknown in `obj`. */
  unknownKey?(key: string, obj: unknown): string | undefined;
}

export interface Finding {
  path: JsonPath;
  /** What to point at: the value, the key of the property, or the object that lacks the field. */
  at: 'value' | 'key' | 'object';
  message: string;
  severity?: Problem['severity'];
  /** The JSON Schema generated from the same zod schemas reports it too (all but refinements). */
  schema?: boolean;
}

export function findings(issues: readonly Issue[], root: unknown, prefix: JsonPath, wording: IssueWording): Finding[] {
  const out: Finding[] = [];
  for (const issue of issues) {
    const before = out.length;
    findingsOf(issue, root, prefix, out, wording);
    if (issue.code !== 'custom') for (let i = before; i < out.length; i++) out[i]!.schema ??= true;
  }
  return out;
}

function findingsOf(issue: Issue, root: unknown, prefix: JsonPath, out: Finding[], wording: IssueWording): void {
  {
    const path = [...prefix, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
    const value = valueAt(root, path);
    const parent = valueAt(root, path.slice(0, -1));
    const last = path[path.length - 1];
    const missing = last !== undefined && isObject(parent) && !(String(last) in parent);
    switch (issue.code) {
      case 'unrecognized_keys':
        for (const key of issue.keys) out.push({ path: [...path, key], at: 'key', message: wording.unknownKey?.(key, value) ?? 'unknown field' });
        break;
      case 'invalid_union':
        out.push(...unionFindings(issue, root, path, value, missing, wording));
        break;
      case 'invalid_type':
        if (missing) out.push({ path, at: 'object', message: missingField(String(last), parent, wording) });
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

function unionFindings(issue: Extract<Issue, { code: 'invalid_union' }>, root: unknown, path: JsonPath, value: unknown, missing: boolean, wording: IssueWording): Finding[] {
  // A discriminated union whose key matched no option: `path` ends with the discriminator.
  if (issue.discriminator !== undefined && 'options' in issue && issue.errors.length === 0) {
    if (missing) return [{ path, at: 'object', message: 'required field is missing' }];
    return [{ path, at: 'value', message: `expected ${oneOf(issue.options ?? [])}, received ${show(value)}` }];
  }
  if (issue.errors.length === 0) return [{ path, at: 'value', message: issue.message }];
  // A union whose option the format picks by looking at the value.
  const option = wording.unionOption?.(path, value, issue.errors.length);
  if (typeof option === 'string') return [{ path, at: 'value', message: option }];
  if (option !== undefined) return findings(issue.errors[option]!, root, path, wording);
  // Options that each only want another type: "expected number or boolean, received string".
  const types = issue.errors.map((e) => (e.length === 1 && e[0]!.code === 'invalid_type' && e[0]!.path.length === 0 ? e[0]!.expected : undefined));
  if (types.every((t) => t !== undefined)) {
    if (missing) {
      const parent = valueAt(root, path.slice(0, -1));
      return [{ path, at: 'object', message: isObject(parent) ? missingField(String(path[path.length - 1]), parent, wording) : 'required field is missing' }];
    }
    const names = [...new Set(types.map((t) => typeName(t!)))];
    return [{ path, at: 'value', message: `expected ${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}, received ${kindOf(value)}` }];
  }
  // Elsewhere: the option that came closest.
  const best = issue.errors.reduce((a, b) => (b.length < a.length ? b : a));
  return findings(best, root, path, wording);
}

function missingField(field: string, parent: Record<string, unknown>, wording: IssueWording): string {
  return wording.missingField?.(field, parent) ?? 'required field is missing';
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
