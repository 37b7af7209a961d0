// Over 300 lines: one normalizer per producer shape (ours, ART, OpenAI SDK, vLLM), kept together so they agree.
/**
 * The trajectory viewer's view model: turns one parsed group (whatever a producer wrote: our own
 * files, ART's `model_dump(mode="json")`, whole OpenAI-SDK choices, vLLM extras) into what the
 * webview shows. Lenient on purpose: it is for reading, so unknown fields and nulls anywhere are
 * shown, never refused (validation is src/files/'s job). No `vscode` import.
 */
import { isObject as isObj } from '../api/json';
import { TOO_DEEP } from '../files/problems';
import { exchangeConversation, exchangeTotals, hasExchanges, sumTotals } from './exchanges';
import type { GroupDetail, GroupRow, GroupStats, MessageView, PartView, ProblemView, ToolCallView, ToolView, TrajectorySummary, TrajectoryView } from './protocol';

type Obj = Record<string, unknown>;

/**
 * A group as found in the file: `{trajectories: [...]}` (left out of a compact dump when empty), or
 * a bare trajectory shown as a group of one.
 */
export interface GroupValue {
  trajectories: unknown[];
  /** The file held a single trajectory where a group was expected. */
  bare: boolean;
  raw: unknown;
}

const GROUP_FIELDS = new Set(['trajectories', 'metadata', 'metrics', 'logs', 'exceptions']);

/** Reads a parsed group leniently; undefined when it is neither a group nor a trajectory. */
export function asGroup(value: unknown): GroupValue | undefined {
  if (!isObj(value)) return undefined;
  if (Array.isArray(value.trajectories)) return { trajectories: value.trajectories, bare: false, raw: value };
  if ('messages_and_choices' in value || 'exchanges' in value) return { trajectories: [value], bare: true, raw: value };
  // A compact empty group: `{}`, or only the group's own fields.
  if (value.trajectories === null || Object.keys(value).every((k) => GROUP_FIELDS.has(k))) return { trajectories: [], bare: false, raw: value };
  return undefined;
}

/** The reward of a trajectory: a number, `null`/absent (the service's default 0), or something else. */
export function rewardOf(t: unknown): { value: number | undefined; missing: boolean } {
  const r = isObj(t) ? t.reward : undefined;
  if (typeof r === 'number' && Number.isFinite(r)) return { value: r, missing: false };
  if (r === undefined || r === null) return { value: 0, missing: true };
  return { value: undefined, missing: false };
}

/** Rewards that count for a group's stats (invalid rewards are left out; a missing one is 0). */
export function groupRewards(trajectories: readonly unknown[]): number[] {
  const out: number[] = [];
  for (const t of trajectories) {
    const r = rewardOf(t).value;
    if (r !== undefined) out.push(r);
  }
  return out;
}

/**
 * Mean, population standard deviation (as GRPO normalises advantages), min and max. `zeroVariance`
 * when there are at least two rewards and all are equal: such a group gives no learning signal. A
 * group of one is not flagged: it has no variance to learn from by construction, and the badge would
 * say nothing about the rollouts (the viewer says so on the row instead).
 */
export function groupStats(rewards: readonly number[], exceptions = 0): GroupStats {
  const n = rewards.length;
  if (n === 0) return { count: 0, mean: null, std: null, min: null, max: null, zeroVariance: false, exceptions };
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const r of rewards) {
    sum += r;
    if (r < min) min = r;
    if (r > max) max = r;
  }
  const mean = sum / n;
  let sq = 0;
  for (const r of rewards) sq += (r - mean) * (r - mean);
  const std = Math.sqrt(sq / n);
  // Exact equality, with room for the rounding of values that were written as the same decimal.
  const zeroVariance = n > 1 && max - min <= 1e-12 * Math.max(1, Math.abs(max));
  return { count: n, mean, std: zeroVariance ? 0 : std, min, max, zeroVariance, exceptions };
}

