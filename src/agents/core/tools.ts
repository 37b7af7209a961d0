/**
 * The tools an agent can call, the same in VS Code (language model tools) and in the MCP
 * server: names, descriptions, input schemas and runs. Every outcome is text; nothing a model
 * sends makes a tool throw (`runTool`, `prepareTool`). Pure: no vscode import.
 */
import type { z } from 'zod';
import { checkRead, type RunContext } from './access';
import { listCheckpoints } from './checkpoints';
import { explainTrajectory } from './explain';
import { describeError, type ToolHost } from './host';
import { summarizeRun } from './run';
import { scenarioHistoryTool } from './scenario';
import { searchTrajectories } from './search';
import {
  AttachFeedbackInput,
  ExplainTrajectoryInput,
  inputProblems,
  ListCheckpointsInput,
  ListThreadsInput,
  ScenarioHistoryInput,
  SearchTrajectoriesInput,
  SummarizeRunInput,
  SummarizeTrajectoriesInput,
  toJsonSchema,
  UploadTrajectoriesInput,
} from './schemas';
import { listThreads } from './threads';
import { summarizeTrajectories } from './trajectories';
import { attachFeedback, confirmFeedback, confirmUpload, uploadTrajectories, type Confirmation } from './writes';

export interface AgentTool {
  name: string;
  /** A short name for people (package.json `displayName`). */
  title: string;
  /** For the model: when to use it and what comes back (package.json `modelDescription`). */
  description: string;
  input: z.ZodType;
  /** Writes confirm first; reads do not, unless they read a file outside the read roots (core/access.ts). */
  write: boolean;
  /** The local files a read tool reads, as given. */
  reads?(input: never): string[];
  /** What the UI shows while it runs. */
  progress(input: never): string;
  confirm?(host: ToolHost, input: never, signal?: AbortSignal): Promise<Confirmation> | Confirmation;
  run(host: ToolHost, input: never, signal?: AbortSignal, context?: RunContext): Promise<string>;
}

const tool = <S extends z.ZodType>(t: Omit<AgentTool, 'input' | 'reads' | 'progress' | 'confirm' | 'run'> & {
  input: S;
  reads?(input: z.infer<S>): string[];
  progress(input: z.infer<S>): string;
  confirm?(host: ToolHost, input: z.infer<S>, signal?: AbortSignal): Promise<Confirmation> | Confirmation;
  run(host: ToolHost, input: z.infer<S>, signal?: AbortSignal, context?: RunContext): Promise<string>;
}): AgentTool => t as unknown as AgentTool;

