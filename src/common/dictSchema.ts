/**
 * A record keyed by data, as a message schema: `z.record` leaves a "__proto__" key out of what it
 * returns (silently: a metric of that name would have no chart) and returns an object on
 * Object.prototype. This one keeps every own key and returns a null-prototype record (./dict.ts).
 * zod/mini, as the webviews' protocols use it.
 */
import * as z from 'zod/mini';
import { dict } from '../api/dict';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);

/**
 * An object whose every own value passes `value` (a check, not a transform: the values are kept
 * as they are, checked once), as a null-prototype record.
 */
export function dictOf<T extends z.core.$ZodType>(value: T, what: string) {
  return z.pipe(
    z.custom<Record<string, z.output<T>>>((v) => isRecord(v) && Object.keys(v).every((k) => z.safeParse(value, v[k]).success), { message: `expected an object of ${what}` }),
    z.transform((o: Record<string, z.output<T>>) => {
      const out = dict<z.output<T>>();
      for (const k of Object.keys(o)) out[k] = o[k]!;
      return out;
    }),
  );
}
