/**
 * The tools' inputs. The same schemas check what a model sends (zod) and describe it to the model
 * (JSON Schema: package.json's `inputSchema` and the MCP server's list; a unit test keeps the
 * package.json copies equal to `toJsonSchema` of these). Pure: no vscode import.
 */
import { z } from 'zod';

const text = (max: number) => z.string().min(1).max(max);
const count = (max: number) => z.number().int().min(0).max(max);
const dateTime = () => z.string().max(64).refine((s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date-time with a zone, e.g. 2026-11-24T00:00:00Z');

export const SORT_FIELDS = ['thread_id', 'turn_count', 'start_time', 'last_updated', 'p50_turn_duration_ms', 'p99_turn_duration_ms'] as const;
export const MAX_THREADS = 200;
export const MAX_CHECKPOINTS = 500;

export const ListThreadsInput = z.strictObject({
  projectId: text(256).regex(/^[^/\s]+\/[^/\s]+$/, 'must be <entity>/<project>').optional().describe('The project, "<entity>/<project>". Default: the project selected in svc.'),
  sortBy: z.enum(SORT_FIELDS).optional().describe('Sort field. Default last_updated.'),
  direction: z.enum(['asc', 'desc']).optional().describe('Sort direction. Default desc.'),
  after: dateTime().optional().describe('Only turns started after this ISO 8601 date-time count (e.g. 2026-11-24T00:00:00Z).'),
  before: dateTime().optional().describe('Only turns started before this ISO 8601 date-time count.'),
  threadIds: z.array(text(512)).max(1000).optional().describe('Only these threads.'),
  limit: z.number().int().min(1).max(MAX_THREADS).optional().describe(`Rows to return, 1 to ${MAX_THREADS}. Default 50.`),
  offset: count(1_000_000_000).optional().describe('Rows to skip, for the next page. Default 0.'),
});
export type ListThreadsInput = z.infer<typeof ListThreadsInput>;

export const ListCheckpointsInput = z.strictObject({
  modelId: text(256).describe('The model id, as used in /v1/preview/models/{model_id}.'),
  order: z.enum(['asc', 'desc']).optional().describe('By step: desc (newest first, default) or asc.'),
  limit: z.number().int().min(1).max(MAX_CHECKPOINTS).optional().describe(`Rows to return, 1 to ${MAX_CHECKPOINTS}. Default 50.`),
  metric: text(256).optional().describe('The metric that names the best checkpoint. Default: the first metric whose name contains "reward".'),
});
export type ListCheckpointsInput = z.infer<typeof ListCheckpointsInput>;

export const SummarizeRunInput = z
  .strictObject({
    modelId: text(256).optional().describe("The model whose checkpoints' metrics to read from the service."),
    historyFile: text(4096).optional().describe("Or a local history.jsonl of the training client (.art/<project>/models/<model>/history.jsonl): a path in the workspace, or absolute."),
  })
  .refine((v) => (v.modelId === undefined) !== (v.historyFile === undefined), 'Give exactly one of modelId and historyFile.');
export type SummarizeRunInput = z.infer<typeof SummarizeRunInput>;

export const SummarizeTrajectoriesInput = z.strictObject({
  file: text(4096).describe('A trajectory file (JSON, JSONL or Parquet) or an Inspect AI .eval log: a path in the workspace, or absolute.'),
});
export type SummarizeTrajectoriesInput = z.infer<typeof SummarizeTrajectoriesInput>;

export const ExplainTrajectoryInput = z.strictObject({
  file: text(4096).describe('A trajectory file (JSON, JSONL or Parquet): a path in the workspace, or absolute.'),
  group: count(100_000_000).describe('The group, 0-based (the "group" column of svc_summarize_trajectories).'),
  trajectory: count(1_000_000).describe("The trajectory within the group, 0-based, in the file's order."),
});
export type ExplainTrajectoryInput = z.infer<typeof ExplainTrajectoryInput>;

export const ScenarioHistoryInput = z.strictObject({
  run: text(4096).describe("The ART run: its folder (.art/<project>/models/<model>/), its history.jsonl, or one of its step files (trajectories/<split>/<step>.parquet); a path in the workspace, or absolute."),
  scenario: text(4096).describe('The scenario: the value of the metadata key (e.g. a scenario_id), or the first user message of the task (compared ignoring case and spaces).'),
  key: text(256).optional().describe('The metadata key that names the task (the trajectory\'s metadata, else its group\'s). Default scenario_id. Trajectories without it are matched by their first user message.'),
  split: text(256).optional().describe('The split. Default: that of a step file given as run, else train.'),
});
export type ScenarioHistoryInput = z.infer<typeof ScenarioHistoryInput>;

export const MAX_SEARCH_HITS = 200;

export const SearchTrajectoriesInput = z
  .strictObject({
    run: text(4096).optional().describe("A training run of the training client's layout: its folder (.art/<project>/models/<model>), its history.jsonl, or one split folder (…/trajectories/train). Every step file of every split is searched (see split)."),
    files: z.array(text(4096)).min(1).max(1000).optional().describe('Or step files (JSON, JSONL or Parquet) one by one: paths in the workspace, or absolute. The step is read from a name like 0042.parquet.'),
    query: text(1000).describe('The text to find (case-insensitive), or a JavaScript regular expression with regex: true.'),
    regex: z.boolean().optional().describe('Read query as a regular expression (case-insensitive). Nested quantifiers such as (a+)+ and backreferences are refused.'),
    split: text(256).optional().describe('Only this split (e.g. train or val). Default: every split of the run.'),
    steps: z.strictObject({ from: count(1_000_000_000).optional(), to: count(1_000_000_000).optional() }).optional().describe('Only steps in this inclusive range, e.g. {"from": 5, "to": 40}.'),
    reward: z.strictObject({ min: z.number().optional(), max: z.number().optional() }).optional().describe("Only trajectories whose reward is in this inclusive range. A group's own fields (exceptions) are left out by any trajectory filter."),
    role: text(64).optional().describe('Only messages of this role: system, user, assistant or tool.'),
    tool: text(256).optional().describe('Only trajectories that call this tool (by name).'),
    verdict: z.enum(['trains', 'not-trained', 'fails']).optional().describe("Only trajectories ART's trainer trains on (trains), does not (not-trained), or whose group makes it raise (fails), as svc_explain_trajectory tells."),
    limit: z.number().int().min(1).max(MAX_SEARCH_HITS).optional().describe(`Hits to return, 1 to ${MAX_SEARCH_HITS}. Default 20.`),
    offset: count(1_000_000_000).optional().describe('Hits to skip, for the next page. Default 0.'),
  })
  .refine((v) => (v.run === undefined) !== (v.files === undefined), 'Give exactly one of run and files.');
export type SearchTrajectoriesInput = z.infer<typeof SearchTrajectoriesInput>;

const JsonObject = z.record(z.string(), z.unknown());

export const AttachFeedbackInput = z
  .strictObject({
    ref: text(2048).describe('The svc:/// ref of the call (or object) the feedback is about, e.g. svc:///acme/bot/call/<turn id>.'),
    note: text(1024).optional().describe('A note (1 to 1024 characters).'),
    emoji: text(64).optional().describe('A reaction: exactly one emoji.'),
    feedbackType: text(256).optional().describe('A custom feedback type, with payload.'),
    payload: JsonObject.optional().describe('The custom feedback content (a JSON object), with feedbackType.'),
  })
  .refine((v) => [v.note !== undefined, v.emoji !== undefined, v.feedbackType !== undefined || v.payload !== undefined].filter(Boolean).length === 1, 'Give one kind of feedback: note, emoji, or feedbackType with payload.')
  .refine((v) => (v.feedbackType === undefined) === (v.payload === undefined), 'feedbackType and payload go together.');
export type AttachFeedbackInput = z.infer<typeof AttachFeedbackInput>;

export const UploadTrajectoriesInput = z.strictObject({
  files: z.array(text(4096)).min(1).max(100).describe('Trajectory files (JSON, JSONL or Parquet): paths in the workspace, or absolute. Step files upload in step order.'),
  modelId: text(256).describe('The model to log the trajectories to.'),
  split: text(256).describe('The data split, usually "train" or "val".'),
  allowRepeat: z.boolean().optional().describe('Log content again that this editor already uploaded to the same model and split (refused otherwise).'),
});
export type UploadTrajectoriesInput = z.infer<typeof UploadTrajectoriesInput>;

/** The JSON Schema a model sees for `schema` (no `$schema` member: package.json and MCP take it bare). */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** A zod failure as one line per problem, naming the input field. */
export function inputProblems(error: z.ZodError): string {
  return error.issues
    .slice(0, 10)
    .map((i) => `- ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message.replace(/^Invalid input: expected (.+), received undefined$/, 'required ($1)')}`)
    .join('\n');
}
