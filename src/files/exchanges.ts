/**
 * Exchange trajectories (ART's request capture: `exchanges.{chat_completions, completions,
 * responses, messages}`, each `{request, response, model, start_time, end_time}`) as one
 * conversation in the chat-message shape the rest of the viewer reads (src/files/model.ts): the
 * request's messages, then the response as a choice (the trainable turn). Each API's own items are
 * mapped: Responses API input and output items (message, function_call, function_call_output,
 * reasoning), Anthropic content blocks (text, thinking, tool_use, tool_result). Tool calls keep
 * their ids, so model.ts pairs them with their results across exchanges. A request that repeats
 * the conversation so far (as agent loops do) shows only what is new. No `vscode` import; lenient
 * like model.ts: anything unknown is shown, never refused.
 */
import { isObject } from '../api/json';
import type { ExchangeTotals, ExchangeView, TokenUsage } from './shapes';
import { dict } from '../api/dict';

type Obj = Record<string, unknown>;
type Path = (string | number)[];

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export const EXCHANGE_KINDS = ['chat_completions', 'completions', 'responses', 'messages'] as const;
export type ExchangeKind = (typeof EXCHANGE_KINDS)[number];

/** Whether a trajectory carries at least one exchange. */
export function hasExchanges(t: unknown): boolean {
  return isObject(t) && isObject(t.exchanges) && EXCHANGE_KINDS.some((k) => list((t.exchanges as Obj)[k]).length > 0);
}

/** A chat-shaped item (message or choice) and where it comes from in the trajectory. */
interface Item {
  value: Obj;
  path: Path;
}

/** What model.ts turns into views: the items, the exchanges' ranges over them, and the tools offered. */
export interface ExchangeConversation {
  items: unknown[];
  paths: Path[];
  exchanges: ExchangeView[];
  tools: unknown[];
  choices: number;
}