/** `exceptions` of an ART group: rollouts that raised. */
export function exceptionsOf(group: unknown): { type: string; message: string; traceback: string }[] {
  const list = isObj(group) && Array.isArray(group.exceptions) ? group.exceptions : [];
  return list.map((e) =>
    isObj(e)
      ? { type: str(e.type) ?? 'exception', message: str(e.message) ?? '', traceback: str(e.traceback) ?? '' }
      : { type: 'exception', message: typeof e === 'string' ? e : JSON.stringify(e), traceback: '' },
  );
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A JSON value as text for a table cell or code block (strings as they are). */
export function jsonText(v: unknown, pretty = false): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  try {
    return JSON.stringify(v, null, pretty ? 2 : undefined) ?? typeof v; // undefined only for functions and symbols
  } catch (e) {
    // Nesting deep enough to exhaust the stack: the validation names the line; say so, not "Maximum call stack".
    if (e instanceof RangeError) return `(not shown: this value ${TOO_DEEP}; see the problems of this group)`;
    throw e;
  }
}

/** Metric-like maps (`metrics`, `auto_metrics`, `metadata`) as rows; nulls and non-objects give none. */
export function entries(v: unknown): [string, string][] {
  return isObj(v) ? Object.entries(v).map(([k, x]) => [k, jsonText(x)]) : [];
}

/** Numeric (and boolean, as 0/1) metrics of a trajectory, `metrics` and then `auto_metrics`. */
export function numericMetrics(t: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!isObj(t)) return out;
  for (const source of [t.auto_metrics, t.metrics]) {
    if (!isObj(source)) continue;
    for (const [k, v] of Object.entries(source)) {
      if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
      else if (typeof v === 'boolean') out[k] = v ? 1 : 0;
    }
  }
  return out;
}

function itemsOf(t: unknown): unknown[] {
  return isObj(t) && Array.isArray(t.messages_and_choices) ? t.messages_and_choices : [];
}

/** The short row of a trajectory in the group's list. */
export function summarize(t: unknown, index: number): TrajectorySummary {
  const exchanges = hasExchanges(t) ? exchangeConversation(t) : undefined;
  const items = exchanges?.items ?? itemsOf(t);
  const { value, missing } = rewardOf(t);
  let choices = 0;
  let toolCalls = 0;
  for (const it of items) {
    if (isChoice(it)) choices++;
    toolCalls += rawToolCalls(messageOf(it)).length;
  }
  const summary: TrajectorySummary = { index, reward: value ?? null, rewardMissing: missing, rewardText: isObj(t) && value === undefined ? jsonText(t.reward) : undefined, messages: items.length, choices, toolCalls, metrics: numericMetrics(t) };
  if (exchanges) summary.totals = exchangeTotals(exchanges.exchanges);
  return summary;
}

/** Metric names across the trajectories of a group, sorted. */
export function metricNames(summaries: readonly TrajectorySummary[]): string[] {
  const names = new Set<string>();
  for (const s of summaries) for (const k of Object.keys(s.metrics)) names.add(k);
  return [...names].sort();
}

// --- messages ------------------------------------------------------------------------------------

/** A choice is an item without `role` that has a `message` object (the service decides the same way). */
export function isChoice(item: unknown): boolean {
  return isObj(item) && !('role' in item) && isObj(item.message);
}

function messageOf(item: unknown): Obj | undefined {
  if (!isObj(item)) return undefined;
  return isChoice(item) ? (item.message as Obj) : item;
}

function rawToolCalls(msg: Obj | undefined): unknown[] {
  return msg && Array.isArray(msg.tool_calls) ? msg.tool_calls : [];
}

/** Content as display parts: a string, null, or a list of parts (`text`, `image_url`, `refusal`, ...). */
export function contentParts(content: unknown): PartView[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [{ kind: 'json', label: 'content', text: jsonText(content, true) }];
  const parts: PartView[] = [];
  for (const p of content) {
    if (typeof p === 'string') parts.push({ kind: 'text', text: p });
    else if (isObj(p) && typeof p.text === 'string' && (p.type === 'text' || p.type === undefined || p.type === 'input_text' || p.type === 'output_text')) parts.push({ kind: 'text', text: p.text });
    else if (isObj(p) && p.type === 'refusal' && typeof p.refusal === 'string') parts.push({ kind: 'refusal', text: p.refusal });
    else if (isObj(p) && p.type === 'image_url') {
      // Never loaded: a remote image would leak that the file was opened, and data URLs can be huge.
      const url = isObj(p.image_url) ? str(p.image_url.url) : str(p.image_url);
      parts.push({ kind: 'media', label: 'image', text: url ? (url.startsWith('data:') ? `${url.slice(0, url.indexOf(',') + 1)}… (${url.length} characters)` : url) : '' });
    } else if (isObj(p) && typeof p.type === 'string' && p.type !== 'text') parts.push({ kind: 'media', label: p.type, text: jsonText(p, true) });
    else parts.push({ kind: 'json', label: 'part', text: jsonText(p, true) });
  }
  return parts;
}

