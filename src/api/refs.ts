/**
 * `svc:///` references. Forms (spec 2.1):
 *   object  svc:///<entity>/<project>/object/<name>:<digest>
 *   op      svc:///<entity>/<project>/op/<name>:<digest>
 *   call    svc:///<entity>/<project>/call/<call_id>
 */

export type RefKind = 'object' | 'op' | 'call';

export interface ParsedRef {
  kind: RefKind;
  entity: string;
  project: string;
  /** `<entity>/<project>`, comparable with a request's `project_id`. */
  projectId: string;
  /** Object or op name; undefined for calls. */
  name?: string;
  /** Object or op digest; undefined for calls. */
  digest?: string;
  /** Call id; undefined for objects and ops. */
  callId?: string;
}

export const REF_PREFIX = 'svc:///';

/** Matches a ref anywhere in text (used to find refs in editors). */
export const REF_PATTERN = /svc:\/\/\/[^\s/"'`<>()[\]{},]+\/[^\s/"'`<>()[\]{},]+\/(?:object|op|call)\/[^\s"'`<>()[\]{},]+/g;

const SEGMENT = /^[^\s/]+$/;

/** Parses a ref, returning a reason instead of throwing when it is malformed. */
export function parseRef(ref: string): { ok: true; ref: ParsedRef } | { ok: false; reason: string } {
  if (typeof ref !== 'string' || !ref.startsWith(REF_PREFIX)) {
    return { ok: false, reason: `must start with ${REF_PREFIX}` };
  }
  const parts = ref.slice(REF_PREFIX.length).split('/');
  if (parts.length !== 4) {
    return { ok: false, reason: 'must have the form svc:///<entity>/<project>/<object|op|call>/<name>' };
  }
  const [entity, project, kind, last] = parts as [string, string, string, string];
  if (!SEGMENT.test(entity)) return { ok: false, reason: 'has an empty or invalid entity' };
  if (!SEGMENT.test(project)) return { ok: false, reason: 'has an empty or invalid project' };
  const projectId = `${entity}/${project}`;
  if (kind === 'call') {
    if (!SEGMENT.test(last)) return { ok: false, reason: 'has an empty or invalid call id' };
    return { ok: true, ref: { kind, entity, project, projectId, callId: last } };
  }
  if (kind === 'object' || kind === 'op') {
    const colon = last.lastIndexOf(':');
    const name = colon > 0 ? last.slice(0, colon) : '';
    const digest = colon > 0 ? last.slice(colon + 1) : '';
    if (!name || !digest || /\s/.test(last)) {
      return { ok: false, reason: `must end with /${kind}/<name>:<digest>` };
    }
    return { ok: true, ref: { kind, entity, project, projectId, name, digest } };
  }
  return { ok: false, reason: `has unknown kind "${kind}" (expected object, op or call)` };
}

/** Builds a call ref. */
export function callRef(projectId: string, callId: string): string {
  return `${REF_PREFIX}${projectId}/call/${callId}`;
}

/** Checks a `<entity>/<project>` project id. */
export function isProjectId(value: string): boolean {
  const parts = value.split('/');
  return parts.length === 2 && parts.every((p) => SEGMENT.test(p));
}
