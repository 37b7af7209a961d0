/**
 * The shapes the trajectory model (files/model.ts, messages.ts, exchanges.ts, tokens.ts) makes of a
 * file for its readers: a group's statistics and row, a message, a tool, an exchange, a token strip.
 * zod schemas, because the viewer's webview protocol (src/viewer/protocol.ts) sends them and both
 * sides parse what they receive. `zod/mini`, no `vscode`, no DOM, no Node: the webview bundle
 * shares this file.
 */
import * as z from 'zod/mini';

const num = z.number();
const nullableNum = z.nullable(z.number());
const pairs = z.array(z.tuple([z.string(), z.string()]));

export const GroupStats = z.object({
  count: num,
  mean: nullableNum,
  std: nullableNum,
  min: nullableNum,
  max: nullableNum,
  zeroVariance: z.boolean(),
  exceptions: num,
});
export type GroupStats = z.infer<typeof GroupStats>;

/** A row of the group list. */
export const GroupRow = z.object({
  index: num,
  line: num,
  endLine: num,
  /** Set when the group cannot be read (invalid JSON, not a group). */
  invalid: z.optional(z.string()),
  bare: z.boolean(),
  stats: GroupStats,
  /** One tick per trajectory (at most 256, evenly picked). */
  rewards: z.array(num),
  errors: num,
  warnings: num,
  /** What ART's trainer trains on in the group (src/files/verdicts.ts); text files only. */
  verdict: z.optional(z.object({ training: num, trajectories: num, text: z.string(), fails: z.boolean() })),
});
export type GroupRow = z.infer<typeof GroupRow>;

/** Token counts of one response or a sum of them; a field only when the producer reported it. */
export const TokenUsage = z.object({
  input: z.optional(num),
  output: z.optional(num),
  total: z.optional(num),
  cached: z.optional(num),
  reasoning: z.optional(num),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** One captured request of an exchange trajectory: its messages are `messages[start, end)`. */
export const ExchangeView = z.object({
  /** chat_completions, completions, responses or messages. */
  kind: z.string(),
  /** Index in its list under `exchanges`. */
  index: num,
  model: z.optional(z.string()),
  startTime: z.optional(z.string()),
  /** end_time − start_time. */
  durationMs: z.optional(num),
  usage: TokenUsage,
  start: num,
  end: num,
  /** Leading request messages left out: the previous exchange already showed them. */
  skipped: num,
});
export type ExchangeView = z.infer<typeof ExchangeView>;

/** Tokens and time over exchanges: of a trajectory, or of a group's trajectories. */
export const ExchangeTotals = z.object({ usage: TokenUsage, durationMs: z.optional(num), exchanges: num });
export type ExchangeTotals = z.infer<typeof ExchangeTotals>;

export const PartView = z.object({
  kind: z.enum(['text', 'refusal', 'media', 'json']),
  text: z.string(),
  label: z.optional(z.string()),
});
export type PartView = z.infer<typeof PartView>;

export const ToolCallView = z.object({
  id: z.optional(z.string()),
  name: z.string(),
  arguments: z.string(),
  /** The message holding this call's result. */
  resultIndex: z.optional(num),
  /** A legacy `function_call`. */
  legacy: z.optional(z.boolean()),
});
export type ToolCallView = z.infer<typeof ToolCallView>;

/** A trainable turn's generated tokens (src/files/tokens.ts): parallel lists, one entry per token. */
export const TokenStrip = z.object({
  /** Where the logprobs are: compact_logprobs, logprobs.content, token_ids (ids only), ... */
  form: z.string(),
  model: z.optional(z.string()),
  logprobs: z.array(nullableNum),
  ids: z.optional(z.array(num)),
  /** Token text, from the file or decoded with `decodedWith`; null where unknown. */
  texts: z.optional(z.array(z.nullable(z.string()))),
  /** Top alternatives per token: [text or `#id`, logprob]. */
  top: z.optional(z.array(z.array(z.tuple([z.string(), num])))),
  /** The tokenizer.json that gave the text. */
  decodedWith: z.optional(z.string()),
  /** Why there is no text, and how to get it. */
  note: z.optional(z.string()),
  /** The turn had this many tokens; the strip holds the first ones. */
  cut: z.optional(num),
});
export type TokenStrip = z.infer<typeof TokenStrip>;

export const MessageView = z.object({
  index: num,
  role: z.string(),
  /** A choice: the turn the model is trained on. */
  trainable: z.boolean(),
  parts: z.array(PartView),
  name: z.optional(z.string()),
  reasoning: z.optional(z.string()),
  refusal: z.optional(z.string()),
  finishReason: z.optional(z.string()),
  toolCalls: z.array(ToolCallView),
  toolCallId: z.optional(z.string()),
  /** For a tool result: the message that made the call, and the call's name. */
  callIndex: z.optional(num),
  callName: z.optional(z.string()),
  /** Other non-null fields (logprobs, annotations, audio, stop_reason, ...). */
  extras: pairs,
  /** Where the message is in its trajectory, when not at `messages_and_choices[index]` (exchanges). */
  path: z.optional(z.array(z.union([z.string(), num]))),
  /** A choice's tokens, when it has logprobs or token ids. */
  tokens: z.optional(TokenStrip),
});
export type MessageView = z.infer<typeof MessageView>;

export const ToolView = z.object({ name: z.string(), description: z.string(), parameters: z.string() });
export type ToolView = z.infer<typeof ToolView>;
