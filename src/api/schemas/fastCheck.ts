/**
 * A fast yes/no check of a trajectory group against exactly the rules of the `TrajectoryGroup`
 * zod schema (./models.ts), for the upload's validation pass over large files: most groups are
 * valid, and saying so by hand is several times cheaper than a schema parse. A group this check
 * refuses is parsed by the schema, which says why. Kept honest by
 * test/unit/api/trajectoryFastCheck.test.ts: on the producers' variants and on fuzzed groups, this
 * check and the schema must agree on every value.
 */
import { isObject } from '../json';
import { isProjectId } from '../refs';
import { isLenientDateTime, parseDateTime } from './common';
import { isMixedTrajectory } from './models';

type O = Record<string, unknown>;

/** Absent, null, or passing `check` (an optional, nullable field). */
const opt = (v: unknown, check: (x: unknown) => boolean) => v === undefined || v === null || check(v);
const isString = (v: unknown) => typeof v === 'string';
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
const isBool = (v: unknown) => typeof v === 'boolean';
const every = (v: unknown, check: (x: unknown) => boolean) => Array.isArray(v) && v.every(check);
const values = (v: unknown, check: (x: unknown) => boolean) => isObject(v) && Object.values(v).every(check);

const metric = (x: unknown) => isNumber(x) || isBool(x);
const metadatum = (x: unknown) => x === null || isNumber(x) || isString(x) || isBool(x);
const content = (v: unknown) => v === null || isString(v) || every(v, (p) => isObject(p) && isString(p.type));

function toolCall(v: unknown): boolean {
  if (!isObject(v) || !isString(v.id) || !isString(v.type)) return false;
  const fn = v.function;
  if (fn === undefined || fn === null) return v.type !== 'function';
  return isObject(fn) && isString(fn.name) && isString(fn.arguments);
}

function assistant(m: O): boolean {
  return (
    m.role === 'assistant' &&
    (m.content === undefined || content(m.content)) &&
    opt(m.name, isString) &&
    opt(m.tool_calls, (x) => every(x, toolCall)) &&
    opt(m.refusal, isString) &&
    opt(m.annotations, Array.isArray) &&
    opt(m.audio, isObject) &&
    opt(m.function_call, isObject) &&
    opt(m.reasoning_content, isString)
  );
}

function message(m: O): boolean {
  switch (m.role) {
    case 'system':
    case 'developer':
    case 'user':
    case 'function':
      return 'content' in m && content(m.content) && opt(m.name, isString);
    case 'assistant':
      return assistant(m);
    case 'tool':
      return 'content' in m && content(m.content) && isString(m.tool_call_id);
    default:
      return false;
  }
}

const FINISH = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);

function choice(c: O): boolean {
  return typeof c.finish_reason === 'string' && FINISH.has(c.finish_reason) && isInt(c.index) && isObject(c.message) && assistant(c.message) && opt(c.logprobs, isObject);
}

const messageOrChoice = (v: unknown) => isObject(v) && (message(v) || choice(v));

function tool(v: unknown): boolean {
  if (!isObject(v) || !isString(v.type) || !isObject(v.function)) return false;
  const f = v.function;
  return typeof f.name === 'string' && f.name.length > 0 && opt(f.description, isString) && opt(f.parameters, isObject) && opt(f.strict, isBool);
}

const history = (v: unknown) => isObject(v) && every(v.messages_and_choices, messageOrChoice) && opt(v.tools, (x) => every(x, tool));

function common(o: O): boolean {
  return opt(o.metrics, (x) => values(x, metric)) && opt(o.metadata, (x) => values(x, metadatum)) && opt(o.logs, (x) => every(x, isString));
}

const dateTime = (x: unknown) => isString(x) && isLenientDateTime(x);

function exchange(v: unknown): boolean {
  return isObject(v) && isObject(v.request) && isObject(v.response) && (v.model === null || isString(v.model)) && dateTime(v.start_time) && dateTime(v.end_time);
}

const exchanges = (v: unknown) =>
  isObject(v) && opt(v.chat_completions, (x) => every(x, exchange)) && opt(v.completions, (x) => every(x, exchange)) && opt(v.responses, (x) => every(x, exchange)) && opt(v.messages, (x) => every(x, exchange));

