import { unprocessable } from './errors';
import type { Store } from './store';
import { Checker, isObject, type JsonObject, type Path } from './validate';

// POST /v1/preview/models/{model_id}/log (spec 2.4 and 4.4, trajectory details from the behaviour
// note). Every problem is reported, FastAPI-style, with integer indices in `loc`.
//
// Lenient where production is lenient: the route takes what the official training client (OpenPipe
// ART) sends, whole pydantic dumps. Unknown fields are ignored and stored as sent, `null` is taken
// for every optional field, and `start_time` may be naive. Only a missing required field or a wrong
// type for a known field is a 422.

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;

/** Validates and records one log request; returns the success body. */
export function logTrajectories(modelId: string, body: unknown, store: Store): { status: 'ok'; trajectories: number } {
  const c = new Checker();
  const counts = validateLogRequest(c, body);
  if (!c.ok || !counts) throw unprocessable(c.issues);
  const o = body as JsonObject;
  store.logs.push({
    modelId,
    split: o.split as string,
    body: o,
    groupCount: counts.groups,
    trajectoryCount: counts.trajectories,
    receivedAt: new Date().toISOString(),
  });
  return { status: 'ok', trajectories: counts.trajectories };
}

function validateLogRequest(c: Checker, body: unknown): { groups: number; trajectories: number } | undefined {
  if (!isObject(body)) {
    c.fail([], 'model_attributes_type', 'Input should be a valid dictionary or object to extract fields from');
    return undefined;
  }
  c.required(body, 'split', [], (v, p) => c.string(v, p, 1));
  const groups = c.required(body, 'trajectory_groups', [], (v, p) => c.list(v, p));
  let trajectories = 0;
  groups?.forEach((g, i) => {
    trajectories += validateGroup(c, g, ['trajectory_groups', i]);
  });
  return groups && { groups: groups.length, trajectories };
}

/** Returns how many trajectories the group holds (valid or not). */
function validateGroup(c: Checker, raw: unknown, path: Path): number {
  const g = c.object(raw, path);
  if (!g) return 0;
  // ART leaves `trajectories` out of the dump of an empty group (exclude_defaults).
  const trajectories = c.optional(g, 'trajectories', path, (v, p) => c.list(v, p), true);
  trajectories?.forEach((t, i) => validateTrajectory(c, t, [...path, 'trajectories', i]));
  validateCommon(c, g, path);
  opt(c, g, 'exceptions', path, (v, p) => {
    const list = c.list(v, p);
    list?.forEach((x, i) => {
      const e = c.object(x, [...p, i]);
      if (e) for (const k of ['type', 'message', 'traceback']) opt(c, e, k, [...p, i], (s, sp) => c.string(s, sp));
    });
    return list;
  });
  return trajectories?.length ?? 0;
}

function validateTrajectory(c: Checker, raw: unknown, path: Path): void {
  const t = c.object(raw, path);
  if (!t) return;
  const before = c.issues.length;
  // Compact dumps leave out what equals its default; an exchange trajectory has `exchanges` instead.
  opt(c, t, 'exchanges', path, (v, p) => validateExchanges(c, v, p));
  opt(c, t, 'messages_and_choices', path, (v, p) => validateMessages(c, v, p));
  opt(c, t, 'reward', path, (v, p) => c.number(v, p));
  opt(c, t, 'tools', path, (v, p) => validateTools(c, v, p));
  opt(c, t, 'additional_histories', path, (v, p) => {
    const list = c.list(v, p);
    list?.forEach((h, i) => validateHistory(c, h, [...p, i]));
    return list;
  });
  opt(c, t, 'start_time', path, (v, p) => c.dateTime(v, p));
  opt(c, t, 'initial_policy_version', path, (v, p) => c.integer(v, p));
  opt(c, t, 'final_policy_version', path, (v, p) => c.integer(v, p));
  validateCommon(c, t, path);
  if (c.issues.length === before && mixesExchangesAndHistories(t)) {
    c.fail(path, 'value_error', 'Value error, A trajectory cannot contain both exchanges and legacy histories');
  }
}

const EXCHANGE_LISTS = ['chat_completions', 'completions', 'responses', 'messages'];

