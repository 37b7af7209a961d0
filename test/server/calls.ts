import { HttpError, invalidRequest } from './errors';
import { END_KEYS, START_KEYS, type CallRecord, type Store } from './store';
import { Checker, type JsonObject, type Path } from './validate';

// POST /call/upsert_batch (spec 2.2 and 4.2; end items and required fields from the behaviour note).

export type CallStart = Omit<CallRecord, 'startedUs' | 'endedUs' | (typeof END_KEYS)[number]> & { project_id: string; id: string };
export type CallEnd = Pick<CallRecord, (typeof END_KEYS)[number]>;

/** A start answers CallStartRes `{id, trace_id}`, an end answers `{}`. */
export type CallResult = { id: string; trace_id: string } | Record<string, never>;

type Item = { mode: 'start'; start: CallStart; startedUs: number } | { mode: 'end'; end: CallEnd; endedUs: number };

/**
 * Validates the whole batch first (an invalid item stores nothing), then upserts by call id.
 * Returns `res` aligned with `batch`.
 */
export function upsertBatch(
  body: unknown,
  userId: string,
  store: Store,
  completeModeProjects: ReadonlySet<string>,
): { res: CallResult[] } {
  const items = validateBatch(body);
  for (const item of items) {
    const projectId = item.mode === 'start' ? item.start.project_id : item.end.project_id;
    if (completeModeProjects.has(projectId)) {
      throw new HttpError(400, {
        reason: `Project ${projectId} only accepts calls through the complete calls API`,
        error_code: 'CALLS_COMPLETE_MODE_REQUIRED',
      });
    }
  }
  return {
    res: items.map((item): CallResult => {
      if (item.mode === 'start') {
        applyStart(store, { ...item.start, svc_user_id: userId }, item.startedUs);
        return { id: item.start.id, trace_id: item.start.trace_id! };
      }
      applyEnd(store, item.end, item.endedUs);
      return {};
    }),
  };
}

/** Replaces the start part of a call, keeping an end that may have arrived first. */
export function applyStart(store: Store, start: CallStart, startedUs: number): void {
  const calls = store.projectCalls(start.project_id);
  const existing = calls.get(start.id);
  const record: CallRecord = { ...start, startedUs };
  if (existing) {
    for (const key of END_KEYS) if (key in existing) (record as unknown as JsonObject)[key] = existing[key];
    if (existing.endedUs !== undefined) record.endedUs = existing.endedUs;
  }
  calls.set(start.id, record);
}

/** Replaces the end part of a call, keeping its start. */
export function applyEnd(store: Store, end: CallEnd, endedUs: number): void {
  const calls = store.projectCalls(end.project_id);
  const existing = calls.get(end.id);
  const record: CallRecord = { project_id: end.project_id, id: end.id };
  if (existing) {
    for (const key of START_KEYS) if (key in existing) (record as unknown as JsonObject)[key] = existing[key];
    if (existing.startedUs !== undefined) record.startedUs = existing.startedUs;
  }
  Object.assign(record, end, { endedUs });
  calls.set(end.id, record);
}

function validateBatch(body: unknown): Item[] {
  const c = new Checker();
  const o = c.object(body, []);
  if (!o) throw invalidRequest(c.issues);
  c.noExtraKeys(o, [], ['batch']);
  const batch = c.required(o, 'batch', [], (v, p) => c.list(v, p));
  if (!batch) throw invalidRequest(c.issues);

  const items: Item[] = [];
  batch.forEach((raw, i) => {
    const item = validateItem(c, raw, ['batch', i]);
    if (item) items.push(item);
  });
  if (!c.ok) throw invalidRequest(c.issues);
  return items;
}

