import { z } from 'zod';
import { JsonObject, LenientDateTime } from './common';

const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;

// What the log route takes is what the official training client (OpenPipe ART) sends: whole
// pydantic `model_dump(mode="json")` groups and whole OpenAI-SDK choices (behaviour note, "Model
// endpoints"). The service ignores fields it does not know and takes `null` for any optional
// field; it refuses only a missing required field or a wrong type for a known one. These schemas
// say exactly that: every object is loose (unknown fields pass, and are sent as they are), every
// optional field is nullable, and the known fields keep their types.

/** An optional field that may also be `null` (pydantic's `X | None = None`). */
const opt = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** A content part, e.g. `{type: "text", text}` or `{type: "image_url", image_url}`. */
const ContentPart = z.looseObject({ type: z.string() });
/** Message content: a string, a list of content parts, or null. */
const Content = z.union([z.string(), z.array(ContentPart)]).nullable();

/** An OpenAI-style tool call; `function` for `type: "function"`, other kinds (e.g. `custom`) pass. */
export const ToolCall = z
  .looseObject({
    id: z.string(),
    type: z.string(),
    function: opt(z.looseObject({ name: z.string(), arguments: z.string() })),
  })
  .refine((call) => call.type !== 'function' || call.function != null, { message: 'required field is missing', path: ['function'] });

const ToolCalls = opt(z.array(ToolCall));

/** An assistant message, as a chat message or as the `message` of a choice. */
const AssistantMessage = z.looseObject({
  role: z.literal('assistant'),
  content: Content.optional(),
  name: opt(z.string()),
  tool_calls: ToolCalls,
  refusal: opt(z.string()),
  annotations: opt(z.array(z.unknown())),
  audio: opt(z.looseObject({})),
  function_call: opt(z.looseObject({})),
  // vLLM's reasoning parsers
  reasoning_content: opt(z.string()),
});

/** A chat message (spec 2.4; roles and tool fields from the behaviour note), keyed by `role`. */
export const ChatMessage = z.discriminatedUnion('role', [
  z.looseObject({
    role: z.enum(['system', 'developer', 'user']),
    content: Content,
    name: opt(z.string()),
  }),
  AssistantMessage,
  z.looseObject({
    role: z.literal('tool'),
    content: Content,
    tool_call_id: z.string(),
  }),
  z.looseObject({
    role: z.literal('function'),
    content: Content,
    name: opt(z.string()),
  }),
]);

/** A choice: the trainable assistant turn, a whole chat-completion choice (vLLM adds `stop_reason`). */
export const Choice = z.looseObject({
  finish_reason: z.enum(FINISH_REASONS),
  index: z.number().int(),
  message: AssistantMessage,
  logprobs: opt(z.looseObject({})),
});

/**
 * An item of `messages_and_choices`: a message when it has `role`, a choice otherwise (as the
 * server decides). A plain union keeps the JSON Schema of trajectory files (src/trajectories/schema.ts).
 */
export const MessageOrChoice = z.union([ChatMessage, Choice]);

export const ToolFunction = z.looseObject({
  name: z.string().min(1),
  description: opt(z.string()),
  parameters: opt(JsonObject),
  strict: opt(z.boolean()),
});
/** Tool object of spec 2.4. */
export const Tool = z.looseObject({ type: z.string(), function: ToolFunction });

export const History = z.looseObject({
  messages_and_choices: z.array(MessageOrChoice),
  tools: opt(z.array(Tool)),
});

const Metrics = opt(z.record(z.string(), z.union([z.number(), z.boolean()])));
const Metadata = opt(z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])));
const Logs = opt(z.array(z.string()));

/**
 * One request made through ART's request capture: the raw request body and the raw response
 * (an OpenAI `ChatCompletion`, `Completion` or `Response`, or an Anthropic `Message`), both as the
 * SDKs dumped them, so only their being objects is checked.
 */
export const Exchange = z.looseObject({
  request: z.looseObject({}),
  response: z.looseObject({}),
  // `str | None` without a default in ART: always dumped, null when unknown.
  model: z.string().nullable(),
  start_time: LenientDateTime,
  end_time: LenientDateTime,
});
export type Exchange = z.infer<typeof Exchange>;

/** The four APIs ART captures, in its order. */
export const EXCHANGE_KINDS = ['chat_completions', 'completions', 'responses', 'messages'] as const;
export type ExchangeKind = (typeof EXCHANGE_KINDS)[number];

/** ART's `TrajectoryExchanges`: a list per API; an empty one is left out of a dump. */
export const TrajectoryExchanges = z.looseObject({
  chat_completions: opt(z.array(Exchange)),
  completions: opt(z.array(Exchange)),
  responses: opt(z.array(Exchange)),
  messages: opt(z.array(Exchange)),
});

