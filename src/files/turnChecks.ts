/**
 * What ART's tokenizer finds in a trajectory's trainable turns: the choices of `messages_and_choices`
 * (and `additional_histories`), or the response choices of its `exchanges`; whether each carries
 * logprobs ART reads (OpenAI `logprobs.content`, ART's `compact_logprobs` or
 * `art_completion_logprobs`), and the token ids ART needs. The rules and their sources are in
 * artRules.ts; verdicts.ts turns these facts into reasons. No `vscode` import.
 */
import { isObject } from '../api/json';
import { EXCHANGE_KINDS, type ExchangeKind } from './exchanges';
import { isChoice } from './messages';
import type { Obj } from './model';

const TOKEN_ID = /^token_id:(\d+)$/;

/** A token id as ART's `_token_id` reads one: a non-negative integer, or "token_id:N". */
function tokenId(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  const m = typeof v === 'string' ? TOKEN_ID.exec(v) : null;
  return m ? Number(m[1]) : undefined;
}

/** A list of token ids, or undefined when absent or not one (`emptyIsMissing`: [] counts as absent). */
export function tokenIds(v: unknown, emptyIsMissing = false): number[] | undefined {
  if (!Array.isArray(v) || (emptyIsMissing && v.length === 0)) return undefined;
  const out: number[] = [];
  for (const x of v) {
    const id = tokenId(x);
    if (id === undefined) return undefined;
    out.push(id);
  }
  return out;
}

/** A list of finite numbers (booleans are not numbers here, as in ART), or undefined. */
function finiteList(v: unknown): number[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as number[]) : undefined;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Where a turn's logprobs are, in the names the file uses. */
export type LogprobForm = 'compact_logprobs' | 'art_completion_logprobs' | 'logprobs.content' | 'logprobs.token_logprobs' | 'logprobs' | 'none';

/** A problem ART raises on (the step fails), with the figures that show it. */
export interface TurnFault {
  kind: 'no-token-ids' | 'logprob-mismatch' | 'compact-invalid' | 'not-exact' | 'missing-logprobs';
  detail: string;
  numbers?: Record<string, number>;
}

export interface TurnCheck {
  /** 0-based among the turns of its kind (choices of messages_and_choices, or sampled exchange outputs). */
  index: number;
  /** Where it is: `messages_and_choices[3]`, `exchanges.chat_completions[0].response.choices[0]`. */
  at: string;
  form: LogprobForm;
  /** ART would tokenize it (at the default settings). */
  trainable: boolean;
  tokens?: number;
  faults: TurnFault[];
  /** Logprobs this reader does not check (the Responses API's generations). */
  unchecked?: boolean;
}

/** ART's exact completion logprobs on a choice (`compact_logprobs`, `art_completion_logprobs`), if any. */
function exactLogprobs(c: Obj): { form: LogprobForm; values: unknown } | undefined {
  if (c.compact_logprobs !== undefined && c.compact_logprobs !== null) return { form: 'compact_logprobs', values: c.compact_logprobs };
  if ('art_completion_logprobs' in c) return { form: 'art_completion_logprobs', values: c.art_completion_logprobs };
  return undefined;
}

function exactFaults(exact: { form: LogprobForm; values: unknown }, ids: number[] | undefined): TurnFault[] {
  const values = finiteList(exact.values);
  if (!values) return [{ kind: 'compact-invalid', detail: `${exact.form} is ${exact.values === null ? 'null' : 'not a list of finite numbers'}` }];
  if (ids && values.length !== ids.length) return [{ kind: 'compact-invalid', detail: `${exact.form} has ${values.length} values for ${ids.length} token ids`, numbers: { logprobs: values.length, tokens: ids.length } }];
  return [];
}

/** The choices of a legacy trajectory (`messages_and_choices` and `additional_histories`), as ART's assemble_vllm_training_sequences sees them. */
export function legacyTurns(t: Obj): { turns: TurnCheck[]; items: number; assistantDicts: number; dictLogprobs: number } {
  const sources: [string, unknown[]][] = [['messages_and_choices', list(t.messages_and_choices)]];
  list(t.additional_histories).forEach((h, i) => sources.push([`additional_histories[${i}].messages_and_choices`, isObject(h) ? list(h.messages_and_choices) : []]));
  const turns: TurnCheck[] = [];
  let items = 0;
  let assistantDicts = 0;
  let dictLogprobs = 0;
  for (const [name, its] of sources) {
    its.forEach((item, i) => {
      items++;
      if (!isObject(item)) return;
      if (!isChoice(item)) {
        if (item.role === 'assistant') {
          assistantDicts++;
          if (item.logprobs !== undefined && item.logprobs !== null) dictLogprobs++;
        }
        return;
      }
      turns.push(legacyChoice(item, turns.length, `${name}[${i}]`));
    });
  }
  return { turns, items, assistantDicts, dictLogprobs };
}