/** Known message fields, shown by the bubble itself; anything else goes to its "details". */
const SHOWN_MESSAGE_FIELDS = new Set(['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'reasoning_content', 'reasoning', 'refusal']);
const SHOWN_CHOICE_FIELDS = new Set(['message', 'finish_reason', 'index']);

/** Fields worth a line under a bubble: non-null values the bubble does not already show. */
function extras(obj: Obj, shown: Set<string>, prefix = ''): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (shown.has(k) || v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (k === 'logprobs' && isObj(v)) {
      const content = Array.isArray(v.content) ? v.content.length : 0;
      out.push([`${prefix}logprobs`, `${content} token${content === 1 ? '' : 's'}`]);
      continue;
    }
    out.push([`${prefix}${k}`, jsonText(v, true)]);
  }
  return out;
}

function toolCallView(tc: unknown, i: number): ToolCallView {
  if (!isObj(tc)) return { id: undefined, name: `call ${i}`, arguments: jsonText(tc, true) };
  const fn = isObj(tc.function) ? tc.function : isObj(tc) ? tc : {};
  const args = fn.arguments;
  let text = typeof args === 'string' ? args : jsonText(args, true);
  // Arguments are a JSON string by convention: shown pretty when they parse.
  if (typeof args === 'string') {
    try {
      text = JSON.stringify(JSON.parse(args), null, 2);
    } catch {
      // Shown as written.
    }
  }
  return { id: str(tc.id), name: str(fn.name) ?? '(unnamed)', arguments: text };
}

/**
 * The bubbles of one conversation, with each tool call paired to its result by `tool_call_id`
 * (the first unanswered call with that id, in order), and legacy `function` messages paired to the
 * latest unanswered `function_call` of the same name.
 */
export function messageViews(items: readonly unknown[]): MessageView[] {
  const views: MessageView[] = [];
  const openCalls = new Map<string, { message: number; call: number }[]>();
  const openFunctions: { message: number; name: string }[] = [];
  items.forEach((item, index) => {
    const choice = isChoice(item);
    const msg = messageOf(item);
    if (!msg) {
      views.push({ index, role: 'unknown', trainable: false, parts: [{ kind: 'json', label: 'item', text: jsonText(item, true) }], toolCalls: [], extras: [] });
      return;
    }
    const role = str(msg.role) ?? (choice ? 'assistant' : 'unknown');
    const view: MessageView = {
      index,
      role,
      trainable: choice,
      parts: contentParts(msg.content),
      toolCalls: rawToolCalls(msg).map(toolCallView),
      extras: [...(choice ? extras(item as Obj, SHOWN_CHOICE_FIELDS, '') : []), ...extras(msg, SHOWN_MESSAGE_FIELDS, choice ? 'message.' : '')],
    };
    if (typeof msg.name === 'string') view.name = msg.name;
    const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
    if (reasoning) view.reasoning = reasoning;
    if (typeof msg.refusal === 'string' && msg.refusal) view.refusal = msg.refusal;
    if (choice && isObj(item) && item.finish_reason !== undefined && item.finish_reason !== null) view.finishReason = jsonText(item.finish_reason);
    if (isObj(msg.function_call)) {
      const name = str(msg.function_call.name) ?? '(unnamed)';
      view.toolCalls.push({ id: undefined, name, arguments: toolCallView({ function: msg.function_call }, 0).arguments, legacy: true });
      openFunctions.push({ message: index, name });
      view.extras = view.extras.filter(([k]) => !k.endsWith('function_call'));
    }
    view.toolCalls.forEach((c, i) => {
      if (c.id === undefined || c.legacy) return;
      const list = openCalls.get(c.id) ?? [];
      list.push({ message: index, call: i });
      openCalls.set(c.id, list);
    });
    if (role === 'tool') {
      const id = str(msg.tool_call_id);
      if (id !== undefined) view.toolCallId = id;
      const open = id !== undefined ? openCalls.get(id) : undefined;
      const call = open?.shift();
      if (call) {
        const callView = views[call.message]!.toolCalls[call.call]!;
        callView.resultIndex = index;
        view.callIndex = call.message;
        view.callName = callView.name;
      }
    } else if (role === 'function' && typeof msg.name === 'string') {
      const at = findLastIndex(openFunctions, (f) => f.name === msg.name);
      if (at >= 0) {
        const f = openFunctions.splice(at, 1)[0]!;
        const callView = views[f.message]!.toolCalls.find((c) => c.legacy && c.name === f.name && c.resultIndex === undefined);
        if (callView) callView.resultIndex = index;
        view.callIndex = f.message;
        view.callName = f.name;
      }
    }
    views.push(view);
  });
  return views;
}

function findLastIndex<T>(list: T[], fn: (t: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (fn(list[i]!)) return i;
  return -1;
}

function toolViews(tools: unknown): ToolView[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((t) => {
    const fn = isObj(t) && isObj(t.function) ? t.function : isObj(t) ? t : {};
    return {
      name: str(fn.name) ?? '(unnamed)',
      description: str(fn.description) ?? '',
      parameters: fn.parameters === undefined || fn.parameters === null ? '' : jsonText(fn.parameters, true),
    };
  });
}

const SHOWN_TRAJECTORY_FIELDS = new Set(['exchanges', 'messages_and_choices', 'reward', 'tools', 'additional_histories', 'metrics', 'auto_metrics', 'metadata', 'logs', 'start_time', 'initial_policy_version', 'final_policy_version']);

/** Everything the conversation pane shows for one trajectory. */
export function trajectoryView(t: unknown, group: number, index: number): TrajectoryView {
  const o = isObj(t) ? t : {};
  const histories = Array.isArray(o.additional_histories) ? o.additional_histories : [];
  const exchanges = hasExchanges(t) ? exchangeConversation(t) : undefined;
  const messages = messageViews(exchanges?.items ?? itemsOf(t));
  if (exchanges) messages.forEach((m, i) => (m.path = exchanges.paths[i]));
  return {
    group,
    index,
    summary: summarize(t, index),
    messages,
    ...(exchanges ? { exchanges: exchanges.exchanges } : {}),
    tools: toolViews(exchanges ? [...exchanges.tools, ...(Array.isArray(o.tools) ? (o.tools as unknown[]) : [])] : o.tools),
    histories: histories.map((h) => ({ messages: messageViews(itemsOf(h)), tools: toolViews(isObj(h) ? h.tools : undefined) })),
    metrics: [...entries(o.metrics), ...entries(o.auto_metrics).map(([k, v]): [string, string] => [`${k} (auto)`, v])],
    metadata: entries(o.metadata),
    logs: Array.isArray(o.logs) ? o.logs.map((l) => jsonText(l)) : [],
    info: [
      ...(['start_time', 'initial_policy_version', 'final_policy_version'] as const).filter((k) => o[k] !== undefined && o[k] !== null).map((k): [string, string] => [k, jsonText(o[k])]),
      ...extras(o, SHOWN_TRAJECTORY_FIELDS),
    ],
  };
}

// --- ordering and filtering ------------------------------------------------------------------------

export type SortKey = 'index' | 'reward' | `metric:${string}`;

/**
 * Trajectory rows in the order asked for. Stable (ties keep file order), and rows without the
 * value sort last in either direction.
 */
export function sortSummaries(rows: readonly TrajectorySummary[], key: SortKey, dir: 'asc' | 'desc'): TrajectorySummary[] {
  const value = (r: TrajectorySummary): number | undefined => {
    if (key === 'index') return r.index;
    if (key === 'reward') return r.reward ?? undefined;
    return r.metrics[key.slice('metric:'.length)];
  };
  const sign = dir === 'asc' ? 1 : -1;
  return rows
    .map((r) => ({ r, v: value(r) }))
    .sort((a, b) => {
      if (a.v === undefined || b.v === undefined) return a.v === b.v ? a.r.index - b.r.index : a.v === undefined ? 1 : -1;
      return a.v === b.v ? a.r.index - b.r.index : (a.v - b.v) * sign;
    })
    .map((x) => x.r);
}

/** Rows whose reward lies in [min, max] (either bound may be open); an invalid reward never matches a bound. */
export function filterByReward(rows: readonly TrajectorySummary[], min: number | undefined, max: number | undefined): TrajectorySummary[] {
  if (min === undefined && max === undefined) return [...rows];
  return rows.filter((r) => r.reward !== null && (min === undefined || r.reward >= min) && (max === undefined || r.reward <= max));
}

// --- search ----------------------------------------------------------------------------------------

export interface MessageHit {
  trajectory: number;
  /** -1: the main conversation; otherwise the index in additional_histories. */
  history: number;
  message: number;
  /** Where the text was found: content, reasoning, tool call, refusal. */
  field: string;
  snippet: string;
}

/** Texts of a message that search looks at, with the field they come from. */
function searchableTexts(v: MessageView): [string, string][] {
  const out: [string, string][] = [];
  for (const p of v.parts) out.push(['content', p.text]);
  if (v.reasoning) out.push(['reasoning', v.reasoning]);
  if (v.refusal) out.push(['refusal', v.refusal]);
  for (const c of v.toolCalls) out.push([`tool call ${c.name}`, `${c.name} ${c.arguments}`]);
  return out;
}

/** A short piece of `text` around the first match at `at`, on one line. */
export function snippet(text: string, at: number, length: number, radius = 60): string {
  const start = Math.max(0, at - radius);
  const end = Math.min(text.length, at + length + radius);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

/** Case-insensitive search of one trajectory's messages (its additional histories too): one hit per message. */
export function searchTrajectory(t: unknown, trajectory: number, query: string): MessageHit[] {
  const q = query.toLowerCase();
  if (!q) return [];
  const hits: MessageHit[] = [];
  const scan = (items: unknown[], history: number) => {
    for (const v of messageViews(items)) {
      for (const [field, text] of searchableTexts(v)) {
        const at = text.toLowerCase().indexOf(q);
        if (at >= 0) {
          hits.push({ trajectory, history, message: v.index, field, snippet: snippet(text, at, q.length) });
          break;
        }
      }
    }
  };
  scan(hasExchanges(t) ? exchangeConversation(t).items : itemsOf(t), -1);
  const histories = isObj(t) && Array.isArray(t.additional_histories) ? t.additional_histories : [];
  histories.forEach((h, i) => scan(itemsOf(h), i));
  return hits;
}

/**
 * Whether a raw JSON text may hold `query` in one of its strings. Exact for queries that JSON never
 * escapes (printable ASCII without `"` and `\`), so most groups are ruled out without parsing;
 * anything else says "maybe".
 */
export function mayContain(rawLower: string, queryLower: string): boolean {
  if (/^[\x20-\x7e]*$/.test(queryLower) && !/["\\/]/.test(queryLower)) return rawLower.includes(queryLower);
  return true;
}

// --- groups ----------------------------------------------------------------------------------------

const SHOWN_GROUP_FIELDS = GROUP_FIELDS;

/** The group pane: its trajectories' rows, tables, exceptions and the problems found in its lines. */
export function groupDetail(value: unknown, row: GroupRow, problems: ProblemView[]): GroupDetail {
  const group = asGroup(value);
  const trajectories = (group?.trajectories ?? []).map((t, i) => summarize(t, i));
  const raw = group && !group.bare && isObj(group.raw) ? group.raw : {};
  const totals = sumTotals(trajectories.map((s) => s.totals));
  return {
    ...(totals ? { totals } : {}),
    row,
    trajectories,
    metricNames: metricNames(trajectories),
    metadata: entries(raw.metadata),
    metrics: entries(raw.metrics),
    logs: Array.isArray(raw.logs) ? raw.logs.map((l) => jsonText(l)) : [],
    exceptions: group && !group.bare ? exceptionsOf(raw) : [],
    problems,
    info: extras(raw, SHOWN_GROUP_FIELDS),
  };
}
