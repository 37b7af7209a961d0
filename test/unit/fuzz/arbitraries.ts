/**
 * fast-check arbitraries of valid trajectory groups (src/api/schemas/models.ts) and call records
 * (src/api/schemas/calls.ts), written from the zod schemas, field by field.
 */
import fc from 'fast-check';

/**
 * Keys of free-form records (metadata, metrics, parameters...). Includes names that are special to
 * JavaScript objects; "__proto__" (FIXED BUG 2, see trajectories.fuzz.test.ts) is opt-in:
 * pass `withProto` to include it.
 */
export const recordKey = (withProto = false) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.string({ maxLength: 8 }) },
    { weight: 1, arbitrary: fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', '0', 'trajectories', 'role', ...(withProto ? ['__proto__'] : [])) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  );

/** Any string, weighted towards the characters JSON escapes and line readers care about. */
export const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom('', '\n', '\r\n', '\r', '\u2028\u2029', '"\\', '\ufeff', '\u0000\u001f', '\ud800', '🎉', '{"trajectories":[]}') },
);

/** Finite numbers as JSON round-trips them (no -0, which JSON.stringify writes as 0). */
export const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)));
const int = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(0, -1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER));

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined, freq: 2 });

/** A record with optional keys: leaves undefined keys out (JSON has no undefined). */
const object = <T extends Record<string, fc.Arbitrary<unknown>>>(fields: T) => fc.record(fields).map((o) => dropUndefined(o));

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const dict = <T>(value: fc.Arbitrary<T>, withProto: boolean) =>
  fc.dictionary(recordKey(withProto), value, { maxKeys: 4, noNullPrototype: true });

/** JSON values for free-form objects (JsonObject: logprobs, parameters...). */
const jsonObject = (withProto: boolean) => dict(fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown), withProto);

/** ISO 8601 date-times with seconds and a zone, as DateTimeInput accepts. */
export const dateTime = fc
  .tuple(
    fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
    fc.integer({ min: 0, max: 9 }),
    fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 9, maxLength: 9 }),
    fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([s, h, m]) => `${s}${pad(h)}:${pad(m)}`)),
  )
  .map(([d, digits, frac, zone]) => `${d.toISOString().slice(0, 19)}${digits ? `.${frac.slice(0, digits)}` : ''}${zone}`);

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

export interface ArbOptions {
  /** Include "__proto__" among record keys (FIXED BUG 2). */
  withProto?: boolean;
}

export function trajectoryArbitraries({ withProto = false }: ArbOptions = {}) {
  const meta = dict(fc.oneof(number, text, fc.boolean(), fc.constant(null)), withProto);
  const metrics = dict(fc.oneof(number, fc.boolean()), withProto);

  const toolCall = fc.record({ id: text, type: fc.constant('function' as const), function: fc.record({ name: text, arguments: text }) });
  const assistant = object({
    role: fc.constant('assistant' as const),
    content: opt(fc.option(text, { nil: null })),
    name: opt(text),
    tool_calls: opt(fc.array(toolCall, { maxLength: 2 })),
  });
  const message = fc.oneof(
    object({ role: fc.constantFrom('system', 'developer', 'user', 'function'), content: fc.option(text, { nil: null }), name: opt(text) }),
    assistant,
    object({ role: fc.constant('tool'), content: fc.option(text, { nil: null }), name: opt(text), tool_call_id: text }),
  );
  const choice = object({
    finish_reason: fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'function_call'),
    index: int,
    message: assistant,
    logprobs: opt(fc.option(jsonObject(withProto), { nil: null })),
  });
  const messagesAndChoices = fc.array(fc.oneof(message, choice), { maxLength: 4 });
  const tool = fc.record({
    type: text,
    function: object({ name: text.filter((s) => s.length > 0), description: opt(text), parameters: opt(jsonObject(withProto)), strict: opt(fc.boolean()) }),
  });
  const tools = fc.array(tool, { maxLength: 2 });
  const history = object({ messages_and_choices: messagesAndChoices, tools: opt(tools) });
  // Current ART: compact dumps leave messages_and_choices out; an exchange trajectory has none.
  const exchange = fc.record({ request: jsonObject(false), response: jsonObject(false), model: fc.option(text, { nil: null }), start_time: dateTime, end_time: dateTime });
  const exchangeList = opt(fc.array(exchange, { maxLength: 2 }));
  const exchangeTrajectory = object({
    exchanges: object({ chat_completions: exchangeList, completions: exchangeList, responses: exchangeList, messages: exchangeList }),
    reward: opt(number),
    metrics: opt(metrics),
    metadata: opt(meta),
    logs: opt(fc.array(text, { maxLength: 3 })),
  });
  const legacyTrajectory = object({
    messages_and_choices: opt(messagesAndChoices),
    reward: opt(number),
    tools: opt(tools),
    additional_histories: opt(fc.array(history, { maxLength: 2 })),
    metrics: opt(metrics),
    metadata: opt(meta),
    logs: opt(fc.array(text, { maxLength: 3 })),
    start_time: opt(dateTime),
    initial_policy_version: opt(int),
    final_policy_version: opt(int),
  });
  const trajectory = fc.oneof({ arbitrary: legacyTrajectory, weight: 3 }, { arbitrary: exchangeTrajectory, weight: 1 });
  const group = object({
    trajectories: fc.array(trajectory, { maxLength: 3 }),
    metadata: opt(meta),
    metrics: opt(metrics),
    logs: opt(fc.array(text, { maxLength: 3 })),
  });
  return { trajectory, group };
}

const segment = fc.string({ minLength: 1, maxLength: 8 }).filter((s) => /^[^\s/]+$/.test(s));
const projectId = fc.tuple(segment, segment).map(([e, p]) => `${e}/${p}`);
const nonEmpty = text.filter((s) => s.length > 0);

export function callArbitraries({ withProto = false }: ArbOptions = {}) {
  const start = object({
    project_id: projectId,
    op_name: nonEmpty,
    started_at: dateTime,
    attributes: jsonObject(withProto),
    inputs: jsonObject(withProto),
    id: opt(nonEmpty),
    trace_id: opt(nonEmpty),
    display_name: opt(text),
    parent_id: opt(text),
    thread_id: opt(text),
    turn_id: opt(text),
    otel_dump: opt(jsonObject(withProto)),
    svc_run_id: opt(text),
    svc_run_step: opt(int),
  });
  const end = object({
    project_id: projectId,
    id: nonEmpty,
    ended_at: dateTime,
    summary: jsonObject(withProto),
    exception: opt(text),
    output: opt(fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown)),
    svc_run_step_end: opt(int),
  });
  /** A line's value in any of the accepted shapes, and the item it normalizes to. */
  const line = fc.oneof(
    start.map((s) => ({ value: { mode: 'start', req: { start: s } } as unknown, item: { mode: 'start', req: { start: s } } })),
    end.map((e) => ({ value: { mode: 'end', req: { end: e } } as unknown, item: { mode: 'end', req: { end: e } } })),
    start.map((s) => ({ value: { start: s } as unknown, item: { mode: 'start', req: { start: s } } })),
    end.map((e) => ({ value: { end: e } as unknown, item: { mode: 'end', req: { end: e } } })),
  );
  return { start, end, line };
}
