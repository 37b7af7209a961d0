import { z } from 'zod';
import { DateTimeInput, JsonObject } from './common';

const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;

// Message rules mirror the strictest server (test/server/trajectories.ts), so a file is refused in
// the editor rather than by a 422 after upload: unknown fields are refused everywhere, only
// assistant messages may omit `content` (null is a value) or carry `tool_calls`, and only tool
// messages carry `tool_call_id`, which they must.

/** An OpenAI-style tool call made by an assistant message. */
export const ToolCall = z.strictObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.strictObject({ name: z.string(), arguments: z.string() }),
});

/** Assistant messages that only call tools may omit `content` or set it to null. */
const AssistantMessage = z.strictObject({
  role: z.literal('assistant'),
  content: z.string().nullable().optional(),
  name: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
});

/** A chat message (spec 2.4; roles and tool fields from the behaviour note), keyed by `role`. */
export const ChatMessage = z.discriminatedUnion('role', [
  z.strictObject({
    role: z.enum(['system', 'developer', 'user', 'function']),
    content: z.string().nullable(),
    name: z.string().optional(),
  }),
  AssistantMessage,
  z.strictObject({
    role: z.literal('tool'),
    content: z.string().nullable(),
    name: z.string().optional(),
    tool_call_id: z.string(),
  }),
]);

/** A choice: the trainable assistant turn, as returned by a chat completion. */
export const Choice = z.strictObject({
  finish_reason: z.enum(FINISH_REASONS),
  index: z.number().int(),
  message: AssistantMessage,
  logprobs: JsonObject.nullable().optional(),
});

/**
 * An item of `messages_and_choices`: a message when it has `role`, a choice otherwise (as the
 * server decides). A plain union keeps the JSON Schema of trajectory files (src/trajectories/schema.ts).
 */
export const MessageOrChoice = z.union([ChatMessage, Choice]);

export const ToolFunction = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: JsonObject.optional(),
  strict: z.boolean().optional(),
});
/** Tool object of spec 2.4. */
export const Tool = z.strictObject({ type: z.string(), function: ToolFunction });

export const History = z.strictObject({
  messages_and_choices: z.array(MessageOrChoice),
  tools: z.array(Tool).optional(),
});

/** One trajectory (spec 2.4). Unknown fields are refused: they are typos more often than not. */
export const Trajectory = z.strictObject({
  messages_and_choices: z.array(MessageOrChoice),
  reward: z.number().optional(),
  tools: z.array(Tool).optional(),
  additional_histories: z.array(History).optional(),
  metrics: z.record(z.string(), z.union([z.number(), z.boolean()])).optional(),
  metadata: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
  logs: z.array(z.string()).optional(),
  start_time: DateTimeInput.optional(),
  initial_policy_version: z.number().int().optional(),
  final_policy_version: z.number().int().optional(),
});
export type Trajectory = z.infer<typeof Trajectory>;

export const TrajectoryGroup = z.strictObject({
  trajectories: z.array(Trajectory),
  metadata: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
  metrics: z.record(z.string(), z.union([z.number(), z.boolean()])).optional(),
  logs: z.array(z.string()).optional(),
});
export type TrajectoryGroup = z.infer<typeof TrajectoryGroup>;

/** Request of POST /v1/preview/models/{model_id}/log. */
export const TrajectoryLogRequest = z.strictObject({
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

/** Model ids are path segments; any non-empty string is encoded. */
export const ModelId = z.string().min(1);
