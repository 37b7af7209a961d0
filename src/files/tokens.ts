/**
 * The token strip of a trainable turn: each generated token with its logprob and top alternatives,
 * read from a choice in the forms turnChecks.ts knows (ART's `token_ids` with `compact_logprobs` or
 * `art_completion_logprobs` and `compact_top_logprobs {token_ids, logprobs}`; OpenAI's
 * `logprobs.content[{token, logprob, top_logprobs}]`; Completions' `logprobs.tokens` and
 * `token_logprobs`). Token ids without text are decoded later by the host (tokenizer.ts). No
 * `vscode` import.
 */
import { isObject } from '../api/json';
import type { Obj } from './model';
import type { TokenStrip } from './shapes';

/** Alternatives kept per token. */
export const MAX_ALTERNATIVES = 5;
/** Tokens kept per turn: a longer turn is cut, and says so. */
export const MAX_STRIP_TOKENS = 262_144;

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const TOKEN_ID = /^token_id:(\d+)$/;

/** Token ids as turnChecks.ts reads them (non-negative integers or "token_id:N"); not imported from there, which imports messages.ts. */
function tokenIds(v: unknown): number[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const out: number[] = [];
  for (const x of v) {
    const m = typeof x === 'string' ? TOKEN_ID.exec(x) : null;
    const id = typeof x === 'number' && Number.isInteger(x) && x >= 0 ? x : m ? Number(m[1]) : undefined;
    if (id === undefined) return undefined;
    out.push(id);
  }
  return out;
}

/** An OpenAI token string, or the id it stands for ("token_id:N", as vLLM writes with return_tokens_as_token_ids). */
function tokenOf(v: unknown): { text?: string; id?: number } {
  if (typeof v !== 'string') return {};
  const m = TOKEN_ID.exec(v);
  return m ? { id: Number(m[1]) } : { text: v };
}

function cut(strip: TokenStrip): TokenStrip {
  const n = strip.logprobs.length;
  if (n <= MAX_STRIP_TOKENS) return strip;
  const s = (a: unknown[] | undefined) => a?.slice(0, MAX_STRIP_TOKENS);
  return { ...strip, logprobs: strip.logprobs.slice(0, MAX_STRIP_TOKENS), ids: s(strip.ids) as number[] | undefined, texts: s(strip.texts) as (string | null)[] | undefined, top: s(strip.top) as TokenStrip['top'], cut: n };
}

/** The strip of a choice, when it has logprobs or token ids; `model`: the request's, when known. */
export function tokenStrip(c: Obj, model?: string): TokenStrip | undefined {
  const ids = tokenIds(c.token_ids);
  const m = typeof c.model === 'string' ? c.model : model;
  const base = { ...(m ? { model: m } : {}) };
  const exact = c.compact_logprobs ?? c.art_completion_logprobs;
  if (Array.isArray(exact) || (ids && !isObject(c.logprobs))) {
    const values = list(exact).map(num);
    const n = Math.max(values.length, ids?.length ?? 0);
    const top = compactTop(c.compact_top_logprobs, n);
    // The text, when OpenAI's logprobs.content beside the compact lists gives it token by token.
    const content = isObject(c.logprobs) ? list(c.logprobs.content).map((e) => (isObject(e) ? tokenOf(e.token).text : undefined)) : [];
    const texts = content.length === n && content.every((t) => t !== undefined) ? (content as string[]) : undefined;
    return cut({
      ...base,
      form: Array.isArray(c.compact_logprobs) ? 'compact_logprobs' : Array.isArray(exact) ? 'art_completion_logprobs' : 'token_ids',
      logprobs: Array.from({ length: n }, (_, i) => values[i] ?? null),
      ...(ids ? { ids } : {}),
      ...(texts ? { texts } : {}),
      ...(top ? { top } : {}),
    });
  }
  const lp = isObject(c.logprobs) ? c.logprobs : undefined;
  if (!lp) return undefined;
  if (Array.isArray(lp.token_logprobs)) {
    // Completions: parallel lists of token strings and logprobs; top_logprobs a list of {token: logprob}.
    const toks = list(lp.tokens).map(tokenOf);
    const values = lp.token_logprobs.map(num);
    const tops = list(lp.top_logprobs);
    return cut({
      ...base,
      form: 'logprobs.token_logprobs',
      logprobs: values,
      ...(toks.some((t) => t.text !== undefined) ? { texts: values.map((_, i) => toks[i]?.text ?? null) } : {}),
      ...(ids ? { ids } : toks.length && toks.every((t) => t.id !== undefined) ? { ids: toks.map((t) => t.id!) } : {}),
      ...(tops.length ? { top: values.map((_, i) => (isObject(tops[i]) ? Object.entries(tops[i] as Obj).filter(([, v]) => num(v) !== null).map(([k, v]): [string, number] => [k, v as number]).slice(0, MAX_ALTERNATIVES) : [])) } : {}),
    });
  }
  const entries = list(lp.content).length ? list(lp.content) : list(lp.refusal);
  if (!entries.length) return ids ? { ...base, form: 'token_ids', logprobs: ids.map(() => null), ids } : undefined;
  const toks = entries.map((e) => (isObject(e) ? { ...tokenOf(e.token), ...(typeof e.token_id === 'number' ? { id: e.token_id } : {}) } : {}));
  const hasText = toks.some((t) => t.text !== undefined);
  const entryIds = toks.every((t) => t.id !== undefined) ? toks.map((t) => t.id!) : undefined;
  return cut({
    ...base,
    form: 'logprobs.content',
    logprobs: entries.map((e) => (isObject(e) ? num(e.logprob) : null)),
    ...(hasText ? { texts: toks.map((t) => t.text ?? null) } : {}),
    ...((ids ?? entryIds) ? { ids: ids ?? entryIds } : {}),
    top: entries.map((e) =>
      list(isObject(e) ? e.top_logprobs : undefined)
        .flatMap((a): [string, number][] => (isObject(a) && num(a.logprob) !== null ? [[typeof a.token === 'string' ? a.token : '?', a.logprob as number]] : []))
        .slice(0, MAX_ALTERNATIVES),
    ),
  });
}

/** ART's `compact_top_logprobs {token_ids: [[...]], logprobs: [[...]]}`, per position; alternatives named `#id` until decoded. */
function compactTop(v: unknown, n: number): [string, number][][] | undefined {
  if (!isObject(v) || !Array.isArray(v.token_ids) || !Array.isArray(v.logprobs)) return undefined;
  const tids = v.token_ids;
  const lps = v.logprobs;
  return Array.from({ length: n }, (_, i) => {
    const a = list(tids[i]);
    const b = list(lps[i]);
    const out: [string, number][] = [];
    for (let j = 0; j < a.length && out.length < MAX_ALTERNATIVES; j++) {
      const lp = num(b[j]);
      if (typeof a[j] === 'number' && lp !== null) out.push([`#${a[j] as number}`, lp]);
    }
    return out;
  });
}
