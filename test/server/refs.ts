// `svc:///` references, checked by form. Segments may not contain `/`, `:` or whitespace.

export type RefKind = 'object' | 'op' | 'call';

export interface Ref {
  kind: RefKind;
  entity: string;
  project: string;
}

const VERSIONED_RE = /^svc:\/\/\/([^/:\s]+)\/([^/:\s]+)\/(object|op)\/([^/:\s]+):([^/:\s]+)$/;
const CALL_RE = /^svc:\/\/\/([^/:\s]+)\/([^/:\s]+)\/call\/([^/:\s]+)$/;

/**
 * Parses `svc:///<entity>/<project>/object/<name>:<digest>`, `.../op/<name>:<digest>` or
 * `.../call/<id>`; undefined for anything else.
 */
export function parseRef(s: string): Ref | undefined {
  const v = VERSIONED_RE.exec(s);
  if (v) return { kind: v[3] as RefKind, entity: v[1]!, project: v[2]! };
  const c = CALL_RE.exec(s);
  if (c) return { kind: 'call', entity: c[1]!, project: c[2]! };
  return undefined;
}

export const REF_FORMS: Record<RefKind, string> = {
  object: 'svc:///<entity>/<project>/object/<name>:<digest>',
  op: 'svc:///<entity>/<project>/op/<name>:<digest>',
  call: 'svc:///<entity>/<project>/call/<call_id>',
};