export const TOOLS: readonly AgentTool[] = [
  tool({
    name: 'svc_list_threads',
    title: 'List svc threads',
    description:
      'Lists the conversation threads of an svc project with their statistics: turn count, p50 and p99 turn duration in ms, start time, last update, and the refs (svc:///…/call/<id>) of the first and last turn. ' +
      'Use it for questions such as "which threads had the most turns yesterday?" (sortBy turn_count, after/before as ISO date-times) or to find a turn ref to attach feedback to. ' +
      'Returns the total count and a Markdown table of at most `limit` rows (default 50); when more exist it says so and which offset to pass next. projectId defaults to the project selected in svc.',
    input: ListThreadsInput,
    write: false,
    progress: (i) => `Listing threads of ${i.projectId ?? 'the selected project'}`,
    run: listThreads,
  }),
  tool({
    name: 'svc_list_checkpoints',
    title: 'List svc checkpoints',
    description:
      'Lists the checkpoints of a training model (svc model endpoints): step, id and metrics of each, newest first by default. ' +
      'Names the latest checkpoint and the best one by a metric (default: the reward-like metric; higher is better for rewards, lower for losses). ' +
      'Use it to answer "which checkpoint is best?" or "what is the latest step?". Returns the count, the best and latest, and a Markdown table of up to `limit` rows (default 50), saying when rows were left out.',
    input: ListCheckpointsInput,
    write: false,
    progress: (i) => `Listing the checkpoints of ${i.modelId}`,
    run: listCheckpoints,
  }),
  tool({
    name: 'svc_summarize_run',
    title: 'Summarize an svc training run',
    description:
      "Summarizes a training run's health from the metrics of its checkpoints on the service ({modelId}) or from a local history.jsonl of the training client ({historyFile}). " +
      'Use it for "is my run still improving?" or "is the reward stuck?". Returns plain sentences with numbers: the reward trend over the last 10 points (improving, plateau or falling, with the fitted change and the noise it was compared to), ' +
      'the best and latest step, the within-group reward standard deviation and the exception rate over time, metrics that stopped being logged, and non-finite values. It states numbers, not advice.' +
      " With {historyFile}, also the trainable share per step: how many groups and trajectories ART would train on at each step (by the verdicts of svc_summarize_trajectories) from the step files in trajectories/train/ beside the history, and ART's own data/step_num_groups_trainable of data/step_num_groups_submitted where logged, naming the steps where the share fell.",
    input: SummarizeRunInput,
    write: false,
    reads: (i) => (i.historyFile !== undefined ? [i.historyFile] : []),
    progress: (i) => `Summarizing the run ${i.modelId ?? i.historyFile ?? ''}`,
    run: summarizeRun,
  }),
  tool({
    name: 'svc_summarize_trajectories',
    title: 'Summarize a trajectory file',
    description:
      'Reads a local trajectory file (JSON, JSONL or Parquet, as the training client writes under .art/<project>/models/<model>/trajectories/<split>/) and summarizes it per group: trajectory count, reward mean, standard deviation, min and max, ' +
      'a zero-variance flag (all rewards equal: the group gives no learning signal), exceptions, tokens and time where the file has them, and how many trajectories of each group ART\'s trainer will train on at its default settings, with a file summary of why not the others (zero advantage, no reward variance, no logprobs, ...). Also lists validation problems with line and column. ' +
      'Use it for "why does step 42 have no learning signal?" or before uploading. An Inspect AI .eval log is summarized per task and sample: scores, failures (errors, limits) and tokens. Nothing is sent anywhere.',
    input: SummarizeTrajectoriesInput,
    write: false,
    reads: (i) => [i.file],
    progress: (i) => `Reading ${i.file}`,
    run: summarizeTrajectories,
  }),
  tool({
    name: 'svc_explain_trajectory',
    title: 'Explain why ART trains on a trajectory or not',
    description:
      "Says whether OpenPipe ART's trainer trains on one trajectory of a local trajectory file (JSON, JSONL or Parquet), and if not, why: zero advantage, no reward variance in its group, a group of one, no logprobs on its turns (or logprobs in a form ART does not read), no trainable assistant turn, or a problem that makes ART raise (missing token ids). " +
      "Gives the numbers (reward, group mean and std, the advantage as ART computes it) and the ART source rule behind each reason; verdicts assume ART's default settings and name the setting that would change them. group and trajectory are 0-based, as svc_summarize_trajectories numbers groups. Nothing is sent anywhere.",
    input: ExplainTrajectoryInput,
    write: false,
    reads: (i) => [i.file],
    progress: (i) => `Explaining group ${i.group}, trajectory ${i.trajectory} of ${i.file}`,
    run: explainTrajectory,
  }),
  tool({
    name: 'svc_scenario_history',
    title: 'Follow a scenario across the steps of an ART run',
    description:
      'Follows one scenario (the same task) across the steps of a local ART run (.art/<project>/models/<model>/, its step files trajectories/<split>/<step>.parquet or .jsonl): per step, the rewards of that scenario\'s rollouts and their final answers (the last assistant message, cut), and the first step where the answer changed. ' +
      'The scenario is the value of a metadata key (scenario_id by default, or the key given; the trajectory\'s metadata, else its group\'s); trajectories without it are matched by their first user message, ignoring case and spaces. ' +
      'Use it for "did the answers to this scenario get better between step 5 and step 40?". Returns a sentence with the counts and the first change, and a Markdown table of up to 60 steps, saying when steps were left out. When the scenario is found nowhere, it lists the scenarios it saw. Nothing is sent anywhere.',
    input: ScenarioHistoryInput,
    write: false,
    reads: (i) => [i.run],
    progress: (i) => `Following ${i.scenario} across the steps of ${i.run}`,
    run: scenarioHistoryTool,
  }),
  tool({
    name: 'svc_search_trajectories',
    title: 'Search trajectories across a run',
    description:
      'Searches every step file of a local training run (.art/<project>/models/<model>/trajectories/<split>/<step>.parquet or .jsonl; give the run folder, its history.jsonl or a split folder as run) or of trajectory files given one by one (files) for a text (case-insensitive) or a regular expression: messages, tool calls (names and arguments), each trajectory\'s metadata and logs, and the groups\' exceptions (type, message, traceback). ' +
      'Filters: split, steps {from, to}, reward {min, max}, role, tool (trajectories that call it), verdict (trains, not-trained, fails). ' +
      'Use it for "which rollouts mention timeout at any step?" or "from which step does the model call search_docs?". Returns the hit count and a Markdown table of at most `limit` hits (default 20) in step, group, trajectory order: split, step, 0-based group and trajectory (as svc_explain_trajectory takes them), where the hit is, the reward and a snippet; it says when hits were left out and which offset to pass next, and names malformed files or groups (skipped). Nothing is sent anywhere.',
    input: SearchTrajectoriesInput,
    write: false,
    reads: (i) => i.files ?? (i.run !== undefined && /history\.jsonl$/.test(i.run) ? [i.run] : []),
    progress: (i) => `Searching ${i.run ?? `${i.files?.length ?? 0} files`} for ${i.regex ? `/${i.query}/` : `"${i.query}"`}`,
    run: searchTrajectories,
  }),
  tool({
    name: 'svc_attach_feedback',
    title: 'Attach svc feedback',
    description:
      'Attaches feedback to a call or object by its svc:/// ref (for a thread, use a turn ref from svc_list_threads): a note (text), a reaction (one emoji), or a custom feedbackType with a JSON payload. ' +
      'The user confirms first; the confirmation names the host, the ref and the content. Returns the id of the stored feedback row.',
    input: AttachFeedbackInput,
    write: true,
    progress: (i) => `Attaching feedback to ${i.ref}`,
    confirm: confirmFeedback,
    run: attachFeedback,
  }),
  tool({
    name: 'svc_upload_trajectories',
    title: 'Upload trajectories to svc',
    description:
      "Uploads local trajectory files (JSON, JSONL or Parquet) to a model's trajectory log with a data split (usually train or val). Every file is validated first; a file with errors sends nothing. " +
      'Step files of the training layout go in step order. The user confirms first; the confirmation names the host, the model and split, and the files, groups and bytes. ' +
      'Content already uploaded from here to the same model and split is refused unless allowRepeat is true. A file that changes during the upload stops it. Returns what the service logged per file; on a failure, which lines were logged, which were not, and which may have been.',
    input: UploadTrajectoriesInput,
    write: true,
    progress: (i) => `Uploading ${i.files.length} files to ${i.modelId} (${i.split})`,
    confirm: confirmUpload,
    run: uploadTrajectories,
  }),
];