function legacyChoice(c: Obj, index: number, at: string): TurnCheck {
  const exact = exactLogprobs(c);
  const lp = c.logprobs;
  if (!exact && (lp === undefined || lp === null)) return { index, at, form: 'none', trainable: false, faults: [] };
  const faults: TurnFault[] = [];
  const ids = tokenIds(c.token_ids);
  if (tokenIds(c.prompt_token_ids) === undefined || ids === undefined) {
    faults.push({ kind: 'no-token-ids', detail: `${at} has no ${['prompt_token_ids', 'token_ids'].filter((k) => tokenIds(c[k]) === undefined).join(' and ')}` });
  }
  let form: LogprobForm;
  if (exact) {
    form = exact.form;
    faults.push(...exactFaults(exact, ids));
  } else {
    form = 'logprobs.content';
    // `choice.logprobs.content or choice.logprobs.refusal or []`: an empty list falls through.
    const o = isObject(lp) ? lp : {};
    const entries = list(o.content).length ? list(o.content) : list(o.refusal);
    if (!isObject(lp)) faults.push({ kind: 'logprob-mismatch', detail: `${at}.logprobs is not an object` });
    else if (ids && entries.length !== ids.length) faults.push({ kind: 'logprob-mismatch', detail: `${at} has ${entries.length} logprobs for ${ids.length} token ids`, numbers: { logprobs: entries.length, tokens: ids.length } });
  }
  return { index, at, form, trainable: true, faults, ...(ids ? { tokens: ids.length } : {}) };
}

/** Token ids and logprobs of an OpenAI chat choice, as ART's `_chat_choice_output_tokens` reads them. */
function chatChoice(c: Obj, response: Obj, index: number, at: string): TurnCheck {
  const prompt = tokenIds(c.prompt_token_ids ?? response.prompt_token_ids, true);
  const lp = isObject(c.logprobs) ? c.logprobs : {};
  const entries = [...list(lp.content), ...list(lp.refusal)];
  let ids = tokenIds(c.token_ids);
  if (ids === undefined && entries.length) {
    const pairs = entries.map((e) => (isObject(e) ? tokenId(e.token_id ?? e.token) : undefined));
    if (pairs.every((p) => p !== undefined)) ids = pairs as number[];
  }
  return sampled(c, index, at, prompt, ids, entries.map((e) => (isObject(e) ? e.logprob : undefined)), 'logprobs.content');
}

function completionChoice(c: Obj, response: Obj, index: number, at: string): TurnCheck {
  const prompt = tokenIds(c.prompt_token_ids ?? response.prompt_token_ids, true);
  const lp = isObject(c.logprobs) ? c.logprobs : {};
  const ids = tokenIds(c.token_ids) ?? tokenIds(lp.tokens, true);
  return sampled(c, index, at, prompt, ids, list(lp.token_logprobs), 'logprobs.token_logprobs');
}

function sampled(c: Obj, index: number, at: string, prompt: number[] | undefined, ids: number[] | undefined, values: unknown[], openaiForm: LogprobForm): TurnCheck {
  const faults: TurnFault[] = [];
  if (prompt === undefined || ids === undefined) {
    faults.push({ kind: 'not-exact', detail: `${at} has no ${[prompt === undefined ? 'prompt_token_ids' : '', ids === undefined ? 'token_ids' : ''].filter(Boolean).join(' and ')}` });
  }
  const exact = exactLogprobs(c);
  let form: LogprobForm = 'none';
  if (exact) {
    form = exact.form;
    faults.push(...exactFaults(exact, ids));
  } else if (values.length) {
    form = openaiForm;
    if (ids && values.length !== ids.length) faults.push({ kind: 'logprob-mismatch', detail: `${at} has ${values.length} logprobs for ${ids.length} token ids`, numbers: { logprobs: values.length, tokens: ids.length } });
    else if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) faults.push({ kind: 'missing-logprobs', detail: `${at} has logprobs that are not numbers` });
  } else {
    faults.push({ kind: 'missing-logprobs', detail: `${at} has no logprobs` });
  }
  return { index, at, form, trainable: true, faults, ...(ids ? { tokens: ids.length } : {}) };
}

/** The sampled outputs of a trajectory's exchanges, in file order. */
export function exchangeTurns(t: Obj): TurnCheck[] {
  const out: TurnCheck[] = [];
  const ex = isObject(t.exchanges) ? t.exchanges : {};
  for (const kind of EXCHANGE_KINDS) {
    list(ex[kind]).forEach((x, xi) => {
      const r = isObject(x) && isObject(x.response) ? x.response : undefined;
      if (!r) return;
      const at = `exchanges.${kind}[${xi}].response`;
      out.push(...exchangeResponse(kind, r, at, out.length));
    });
  }
  return out;
}

function exchangeResponse(kind: ExchangeKind, r: Obj, at: string, first: number): TurnCheck[] {
  switch (kind) {
    case 'chat_completions':
      return list(r.choices).flatMap((c, i) => (isObject(c) ? [chatChoice(c, r, first + i, `${at}.choices[${i}]`)] : []));
    case 'completions':
      return list(r.choices).flatMap((c, i) => (isObject(c) ? [completionChoice(c, r, first + i, `${at}.choices[${i}]`)] : []));
    case 'messages': {
      const values = list(r.logprobs).map((v) => (isObject(v) ? v.logprob : v));
      return [sampled(r, first, at, tokenIds(r.prompt_token_ids, true), tokenIds(r.token_ids), values, 'logprobs')];
    }
    case 'responses': {
      const gens = list(r.token_generations);
      if (!gens.length) return [{ index: first, at, form: 'none', trainable: true, faults: [{ kind: 'not-exact', detail: `${at} has no token_generations` }] }];
      return gens.map((g, i) => {
        const o = isObject(g) ? g : {};
        const prompt = tokenIds(o.prompt_token_ids, true);
        const ids = tokenIds(o.output_tokens);
        const faults: TurnFault[] = prompt && ids ? [] : [{ kind: 'not-exact', detail: `${at}.token_generations[${i}] has no ${prompt ? 'output_tokens' : 'prompt_token_ids'}` }];
        return { index: first + i, at: `${at}.token_generations[${i}]`, form: 'none', trainable: true, faults, unchecked: true, ...(ids ? { tokens: ids.length } : {}) };
      });
    }
  }
}
