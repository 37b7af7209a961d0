/**
 * What every reader of untyped JSON asks first. The one such check: src/api's fast checks, the file
 * readers (src/files/), the viewer and feedback all use it. No `vscode` import.
 */

/** A JSON object: not null, not an array. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
