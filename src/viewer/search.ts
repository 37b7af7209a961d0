/**
 * Search of a trajectory file's messages: a cheap look at each group's raw text, then the messages
 * of the groups that may hold the query, one hit per message. No `vscode` import.
 */
import { exchangeConversation, hasExchanges } from './exchanges';
import { itemsOf, messageViews } from './messages';
import { isObject } from '../api/json';
import { asGroup } from './model';
import type { MessageView, SearchHit } from './protocol';
import type { GroupIndex } from './source';

const MAX_HITS = 1000;

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
  const histories = isObject(t) && Array.isArray(t.additional_histories) ? t.additional_histories : [];
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

/**
 * Searches every message of an indexed file (up to MAX_HITS hits); `send` gets the hits so far
 * every 200 ms and once at the end (not when aborted). Returns them all.
 */
export async function searchFile(index: GroupIndex, query: string, signal: AbortSignal, send: (hits: SearchHit[], done: boolean, truncated: boolean, groupsScanned: number) => void): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  let scanned = 0;
  let truncated = false;
  const post = (done: boolean) => send([...hits], done, truncated, scanned);
  const q = query.toLowerCase();
  let last = performance.now();
  try {
    for await (const { index: gi, text } of index.rawGroups(0, 1024 * 1024, signal)) {
      scanned++;
      if (mayContain(text.toLowerCase(), q)) {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          continue;
        }
        const group = asGroup(value);
        group?.trajectories.forEach((t, ti) => {
          for (const h of searchTrajectory(t, ti, query)) if (hits.length < MAX_HITS) hits.push({ group: gi, ...h });
        });
        if (hits.length >= MAX_HITS) {
          truncated = true;
          break;
        }
      }
      if (performance.now() - last > 200) {
        last = performance.now();
        post(false);
      }
    }
  } catch {
    if (signal.aborted) return hits;
  }
  if (!signal.aborted) post(true);
  return hits;
}

