/**
 * ATIF (Agent Trajectory Interchange Format, Harbor's `agent/trajectory.json`) read into ART's
 * trajectory shape, which the viewer, the summary tool and Convert to ART all read. A file is
 * one trajectory; its continuation files (`continued_trajectory_ref`) are followed and joined; its
 * subagents (embedded `subagent_trajectories`, or `subagent_trajectory_ref.trajectory_path` files)
 * are read as trajectories of their own. A Harbor job folder (`<job>/<trial>/agent/trajectory.json`
 * beside `<job>/<trial>/result.json`) is a list of trials, each with the verifier's rewards.
 *
 * The fields (ATIF v1.0–v1.8, from Harbor's pydantic models; docs/harnesses.md lists what is shown
 * and what is left out) are read with zod: unknown fields pass, a known field of the wrong type is
 * an error naming the file and the field. Hostile files are bounded: size per file, nesting depth,
 * files per job, continuation chain length and subagent depth. No `vscode` import.
 */
import { readdir, realpath } from 'node:fs/promises';
import * as path from 'node:path';
import { z } from 'zod';
import { InputError, formatPath } from '../api/errors';
import { isObject } from '../api/json';
import { MAX_DEPTH, tooDeepAt } from '../files/problems';
import { firstSyntaxError } from '../files/jsonText';
import { FileTooLarge, readRegular } from '../common/regular';
import { formatBytes } from '../common/format';
import { dict } from '../api/dict';

/** The versions Harbor's models accept (`Trajectory.schema_version`). */
export const ATIF_VERSIONS = ['ATIF-v1.0', 'ATIF-v1.1', 'ATIF-v1.2', 'ATIF-v1.3', 'ATIF-v1.4', 'ATIF-v1.5', 'ATIF-v1.6', 'ATIF-v1.7', 'ATIF-v1.8'] as const;

/** Caps for hostile input. */
export const ATIF_LIMITS = {
  /** One trajectory.json or result.json. */
  fileBytes: 256 * 1024 * 1024,
  /** All the files of one job together. */
  jobBytes: 1024 * 1024 * 1024,
  /** Trials in one job folder. */
  trials: 10_000,
  /** Files joined by continued_trajectory_ref. */
  continuations: 64,
  /** Subagents of subagents. */
  subagentDepth: 8,
  /** Subagent trajectories of one trial, all levels. */
  subagents: 1000,
};

const opt = <T extends z.ZodType>(s: T) => s.nullable().optional();
const Extra = opt(z.record(z.string(), z.unknown()));

const ContentPart = z.looseObject({ type: z.string(), text: opt(z.string()), source: opt(z.looseObject({ media_type: opt(z.string()), path: opt(z.string()) })) });
const Content = z.union([z.string(), z.array(ContentPart)]);

const ToolCall = z.looseObject({ tool_call_id: z.string(), function_name: z.string(), arguments: opt(z.unknown()), extra: Extra });
const SubagentRef = z.looseObject({ trajectory_id: opt(z.string()), session_id: opt(z.string()), trajectory_path: opt(z.string()), extra: Extra });
const ObservationResult = z.looseObject({
  source_call_id: opt(z.string()),
  content: opt(Content),
  subagent_trajectory_ref: opt(z.array(SubagentRef)),
  extra: Extra,
});
const Metrics = z.looseObject({
  prompt_tokens: opt(z.number()),
  completion_tokens: opt(z.number()),
  cached_tokens: opt(z.number()),
  cost_usd: opt(z.number()),
  prompt_token_ids: opt(z.array(z.number().int())),
  completion_token_ids: opt(z.array(z.number().int())),
  logprobs: opt(z.array(z.number().nullable())),
  extra: Extra,
});
const Step = z.looseObject({
  step_id: z.number().int(),
  timestamp: opt(z.string()),
  source: z.enum(['system', 'user', 'agent']),
  model_name: opt(z.string()),
  reasoning_effort: opt(z.union([z.string(), z.number()])),
  message: opt(Content),
  reasoning_content: opt(z.string()),
  tool_calls: opt(z.array(ToolCall)),
  observation: opt(z.looseObject({ results: z.array(ObservationResult) })),
  metrics: opt(Metrics),
  is_copied_context: opt(z.boolean()),
  llm_call_count: opt(z.number().int()),
  extra: Extra,
});
const FinalMetrics = z.looseObject({
  total_prompt_tokens: opt(z.number()),
  total_completion_tokens: opt(z.number()),
  total_cached_tokens: opt(z.number()),
  total_cost_usd: opt(z.number()),
  total_steps: opt(z.number()),
  extra: Extra,
});
const Agent = z.looseObject({
  name: z.string(),
  version: opt(z.string()),
  model_name: opt(z.string()),
  tool_definitions: opt(z.array(z.record(z.string(), z.unknown()))),
  extra: Extra,
});
interface AtifDocShape {
  schema_version: string;
  session_id?: string | null;
  trajectory_id?: string | null;
  agent: z.infer<typeof Agent>;
  steps: z.infer<typeof Step>[];
  notes?: string | null;
  final_metrics?: z.infer<typeof FinalMetrics> | null;
  continued_trajectory_ref?: string | null;
  extra?: Record<string, unknown> | null;
  subagent_trajectories?: AtifDocShape[] | null;
}
const AtifDoc: z.ZodType<AtifDocShape> = z.lazy(() =>
  z.looseObject({
    schema_version: z.string(),
    session_id: opt(z.string()),
    trajectory_id: opt(z.string()),
    agent: Agent,
    steps: z.array(Step),
    notes: opt(z.string()),
    final_metrics: opt(FinalMetrics),
    continued_trajectory_ref: opt(z.string()),
    extra: Extra,
    subagent_trajectories: opt(z.array(AtifDoc)),
  }),
) as z.ZodType<AtifDocShape>;
export type AtifDoc = AtifDocShape;
export type AtifStep = z.infer<typeof Step>;

