import { z } from 'zod';
import { DateTimeInput, JsonObject } from './common';

const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;

/** A chat message (spec 2.4; roles and tool fields from the behaviour note). Extra fields are kept. */
export const ChatMessage = z.looseObject({
  role: z.enum(CHAT_ROLES),
  // Assistant messages that only call tools carry null content.
  content: z.string().nullable().optional(),
  name: z.string().optional(),
  tool_calls: z.array(JsonObject).optional(),
  tool_call_id: z.string().optional(),
});

/** A choice: the trainable assistant turn, as returned by a chat completion. */
export const Choice = z.looseObject({
  finish_reason: z.enum(FINISH_REASONS),
  index: z.number().int().optional(),
  message: ChatMessage.extend({ role: z.literal('assistant') }),
  logprobs: z.unknown().optional(),
});

/** An item of `messages_and_choices`: a choice when it has `finish_reason`, a message otherwise. */
export const MessageOrChoice = z.union([Choice, ChatMessage]);

export const ToolFunction = z.looseObject({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: JsonObject.optional(),
  strict: z.boolean().nullable().optional(),
});
/** Tool object of spec 2.4. */
export const Tool = z.looseObject({ type: z.string(), function: ToolFunction });

export const History = z.strictObject({
  messages_and_choices: z.array(MessageOrChoice),
  tools: z.array(Tool).nullable().optional(),
});

/** One trajectory (spec 2.4). Unknown fields are refused: they are typos more often than not. */
export const Trajectory = z.strictObject({
  messages_and_choices: z.array(MessageOrChoice),
  reward: z.number().optional(),
  tools: z.array(Tool).nullable().optional(),
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
