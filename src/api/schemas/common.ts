import { z } from 'zod';
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

/** `<entity>/<project>`. */
export const ProjectId = z.string().refine(isProjectId, { message: 'must have the form <entity>/<project>' });

/** A free-form JSON object. */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

export const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const UuidString = z.string().regex(UUID_SHAPE, { message: 'must be a UUID' });