/** Harbor's trial result (`TrialResult`, result.json), the fields read here. */
const TrialResult = z.looseObject({
  task_name: opt(z.string()),
  trial_name: opt(z.string()),
  verifier_result: opt(z.looseObject({ rewards: opt(z.record(z.string(), z.union([z.number(), z.boolean(), z.null()]))) })),
  exception_info: opt(z.looseObject({ exception_type: opt(z.string()), exception_message: opt(z.string()), exception_traceback: opt(z.string()) })),
  agent_result: opt(z.looseObject({ n_input_tokens: opt(z.number()), n_cache_tokens: opt(z.number()), n_output_tokens: opt(z.number()), cost_usd: opt(z.number()) })),
});
export type TrialResult = z.infer<typeof TrialResult>;

/** What cannot be read, naming the file and the field (`steps[3].tool_calls[0].function_name`). */
export class AtifError extends InputError {
  constructor(file: string, message: string, field?: string) {
    super(field ? `${file}: ${field}: ${message}` : `${file}: ${message}`, { file, field });
  }
}

export interface ReadOpts {
  signal?: AbortSignal;
  /** Whether a file may be read, by its real path (the agents' tools: only under their read roots). */
  canRead?: (real: string) => boolean;
  /** Bytes read so far by the caller (a job's budget); added to. */
  budget?: { bytes: number };
}

/** Parses one JSON file from disk, bounded in size and depth. */
async function readJson(file: string, opts: ReadOpts): Promise<unknown> {
  if (opts.canRead) {
    const real = await realpath(file).catch((e: NodeJS.ErrnoException) => {
      throw new AtifError(file, `cannot be read: ${e.code ?? e.message}`);
    });
    if (!opts.canRead(real)) throw new AtifError(file, `is outside the folders that may be read${real !== file ? ` (a link to ${real})` : ''}: not read`);
  }
  let bytes: Buffer;
  try {
    ({ bytes } = await readRegular(file, { maxBytes: ATIF_LIMITS.fileBytes, signal: opts.signal }));
  } catch (e) {
    if (e instanceof FileTooLarge) throw new AtifError(file, `larger than ${formatBytes(ATIF_LIMITS.fileBytes)}: not read`);
    if (e instanceof InputError) throw e;
    throw new AtifError(file, `cannot be read: ${(e as Error).message}`);
  }
  if (opts.budget) {
    opts.budget.bytes += bytes.length;
    if (opts.budget.bytes > ATIF_LIMITS.jobBytes) throw new AtifError(file, `the job's files together are larger than ${formatBytes(ATIF_LIMITS.jobBytes)}: stopped reading here`);
  }
  const text = bytes.toString('utf8');
  const deep = tooDeepAt(text);
  if (deep >= 0) throw new AtifError(file, `nested deeper than ${MAX_DEPTH} levels of arrays and objects (at character ${deep + 1})`);
  try {
    return JSON.parse(text);
  } catch {
    // Said by position, never quoting the file (it may not be what it claims to be).
    const err = firstSyntaxError(text);
    throw new AtifError(file, `not valid JSON${err ? ` at character ${err.offset + 1}: ${err.description}` : ''}`);
  }
}