export const MIXED_TRAJECTORY = 'A trajectory cannot contain both exchanges and legacy histories (messages_and_choices, tools, additional_histories)';

/** ART's validator: exchanges (any list non-empty) and legacy fields never together. */
export function isMixedTrajectory(t: Record<string, unknown>): boolean {
  const ex = t.exchanges;
  const nonEmpty = (v: unknown) => Array.isArray(v) && v.length > 0;
  const hasExchanges = typeof ex === 'object' && ex !== null && EXCHANGE_KINDS.some((k) => nonEmpty((ex as Record<string, unknown>)[k]));
  return hasExchanges && (nonEmpty(t.messages_and_choices) || (t.tools !== undefined && t.tools !== null) || nonEmpty(t.additional_histories));
}

/**
 * One trajectory (spec 2.4, and the fields of ART's `Trajectory`). ART dumps compactly
 * (`exclude_defaults`): `messages_and_choices` is absent when empty, and an exchange trajectory
 * has `exchanges` instead.
 */
export const Trajectory = z
  .looseObject({
    exchanges: opt(TrajectoryExchanges),
    messages_and_choices: opt(z.array(MessageOrChoice)),
    reward: opt(z.number()),
    tools: opt(z.array(Tool)),
    additional_histories: opt(z.array(History)),
    metrics: Metrics,
    metadata: Metadata,
    logs: Logs,
    start_time: opt(LenientDateTime),
    initial_policy_version: opt(z.number().int()),
    final_policy_version: opt(z.number().int()),
  })
  .refine((t) => !isMixedTrajectory(t), { message: MIXED_TRAJECTORY });
export type Trajectory = z.infer<typeof Trajectory>;

/** A rollout that raised, as ART records it in a group. */
export const GroupException = z.looseObject({ type: opt(z.string()), message: opt(z.string()), traceback: opt(z.string()) });

/** A group; ART leaves `trajectories` out of the dump of an empty group. */
export const TrajectoryGroup = z.looseObject({
  trajectories: opt(z.array(Trajectory)),
  metadata: Metadata,
  metrics: Metrics,
  logs: Logs,
  exceptions: opt(z.array(GroupException)),
});
export type TrajectoryGroup = z.infer<typeof TrajectoryGroup>;

/**
 * A trajectory where a group belongs: no `trajectories`, but a trajectory's own content (legacy
 * `messages_and_choices` or ART's `exchanges`). As a group it would be sent as an empty one. The
 * one rule: the reader refuses it (src/files/reader.ts), the JSON Schema of trajectory files says
 * so (src/trajectories/schema.ts), the viewer shows it as a group of one (src/files/model.ts).
 * Own members only (a parsed document has no others).
 */
export function isBareTrajectory(value: object): boolean {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(value, key);
  return !has('trajectories') && (has('messages_and_choices') || has('exchanges'));
}

/** Request of POST /v1/preview/models/{model_id}/log (ART also sends `model_id`). */
export const TrajectoryLogRequest = z.looseObject({
  split: z.string().min(1),
  trajectory_groups: z.array(TrajectoryGroup),
});
export type TrajectoryLogRequest = z.infer<typeof TrajectoryLogRequest>;

/** CheckpointResponse (spec 2.5). */
export const Checkpoint = z.looseObject({
  id: z.string(),
  step: z.number().int(),
  metrics: JsonObject,
});
export type Checkpoint = z.infer<typeof Checkpoint>;

/** The list envelope of GET .../checkpoints with the spec's defaults filled. */
export const CheckpointList = z.looseObject({
  data: z.array(Checkpoint),
  has_more: z.boolean(),
  object: z.string().default('list'),
  first_id: z.string().default(''),
  last_id: z.string().default(''),
});
export type CheckpointList = z.infer<typeof CheckpointList>;

export const CheckpointOrder = z.enum(['asc', 'desc']);
export type CheckpointOrder = z.infer<typeof CheckpointOrder>;

/** Query of GET .../checkpoints. */
export const ListCheckpointsQuery = z.strictObject({
  after: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(100).optional(),
  order: CheckpointOrder.optional(),
});
export type ListCheckpointsQuery = z.infer<typeof ListCheckpointsQuery>;

/**
 * Model ids are path segments; any non-empty string is encoded, except "." and "..":
 * encodeURIComponent leaves them as they are (and the URL parser reads "%2e" as "." too), so
 * `/v1/preview/models/../checkpoints` would be a request to `/v1/preview/checkpoints`.
 */
export const ModelId = z
  .string()
  .min(1)
  .superRefine((id, ctx) => {
    if (id === '.' || id === '..') ctx.addIssue({ code: 'custom', input: id, message: `"${id}" is not a model id: as a path segment it would move the request to another path` });
  });
