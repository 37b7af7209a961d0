/**
 * The viewer's search of one trajectory file: a cheap look at each group's raw text, then what
 * searchFields.ts finds searchable in the groups that may hold the query (messages, tool calls,
 * metadata, logs, the group's exceptions): one hit per message, and one per other field, each
 * saying where it is. No `vscode` import.
 */
import { groupFields, snippet, trajectoryFields, whereOf, type SearchField } from './searchFields';
import { asGroup } from '../files/model';
import type { SearchHit } from './protocol';
import type { GroupIndex } from './source';

export { snippet } from './searchFields';

const MAX_HITS = 1000;

export interface MessageHit {
  trajectory: number;
  /** -1: the main conversation; otherwise the index in additional_histories. */
  history: number;
  /** -1: not a message (metadata, logs, exceptions). */
  message: number;
  /** Where the text was found: content, reasoning, tool call, refusal, metadata.<key>, logs[i], exception i. */
  field: string;
  snippet: string;
}

/** Case-insensitive search of fields: one hit per message (its first field that holds the query), one per other field. */
function searchFields(fields: readonly SearchField[], q: string): (MessageHit & { field: string })[] {
  const hits: MessageHit[] = [];
  let last: SearchField | undefined;
  for (const f of fields) {
    const sameMessage = last !== undefined && f.message >= 0 && f.trajectory === last.trajectory && f.history === last.history && f.message === last.message;
    if (sameMessage) continue;
    const at = f.text.toLowerCase().indexOf(q);
    if (at < 0) continue;
    hits.push({ trajectory: f.trajectory, history: f.history, message: f.message, field: f.field, snippet: snippet(f.text, at, q.length) });
    last = f;
  }
  return hits;
}

/** Case-insensitive search of one trajectory (messages, additional histories, metadata, logs). */
export function searchTrajectory(t: unknown, trajectory: number, query: string): MessageHit[] {
  const q = query.toLowerCase();
  return q ? searchFields(trajectoryFields(t, trajectory), q) : [];
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
 * Searches every group of an indexed file (up to MAX_HITS hits); `send` gets the hits so far
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
        if (group) {
          for (const h of searchFields(groupFields(group), q)) {
            if (hits.length >= MAX_HITS) break;
            hits.push({ group: gi, ...h, where: whereOf(h, gi) });
          }
        }
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
