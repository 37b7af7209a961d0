/**
 * Inspect AI samples as ART trajectories (issue 32): what the trajectory viewer shows of an `.eval`
 * log, and what "Convert to ART Trajectories" writes (`toArtGroups`). One sample of one epoch is
 * one trajectory; a sample's epochs are one group (or the samples that share a metadata value,
 * `groupBy`). Inspect's chat messages become OpenAI-style messages, its assistant turns ART choices
 * (tool calls as `{id, type: "function", function: {name, arguments}}`, reasoning as
 * `reasoning_content`), the score picked as `reward` (Inspect's value_to_float: "C" 1, "P" 0.5,
 * "I"/"N" 0, yes/true 1, no/false 0, numbers), every scalar score and the token usage as metrics,
 * answers, explanations and the sample's metadata as metadata. A sample that ended in an error is
 * an exception of its group, as ART records a rollout that raised. What has no place in ART's
 * format is counted in `lost` (docs/inspect.md lists it). No `vscode` import.
 */
import { isObject } from '../api/json';
import { dict } from '../api/dict';
import { EvalLog, type EvalSample, type EvalSampleSummary } from './inspectEval';

type Obj = Record<string, unknown>;

/** What was left out, counted: a description → how many samples it concerns. */
export class Lost {
  private readonly counts = new Map<string, number>();
  add(what: string): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + 1);
  }
  list(): string[] {
    return [...this.counts].map(([what, n]) => `${what} (${n.toLocaleString('en-US')} sample${n === 1 ? '' : 's'})`);
  }
}

/** Inspect's value_to_float (scorer/_metric.py) for a score's value; undefined for lists, objects and null. */
export function scoreValue(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v !== 'string') return undefined;
  if (v === 'C') return 1;
  if (v === 'P') return 0.5;
  if (v === 'I' || v === 'N') return 0;
  const l = v.toLowerCase();
  if (l === 'yes' || l === 'true') return 1;
  if (l === 'no' || l === 'false') return 0;
  const n = Number(v.trim());
  return v.trim() !== '' && Number.isFinite(n) ? n : undefined;
}

/** A field as text: strings as they are, other values as JSON, nothing as ''. */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  return v === undefined || v === null ? '' : JSON.stringify(v);
}

const STOP = new Map([['stop', 'stop'], ['tool_calls', 'tool_calls'], ['max_tokens', 'length'], ['model_length', 'length'], ['content_filter', 'content_filter']]);

/** Message content: a string, or parts when there are images; reasoning parts apart. */
function content(c: unknown, lost: Lost): { content: string | Obj[] | null; reasoning?: string } {
  if (typeof c === 'string') return { content: c };
  if (!Array.isArray(c)) return { content: null };
  const parts: Obj[] = [];
  const reasoning: string[] = [];
  for (const p of c as Obj[]) {
    switch (p.type) {
      case 'text':
        parts.push({ type: 'text', text: text(p.text) });
        break;
      case 'reasoning':
        if (p.redacted) lost.add('redacted reasoning (only its summary, if any, is shown)');
        reasoning.push(text((p.redacted ? p.summary : p.reasoning) ?? p.summary));
        break;
      case 'image':
        parts.push({ type: 'image_url', image_url: { url: text(p.image), detail: p.detail ?? 'auto' } });
        break;
      case 'tool_use':
        // A provider's own tool (web search, MCP, code execution): shown as text.
        parts.push({ type: 'text', text: `[${String(p.tool_type)} ${String(p.name)}(${text(p.arguments)}) → ${text(p.result)}${p.error ? ` error: ${text(p.error)}` : ''}]` });
        lost.add('provider tool uses (web search, MCP, code execution) turned into text');
        break;
      default:
        parts.push({ type: 'text', text: `[${String(p.type)} content not converted]` });
        lost.add(`${String(p.type)} content (audio, video, documents and data are not in ART's chat format)`);
    }
  }
  const out = parts.every((p) => p.type === 'text') ? parts.map((p) => p.text as string).join('\n') : parts;
  return reasoning.length ? { content: out, reasoning: reasoning.join('\n\n') } : { content: out };
}

/** An Inspect chat message as an ART message (system, user, tool) or choice (assistant). */
function message(m: Obj, lost: Lost, final?: { stop?: string; logprobs?: unknown }): Obj {
  const { content: c, reasoning } = content(m.content, lost);
  if (m.role === 'assistant') {
    const msg: Obj = { role: 'assistant', content: c };
    const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Obj[]) : [];
    if (calls.length) {
      msg.tool_calls = calls.map((t) => ({ id: text(t.id), type: 'function', function: { name: text(t.function), arguments: JSON.stringify(t.arguments ?? {}) } }));
      if (calls.some((t) => t.parse_error)) lost.add("tool calls' parse errors");
    }
    if (reasoning !== undefined) msg.reasoning_content = reasoning;
    const finish = final?.stop ? (STOP.get(final.stop) ?? 'stop') : calls.length ? 'tool_calls' : 'stop';
    const choice: Obj = { finish_reason: finish, index: 0, message: msg };
    if (final && isObject(final.logprobs)) choice.logprobs = final.logprobs;
    return choice;
  }
  const out: Obj = { role: m.role, content: c };
  if (m.role === 'tool') {
    out.tool_call_id = text(m.tool_call_id);
    if (isObject(m.error)) {
      const err = `Error (${(text(m.error.type) || 'tool')}): ${text(m.error.message)}`;
      out.content = typeof c === 'string' && c ? `${c}\n${err}` : err;
    }
  }
  if (reasoning !== undefined) lost.add(`reasoning in ${String(m.role)} messages`);
  return out;
}