export const READ_TOOLS = TOOLS.filter((t) => !t.write);

export function findTool(name: string): AgentTool | undefined {
  return TOOLS.find((t) => t.name === name);
}

/** The JSON Schema of a tool's input. */
export function inputSchemaOf(t: AgentTool): Record<string, unknown> {
  return toJsonSchema(t.input);
}

export interface ToolText {
  text: string;
  isError: boolean;
}

type Checked = { ok: true; value: unknown } | { ok: false; result: ToolText };

function check(t: AgentTool, raw: unknown): Checked {
  const parsed = t.input.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, result: { text: `${t.name}: the input is not valid.\n${inputProblems(parsed.error)}`, isError: true } };
}

/** Runs a tool on what a model sent; every failure is a text result, never a throw. The text is redacted (ToolHost.redact). */
export async function runTool(host: ToolHost, t: AgentTool, raw: unknown, signal?: AbortSignal, context: RunContext = {}): Promise<ToolText> {
  const result = await runUnredacted(host, t, raw, signal, context);
  return { text: host.redact(result.text), isError: result.isError };
}

async function runUnredacted(host: ToolHost, t: AgentTool, raw: unknown, signal: AbortSignal | undefined, context: RunContext): Promise<ToolText> {
  try {
    const checked = check(t, raw);
    if (!checked.ok) return checked.result;
    return { text: await t.run(host, checked.value as never, signal, context), isError: false };
  } catch (e) {
    return { text: `${t.name} failed: ${describeError(e, host)}`, isError: true };
  }
}