/** ART's `TrajectoryExchanges`: a list of `{request, response, model, start_time, end_time}` per API. */
function validateExchanges(c: Checker, v: unknown, path: Path): JsonObject | undefined {
  const o = c.object(v, path);
  if (!o) return undefined;
  for (const key of EXCHANGE_LISTS) {
    opt(c, o, key, path, (l, lp) => {
      const list = c.list(l, lp);
      list?.forEach((raw, i) => {
        const p = [...lp, i];
        const x = c.object(raw, p);
        if (!x) return;
        c.required(x, 'request', p, (r, rp) => c.object(r, rp));
        c.required(x, 'response', p, (r, rp) => c.object(r, rp));
        c.required(x, 'model', p, (m, mp) => (m === null ? null : c.string(m, mp)));
        c.required(x, 'start_time', p, (d, dp) => c.dateTime(d, dp));
        c.required(x, 'end_time', p, (d, dp) => c.dateTime(d, dp));
      });
      return list;
    });
  }
  return o;
}

/** ART's model validator: non-empty exchanges with messages, tools (even empty) or histories. */
function mixesExchangesAndHistories(t: JsonObject): boolean {
  const full = (v: unknown) => Array.isArray(v) && v.length > 0;
  const ex = t.exchanges;
  if (!isObject(ex) || !EXCHANGE_LISTS.some((k) => full(ex[k]))) return false;
  return full(t.messages_and_choices) || (t.tools !== undefined && t.tools !== null) || full(t.additional_histories);
}

/** metrics, metadata and logs: shared by trajectories and groups. */
/** An optional field: absent or null is fine (pydantic's `X | None = None`). */
function opt<T>(c: Checker, o: JsonObject, key: string, path: Path, check: (v: unknown, p: Path) => T | undefined): void {
  c.optional(o, key, path, check, true);
}

function validateCommon(c: Checker, o: JsonObject, path: Path): void {
  c.optional(o, 'metrics', path, (v, p) => valuesOf(c, v, p, (x, xp) => (typeof x === 'boolean' ? x : c.number(x, xp))), true);
  c.optional(o, 'metadata', path, (v, p) =>
    valuesOf(c, v, p, (x, xp) =>
      x === null || typeof x === 'boolean' || typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x))
        ? x
        : c.fail(xp, 'union_type', 'Input should be a number, string, boolean or null'),
    ),
    true,
  );
  c.optional(
    o,
    'logs',
    path,
    (v, p) => {
      const list = c.list(v, p);
      list?.forEach((line, i) => c.string(line, [...p, i]));
      return list;
    },
    true,
  );
}

function valuesOf(c: Checker, v: unknown, path: Path, check: (x: unknown, p: Path) => unknown): JsonObject | undefined {
  const o = c.object(v, path);
  if (o) for (const [k, x] of Object.entries(o)) check(x, [...path, k]);
  return o;
}

function validateHistory(c: Checker, raw: unknown, path: Path): void {
  const h = c.object(raw, path);
  if (!h) return;
  c.required(h, 'messages_and_choices', path, (v, p) => validateMessages(c, v, p));
  opt(c, h, 'tools', path, (v, p) => validateTools(c, v, p));
}

function validateMessages(c: Checker, v: unknown, path: Path): unknown[] | undefined {
  const list = c.list(v, path);
  list?.forEach((item, i) => {
    const p = [...path, i];
    const o = c.object(item, p);
    if (!o) return;
    if ('role' in o) validateMessage(c, o, p);
    else if ('finish_reason' in o || 'message' in o) validateChoice(c, o, p);
    else c.fail(p, 'union_tag_not_found', "Input should be a chat message (with 'role') or a choice (with 'finish_reason' and 'message')");
  });
  return list;
}

/** Message content: a string, a list of content parts (`{type, ...}`), or null. */
function validateContent(c: Checker, v: unknown, path: Path): unknown {
  if (v === null || typeof v === 'string') return v;
  if (!Array.isArray(v)) return c.fail(path, 'string_type', 'Input should be a valid string or a list of content parts');
  v.forEach((part, i) => {
    const o = c.object(part, [...path, i]);
    if (o) c.required(o, 'type', [...path, i], (t, tp) => c.string(t, tp));
  });
  return v;
}

