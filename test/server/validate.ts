// Hand-written validation shared by every endpoint of the reference server. It is deliberately
// independent of the client's zod schemas: a contract test is only worth something if the two
// sides were written separately.
//
// Issues use pydantic v2's vocabulary (type + msg), because the model endpoints answer in FastAPI's
// 422 shape and the trace endpoints can reuse the same words in their `reason` string.

export type Path = ReadonlyArray<string | number>;

export interface Issue {
  path: Path;
  type: string;
  msg: string;
}

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** `<entity>/<project>`: two non-empty segments without slashes or whitespace. */
export const PROJECT_ID_RE = /^[^/\s]+\/[^/\s]+$/;

/** Collects every problem found in a value; callers decide how to render them. */
export class Checker {
  readonly issues: Issue[] = [];

  fail(path: Path, type: string, msg: string): undefined {
    this.issues.push({ path, type, msg });
    return undefined;
  }

  get ok(): boolean {
    return this.issues.length === 0;
  }

  object(v: unknown, path: Path): JsonObject | undefined {
    return isObject(v) ? v : this.fail(path, 'dict_type', 'Input should be a valid dictionary');
  }

  list(v: unknown, path: Path): unknown[] | undefined {
    return Array.isArray(v) ? v : this.fail(path, 'list_type', 'Input should be a valid list');
  }

  string(v: unknown, path: Path, minLength = 0): string | undefined {
    if (typeof v !== 'string') return this.fail(path, 'string_type', 'Input should be a valid string');
    if (v.length < minLength) {
      return this.fail(path, 'string_too_short', `String should have at least ${minLength} character${minLength === 1 ? '' : 's'}`);
    }
    return v;
  }

  integer(v: unknown, path: Path): number | undefined {
    // JSON cannot tell 3 from 3.0, so an integral number is an integer (as in pydantic's lax mode).
    return typeof v === 'number' && Number.isSafeInteger(v)
      ? v
      : this.fail(path, 'int_type', 'Input should be a valid integer');
  }

  number(v: unknown, path: Path): number | undefined {
    return typeof v === 'number' && Number.isFinite(v)
      ? v
      : this.fail(path, 'float_type', 'Input should be a valid number');
  }

  boolean(v: unknown, path: Path): boolean | undefined {
    return typeof v === 'boolean' ? v : this.fail(path, 'bool_type', 'Input should be a valid boolean');
  }

  literal<T extends string>(v: unknown, path: Path, allowed: readonly T[]): T | undefined {
    if (typeof v === 'string' && (allowed as readonly string[]).includes(v)) return v as T;
    const names = allowed.map((a) => `'${a}'`);
    const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0];
    return this.fail(path, 'literal_error', `Input should be ${list}`);
  }

  /** A project id of the form `<entity>/<project>`. */
  projectId(v: unknown, path: Path): string | undefined {
    const s = this.string(v, path);
    if (s === undefined) return undefined;
    return PROJECT_ID_RE.test(s) ? s : this.fail(path, 'string_pattern_mismatch', 'must have the form <entity>/<project>');
  }

  /** A date-time string; returns microseconds since the epoch so comparisons keep sub-ms order. */
  dateTime(v: unknown, path: Path): number | undefined {
    if (typeof v !== 'string') return this.fail(path, 'datetime_type', 'Input should be a valid datetime');
    const us = parseDateTimeUs(v);
    return us ?? this.fail(path, 'datetime_from_date_parsing', 'Input should be a valid datetime in ISO 8601 format');
  }

  /** Reports every key of `obj` not in `allowed` (the strictest server variant). */
  noExtraKeys(obj: JsonObject, path: Path, allowed: readonly string[]): void {
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key)) this.fail([...path, key], 'extra_forbidden', 'Extra inputs are not permitted');
    }
  }

  /** A required key: reports `missing` when absent, else runs `check` on the value. */
  required<T>(obj: JsonObject, key: string, path: Path, check: (v: unknown, p: Path) => T | undefined): T | undefined {
    if (!(key in obj)) return this.fail([...path, key], 'missing', 'Field required');
    return check(obj[key], [...path, key]);
  }

  /** An optional key; null counts as a value and is refused unless `nullable`. */
  optional<T>(
    obj: JsonObject,
    key: string,
    path: Path,
    check: (v: unknown, p: Path) => T | undefined,
    nullable = false,
  ): T | null | undefined {
    if (!(key in obj)) return undefined;
    if (obj[key] === null && nullable) return null;
    return check(obj[key], [...path, key]);
  }
}

/** `a.b[2].c`: how the trace endpoints name a field in their `reason` message. */
export function formatPath(path: Path): string {
  let out = '';
  for (const part of path) {
    out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  }
  return out === '' ? 'body' : out;
}

/** Renders issues as one `reason` string (trace endpoints answer with a single message). */
export function issuesToReason(issues: readonly Issue[], max = 5): string {
  const shown = issues.slice(0, max).map((i) => `${formatPath(i.path)}: ${i.msg}`);
  if (issues.length > max) shown.push(`and ${issues.length - max} more`);
  return shown.join('; ');
}

const DATE_TIME_RE =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))?$/;

/**
 * Parses an ISO 8601 / RFC 3339 date-time with seconds, to microseconds since the epoch.
 * A missing offset is read as UTC (as pydantic does); dates and times are range-checked.
 */
export function parseDateTimeUs(s: string): number | undefined {
  const m = DATE_TIME_RE.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const micros = m[7] === undefined ? 0 : Number(m[7].padEnd(6, '0').slice(0, 6));
  return (d.getTime() - offsetMinutes * 60_000) * 1000 + micros;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(2000, month, 0)).getUTCDate() + (month === 2 && !isLeap(year) ? -1 : 0);
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** ISO string with milliseconds and `Z`, the form every timestamp in a response takes. */
export function usToIso(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString();
}
