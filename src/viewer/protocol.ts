/**
 * The messages between the trajectory viewer's extension side and its webview, as zod schemas.
 * Both sides parse what they receive (`parseMessage`, src/webview/protocol.ts): a message that does
 * not match is dropped and logged, never acted on. `zod/mini` keeps the webview bundle small; no
 * `vscode` and no DOM import, so both bundles share this file.
 */
import * as z from 'zod/mini';
import { dictOf } from '../common/dictSchema';
import { ExchangeTotals, ExchangeView, GroupRow, GroupStats, MessageView, PartView, TokenStrip, TokenUsage, ToolCallView, ToolView } from '../files/shapes';

/** The trajectory model's shapes (src/files/shapes.ts), part of this protocol. */
export { ExchangeTotals, ExchangeView, GroupRow, GroupStats, MessageView, PartView, TokenStrip, TokenUsage, ToolCallView, ToolView };

const num = z.number();
const nullableNum = z.nullable(z.number());
const pairs = z.array(z.tuple([z.string(), z.string()]));

export const ProblemView = z.object({
  line: num,
  column: num,
  message: z.string(),
  severity: z.enum(['error', 'warning']),
});
export type ProblemView = z.infer<typeof ProblemView>;

export const TrajectorySummary = z.object({
  index: num,
  reward: nullableNum,
  /** No reward in the file (the service takes 0). */
  rewardMissing: z.boolean(),
  /** The reward as written when it is not a number. */
  rewardText: z.optional(z.string()),
  messages: num,
  choices: num,
  toolCalls: num,
  metrics: dictOf(num, 'numbers'),
  /** An exchange trajectory's totals. */
  totals: z.optional(ExchangeTotals),
  /** Whether ART's trainer trains on it and why not (src/files/verdicts.ts): the badge and its tooltip. */
  verdict: z.optional(z.object({ trains: z.boolean(), severity: z.enum(['train', 'skip', 'error', 'note']), label: z.string(), tooltip: z.string() })),
});
export type TrajectorySummary = z.infer<typeof TrajectorySummary>;

export const TrajectoryView = z.object({
  group: num,
  index: num,
  summary: TrajectorySummary,
  messages: z.array(MessageView),
  tools: z.array(ToolView),
  histories: z.array(z.object({ messages: z.array(MessageView), tools: z.array(ToolView) })),
  metrics: pairs,
  metadata: pairs,
  logs: z.array(z.string()),
  /** start_time, policy versions and fields the viewer does not know. */
  info: pairs,
  /** An exchange trajectory: its requests in time order, over `messages`. */
  exchanges: z.optional(z.array(ExchangeView)),
});
export type TrajectoryView = z.infer<typeof TrajectoryView>;

export const GroupDetail = z.object({
  row: GroupRow,
  trajectories: z.array(TrajectorySummary),
  metricNames: z.array(z.string()),
  metadata: pairs,
  metrics: pairs,
  logs: z.array(z.string()),
  exceptions: z.array(z.object({ type: z.string(), message: z.string(), traceback: z.string() })),
  problems: z.array(ProblemView),
  /** Fields of the group the viewer does not know. */
  info: pairs,
  /** Tokens and time of the group's exchange trajectories. */
  totals: z.optional(ExchangeTotals),
});
export type GroupDetail = z.infer<typeof GroupDetail>;

export const SearchHit = z.object({
  group: num,
  trajectory: num,
  history: num,
  message: num,
  field: z.string(),
  snippet: z.string(),
  /** Where it is, in words: "exception 1 of group 3", "metadata.scenario_id of trajectory 2.1". */
  where: z.optional(z.string()),
});
export type SearchHit = z.infer<typeof SearchHit>;