function validateItem(c: Checker, raw: unknown, path: Path): Item | undefined {
  const item = c.object(raw, path);
  if (!item) return undefined;
  c.noExtraKeys(item, path, ['mode', 'req']);
  const mode = c.required(item, 'mode', path, (v, p) => c.string(v, p));
  const req = c.required(item, 'req', path, (v, p) => c.object(v, p));
  if (mode === undefined || !req) return undefined;
  const reqPath = [...path, 'req'];
  if (mode === 'start') {
    c.noExtraKeys(req, reqPath, ['start']);
    const start = c.required(req, 'start', reqPath, (v, p) => validateStart(c, v, p));
    return start && { mode: 'start', ...start };
  }
  if (mode === 'end') {
    c.noExtraKeys(req, reqPath, ['end']);
    const end = c.required(req, 'end', reqPath, (v, p) => validateEnd(c, v, p));
    return end && { mode: 'end', ...end };
  }
  c.fail([...path, 'mode'], 'literal_error', `Unknown mode '${mode}': expected 'start' or 'end'`);
  return undefined;
}

/** A start record; optional fields are typed `string` in the spec, so null is refused. */
export function validateStart(c: Checker, raw: unknown, path: Path): { start: CallStart; startedUs: number } | undefined {
  const s = c.object(raw, path);
  if (!s) return undefined;
  const before = c.issues.length;
  c.noExtraKeys(s, path, START_KEYS);
  const str = (v: unknown, p: Path) => c.string(v, p);
  const nonEmpty = (v: unknown, p: Path) => c.string(v, p, 1);
  const obj = (v: unknown, p: Path) => c.object(v, p);

  const startedUs = c.required(s, 'started_at', path, (v, p) => c.dateTime(v, p));
  const start = {
    project_id: c.required(s, 'project_id', path, (v, p) => c.projectId(v, p)),
    op_name: c.required(s, 'op_name', path, nonEmpty),
    started_at: typeof s.started_at === 'string' ? s.started_at : undefined,
    attributes: c.required(s, 'attributes', path, obj),
    inputs: c.required(s, 'inputs', path, obj),
    id: c.required(s, 'id', path, nonEmpty),
    trace_id: c.required(s, 'trace_id', path, nonEmpty),
    display_name: c.optional(s, 'display_name', path, str),
    parent_id: c.optional(s, 'parent_id', path, str),
    thread_id: c.optional(s, 'thread_id', path, str),
    turn_id: c.optional(s, 'turn_id', path, str),
    otel_dump: c.optional(s, 'otel_dump', path, obj),
    svc_user_id: c.optional(s, 'svc_user_id', path, str),
    svc_run_id: c.optional(s, 'svc_run_id', path, str),
    svc_run_step: c.optional(s, 'svc_run_step', path, (v, p) => c.integer(v, p)),
  };
  if (c.issues.length > before || startedUs === undefined) return undefined;
  return { start: withoutUndefined(start) as CallStart, startedUs };
}

export function validateEnd(c: Checker, raw: unknown, path: Path): { end: CallEnd; endedUs: number } | undefined {
  const e = c.object(raw, path);
  if (!e) return undefined;
  const before = c.issues.length;
  c.noExtraKeys(e, path, END_KEYS);
  const endedUs = c.required(e, 'ended_at', path, (v, p) => c.dateTime(v, p));
  const end: JsonObject = {
    project_id: c.required(e, 'project_id', path, (v, p) => c.projectId(v, p)),
    id: c.required(e, 'id', path, (v, p) => c.string(v, p, 1)),
    ended_at: typeof e.ended_at === 'string' ? e.ended_at : undefined,
    summary: c.required(e, 'summary', path, (v, p) => c.object(v, p)),
    exception: c.optional(e, 'exception', path, (v, p) => c.string(v, p)),
    svc_run_step_end: c.optional(e, 'svc_run_step_end', path, (v, p) => c.integer(v, p)),
  };
  // `output` is any JSON value, null included; keep it only when sent.
  if ('output' in e) end.output = e.output;
  if (c.issues.length > before || endedUs === undefined) return undefined;
  return { end: withoutUndefined(end) as CallEnd, endedUs };
}

function withoutUndefined(o: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