/** `tools` of the first model call in the events (ToolInfo → OpenAI tool), if any. */
function toolsOf(sample: EvalSample): Obj[] | undefined {
  for (const e of sample.events ?? []) {
    if (e.event !== 'model' || !Array.isArray(e.tools) || !e.tools.length) continue;
    return (e.tools as Obj[]).map((t) => ({ type: 'function', function: { name: text(t.name), description: typeof t.description === 'string' ? t.description : undefined, parameters: isObject(t.parameters) ? t.parameters : undefined } }));
  }
  return undefined;
}

const scalar = (v: unknown): v is string | number | boolean | null => v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

/** Token usage summed over the models of a sample, as metrics. */
export function usageMetrics(usage: Record<string, Obj> | null | undefined): Record<string, number> {
  const out = dict<number>();
  for (const u of Object.values(usage ?? {})) {
    for (const k of ['input_tokens', 'output_tokens', 'total_tokens', 'reasoning_tokens', 'input_tokens_cache_read', 'input_tokens_cache_write', 'total_cost']) {
      const v = u[k];
      if (typeof v === 'number' && Number.isFinite(v)) out[k] = (out[k] ?? 0) + v;
    }
  }
  return out;
}

export interface TrajectoryOptions {
  task: string;
  model: string;
  /** The score that is the reward. */
  reward: string | undefined;
}

/** One sample of one epoch as an ART trajectory. */
export function sampleTrajectory(sample: EvalSample, opts: TrajectoryOptions, lost: Lost): Obj {
  const messages = (sample.messages ?? []) as Obj[];
  let last = -1;
  messages.forEach((m, i) => m.role === 'assistant' && (last = i));
  const choice0 = isObject(sample.output) && Array.isArray(sample.output.choices) ? (sample.output.choices[0] as Obj | undefined) : undefined;
  const final = choice0 ? { stop: typeof choice0.stop_reason === 'string' ? choice0.stop_reason : undefined, logprobs: choice0.logprobs } : undefined;
  const t: Obj = { messages_and_choices: messages.map((m, i) => message(m, lost, i === last ? final : undefined)) };
  const tools = toolsOf(sample);
  if (tools) t.tools = tools;
  const scores = sample.scores ?? dict();
  const picked = opts.reward !== undefined && Object.prototype.hasOwnProperty.call(scores, opts.reward) ? scores[opts.reward] : undefined;
  const reward = picked ? scoreValue(picked.value) : undefined;
  if (reward !== undefined) t.reward = reward;
  else if (opts.reward !== undefined) lost.add(picked ? `rewards: score "${opts.reward}" is not a number, a boolean or one of C/P/I/N (reward left out, 0 on upload)` : `rewards: no score "${opts.reward}" (reward left out, 0 on upload)`);
  const metrics = dict<number>();
  const metadata = dict<string | number | boolean | null>();
  metadata.task = opts.task;
  metadata.model = opts.model;
  metadata.sample_id = String(sample.id);
  metadata.epoch = sample.epoch;
  metadata.target = Array.isArray(sample.target) ? JSON.stringify(sample.target) : sample.target;
  for (const [name, s] of Object.entries(scores)) {
    const v = scoreValue(s.value);
    if (v !== undefined) metrics[name] = v;
    else {
      metadata[`${name}.value`] = JSON.stringify(s.value);
      if (name !== opts.reward) lost.add(`score values that are lists or objects (kept as JSON text in metadata, not a metric)`);
    }
    if (typeof s.value === 'string' && v !== undefined && s.value !== String(v)) metadata[`${name}.value`] = s.value;
    if (s.answer != null) metadata[`${name}.answer`] = s.answer;
    if (s.explanation != null) metadata[`${name}.explanation`] = s.explanation;
    if (s.metadata && Object.keys(s.metadata).length) metadata[`${name}.metadata`] = JSON.stringify(s.metadata);
  }
  Object.assign(metrics, usageMetrics(sample.model_usage as Record<string, Obj> | undefined));
  for (const k of ['total_time', 'working_time'] as const) if (typeof sample[k] === 'number') metrics[k] = sample[k] as number;
  for (const [k, v] of Object.entries(sample.metadata ?? {})) metadata[k in metadata ? `sample.${k}` : k] = scalar(v) ? v : JSON.stringify(v);
  if (typeof sample.limit === 'object' && sample.limit) metadata.limit = JSON.stringify(sample.limit);
  if (typeof sample.uuid === 'string') metadata.uuid = sample.uuid;
  t.metrics = metrics;
  t.metadata = metadata;
  if (typeof sample.started_at === 'string') t.start_time = sample.started_at;
  const lines = (sample as { eventLines?: string[] }).eventLines;
  if (lines?.length) t.logs = lines;
  if ((sample as { eventCount?: number }).eventCount || sample.events?.length) lost.add("events (the transcript of model calls, tool calls, scoring steps: a line each is kept in the trajectory's logs)");
  if (isObject(sample.store) && Object.keys(sample.store).length) lost.add('store (state at the end of the sample)');
  if (isObject(sample.role_usage) && Object.keys(sample.role_usage).length) lost.add('token usage by role (the sum per model is kept)');
  return t;
}