/** Milliseconds since the epoch; a date-time without a zone is read as UTC (both ends alike). */
export function timeMs(v: unknown): number | undefined {
  const s = str(v);
  const m = s && /^(\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?([Zz]|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (!m) return undefined;
  const ms = Date.parse(`${m[1]!.replace(' ', 'T')}${m[2] ? `.${m[2].padEnd(3, '0').slice(0, 3)}` : ''}${m[3] ?? 'Z'}`);
  const sub = m[2] && m[2].length > 3 ? Number(`0.${m[2].slice(3)}`) : 0;
  return Number.isNaN(ms) ? undefined : ms + sub;
}

/** Token usage of a response, whichever API it comes from. */
export function usageOf(kind: ExchangeKind, response: unknown): TokenUsage {
  const u = isObject(response) && isObject(response.usage) ? response.usage : undefined;
  if (!u) return {};
  const details = (k: string, f: string) => (isObject(u[k]) ? num((u[k] as Obj)[f]) : undefined);
  const out: TokenUsage = {};
  const set = (k: keyof TokenUsage, v: number | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  if (kind === 'messages') {
    // Anthropic counts cache reads and writes apart from `input_tokens`.
    const base = num(u.input_tokens);
    const created = num(u.cache_creation_input_tokens) ?? 0;
    const read = num(u.cache_read_input_tokens);
    const input = base === undefined ? undefined : base + created + (read ?? 0);
    set('input', input);
    set('output', num(u.output_tokens));
    set('cached', read);
    if (input !== undefined && out.output !== undefined) out.total = input + out.output;
  } else if (kind === 'responses') {
    set('input', num(u.input_tokens));
    set('output', num(u.output_tokens));
    set('total', num(u.total_tokens));
    set('cached', details('input_tokens_details', 'cached_tokens'));
    set('reasoning', details('output_tokens_details', 'reasoning_tokens'));
  } else {
    set('input', num(u.prompt_tokens));
    set('output', num(u.completion_tokens));
    set('total', num(u.total_tokens));
    set('cached', details('prompt_tokens_details', 'cached_tokens'));
    set('reasoning', details('completion_tokens_details', 'reasoning_tokens'));
  }
  if (out.total === undefined && out.input !== undefined && out.output !== undefined) out.total = out.input + out.output;
  return out;
}

/** Sums of usages (a field only when some usage has it). */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const out: TokenUsage = { ...a };
  for (const k of ['input', 'output', 'total', 'cached', 'reasoning'] as const) if (b[k] !== undefined) out[k] = (out[k] ?? 0) + b[k];
  return out;
}

// --- requests -------------------------------------------------------------------------------------

const toolCall = (id: unknown, name: unknown, args: unknown) => ({ id: str(id), type: 'function', function: { name: str(name) ?? '(unnamed)', arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) } });

/** Text of a tool result's content: a string, or the texts of its blocks. */
function resultContent(v: unknown): unknown {
  if (!Array.isArray(v)) return v ?? '';
  return (v as unknown[]).map((b) => (isObject(b) && typeof b.text === 'string' ? { type: 'text', text: b.text } : b));
}

/** Anthropic content blocks as chat messages: tool_result blocks become tool messages of their own. */
function anthropicMessages(role: string, content: unknown, path: Path): Item[] {
  if (!Array.isArray(content)) return [{ value: { role, content: content ?? null }, path }];
  const out: Item[] = [];
  let parts: unknown[] = [];
  let calls: unknown[] = [];
  let reasoning: string[] = [];
  const flush = () => {
    if (parts.length || calls.length || reasoning.length) {
      out.push({ value: { role, content: parts, ...(calls.length ? { tool_calls: calls } : {}), ...(reasoning.length ? { reasoning_content: reasoning.join('\n\n') } : {}) }, path });
    }
    parts = [];
    calls = [];
    reasoning = [];
  };
  content.forEach((b, i) => {
    if (!isObject(b)) parts.push(b);
    else if (b.type === 'tool_result') {
      flush();
      out.push({ value: { role: 'tool', tool_call_id: str(b.tool_use_id) ?? '', content: resultContent(b.content), ...(b.is_error === true ? { is_error: true } : {}) }, path: [...path, i] });
    } else if (b.type === 'tool_use' || b.type === 'server_tool_use') calls.push(toolCall(b.id, b.name, b.input));
    else if (b.type === 'thinking' && typeof b.thinking === 'string') reasoning.push(b.thinking);
    else if (b.type === 'text' && typeof b.text === 'string') parts.push({ type: 'text', text: b.text });
    else parts.push(b);
  });
  flush();
  return out;
}

/** Responses API items (input or output) as chat messages. */
function responseItems(items: unknown[], path: Path): Item[] {
  const out: Item[] = [];
  items.forEach((it, i) => {
    const p = [...path, i];
    if (!isObject(it)) out.push({ value: { role: 'user', content: typeof it === 'string' ? it : [{ type: 'json', value: it }] }, path: p });
    else if (it.type === 'function_call' || it.type === 'custom_tool_call') out.push({ value: { role: 'assistant', content: null, tool_calls: [toolCall(it.call_id, it.name, it.arguments ?? it.input)] }, path: p });
    else if (it.type === 'function_call_output' || it.type === 'custom_tool_call_output') out.push({ value: { role: 'tool', tool_call_id: str(it.call_id) ?? '', content: resultContent(it.output) }, path: p });
    else if (it.type === 'reasoning') out.push({ value: { role: 'assistant', content: null, reasoning_content: reasoningText(it) }, path: p });
    else if ('role' in it) out.push({ value: { role: str(it.role) ?? 'user', content: it.content ?? null }, path: p });
    else out.push({ value: { role: 'assistant', content: [it] }, path: p });
  });
  return out;
}

function reasoningText(it: Obj): string {
  const texts = [...list(it.summary), ...list(it.content)].map((s) => (isObject(s) ? str(s.text) : undefined)).filter((s): s is string => !!s);
  return texts.length ? texts.join('\n\n') : '(reasoning not shown: encrypted or summarised away)';
}

function requestItems(kind: ExchangeKind, request: unknown, path: Path): Item[] {
  const r = isObject(request) ? request : {};
  const at = (k: string) => [...path, 'request', k];
  switch (kind) {
    case 'chat_completions':
      return list(r.messages).map((m, i) => ({ value: isObject(m) ? m : { role: 'user', content: m }, path: [...at('messages'), i] }));
    case 'completions': {
      const prompt = Array.isArray(r.prompt) ? r.prompt.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('\n') : str(r.prompt) ?? JSON.stringify(r.prompt ?? '');
      return [{ value: { role: 'prompt', content: prompt }, path: at('prompt') }];
    }
    case 'responses': {
      const out: Item[] = [];
      if (typeof r.instructions === 'string') out.push({ value: { role: 'system', content: r.instructions }, path: at('instructions') });
      if (typeof r.input === 'string') out.push({ value: { role: 'user', content: r.input }, path: at('input') });
      else out.push(...responseItems(list(r.input), at('input')));
      return out;
    }
    case 'messages': {
      const out: Item[] = [];
      const system = r.system;
      if (typeof system === 'string') out.push({ value: { role: 'system', content: system }, path: at('system') });
      else if (Array.isArray(system)) out.push(...anthropicMessages('system', system, at('system')));
      list(r.messages).forEach((m, i) => out.push(...(isObject(m) ? anthropicMessages(str(m.role) ?? 'user', m.content, [...at('messages'), i]) : [{ value: { role: 'user', content: m ?? null }, path: [...at('messages'), i] }])));
      return out;
    }
  }
}

// --- responses ------------------------------------------------------------------------------------

/** A choice: the model's turn, the one trained on. */
const asChoice = (message: Obj, finish: unknown, index = 0): Obj => ({ finish_reason: finish ?? null, index, message: { ...message, role: 'assistant' } });

function responseTurns(kind: ExchangeKind, response: unknown, path: Path): Item[] {
  const r = isObject(response) ? response : {};
  const at = [...path, 'response'];
  switch (kind) {
    case 'chat_completions':
      return list(r.choices).map((c, i) => ({ value: isObject(c) && isObject(c.message) ? c : asChoice({ content: JSON.stringify(c) }, null, i), path: [...at, 'choices', i] }));
    case 'completions':
      return list(r.choices).map((c, i) => ({ value: asChoice({ content: isObject(c) ? (str(c.text) ?? '') : JSON.stringify(c) }, isObject(c) ? c.finish_reason : null, i), path: [...at, 'choices', i] }));
    case 'responses': {
      // The output items of one response are one turn: reasoning, text and calls together.
      const items = responseItems(list(r.output), [...at, 'output']);
      const turn: Obj = { content: [] as unknown[], tool_calls: [] as unknown[] };
      const reasoning: string[] = [];
      const after: Item[] = [];
      for (const it of items) {
        const v = it.value;
        if (v.role === 'tool') after.push(it);
        else {
          if (typeof v.reasoning_content === 'string') reasoning.push(v.reasoning_content);
          (turn.tool_calls as unknown[]).push(...list(v.tool_calls));
          const c = v.content;
          if (Array.isArray(c)) (turn.content as unknown[]).push(...(c as unknown[]));
          else if (typeof c === 'string') (turn.content as unknown[]).push({ type: 'text', text: c });
        }
      }
      if (reasoning.length) turn.reasoning_content = reasoning.join('\n\n');
      if (!(turn.tool_calls as unknown[]).length) delete turn.tool_calls;
      return [{ value: asChoice(turn, r.status ?? null), path: [...at, 'output'] }, ...after];
    }
    case 'messages': {
      const [turn, ...results] = anthropicMessages('assistant', r.content, [...at, 'content']);
      return [{ value: asChoice(turn?.value ?? { content: null }, r.stop_reason ?? null), path: [...at, 'content'] }, ...results];
    }
  }
}

// --- the conversation -----------------------------------------------------------------------------

/** What two items say, for telling a repeated message from a new one. */
function sameKey(v: Obj): string {
  const m = isObject(v.message) && !('role' in v) ? (v.message as Obj) : v;
  const content = m.content;
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (isObject(p) ? (str(p.text) ?? JSON.stringify(p)) : String(p))).join('\n') : '';
  const calls = list(m.tool_calls).map((c) => (isObject(c) && isObject(c.function) ? `${str(c.id)}:${str(c.function.name)}:${str(c.function.arguments)}` : ''));
  return JSON.stringify([m.role === 'assistant' || 'message' in v ? 'assistant' : m.role, text.trim(), calls, m.tool_call_id ?? null]);
}

