/**
 * Records keyed by data (metric names, metadata keys, group keys, run ids): objects with a null
 * prototype. On a plain `{}`, a key read from a file or a response is not just a key: assigning
 * `obj['__proto__']` replaces or writes through the prototype (`obj['__proto__'][0] = v` sets
 * Object.prototype[0] for every extension in the host), and `obj['constructor']`,
 * `obj['toString']`, `'constructor' in obj` find Object's own members. On a null-prototype
 * object each is a key like any other. The lint rule svc/null-prototype-records
 * (scripts/eslint-rules.js) refuses `{}` built as such a record. Pure: no imports (the webviews
 * use it too).
 */

/**
 * A new null-prototype record: empty, or with the own enumerable keys of `from` (an object, a
 * Map, or [key, value] pairs), "__proto__" included.
 */
export function dict<T>(from?: Readonly<Record<string, T>> | Iterable<readonly [string, T]>): Record<string, T> {
  const out = Object.create(null) as Record<string, T>;
  if (from === undefined) return out;
  if (typeof (from as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of from as Iterable<readonly [string, T]>) out[k] = v;
  } else {
    const o = from as Readonly<Record<string, T>>;
    for (const k of Object.keys(o)) out[k] = o[k]!;
  }
  return out;
}

/** `obj[key]` when `obj` has it as its own property, else undefined (never Object.prototype's). */
export function own<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

/** Whether `obj` has `key` as its own property (`key in obj` would find "constructor" on any {}). */
export function hasOwn(obj: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}