function firstIssue(file: string, error: z.ZodError): AtifError {
  const issue = error.issues[0]!;
  return new AtifError(file, issue.message, formatPath(issue.path) || undefined);
}

/** Checks a parsed document is an ATIF trajectory of a known version. */
export function parseAtif(file: string, value: unknown, where: (string | number)[] = []): AtifDoc {
  if (!isObject(value)) throw new AtifError(file, 'not an ATIF trajectory (a JSON object with schema_version, agent and steps)', formatPath(where) || undefined);
  const v = value.schema_version;
  if (typeof v !== 'string' || !(ATIF_VERSIONS as readonly string[]).includes(v)) {
    // Quoted only when it reads as a version name: a file that is not ATIF at all is not quoted.
    const got = typeof v === 'string' ? (/^[\w.+-]{1,40}$/.test(v) ? `"${v}"` : `(a string of ${v.length} characters)`) : v === undefined ? 'missing' : typeof v;
    throw new AtifError(file, `unknown ATIF version ${got}; this reader knows ${ATIF_VERSIONS[0]} to ${ATIF_VERSIONS[ATIF_VERSIONS.length - 1]}`, formatPath([...where, 'schema_version']));
  }
  // Embedded subagents are checked one by one so their own version problems name their place.
  const subs = Array.isArray(value.subagent_trajectories) ? value.subagent_trajectories : undefined;
  subs?.forEach((s, i) => parseAtif(file, s, [...where, 'subagent_trajectories', i]));
  const parsed = AtifDoc.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AtifError(file, issue.message, formatPath([...where, ...issue.path]) || undefined);
  }
  return parsed.data;
}

/** Whether the beginning of a JSON text is an ATIF trajectory's (cheap: looks for `"schema_version": "ATIF-`). */
export function looksLikeAtif(head: string): boolean {
  return /"schema_version"\s*:\s*"ATIF-/.test(head);
}

// --- ATIF → ART ------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

/** One trial (or a lone file) read: its trajectory in ART's shape, and what the job recorded. */
export interface AtifTrial {
  /** The trajectory.json (the first file of a continued chain). */
  file: string;
  /** The trial's name (result.json's trial_name, else its folder's name). */
  name: string;
  /** The task (result.json's task_name, else the trial name before `__`). */
  task: string;
  /** ART trajectory: messages_and_choices, tools, metrics, metadata, logs (no reward yet). */
  trajectory: Obj;
  /** result.json's verifier_result.rewards, numbers only. */
  rewards: Record<string, number>;
  result?: TrialResult;
  resultFile?: string;
  /** Subagent trajectories (ART shape), with where they came from. */
  subagents: { id: string; trajectory: Obj; ref: string }[];
  /** What the conversion left out, in words. */
  lost: string[];
}

function text(content: unknown): string | Obj[] | null {
  if (content === undefined || content === null) return null;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  // ContentPart: text stays text; an image or audio is a reference to a file, kept as such.
  return content.map((p) => {
    if (isObject(p) && p.type === 'text' && typeof p.text === 'string') return { type: 'text', text: p.text };
    const src = isObject(p) && isObject(p.source) ? p.source : {};
    return { type: 'text', text: `[${isObject(p) ? String(p.type) : 'part'}: ${typeof src.path === 'string' ? src.path : 'no path'}${typeof src.media_type === 'string' ? `, ${src.media_type}` : ''}]` };
  });
}

function argumentsText(v: unknown): string {
  if (v === undefined || v === null) return '{}';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function numbersOf(v: Obj | null | undefined, keys: string[], prefix = ''): Record<string, number> {
  const out = dict<number>();
  if (!v) return out;
  for (const k of keys) {
    const x = v[k];
    if (typeof x === 'number' && Number.isFinite(x)) out[`${prefix}${k}`] = x;
  }
  return out;
}

const STEP_METRICS = ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'cost_usd'];
const FINAL_METRICS = ['total_prompt_tokens', 'total_completion_tokens', 'total_cached_tokens', 'total_cost_usd', 'total_steps'];