/** A chat message. `content` may be omitted only by assistant messages (e.g. pure tool calls). */
function validateMessage(c: Checker, m: JsonObject, path: Path): void {
  const role = c.literal(m.role, [...path, 'role'], ROLES);
  const content = (v: unknown, p: Path) => validateContent(c, v, p);
  if (role === 'assistant') opt(c, m, 'content', path, content);
  else c.required(m, 'content', path, content);
  opt(c, m, 'name', path, (v, p) => c.string(v, p));
  if (role === 'assistant') {
    opt(c, m, 'tool_calls', path, (v, p) => validateToolCalls(c, v, p));
    opt(c, m, 'refusal', path, (v, p) => c.string(v, p));
  }
  if (role === 'tool') c.required(m, 'tool_call_id', path, (v, p) => c.string(v, p));
}

/** A whole chat-completion choice (OpenAI SDK; vLLM adds `stop_reason` and `reasoning_content`). */
function validateChoice(c: Checker, o: JsonObject, path: Path): void {
  c.required(o, 'finish_reason', path, (v, p) => c.literal(v, p, FINISH_REASONS));
  c.required(o, 'index', path, (v, p) => c.integer(v, p));
  opt(c, o, 'logprobs', path, (v, p) => c.object(v, p));
  c.required(o, 'message', path, (v, p) => {
    const m = c.object(v, p);
    if (!m) return undefined;
    c.required(m, 'role', p, (r, rp) => c.literal(r, rp, ['assistant'] as const));
    opt(c, m, 'content', p, (x, xp) => validateContent(c, x, xp));
    opt(c, m, 'name', p, (x, xp) => c.string(x, xp));
    opt(c, m, 'refusal', p, (x, xp) => c.string(x, xp));
    opt(c, m, 'reasoning_content', p, (x, xp) => c.string(x, xp));
    opt(c, m, 'annotations', p, (x, xp) => c.list(x, xp));
    opt(c, m, 'audio', p, (x, xp) => c.object(x, xp));
    opt(c, m, 'function_call', p, (x, xp) => c.object(x, xp));
    opt(c, m, 'tool_calls', p, (x, xp) => validateToolCalls(c, x, xp));
    return m;
  });
}

/** OpenAI-style tool calls: `{id, type, function: {name, arguments}}` (other types, e.g. `custom`, pass). */
function validateToolCalls(c: Checker, v: unknown, path: Path): unknown[] | undefined {
  const list = c.list(v, path);
  list?.forEach((raw, i) => {
    const p = [...path, i];
    const call = c.object(raw, p);
    if (!call) return;
    c.required(call, 'id', p, (x, xp) => c.string(x, xp));
    const type = c.required(call, 'type', p, (x, xp) => c.string(x, xp));
    const fn = (x: unknown, xp: Path) => {
      const f = c.object(x, xp);
      if (!f) return undefined;
      c.required(f, 'name', xp, (n, np) => c.string(n, np));
      c.required(f, 'arguments', xp, (a, ap) => c.string(a, ap));
      return f;
    };
    if (type === 'function') c.required(call, 'function', p, fn);
    else opt(c, call, 'function', p, fn);
  });
  return list;
}

function validateTools(c: Checker, v: unknown, path: Path): unknown[] | undefined {
  const list = c.list(v, path);
  list?.forEach((raw, i) => {
    const p = [...path, i];
    const tool = c.object(raw, p);
    if (!tool) return;
    c.required(tool, 'type', p, (x, xp) => c.string(x, xp));
    c.required(tool, 'function', p, (x, xp) => {
      const fn = c.object(x, xp);
      if (!fn) return undefined;
      c.required(fn, 'name', xp, (n, np) => c.string(n, np, 1));
      opt(c, fn, 'description', xp, (d, dp) => c.string(d, dp));
      opt(c, fn, 'parameters', xp, (d, dp) => c.object(d, dp));
      opt(c, fn, 'strict', xp, (d, dp) => c.boolean(d, dp));
      return fn;
    });
  });
  return list;
}