export interface Prepared {
  progress: string;
  confirmation?: Confirmation;
  /** The real paths outside the read roots the confirmation names: once confirmed, the run may read them. */
  outside?: string[];
}

/**
 * The confirmation of a write tool, or of a read of a file outside the read roots (where the host
 * confirms them), and the invocation message. A write whose input cannot be checked still
 * confirms, saying why it will fail, so nothing is sent unasked.
 */
export async function prepareTool(host: ToolHost, t: AgentTool, raw: unknown, signal?: AbortSignal): Promise<Prepared> {
  const { progress, confirmation, outside } = await prepareUnredacted(host, t, raw, signal);
  return {
    progress: host.redact(progress),
    ...(confirmation ? { confirmation: { title: host.redact(confirmation.title), message: host.redact(confirmation.message) } } : {}),
    ...(outside ? { outside } : {}),
  };
}

async function prepareUnredacted(host: ToolHost, t: AgentTool, raw: unknown, signal?: AbortSignal): Promise<Prepared> {
  const checked = check(t, raw);
  const progress = checked.ok ? safe(() => t.progress(checked.value as never), t.title) : t.title;
  if (!t.write && checked.ok && t.reads && host.outsideRoots === 'confirm') return { progress, ...(await confirmOutside(host, t, t.reads(checked.value as never))) };
  if (!t.write || !t.confirm) return { progress };
  if (!checked.ok) return { progress, confirmation: { title: t.title, message: checked.result.text } };
  try {
    return { progress, confirmation: await t.confirm(host, checked.value as never, signal) };
  } catch (e) {
    return { progress, confirmation: { title: `${t.title}?`, message: `This will fail: ${describeError(e, host)}` } };
  }
}

/**
 * The confirmation of a read whose files are outside the read roots, naming each (and what a link
 * leads to). A file that cannot be checked asks nothing: the run says what is wrong with it.
 */
async function confirmOutside(host: ToolHost, t: AgentTool, files: readonly string[]): Promise<Omit<Prepared, 'progress'>> {
  const outside: { shown: string; real: string }[] = [];
  let roots: string[] = [];
  for (const file of files) {
    try {
      const c = await checkRead(host, file);
      roots = c.roots;
      if (!c.inside) outside.push(c);
    } catch {
      // Missing, not a regular file: the run refuses it by name, nothing to confirm.
    }
  }
  if (!outside.length) return {};
  const names = outside.map((c) => (c.real !== c.shown ? `${c.shown} (a link to ${c.real})` : c.shown));
  return {
    confirmation: {
      title: `${t.title}: read a file outside the workspace?`,
      message:
        `${t.name} will read ${names.join(', ')}, outside the workspace folders (${roots.length ? roots.join(', ') : 'none open'}). ` +
        'What it reads (figures, names and problems in the file) goes to the language model.',
    },
    outside: outside.map((c) => c.real),
  };
}

function safe(f: () => string, fallback: string): string {
  try {
    return f();
  } catch {
    return fallback;
  }
}
