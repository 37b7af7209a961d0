/**
 * A conversation as the viewer's bubbles: chat messages and choices (OpenAI's and ART's shapes),
 * content parts, tool calls paired with their results, and the fields a bubble does not show.
 * No `vscode` import.
 */
import { isObject } from '../api/json';
import { jsonText, str, type Obj } from './model';
import type { MessageView, PartView, ToolCallView, ToolView } from './shapes';
import { tokenStrip } from './tokens';

/** The items of a conversation (`messages_and_choices`); none when it has none. */
export function itemsOf(t: unknown): unknown[] {
  return isObject(t) && Array.isArray(t.messages_and_choices) ? t.messages_and_choices : [];
}

/** A choice is an item without `role` that has a `message` object (the service decides the same way). */
export function isChoice(item: unknown): boolean {
  return isObject(item) && !('role' in item) && isObject(item.message);
}

export function messageOf(item: unknown): Obj | undefined {
  if (!isObject(item)) return undefined;
  return isChoice(item) ? (item.message as Obj) : item;
}

export function rawToolCalls(msg: Obj | undefined): unknown[] {
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
    else if (isObject(p) && typeof p.text === 'string' && (p.type === 'text' || p.type === undefined || p.type === 'input_text' || p.type === 'output_text')) parts.push({ kind: 'text', text: p.text });
    else if (isObject(p) && p.type === 'refusal' && typeof p.refusal === 'string') parts.push({ kind: 'refusal', text: p.refusal });
    else if (isObject(p) && p.type === 'image_url') {
      // Never loaded: a remote image would leak that the file was opened, and data URLs can be huge.
      const url = isObject(p.image_url) ? str(p.image_url.url) : str(p.image_url);
      parts.push({ kind: 'media', label: 'image', text: url ? (url.startsWith('data:') ? `${url.slice(0, url.indexOf(',') + 1)}… (${url.length} characters)` : url) : '' });
    } else if (isObject(p) && typeof p.type === 'string' && p.type !== 'text') parts.push({ kind: 'media', label: p.type, text: jsonText(p, true) });
    else parts.push({ kind: 'json', label: 'part', text: jsonText(p, true) });
  }
  return parts;
}

/** Known message fields, shown by the bubble itself; anything else goes to its "details". */
const SHOWN_MESSAGE_FIELDS = new Set(['role', 'content', 'name', 'tool_calls', 'tool_call_id', 'reasoning_content', 'reasoning', 'refusal']);
const SHOWN_CHOICE_FIELDS = new Set(['message', 'finish_reason', 'index']);

/** Fields worth a line under a bubble: non-null values the bubble does not already show. */
export function extras(obj: Obj, shown: Set<string>, prefix = ''): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(obj)) {
    if (shown.has(k) || v === null || v === undefined) continue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (k === 'logprobs' && isObject(v)) {
      const content = Array.isArray(v.content) ? v.content.length : 0;
      out.push([`${prefix}logprobs`, `${content} token${content === 1 ? '' : 's'}`]);
      continue;
    }
    out.push([`${prefix}${k}`, jsonText(v, true)]);
  }
  return out;
}

function toolCallView(tc: unknown, i: number): ToolCallView {
  if (!isObject(tc)) return { id: undefined, name: `call ${i}`, arguments: jsonText(tc, true) };
  const fn = isObject(tc.function) ? tc.function : isObject(tc) ? tc : {};
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
    if (choice) {
      const strip = tokenStrip(item as Obj);
      if (strip) view.tokens = strip;
    }
    const reasoning = str(msg.reasoning_content) ?? str(msg.reasoning);
    if (reasoning) view.reasoning = reasoning;
    if (typeof msg.refusal === 'string' && msg.refusal) view.refusal = msg.refusal;
    if (choice && isObject(item) && item.finish_reason !== undefined && item.finish_reason !== null) view.finishReason = jsonText(item.finish_reason);
    if (isObject(msg.function_call)) {
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

export function toolViews(tools: unknown): ToolView[] {
  if (!Array.isArray(tools)) return [];
  return tools.map((t) => {
    const fn = isObject(t) && isObject(t.function) ? t.function : isObject(t) ? t : {};
    return {
      name: str(fn.name) ?? '(unnamed)',
      description: str(fn.description) ?? '',
      parameters: fn.parameters === undefined || fn.parameters === null ? '' : jsonText(fn.parameters, true),
    };
  });
}

