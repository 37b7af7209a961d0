import { z } from 'zod';

// No code generation: zod's JIT builds parsers with `new Function`, which a strict host or CSP may
// forbid and which the package check refuses. The hot paths (trajectory groups, thread rows,
// checkpoint pages, call items) go through hand-written checks first (./fastCheck.ts), so the
// schema parse is the rare path. scripts/check-package.js proves at run time that nothing builds
// a Function.
z.config({ jitless: true });
import { isProjectId } from '../refs';

// --- date-times: the one check ----------------------------------------------------------------

/** Whether the fields name a real calendar date and time (no 2026-02-30, no 24:00, no :60). */
export function isCalendarDateTime(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  // Day 0 of the next month is the last day of this one (setUTCFullYear: Date.UTC reads 0-99 as 19xx).
  const last = new Date(0);
  last.setUTCFullYear(y, mo, 0);
  return d <= last.getUTCDate();
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))?$/;

/** The parts of an ISO 8601 date-time with seconds (the zone as written, if any), when it is a real one. */
export function parseDateTime(v: string): { y: number; mo: number; d: number; zone: string | undefined; offsetHours: number; offsetMinutes: number } | undefined {
  const m = DATE_TIME.exec(v);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offsetHours = Number(m[8] ?? 0);
  const offsetMinutes = Number(m[9] ?? 0);
  if (!isCalendarDateTime(y, mo, d, h, mi, s) || offsetHours > 23 || offsetMinutes > 59) return undefined;
  return { y, mo, d, zone: m[7], offsetHours, offsetMinutes };
}

/**
 * Whether `v` is a date-time a request may carry: ISO 8601 with seconds (at most 9 fractional
 * digits) and a zone (`Z` or an offset). A time without a zone is refused (the service would read
 * it as UTC, rarely what a local timestamp meant).
 */
export function isZonedDateTime(v: string): boolean {
  return parseDateTime(v)?.zone !== undefined;
}

/** Whether `v` is an ISO 8601 date-time with seconds; the zone may be left out (read as UTC). */
export function isLenientDateTime(v: string): boolean {
  return parseDateTime(v) !== undefined;
}

export const DATE_TIME_HELP = 'an ISO 8601 date-time with seconds and a zone, e.g. 2026-11-20T09:00:00Z or 2026-11-20T09:00:00.123+02:00';

/** A date-time in a request (see isZonedDateTime); refused as a `datetime` format, as zod's own check would. */
export const DateTimeInput = z.string().superRefine((value, ctx) => {
  if (!isZonedDateTime(value)) ctx.addIssue({ code: 'invalid_format', format: 'datetime', input: value, message: `must be ${DATE_TIME_HELP}` });
});
export const DateTimeOutput = z.string();

/**
 * A date-time in a trajectory file: the official training client writes naive ones
 * (`2025-06-01T10:00:00.123456`, from Python's `datetime.now()`), and the log route takes them.
 */
export const LenientDateTime = z.string().refine(isLenientDateTime, {
  message: 'expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z or 2026-01-31T12:00:00.123456',
});

/** `<entity>/<project>`. */
export const ProjectId = z.string().refine(isProjectId, { message: 'must have the form <entity>/<project>' });

/**
 * A free-form JSON object, passed on as it is: `z.record` rebuilds the object and drops an own
 * `__proto__` key (JSON.parse makes one; it is data, and a feedback payload or a call's inputs
 * must reach the service whole).
 */
export const JsonObject = z.custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
  error: (issue) => `expected object, received ${issue.input === null ? 'null' : Array.isArray(issue.input) ? 'array' : typeof issue.input}`,
});
export type JsonObject = z.infer<typeof JsonObject>;

export const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const UuidString = z.string().regex(UUID_SHAPE, { message: 'must be a UUID' });
