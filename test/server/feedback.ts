import { randomUUID } from 'node:crypto';
import { enrichReaction, isSingleEmoji } from './emoji';
import { familyError, invalidRequest } from './errors';
import { parseRef, REF_FORMS, type RefKind } from './refs';
import type { FeedbackRow, Store } from './store';
import { Checker, UUID_RE, type JsonObject, type Path } from './validate';

// POST /feedback/create (spec 2.1 and 4.1, reserved types from the behaviour note).

const FEEDBACK_KEYS = [
  'project_id', 'svc_ref', 'feedback_type', 'payload', 'id', 'creator',
  'annotation_ref', 'runnable_ref', 'call_ref', 'trigger_ref', 'svc_user_id',
] as const;

const MAX_PAYLOAD_BYTES = 1024 * 1024;
const MAX_NOTE_CHARS = 1024;

type RefField = 'svc_ref' | 'annotation_ref' | 'runnable_ref' | 'call_ref' | 'trigger_ref';

/** Which ref kinds each field accepts. svc_ref may target an object, a call or an op. */
const REF_KINDS: Record<RefField, readonly RefKind[]> = {
  svc_ref: ['object', 'call', 'op'],
  annotation_ref: ['object'],
  runnable_ref: ['op'],
  call_ref: ['call'],
  trigger_ref: ['object'],
};

export interface FeedbackResponse {
  id: string;
  created_at: string;
  svc_user_id: string;
  payload: JsonObject;
}

/** Validates, stores (idempotently by id) and answers a feedback create request. */
export function createFeedback(body: unknown, userId: string, store: Store): FeedbackResponse {
  const req = validateFeedback(body);
  const payload = processPayload(req.feedback_type, req.payload, req);
  const fingerprint = canonicalJson({ ...req, id: null, svc_user_id: userId });

  if (req.id !== null) {
    const existing = store.feedbackRequests.get(req.id.toLowerCase());
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        throw familyError('trace', 400, `Feedback ${req.id} already exists with different content`);
      }
      return toResponse(existing.row);
    }
  }

  const row: FeedbackRow = {
    id: req.id ?? randomUUID(),
    project_id: req.project_id,
    svc_ref: req.svc_ref,
    feedback_type: req.feedback_type,
    payload,
    creator: req.creator,
    annotation_ref: req.annotation_ref,
    runnable_ref: req.runnable_ref,
    call_ref: req.call_ref,
    trigger_ref: req.trigger_ref,
    svc_user_id: userId,
    created_at: new Date().toISOString(),
  };
  store.feedback.push(row);
  store.feedbackRequests.set(row.id.toLowerCase(), { row, fingerprint });
  return toResponse(row);
}

function toResponse(row: FeedbackRow): FeedbackResponse {
  return { id: row.id, created_at: row.created_at, svc_user_id: row.svc_user_id, payload: row.payload };
}

interface FeedbackRequest {
  project_id: string;
  svc_ref: string;
  feedback_type: string;
  payload: JsonObject;
  id: string | null;
  creator: string | null;
  annotation_ref: string | null;
  runnable_ref: string | null;
  call_ref: string | null;
  trigger_ref: string | null;
}