function trajectory(v: unknown): boolean {
  return (
    isObject(v) &&
    opt(v.exchanges, exchanges) &&
    opt(v.messages_and_choices, (x) => every(x, messageOrChoice)) &&
    opt(v.reward, isNumber) &&
    opt(v.tools, (x) => every(x, tool)) &&
    opt(v.additional_histories, (x) => every(x, history)) &&
    common(v) &&
    opt(v.start_time, dateTime) &&
    opt(v.initial_policy_version, isInt) &&
    opt(v.final_policy_version, isInt) &&
    !isMixedTrajectory(v)
  );
}

const exception = (v: unknown) => isObject(v) && opt(v.type, isString) && opt(v.message, isString) && opt(v.traceback, isString);

/** Whether `v` passes the `TrajectoryGroup` schema; false says only "ask the schema why". */
export function isTrajectoryGroup(v: unknown): boolean {
  return isObject(v) && opt(v.trajectories, (x) => every(x, trajectory)) && common(v) && opt(v.exceptions, (x) => every(x, exception));
}

// --- call batch items --------------------------------------------------------------------------
// Unlike the group check, this one need only be sound one way: when it says yes the `CallBatchItem`
// schema says yes too (test/unit/api/callFastCheck.test.ts); anything unusual (a rare time zone,
// an odd year) falls to the schema, which has the last word.

/** A request date-time (the schema's own check) in the usual range: the rare rest goes to the schema. */
function plainDateTime(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  const p = parseDateTime(v);
  return p !== undefined && p.zone !== undefined && p.y >= 1000 && p.offsetHours <= 14;
}

const plainProjectId = (v: unknown) => typeof v === 'string' && isProjectId(v);
const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0;
const optional = (v: unknown, check: (x: unknown) => boolean) => v === undefined || check(v);
const onlyKeys = (o: O, keys: ReadonlySet<string>) => Object.keys(o).every((k) => keys.has(k));

const START_KEYS = new Set(['project_id', 'op_name', 'started_at', 'attributes', 'inputs', 'id', 'trace_id', 'display_name', 'parent_id', 'thread_id', 'turn_id', 'otel_dump', 'svc_user_id', 'svc_run_id', 'svc_run_step']);
const END_KEYS = new Set(['project_id', 'id', 'ended_at', 'summary', 'exception', 'output', 'svc_run_step_end']);
const MODE_KEYS = new Set(['mode', 'req']);
const START_REQ = new Set(['start']);
const END_REQ = new Set(['end']);

function callStart(s: unknown): boolean {
  return (
    isObject(s) &&
    onlyKeys(s, START_KEYS) &&
    plainProjectId(s.project_id) &&
    nonEmpty(s.op_name) &&
    plainDateTime(s.started_at) &&
    isObject(s.attributes) &&
    isObject(s.inputs) &&
    optional(s.id, nonEmpty) &&
    optional(s.trace_id, nonEmpty) &&
    optional(s.display_name, isString) &&
    optional(s.parent_id, isString) &&
    optional(s.thread_id, isString) &&
    optional(s.turn_id, isString) &&
    optional(s.otel_dump, isObject) &&
    optional(s.svc_user_id, isString) &&
    optional(s.svc_run_id, isString) &&
    optional(s.svc_run_step, isInt)
  );
}

function callEnd(e: unknown): boolean {
  return (
    isObject(e) &&
    onlyKeys(e, END_KEYS) &&
    plainProjectId(e.project_id) &&
    nonEmpty(e.id) &&
    plainDateTime(e.ended_at) &&
    isObject(e.summary) &&
    optional(e.exception, isString) &&
    optional(e.svc_run_step_end, isInt)
  );
}

/** True only if `v` passes the `CallBatchItem` schema (false: ask the schema). */
export function isPlainCallBatchItem(v: unknown): boolean {
  if (!isObject(v) || !onlyKeys(v, MODE_KEYS) || !isObject(v.req)) return false;
  if (v.mode === 'start') return onlyKeys(v.req, START_REQ) && callStart(v.req.start);
  if (v.mode === 'end') return onlyKeys(v.req, END_REQ) && callEnd(v.req.end);
  return false;
}