/** The file's logprobs (src/files/logprobStats.ts): two histograms over LOGPROB_EDGES and the least likely turns. */
export const LogprobPanel = z.object({
  edges: z.array(num),
  tokens: num,
  turns: num,
  /** Tokens with a logprob above 0 (no probability). */
  positive: num,
  /** Counts per bin: bin k holds edges[k-1] <= v < edges[k] (edges.length + 1 bins). */
  tokenBins: z.array(num),
  turnBins: z.array(num),
  /** The turns with the least likely tokens, lowest first, with where the view opens them (`history` -1: the main conversation). */
  worst: z.array(z.object({ group: num, trajectory: num, history: num, message: num, at: z.string(), tokens: num, mean: num, min: num, minToken: num })),
});
export type LogprobPanel = z.infer<typeof LogprobPanel>;

export const ToWebview = z.discriminatedUnion('type', [
  /** `parquet`: ART's step files, which have rows where text files have lines, and no text to reveal. */
  z.object({ type: z.literal('init'), file: z.string(), format: z.enum(['json', 'jsonl', 'parquet', 'eval']), fileBytes: num }),
  z.object({
    type: z.literal('progress'),
    /** Bumped whenever the content changed: rows of an older version are stale. */
    version: num,
    groups: num,
    trajectories: num,
    done: z.boolean(),
    indexedBytes: num,
    totalBytes: num,
    /** Why the file shows no groups (not a trajectory file, invalid JSON). */
    shapeError: z.optional(z.string()),
    split: z.optional(z.string()),
    /** Validation problems outside any group. */
    fileProblems: z.array(ProblemView),
    /** A banner above the groups: what the file is not (ART's lossy Parquet format version 1). */
    notice: z.optional(z.string()),
    validating: z.boolean(),
    /** The file's reward range, for the strips. */
    rewardMin: nullableNum,
    rewardMax: nullableNum,
    /** "Of 37 trajectories, 29 will train; ..." once indexed (text files only). */
    trainability: z.optional(z.string()),
  }),
  z.object({ type: z.literal('groups'), version: num, start: num, rows: z.array(GroupRow) }),
  z.object({ type: z.literal('group'), version: num, index: num, detail: z.optional(GroupDetail), error: z.optional(z.string()) }),
  z.object({ type: z.literal('trajectory'), version: num, group: num, index: num, view: z.optional(TrajectoryView), error: z.optional(z.string()) }),
  z.object({ type: z.literal('search'), query: z.string(), hits: z.array(SearchHit), done: z.boolean(), truncated: z.boolean(), groupsScanned: num }),
  /** The groups ART does not fully train on (or that make it raise), for the "will not train" filter. */
  z.object({ type: z.literal('untrained'), version: num, groups: z.array(num), error: z.optional(z.string()) }),
  /** Turns the "will not train" filter on or off (from a command or a test). */
  z.object({ type: z.literal('filter'), untrained: z.boolean() }),
  /** The file's logprob histograms and least likely turns, or why there are none. */
  z.object({ type: z.literal('logprobs'), version: num, panel: z.optional(LogprobPanel), error: z.optional(z.string()) }),
  /** Opens or closes the Logprobs panel; `click`: presses the button of that listed turn, as a click does (from a test). */
  z.object({ type: z.literal('logprobsPanel'), open: z.boolean(), click: z.optional(num) }),
  /** Shows only the trajectories whose reward is in [min, max] (opened from a reward band of the dashboard). */
  z.object({ type: z.literal('rewardRange'), min: z.optional(z.number()), max: z.optional(z.number()) }),
  /** Go to a place (from a command or a test). */
  z.object({
    type: z.literal('select'),
    group: num,
    trajectory: z.optional(num),
    message: z.optional(num),
    /** The message is in additional history `history` (0-based), not the main conversation. */
    history: z.optional(num),
    /** Show the message as its tokens (true) or text (false). */
    tokens: z.optional(z.boolean()),
  }),
]);
export type ToWebview = z.infer<typeof ToWebview>;

