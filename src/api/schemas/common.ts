import { z } from 'zod';
import { isProjectId } from '../refs';

/** ISO 8601 date-time with a zone (`Z` or an offset), as requests must carry. */
export const DateTimeInput = z.iso.datetime({ offset: true });
/** Date-times in responses are taken as strings; the UI parses them when it shows them. */
export const DateTimeOutput = z.string();

/** `<entity>/<project>`. */
export const ProjectId = z.string().refine(isProjectId, { message: 'must have the form <entity>/<project>' });

/** A free-form JSON object. */
export const JsonObject = z.record(z.string(), z.unknown());
export type JsonObject = z.infer<typeof JsonObject>;

export const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const UuidString = z.string().regex(UUID_SHAPE, { message: 'must be a UUID' });