function validateFeedback(body: unknown): FeedbackRequest {
  const c = new Checker();
  const o = c.object(body, []);
  if (!o) throw invalidRequest(c.issues);
  c.noExtraKeys(o, [], FEEDBACK_KEYS);

  const projectId = c.required(o, 'project_id', [], (v, p) => c.projectId(v, p));
  const svcRef = c.required(o, 'svc_ref', [], (v, p) => c.string(v, p));
  const feedbackType = c.required(o, 'feedback_type', [], (v, p) => c.string(v, p, 1));
  const payload = c.required(o, 'payload', [], (v, p) => c.object(v, p));
  const id = c.optional(o, 'id', [], (v, p) => uuidOf(c, v, p), true);
  const creator = c.optional(o, 'creator', [], (v, p) => c.string(v, p), true);
  const refs: Partial<Record<RefField, string | null>> = {};
  for (const field of ['annotation_ref', 'runnable_ref', 'call_ref', 'trigger_ref'] as const) {
    refs[field] = c.optional(o, field, [], (v, p) => c.string(v, p), true);
  }
  if ('svc_user_id' in o && o.svc_user_id !== null) {
    c.fail(['svc_user_id'], 'value_error', 'Must not be set by the client; the server fills it from the credentials');
  }
  // Refs are checked against project_id only once both parsed.
  if (projectId !== undefined) {
    if (svcRef !== undefined) checkRef(c, 'svc_ref', svcRef, projectId);
    for (const [field, ref] of Object.entries(refs) as [RefField, string | null | undefined][]) {
      if (typeof ref === 'string') checkRef(c, field, ref, projectId);
    }
  }
  if (!c.ok) throw invalidRequest(c.issues);
  return {
    project_id: projectId!,
    svc_ref: svcRef!,
    feedback_type: feedbackType!,
    payload: payload!,
    id: id ?? null,
    creator: creator ?? null,
    annotation_ref: refs.annotation_ref ?? null,
    runnable_ref: refs.runnable_ref ?? null,
    call_ref: refs.call_ref ?? null,
    trigger_ref: refs.trigger_ref ?? null,
  };
}

function uuidOf(c: Checker, v: unknown, p: Path): string | undefined {
  const s = c.string(v, p);
  if (s === undefined) return undefined;
  return UUID_RE.test(s) ? s : c.fail(p, 'uuid_parsing', 'must be a UUID (8-4-4-4-12 hexadecimal digits)');
}

function checkRef(c: Checker, field: RefField, value: string, projectId: string): void {
  const allowed = REF_KINDS[field];
  const ref = parseRef(value);
  if (!ref || !allowed.includes(ref.kind)) {
    c.fail([field], 'value_error', `must have the form ${allowed.map((k) => REF_FORMS[k]).join(' or ')}`);
    return;
  }
  if (`${ref.entity}/${ref.project}` !== projectId) {
    c.fail([field], 'value_error', `must reference the project ${projectId}`);
  }
}

/** Applies the reserved feedback types; returns the payload to store and return. */
function processPayload(type: string, payload: JsonObject, req: FeedbackRequest): JsonObject {
  if (Buffer.byteLength(JSON.stringify(payload), 'utf8') >= MAX_PAYLOAD_BYTES) {
    throw familyError('trace', 400, 'Feedback payload too large');
  }
  const bad = (msg: string): never => {
    throw familyError('trace', 400, msg);
  };
  if (type === 'svc.note.1') {
    const keys = Object.keys(payload);
    const note = payload.note;
    if (keys.length !== 1 || typeof note !== 'string') bad('payload: a svc.note.1 payload must be exactly {"note": <string>}');
    const length = [...(note as string)].length;
    if (length < 1 || length > MAX_NOTE_CHARS) bad(`payload.note: must be 1 to ${MAX_NOTE_CHARS} characters`);
    return payload;
  }
  if (type === 'svc.reaction.1') {
    const keys = Object.keys(payload);
    const emoji = payload.emoji;
    if (keys.length !== 1 || typeof emoji !== 'string') bad('payload: a svc.reaction.1 payload must be exactly {"emoji": <string>}');
    if (!isSingleEmoji(emoji as string)) bad('payload.emoji: must be exactly one emoji');
    return { ...enrichReaction(emoji as string) };
  }
  if (type.startsWith('svc.annotation.')) {
    if (req.annotation_ref === null) bad(`annotation_ref: Field required for feedback_type ${type}`);
    return payload;
  }
  if (type.startsWith('svc.runnable.')) {
    if (req.runnable_ref === null) bad(`runnable_ref: Field required for feedback_type ${type}`);
    return payload;
  }
  if (type.startsWith('svc.')) bad(`feedback_type: ${type} is reserved`);
  return payload;
}

/** JSON with object keys sorted, so two equal requests compare equal whatever their key order. */
function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.keys(v as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(v);
}
