import { z } from 'zod';

// No code generation: zod's JIT builds parsers with `new Function`, which a strict host or CSP may
// forbid and which the package check refuses. The hot paths (trajectory groups, thread rows,
// checkpoint pages, call items) go through hand-written checks first (./fastCheck.ts), so the
// schema parse is the rare path. scripts/check-package.js proves at run time that nothing builds
// a Function.
z.config({ jitless: true });
import { isProjectId } from '../refs';

/**
 * ISO 8601 date-time with a zone (`Z` or an offset), as requests must carry; a time without a
 * zone is refused (the service would read it as UTC, rarely what a local timestamp meant). The
 * service also needs seconds and at most 9 fractional digits.
 */
export const DateTimeInput = z.iso.datetime({ offset: true }).refine((v) => !/T\d{2}:\d{2}(?![:\d])/.test(v) && !/\.\d{10,}/.test(v), {
  message: 'must have seconds and at most 9 fractional-second digits, e.g. 2026-11-20T09:00:00.123Z',
});
export const DateTimeOutput = z.string();

const LENIENT_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})?$/;

/** Whether `v` is an ISO 8601 date-time with seconds; the zone may be left out (read as UTC). */
export function isLenientDateTime(v: string): boolean {
  const m = LENIENT_DATE_TIME.exec(v);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as number[];
  const days = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  return mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= days && h! <= 23 && mi! <= 59 && s! <= 59;
}

/**
 * A date-time in a trajectory file: the official training client writes naive ones
 * (`2025-06-01T10:00:00.123456`, from Python's `datetime.now()`), and the log route takes them.
 */
export const LenientDateTime = z.string().refine(isLenientDateTime, {
  message: 'expected an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z or 2026-01-31T12:00:00.123456',
});

/** `<entity>/<project>`. */
export const ProjectId = z.string().refine(isProjectId, { message: 'must have the form <entity>/<project>' });

/** A free-form JSON object. */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

export const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const UuidString = z.string().regex(UUID_SHAPE, { message: 'must be a UUID' });