/**
 * Trajectory metrics of final_metrics (else of the trial's agent_result, which counts the same).
 * Cached tokens are part of the prompt tokens: named so that a sum of the `…tokens` metrics
 * (svc_summarize_trajectories' token column) does not count them twice.
 */
function finalMetrics(fm: Obj | null | undefined): Record<string, number> {
  const out = numbersOf(fm, FINAL_METRICS);
  if (out.total_cached_tokens !== undefined) {
    out.prompt_tokens_cached = out.total_cached_tokens;
    delete out.total_cached_tokens;
  }
  return out;
}

interface ConvertState {
  lost: Set<string>;
  /** Subagent labels by trajectory_id / path, for the tool results that name them. */
  subagentLabel: (ref: z.infer<typeof SubagentRef>) => string;
}

/**
 * The steps of one ATIF trajectory as `messages_and_choices`: system and user steps as messages;
 * an agent step as a choice when it has the server's token ids and logprobs (ART can train on it),
 * else as an assistant message; its observation results as tool messages paired by source_call_id
 * (a result without one as a user message, as Harbor's terminal agents write them).
 */
function stepsToMessages(steps: AtifStep[], st: ConvertState): Obj[] {
  const out: Obj[] = [];
  for (const s of steps) {
    const meta: Obj = { atif_step: s.step_id };
    if (s.timestamp) meta.timestamp = s.timestamp;
    if (s.model_name) meta.model = s.model_name;
    const m = s.metrics ?? undefined;
    const usage = numbersOf(m, STEP_METRICS);
    if (Object.keys(usage).length) meta.atif_metrics = usage;
    if (s.llm_call_count !== undefined && s.llm_call_count !== null) meta.llm_call_count = s.llm_call_count;
    if (s.is_copied_context) meta.is_copied_context = true;
    if (s.extra && Object.keys(s.extra).length) st.lost.add('step extra');
    if (m?.extra && Object.keys(m.extra).length) st.lost.add('metrics extra');
    if (s.reasoning_effort !== undefined && s.reasoning_effort !== null) meta.reasoning_effort = s.reasoning_effort;
    const content = text(s.message);
    if (s.source === 'system' || s.source === 'user') {
      if (content !== null && !(typeof content === 'string' && content === '' && s.observation)) out.push({ role: s.source, content, ...meta });
    } else {
      const msg: Obj = { role: 'assistant', content };
      if (s.reasoning_content) msg.reasoning_content = s.reasoning_content;
      const calls = s.tool_calls ?? [];
      if (calls.length) msg.tool_calls = calls.map((c) => ({ id: c.tool_call_id, type: 'function', function: { name: c.function_name, arguments: argumentsText(c.arguments) } }));
      const ids = m?.completion_token_ids;
      const logprobs = m?.logprobs;
      const trainable = !s.is_copied_context && Array.isArray(ids) && ids.length > 0 && Array.isArray(logprobs) && logprobs.length === ids.length && Array.isArray(m?.prompt_token_ids);
      if (trainable) {
        out.push({ finish_reason: calls.length ? 'tool_calls' : 'stop', index: 0, message: msg, token_ids: ids, prompt_token_ids: m!.prompt_token_ids, compact_logprobs: logprobs, ...meta });
      } else {
        if (Array.isArray(ids) || Array.isArray(logprobs)) st.lost.add('token ids or logprobs of a step that lacks prompt_token_ids, completion_token_ids or logprobs of equal length (the step is kept as a message, not a trainable choice)');
        out.push({ ...msg, ...meta });
      }
    }
    const results = s.observation?.results ?? [];
    const callIds = new Set((s.tool_calls ?? []).map((c) => c.tool_call_id));
    for (const r of results) {
      let body = text(r.content);
      const refs = (r.subagent_trajectory_ref ?? []).map((ref) => st.subagentLabel(ref));
      if (refs.length) {
        const note = refs.join('\n');
        body = body === null ? note : typeof body === 'string' ? `${body}${body ? '\n' : ''}${note}` : [...body, { type: 'text', text: note }];
      }
      if (r.extra && Object.keys(r.extra).length) st.lost.add('observation result extra');
      if (r.source_call_id && callIds.has(r.source_call_id)) out.push({ role: 'tool', tool_call_id: r.source_call_id, content: body ?? '', atif_step: s.step_id });
      else out.push({ role: 'user', content: body ?? '', atif_step: s.step_id, atif_observation: true });
    }
  }
  return out;
}

