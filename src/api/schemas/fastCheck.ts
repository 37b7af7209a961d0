/**
 * A fast yes/no check of a trajectory group against exactly the rules of the `TrajectoryGroup`
 * zod schema (./models.ts), for the upload's validation pass over large files: most groups are
 * valid, and saying so by hand is several times cheaper than a schema parse. A group this check
 * refuses is parsed by the schema, which says why. Kept honest by
 * test/unit/trajectories/fastCheck.test.ts: on the producers' variants and on fuzzed groups, this
 * check and the schema must agree on every value.
 */
import { isLenientDateTime } from './common';

type O = Record<string, unknown>;

const isObj = (v: unknown): v is O => typeof v === 'object' && v !== null && !Array.isArray(v);
/** Absent, null, or passing `check` (an optional, nullable field). */
const opt = (v: unknown, check: (x: unknown) => boolean) => v === undefined || v === null || check(v);
const isString = (v: unknown) => typeof v === 'string';
const isNumber = (v: unknown) => typeof v === 'number' && Number.isFinite(v);
const isInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v);
const isBool = (v: unknown) => typeof v === 'boolean';
const every = (v: unknown, check: (x: unknown) => boolean) => Array.isArray(v) && v.every(check);
const values = (v: unknown, check: (x: unknown) => boolean) => isObj(v) && Object.values(v).every(check);

const metric = (x: unknown) => isNumber(x) || isBool(x);
const metadatum = (x: unknown) => x === null || isNumber(x) || isString(x) || isBool(x);
const content = (v: unknown) => v === null || isString(v) || every(v, (p) => isObj(p) && isString(p.type));

function toolCall(v: unknown): boolean {
  if (!isObj(v) || !isString(v.id) || !isString(v.type)) return false;
  const fn = v.function;
  if (fn === undefined || fn === null) return v.type !== 'function';
  return isObj(fn) && isString(fn.name) && isString(fn.arguments);
}

function assistant(m: O): boolean {
  return (
    m.role === 'assistant' &&
    (m.content === undefined || content(m.content)) &&
    opt(m.name, isString) &&
    opt(m.tool_calls, (x) => every(x, toolCall)) &&
    opt(m.refusal, isString) &&
    opt(m.annotations, Array.isArray) &&
    opt(m.audio, isObj) &&
    opt(m.function_call, isObj) &&
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
  return typeof c.finish_reason === 'string' && FINISH.has(c.finish_reason) && isInt(c.index) && isObj(c.message) && assistant(c.message) && opt(c.logprobs, isObj);
}

const messageOrChoice = (v: unknown) => isObj(v) && (message(v) || choice(v));

function tool(v: unknown): boolean {
  if (!isObj(v) || !isString(v.type) || !isObj(v.function)) return false;
  const f = v.function;
  return typeof f.name === 'string' && f.name.length > 0 && opt(f.description, isString) && opt(f.parameters, isObj) && opt(f.strict, isBool);
}

const history = (v: unknown) => isObj(v) && every(v.messages_and_choices, messageOrChoice) && opt(v.tools, (x) => every(x, tool));

function common(o: O): boolean {
  return opt(o.metrics, (x) => values(x, metric)) && opt(o.metadata, (x) => values(x, metadatum)) && opt(o.logs, (x) => every(x, isString));
}

function trajectory(v: unknown): boolean {
  return (
    isObj(v) &&
    every(v.messages_and_choices, messageOrChoice) &&
    opt(v.reward, isNumber) &&
    opt(v.tools, (x) => every(x, tool)) &&
    opt(v.additional_histories, (x) => every(x, history)) &&
    common(v) &&
    opt(v.start_time, (x) => isString(x) && isLenientDateTime(x)) &&
    opt(v.initial_policy_version, isInt) &&
    opt(v.final_policy_version, isInt)
  );
}

const exception = (v: unknown) => isObj(v) && opt(v.type, isString) && opt(v.message, isString) && opt(v.traceback, isString);

/** Whether `v` passes the `TrajectoryGroup` schema; false says only "ask the schema why". */
export function isTrajectoryGroup(v: unknown): boolean {
  return isObj(v) && every(v.trajectories, trajectory) && common(v) && opt(v.exceptions, (x) => every(x, exception));
}