/** The key of an assistant item with neither text nor calls (reasoning only). */
const EMPTY_TURN = JSON.stringify(['assistant', '', [], null]);

function toolsOf(kind: ExchangeKind, request: unknown): unknown[] {
  const tools = isObject(request) ? list(request.tools) : [];
  // Anthropic names the schema `input_schema`; the Responses API puts name and parameters at the top.
  return kind === 'messages' ? tools.map((t) => (isObject(t) ? { name: t.name, description: t.description, parameters: t.input_schema ?? t.parameters } : t)) : tools;
}

/** The exchanges of a trajectory, in time order (file order where times are missing), as one conversation. */
export function exchangeConversation(t: unknown): ExchangeConversation {
  const all: { kind: ExchangeKind; index: number; x: Obj; start: number | undefined }[] = [];
  const ex = isObject(t) && isObject(t.exchanges) ? t.exchanges : dict();
  for (const kind of EXCHANGE_KINDS) list(ex[kind]).forEach((x, index) => all.push({ kind, index, x: isObject(x) ? x : dict(), start: timeMs(isObject(x) ? x.start_time : undefined) }));
  if (all.every((e) => e.start !== undefined)) all.sort((a, b) => a.start! - b.start!);
  const out: ExchangeConversation = { items: [], paths: [], exchanges: [], tools: [], choices: 0 };
  const toolNames = new Set<string>();
  let previous: { kind: ExchangeKind; keys: string[] } | undefined;
  for (const { kind, index, x, start } of all) {
    const path: Path = ['exchanges', kind, index];
    const request = requestItems(kind, x.request, path);
    const response = responseTurns(kind, x.response, path);
    // Skip what the previous exchange of this API already showed (its request and its answer).
    let skipped = 0;
    if (previous?.kind === kind) {
      // A client may drop reasoning-only items when it sends the conversation again.
      for (let j = 0; skipped < request.length && j < previous.keys.length; j++) {
        if (sameKey(request[skipped]!.value) === previous.keys[j]) skipped++;
        else if (previous.keys[j] !== EMPTY_TURN) break;
      }
    }
    // A Responses API request repeats the output items one by one, not as the one turn shown.
    const answer = kind === 'responses' ? responseItems(list(isObject(x.response) ? x.response.output : undefined), []) : response;
    previous = { kind, keys: [...request, ...answer].map((i) => sameKey(i.value)) };
    const first = out.items.length;
    for (const it of [...request.slice(skipped), ...response]) {
      out.items.push(it.value);
      out.paths.push(it.path);
    }
    out.choices += response.filter((r) => !('role' in r.value)).length;
    for (const tool of toolsOf(kind, x.request)) {
      const name = isObject(tool) ? (str(tool.name) ?? (isObject(tool.function) ? str(tool.function.name) : undefined)) : undefined;
      if (name !== undefined && toolNames.has(name)) continue;
      if (name !== undefined) toolNames.add(name);
      out.tools.push(tool);
    }
    const end = timeMs(x.end_time);
    const response0 = isObject(x.response) ? x.response : {};
    const view: ExchangeView = { kind, index, start: first, end: out.items.length, skipped, usage: usageOf(kind, x.response) };
    const model = str(x.model) ?? str(response0.model);
    if (model !== undefined) view.model = model;
    if (typeof x.start_time === 'string') view.startTime = x.start_time;
    if (start !== undefined && end !== undefined) view.durationMs = end - start;
    out.exchanges.push(view);
  }
  return out;
}

/** Tokens and time over exchanges (time: the sum of their durations). */
export function exchangeTotals(exchanges: readonly ExchangeView[]): { usage: TokenUsage; durationMs?: number; exchanges: number } {
  let usage: TokenUsage = {};
  let durationMs: number | undefined;
  for (const e of exchanges) {
    usage = addUsage(usage, e.usage);
    if (e.durationMs !== undefined) durationMs = (durationMs ?? 0) + e.durationMs;
  }
  return durationMs === undefined ? { usage, exchanges: exchanges.length } : { usage, durationMs, exchanges: exchanges.length };
}

/** A group's totals: the sum over its exchange trajectories; undefined when it has none. */
export function sumTotals(all: readonly (ExchangeTotals | undefined)[]): ExchangeTotals | undefined {
  let out: ExchangeTotals | undefined;
  for (const t of all) {
    if (!t) continue;
    const durationMs = t.durationMs === undefined ? out?.durationMs : (out?.durationMs ?? 0) + t.durationMs;
    out = { usage: addUsage(out?.usage ?? {}, t.usage), exchanges: (out?.exchanges ?? 0) + t.exchanges, ...(durationMs !== undefined ? { durationMs } : {}) };
  }
  return out;
}