function tools(doc: AtifDoc): Obj[] | undefined {
  const defs = doc.agent.tool_definitions;
  if (!defs?.length) return undefined;
  // OpenAI's function calling schema: `{type: "function", function: {...}}`; a bare function is wrapped.
  const out: Obj[] = [];
  for (const d of defs) {
    if (isObject(d.function) && typeof d.function.name === 'string' && d.function.name) out.push({ type: typeof d.type === 'string' ? d.type : 'function', function: d.function });
    else if (typeof d.name === 'string' && d.name) out.push({ type: 'function', function: d });
  }
  return out.length ? out : undefined;
}

function metadataOf(doc: AtifDoc, file: string): Record<string, string | number | boolean | null> {
  const md: Record<string, string | number | boolean | null> = { atif_file: file, atif_schema_version: doc.schema_version, agent_name: doc.agent.name };
  if (doc.agent.version) md.agent_version = doc.agent.version;
  if (doc.agent.model_name) md.model_name = doc.agent.model_name;
  if (doc.session_id) md.atif_session_id = doc.session_id;
  if (doc.trajectory_id) md.atif_trajectory_id = doc.trajectory_id;
  return md;
}

/** Reads a trajectory file and the files it continues in; the steps joined (copied context of a continuation left out: it repeats the previous file's steps). */
async function readChain(file: string, opts: ReadOpts): Promise<{ docs: AtifDoc[]; files: string[] }> {
  const docs: AtifDoc[] = [];
  const files: string[] = [];
  let next: string | undefined = file;
  while (next) {
    if (files.includes(next)) throw new AtifError(files[files.length - 1]!, `continues in ${path.basename(next)}, which the chain already read (a loop)`, 'continued_trajectory_ref');
    if (files.length >= ATIF_LIMITS.continuations) throw new AtifError(file, `continues in more than ${ATIF_LIMITS.continuations} files: stopped`, 'continued_trajectory_ref');
    opts.signal?.throwIfAborted();
    const doc = parseAtif(next, await readJson(next, opts));
    docs.push(doc);
    files.push(next);
    const ref = doc.continued_trajectory_ref;
    next = ref ? resolveRef(next, ref, 'continued_trajectory_ref') : undefined;
  }
  return { docs, files };
}