/** A sample that ended in an error, as ART records a rollout that raised. */
export function sampleException(s: { id: string | number; epoch: number; error?: unknown }): { type: string; message: string; traceback: string } {
  const e = s.error;
  const message = isObject(e) ? text(e.message) : text(e);
  return { type: 'InspectSampleError', message: `sample ${s.id}, epoch ${s.epoch}: ${message}`, traceback: isObject(e) ? text(e.traceback) : '' };
}

/** The reward score: `reward` if the log has it, else the first score; undefined when it has none. */
export function pickReward(log: EvalLog, reward: string | undefined): string | undefined {
  const names = log.scoreNames;
  if (reward !== undefined && !names.includes(reward)) throw new Error(`${log.name} has no score "${reward}"; its scores: ${names.join(', ') || '(none)'}`);
  return reward ?? names[0];
}

/** A group of samples: the trajectories of those that finished, the exceptions of those that did not. */
export async function groupOf(log: EvalLog, members: EvalSampleSummary[], reward: string | undefined, lost: Lost, signal?: AbortSignal, metadata?: Obj): Promise<Obj> {
  const trajectories: Obj[] = [];
  const exceptions: Obj[] = [];
  for (const s of members) {
    signal?.throwIfAborted();
    const sample = await log.sample(s.id, s.epoch, signal);
    if (sample.error) exceptions.push(sampleException(sample));
    else trajectories.push(sampleTrajectory(sample, { task: log.task, model: log.model, reward }, lost));
  }
  const group: Obj = { trajectories };
  if (metadata) group.metadata = metadata;
  if (exceptions.length) group.exceptions = exceptions;
  return group;
}

/** The members of each group: a sample's epochs, or the samples that share `groupBy` in their metadata. */
export function groupMembers(log: EvalLog, groupBy: string | undefined, lost: Lost): { key: string; members: EvalSampleSummary[] }[] {
  if (groupBy === undefined) return log.samples.map((g) => ({ key: String(g.id), members: g.epochs }));
  const out = new Map<string, EvalSampleSummary[]>();
  for (const g of log.samples) {
    for (const s of g.epochs) {
      const v = isObject(s.metadata) ? s.metadata[groupBy] : undefined;
      if (v === undefined) lost.add(`samples without metadata "${groupBy}" (grouped together under "(none)")`);
      const key = v === undefined ? '(none)' : typeof v === 'string' ? v : JSON.stringify(v);
      out.set(key, [...(out.get(key) ?? []), s]);
    }
  }
  return [...out].map(([key, members]) => ({ key, members }));
}

/**
 * An Inspect `.eval` log as ART trajectory groups (for "Convert to ART Trajectories"): one group per
 * sample (its epochs), or per value of the sample metadata key `groupBy`; `reward` names the score
 * that is the reward (default: the first). `lost` says what ART's format has no place for,
 * `scores` the log's score names.
 */
export async function toArtGroups(path: string, opts: { reward?: string; groupBy?: string; signal?: AbortSignal }): Promise<{ groups: object[]; lost: string[]; scores: string[] }> {
  const log = await EvalLog.open(path, { signal: opts.signal });
  try {
    const reward = pickReward(log, opts.reward);
    const lost = new Lost();
    const groups: object[] = [];
    for (const { key, members } of groupMembers(log, opts.groupBy, lost)) {
      const metadata: Obj = dict();
      metadata.task = log.task;
      if (opts.groupBy === undefined) metadata.sample_id = key;
      else metadata[opts.groupBy] = key;
      groups.push(await groupOf(log, members, reward, lost, opts.signal, metadata));
    }
    const out = lost.list();
    if (reward === undefined) out.unshift('rewards: the log has no scores (every reward left out, 0 on upload)');
    if (log.journal) out.unshift(`the log is unfinished (read from its journal): ${log.summaries} samples so far`);
    return { groups, lost: out, scores: log.scoreNames };
  } finally {
    await log.close();
  }
}
