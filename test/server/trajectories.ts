import { unprocessable } from './errors';
import type { Store } from './store';
import { Checker, isObject, type JsonObject, type Path } from './validate';

// POST /v1/preview/models/{model_id}/log (spec 2.4 and 4.4, trajectory details from the behaviour
// note). Every problem is reported, FastAPI-style, with integer indices in `loc`.

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;
const TRAJECTORY_KEYS = [
  'messages_and_choices', 'reward', 'tools', 'additional_histories', 'metrics', 'metadata', 'logs', 'start_time',
  'initial_policy_version', 'final_policy_version',
] as const;

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
  c.noExtraKeys(body, [], ['split', 'trajectory_groups']);
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
  c.noExtraKeys(g, path, ['trajectories', 'metadata', 'metrics', 'logs']);
  const trajectories = c.required(g, 'trajectories', path, (v, p) => c.list(v, p));
  trajectories?.forEach((t, i) => validateTrajectory(c, t, [...path, 'trajectories', i]));
  validateCommon(c, g, path);
  return trajectories?.length ?? 0;
}

function validateTrajectory(c: Checker, raw: unknown, path: Path): void {
  const t = c.object(raw, path);
  if (!t) return;
  c.noExtraKeys(t, path, TRAJECTORY_KEYS);
  c.required(t, 'messages_and_choices', path, (v, p) => validateMessages(c, v, p));
  c.optional(t, 'reward', path, (v, p) => c.number(v, p));
  c.optional(t, 'tools', path, (v, p) => validateTools(c, v, p));
  c.optional(t, 'additional_histories', path, (v, p) => {
    const list = c.list(v, p);
    list?.forEach((h, i) => validateHistory(c, h, [...p, i]));
    return list;
  });
  c.optional(t, 'start_time', path, (v, p) => c.dateTime(v, p));
  c.optional(t, 'initial_policy_version', path, (v, p) => c.integer(v, p));
  c.optional(t, 'final_policy_version', path, (v, p) => c.integer(v, p));
  validateCommon(c, t, path);
}

/** metrics, metadata and logs: shared by trajectories and groups. */
function validateCommon(c: Checker, o: JsonObject, path: Path): void {
  c.optional(o, 'metrics', path, (v, p) => valuesOf(c, v, p, (x, xp) => (typeof x === 'boolean' ? x : c.number(x, xp))));
  c.optional(o, 'metadata', path, (v, p) =>
    valuesOf(c, v, p, (x, xp) =>
      x === null || typeof x === 'boolean' || typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x))
        ? x
        : c.fail(xp, 'union_type', 'Input should be a number, string, boolean or null'),
    ),
  );
  c.optional(o, 'logs', path, (v, p) => {
    const list = c.list(v, p);
    list?.forEach((line, i) => c.string(line, [...p, i]));
    return list;
  });
}

function valuesOf(c: Checker, v: unknown, path: Path, check: (x: unknown, p: Path) => unknown): JsonObject | undefined {
  const o = c.object(v, path);
  if (o) for (const [k, x] of Object.entries(o)) check(x, [...path, k]);
  return o;
}

function validateHistory(c: Checker, raw: unknown, path: Path): void {
  const h = c.object(raw, path);
  if (!h) return;
  c.noExtraKeys(h, path, ['messages_and_choices', 'tools']);
  c.required(h, 'messages_and_choices', path, (v, p) => validateMessages(c, v, p));
  c.optional(h, 'tools', path, (v, p) => validateTools(c, v, p));
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

/** A chat message. `content` may be omitted only by assistant messages (e.g. pure tool calls). */
function validateMessage(c: Checker, m: JsonObject, path: Path): void {
  const role = c.literal(m.role, [...path, 'role'], ROLES);
  const allowed = ['role', 'content', 'name'];
  if (role === 'assistant') allowed.push('tool_calls');
  if (role === 'tool') allowed.push('tool_call_id');
  c.noExtraKeys(m, path, allowed);
  const content = (v: unknown, p: Path) => (v === null ? null : c.string(v, p));
  if (role === 'assistant') c.optional(m, 'content', path, content);
  else c.required(m, 'content', path, content);
  c.optional(m, 'name', path, (v, p) => c.string(v, p));
  if (role === 'assistant') c.optional(m, 'tool_calls', path, (v, p) => validateToolCalls(c, v, p));
  if (role === 'tool') c.required(m, 'tool_call_id', path, (v, p) => c.string(v, p));
}

function validateChoice(c: Checker, o: JsonObject, path: Path): void {
  c.noExtraKeys(o, path, ['finish_reason', 'index', 'message', 'logprobs']);
  c.required(o, 'finish_reason', path, (v, p) => c.literal(v, p, FINISH_REASONS));
  c.required(o, 'index', path, (v, p) => c.integer(v, p));
  c.optional(o, 'logprobs', path, (v, p) => c.object(v, p), true);
  c.required(o, 'message', path, (v, p) => {
    const m = c.object(v, p);
    if (!m) return undefined;
    c.noExtraKeys(m, p, ['role', 'content', 'tool_calls', 'name']);
    c.required(m, 'role', p, (r, rp) => c.literal(r, rp, ['assistant'] as const));
    c.optional(m, 'content', p, (x, xp) => c.string(x, xp), true);
    c.optional(m, 'name', p, (x, xp) => c.string(x, xp));
    c.optional(m, 'tool_calls', p, (x, xp) => validateToolCalls(c, x, xp));
    return m;
  });
}

/** OpenAI-style tool calls: `{id, type: "function", function: {name, arguments}}`. */
function validateToolCalls(c: Checker, v: unknown, path: Path): unknown[] | undefined {
  const list = c.list(v, path);
  list?.forEach((raw, i) => {
    const p = [...path, i];
    const call = c.object(raw, p);
    if (!call) return;
    c.noExtraKeys(call, p, ['id', 'type', 'function']);
    c.required(call, 'id', p, (x, xp) => c.string(x, xp));
    c.required(call, 'type', p, (x, xp) => c.literal(x, xp, ['function'] as const));
    c.required(call, 'function', p, (x, xp) => {
      const fn = c.object(x, xp);
      if (!fn) return undefined;
      c.noExtraKeys(fn, xp, ['name', 'arguments']);
      c.required(fn, 'name', xp, (n, np) => c.string(n, np));
      c.required(fn, 'arguments', xp, (a, ap) => c.string(a, ap));
      return fn;
    });
  });
  return list;
}

function validateTools(c: Checker, v: unknown, path: Path): unknown[] | undefined {
  const list = c.list(v, path);
  list?.forEach((raw, i) => {
    const p = [...path, i];
    const tool = c.object(raw, p);
    if (!tool) return;
    c.noExtraKeys(tool, p, ['type', 'function']);
    c.required(tool, 'type', p, (x, xp) => c.string(x, xp));
    c.required(tool, 'function', p, (x, xp) => {
      const fn = c.object(x, xp);
      if (!fn) return undefined;
      c.noExtraKeys(fn, xp, ['name', 'description', 'parameters', 'strict']);
      c.required(fn, 'name', xp, (n, np) => c.string(n, np, 1));
      c.optional(fn, 'description', xp, (d, dp) => c.string(d, dp));
      c.optional(fn, 'parameters', xp, (d, dp) => c.object(d, dp));
      c.optional(fn, 'strict', xp, (d, dp) => c.boolean(d, dp));
      return fn;
    });
  });
  return list;
}