/** A reference to another file, relative to the referring file's folder; never a URL. */
function resolveRef(from: string, ref: string, field: string): string {
  if (/^[a-z][a-z0-9+.-]+:\/\//i.test(ref)) throw new AtifError(from, `"${ref.slice(0, 200)}" is not a file on this machine: only file paths are followed`, field);
  return path.resolve(path.dirname(from), ref);
}

/** Reads one ATIF trajectory file (and its continuations and subagents) into ART's shape. */
export async function readAtifTrajectory(file: string, opts: ReadOpts = {}): Promise<Omit<AtifTrial, 'name' | 'task' | 'rewards'>> {
  const { docs, files } = await readChain(file, opts);
  const lost = new Set<string>();
  const subagents: AtifTrial['subagents'] = [];
  const root = docs[0]!;
  const labels = new Map<string, string>();
  const label = (ref: z.infer<typeof SubagentRef>) => {
    const key = ref.trajectory_id ?? ref.trajectory_path ?? ref.session_id ?? '?';
    return labels.get(key) ?? `[subagent ${key}: not found in this file]`;
  };
  // Subagents: embedded ones (by trajectory_id), and files named by trajectory_path, depth-first.
  const addSubagents = async (doc: AtifDoc, from: string, depth: number, trail: string): Promise<void> => {
    if (depth > ATIF_LIMITS.subagentDepth) throw new AtifError(from, `subagents nested deeper than ${ATIF_LIMITS.subagentDepth} levels`, 'subagent_trajectories');
    const embedded = new Map<string, AtifDoc>();
    for (const s of doc.subagent_trajectories ?? []) if (s.trajectory_id) embedded.set(s.trajectory_id, s);
    const seen = new Set<AtifDoc>();
    const take = async (sub: AtifDoc, subFile: string, key: string) => {
      if (subagents.length >= ATIF_LIMITS.subagents) throw new AtifError(from, `more than ${ATIF_LIMITS.subagents} subagent trajectories`, 'subagent_trajectories');
      const id = sub.trajectory_id ?? key;
      const where = `${trail} → ${sub.agent.name} (${id})`;
      labels.set(key, `[subagent trajectory ${id} (${sub.agent.name}): see "${where}" in this view's subagents]`);
      const st: ConvertState = { lost, subagentLabel: label };
      // Its own subagents first, so their labels are known when its steps are read.
      await addSubagents(sub, subFile, depth + 1, where);
      const t: Obj = { messages_and_choices: stepsToMessages(sub.steps, st), metadata: { ...metadataOf(sub, subFile), atif_subagent_of: trail } };
      const tl = tools(sub);
      if (tl) t.tools = tl;
      const fm = finalMetrics(sub.final_metrics);
      if (Object.keys(fm).length) t.metrics = fm;
      subagents.push({ id, trajectory: t, ref: where });
    };
    for (const step of doc.steps) {
      for (const r of step.observation?.results ?? []) {
        for (const ref of r.subagent_trajectory_ref ?? []) {
          const emb = ref.trajectory_id ? embedded.get(ref.trajectory_id) : undefined;
          if (emb && !seen.has(emb)) {
            seen.add(emb);
            await take(emb, from, ref.trajectory_id!);
          } else if (!emb && ref.trajectory_path) {
            const subFile = resolveRef(from, ref.trajectory_path, `steps[${step.step_id - 1}].observation.subagent_trajectory_ref.trajectory_path`);
            const sub = parseAtif(subFile, await readJson(subFile, opts));
            await take(sub, subFile, ref.trajectory_id ?? ref.trajectory_path);
          }
        }
      }
    }
    // Embedded subagents no step refers to are shown too (nothing dropped).
    for (const s of doc.subagent_trajectories ?? []) if (!seen.has(s)) await take(s, from, s.trajectory_id ?? `${from}#${subagents.length}`);
  };
  for (let i = 0; i < docs.length; i++) await addSubagents(docs[i]!, files[i]!, 1, path.basename(path.dirname(path.dirname(file))) || path.basename(file));
  const st: ConvertState = { lost, subagentLabel: label };
  const messages: Obj[] = [];
  docs.forEach((d, i) => {
    // A continuation repeats earlier steps as copied context: joined once. Its step_ids start at 1 again: its items say which file.
    const steps = i === 0 ? d.steps : d.steps.filter((s) => !s.is_copied_context);
    const items = stepsToMessages(steps, st);
    if (i > 0) for (const m of items) m.atif_continuation = i;
    messages.push(...items);
  });
  const trajectory: Obj = { messages_and_choices: messages, metadata: metadataOf(root, file) };
  if (files.length > 1) (trajectory.metadata as Obj).atif_continuations = files.length - 1;
  const tl = tools(root);
  if (tl) trajectory.tools = tl;
  // Final metrics of the last file (Harbor's totals cover the run so far); summed when every file has them would double count.
  const last = docs[docs.length - 1]!;
  const fm = finalMetrics(last.final_metrics ?? root.final_metrics);
  if (Object.keys(fm).length) trajectory.metrics = fm;
  const logs: string[] = [];
  for (const d of docs) if (d.notes) logs.push(`notes: ${d.notes}`);
  if (logs.length) trajectory.logs = logs;
  if (docs.some((d) => d.extra && Object.keys(d.extra).length)) lost.add('root extra');
  if (docs.some((d) => d.agent.extra && Object.keys(d.agent.extra).length)) lost.add('agent extra');
  if (docs.some((d) => d.final_metrics?.extra && Object.keys(d.final_metrics.extra).length)) lost.add('final_metrics extra');
  return { file, trajectory, subagents, lost: [...lost] };
}

/** A trial's result.json, when there is one; errors name the file and field. */
async function readResult(file: string, opts: ReadOpts): Promise<TrialResult | undefined> {
  let value: unknown;
  try {
    value = await readJson(file, opts);
  } catch (e) {
    if (e instanceof AtifError && /ENOENT|no such file/i.test(e.message)) return undefined;
    throw e;
  }
  const parsed = TrialResult.safeParse(value);
  if (!parsed.success) throw firstIssue(file, parsed.error);
  return parsed.data;
}

/** Where a trial's trajectory.json is: `<trial>/agent/trajectory.json`. */
export const TRIAL_TRAJECTORY = path.join('agent', 'trajectory.json');

/** The trial folder of a trajectory file at `<trial>/agent/trajectory.json`, else undefined. */
export function trialDirOf(file: string): string | undefined {
  return path.basename(path.dirname(file)) === 'agent' ? path.dirname(path.dirname(file)) : undefined;
}

/** Reads one trajectory file as a trial, with its trial's result.json when it sits at `<trial>/result.json`. */
export async function readTrial(file: string, opts: ReadOpts = {}): Promise<AtifTrial> {
  const t = await readAtifTrajectory(file, opts);
  const dir = trialDirOf(file);
  const resultFile = dir ? path.join(dir, 'result.json') : undefined;
  const result = resultFile ? await readResult(resultFile, opts) : undefined;
  const name = result?.trial_name ?? (dir ? path.basename(dir) : path.basename(file, '.json'));
  const task = result?.task_name ?? name.replace(/__[^_]*$/, '');
  const rewards = dict<number>();
  for (const [k, v] of Object.entries(result?.verifier_result?.rewards ?? {})) {
    if (typeof v === 'number' && Number.isFinite(v)) rewards[k] = v;
    else if (typeof v === 'boolean') rewards[k] = v ? 1 : 0;
  }
  const md = t.trajectory.metadata as Obj;
  md.trial_name = name;
  md.task_name = task;
  if (result?.exception_info?.exception_type) md.exception_type = result.exception_info.exception_type;
  const metrics = (t.trajectory.metrics ??= {}) as Obj;
  for (const [k, v] of Object.entries(rewards)) metrics[`verifier/${k}`] = v;
  // Harbor's agent_result counts what final_metrics counts: used only where the trajectory has no totals.
  const ar = result?.agent_result;
  if (ar) {
    const from: [string, unknown][] = [['total_prompt_tokens', ar.n_input_tokens], ['total_completion_tokens', ar.n_output_tokens], ['prompt_tokens_cached', ar.n_cache_tokens], ['total_cost_usd', ar.cost_usd]];
    for (const [k, v] of from) if (metrics[k] === undefined && typeof v === 'number' && Number.isFinite(v)) metrics[k] = v;
  }
  if (!Object.keys(metrics).length) delete t.trajectory.metrics;
  return { ...t, name, task, rewards, result, resultFile: result ? resultFile : undefined };
}

/** The trial trajectory files of a Harbor job folder (`<job>/<trial>/agent/trajectory.json`), sorted; or the folder itself when it is one trial. */
export async function jobTrajectoryFiles(dir: string, signal?: AbortSignal): Promise<string[]> {
  const direct = path.join(dir, TRIAL_TRAJECTORY);
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw new AtifError(dir, `cannot be read: ${(e as Error).message}`);
  }
  if (entries.some((e) => e.name === 'agent' && e.isDirectory())) return [direct];
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    signal?.throwIfAborted();
    if (!e.isDirectory()) continue;
    const agent = path.join(dir, e.name, 'agent');
    let files: string[];
    try {
      files = await readdir(agent);
    } catch {
      continue;
    }
    if (!files.includes('trajectory.json')) continue;
    if (out.length >= ATIF_LIMITS.trials) throw new AtifError(dir, `holds more than ${ATIF_LIMITS.trials} trials: not read`);
    out.push(path.join(agent, 'trajectory.json'));
  }
  if (!out.length) throw new AtifError(dir, `holds no Harbor trial: no <trial>/${TRIAL_TRAJECTORY.split(path.sep).join('/')}`);
  return out;
}

/** Every trial of a job folder (or the one trial of a trajectory file), read. */
export async function readTrials(source: string, opts: ReadOpts & { isDir: boolean }): Promise<AtifTrial[]> {
  const files = opts.isDir ? await jobTrajectoryFiles(source, opts.signal) : [source];
  const budget = opts.budget ?? { bytes: 0 };
  const out: AtifTrial[] = [];
  for (const f of files) out.push(await readTrial(f, { ...opts, budget }));
  return out;
}

/** The score names the trials have (verifier_result.rewards keys), in first-seen order. */
export function scoreNames(trials: readonly AtifTrial[]): string[] {
  const names = new Set<string>();
  for (const t of trials) for (const k of Object.keys(t.rewards)) names.add(k);
  return [...names];
}

/** The score used as the reward when none is named: `reward` when the trials have it, else the only one. */
export function defaultScore(names: readonly string[]): string | undefined {
  if (names.includes('reward')) return 'reward';
  return names.length === 1 ? names[0] : undefined;
}