export const FromWebview = z.discriminatedUnion('type', [
  /** The webview loaded; `group`/`trajectory`: what it will show (its restored state), sent along at once. */
  z.object({ type: z.literal('ready'), group: z.optional(num), trajectory: z.optional(num) }),
  z.object({ type: z.literal('groups'), start: num, count: num }),
  z.object({ type: z.literal('group'), index: num }),
  z.object({ type: z.literal('trajectory'), group: num, index: num }),
  z.object({ type: z.literal('search'), query: z.string() }),
  /** Which groups ART does not fully train on (the "will not train" filter). */
  z.object({ type: z.literal('untrained') }),
  /** The file's logprob histograms (the Logprobs panel). */
  z.object({ type: z.literal('logprobs') }),
  z.object({
    type: z.literal('reveal'),
    group: num,
    trajectory: z.optional(num),
    history: z.optional(num),
    message: z.optional(num),
    /** A place inside the trajectory (an exchange's message), instead of `history`/`message`. */
    path: z.optional(z.array(z.union([z.string(), num]))),
    /** A problem's own position. */
    line: z.optional(num),
    column: z.optional(num),
  }),
  z.object({ type: z.literal('upload'), group: z.optional(num) }),
  z.object({ type: z.literal('compare'), group: num, trajectory: num }),
  /** "Follow this scenario across steps" (a step file of an ART run): svc.followScenario on this trajectory. */
  z.object({ type: z.literal('followScenario'), group: num, trajectory: num }),
  /** What the webview shows after a render: for the tests and the bench, and the screen reader's summary. */
  z.object({
    type: z.literal('rendered'),
    group: num,
    trajectory: z.optional(num),
    bubbles: z.array(z.object({ index: num, role: z.string(), text: z.string(), trainable: z.boolean() })),
    /** The headings of an exchange trajectory's exchanges (model, duration, tokens), and its totals line. */
    exchanges: z.optional(z.array(z.string())),
    totals: z.optional(z.string()),
    /** Token strips: their turn, tokens, token elements in the DOM (none until shown), and the strip's summary line. */
    strips: z.optional(
      z.array(
        z.object({
          message: num,
          tokens: num,
          nodes: num,
          summary: z.string(),
          /** The shown tokens' text (at most 2,000 characters). */
          text: z.string(),
          /** The strip's note (why there is no text, and how to get it). */
          note: z.optional(z.string()),
        }),
      ),
    ),
    /** With no trajectory shown: the main pane's rendered text (a group's exceptions, or why it is empty). */
    pane: z.optional(z.string()),
    groupRows: num,
    /** The group list's rendered rows (group numbers), and whether the "will not train" filter is on. */
    groupsListed: z.optional(z.array(num)),
    /** The rendered group rows' stats lines ("2 trajectories · μ 0.5 · …"), in group order. */
    groupStats: z.optional(z.array(z.string())),
    untrainedOnly: z.optional(z.boolean()),
    /** The file's summary line as rendered ("Of 17 trajectories, 7 will train; ..."). */
    trainability: z.optional(z.string()),
    /** The Logprobs panel as rendered, when open: its bars' counts and its listed turns' labels. */
    logprobs: z.optional(z.object({ tokenBins: z.array(num), turnBins: z.array(num), turns: z.array(z.string()), note: z.string() })),
    /** The trajectory list's rendered rows: "#3", its verdict badge and the badge's tooltip. */
    trajectoryRows: z.optional(z.array(z.object({ label: z.string(), badge: z.string(), tooltip: z.string() }))),
    /** Clickable links (`a[href]`) in the conversation: always 0, a trajectory file's links are text. */
    liveLinks: z.optional(num),
    /** The trajectory's "Follow scenario across steps" button is shown (a step file of a run). */
    followScenario: z.optional(z.boolean()),
    sinceLoadMs: num,
    /** When the webview's script started, on the same clock. */
    scriptStartMs: z.optional(num),
    heapBytes: z.optional(num),
    domNodes: num,
  }),
]);
export type FromWebview = z.infer<typeof FromWebview>;
