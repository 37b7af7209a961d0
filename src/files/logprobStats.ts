/**
 * Across a trajectory file: the distribution of the sampled tokens' logprobs and of each turn's
 * mean logprob, and the turns with the least likely tokens (a drift or a sampling bug shows up
 * there). Reads the logprobs where ART reads them (turnChecks.ts): on a choice `compact_logprobs`,
 * else `art_completion_logprobs`, else OpenAI's `logprobs.content[].logprob`; for `exchanges`, the
 * chat completion responses' choices the same way. Bounded: quantiles over the first
 * MAX_TOKEN_VALUES token logprobs, said when cut. No `vscode` import.
 */
import { isObject } from '../api/json';

/** Token logprobs kept for the quantiles at most. */
export const MAX_TOKEN_VALUES = 2_000_000;
/** Turns named with the least likely tokens. */
export const WORST_TURNS = 5;

type Obj = Record<string, unknown>;

export interface TurnLogprobs {
  /** Where it is in the trajectory: `messages_and_choices[3]`, `exchanges.chat_completions[0].response.choices[0]`. */
  at: string;
  /** The same place as a path in the trajectory: `['messages_and_choices', 3]`. */
  path: (string | number)[];
  values: number[];
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A choice's logprobs, from the first form it has (finite values only). */
function choiceLogprobs(c: Obj): number[] | undefined {
  for (const key of ['compact_logprobs', 'art_completion_logprobs']) {
    const v = c[key];
    if (Array.isArray(v)) return v.filter(finite);
  }
  if (isObject(c.logprobs) && Array.isArray(c.logprobs.content)) return c.logprobs.content.flatMap((e) => (isObject(e) && finite(e.logprob) ? [e.logprob] : []));
  return undefined;
}

/** The sampled turns of a trajectory that carry logprobs, in order. */
export function turnLogprobs(t: unknown): TurnLogprobs[] {
  if (!isObject(t)) return [];
  const out: TurnLogprobs[] = [];
  const histories: [string, (string | number)[], unknown][] = [['messages_and_choices', ['messages_and_choices'], t.messages_and_choices]];
  if (Array.isArray(t.additional_histories)) t.additional_histories.forEach((h, i) => histories.push([`additional_histories[${i}].messages_and_choices`, ['additional_histories', i, 'messages_and_choices'], isObject(h) ? h.messages_and_choices : undefined]));
  for (const [name, base, items] of histories) {
    if (!Array.isArray(items)) continue;
    items.forEach((item, i) => {
      if (!isObject(item) || 'role' in item || !('message' in item)) return;
      const values = choiceLogprobs(item);
      if (values?.length) out.push({ at: `${name}[${i}]`, path: [...base, i], values });
    });
  }
  if (isObject(t.exchanges)) {
    for (const [kind, list] of Object.entries(t.exchanges)) {
      if (!Array.isArray(list)) continue;
      list.forEach((x, i) => {
        const choices = isObject(x) && isObject(x.response) && Array.isArray(x.response.choices) ? x.response.choices : [];
        choices.forEach((c, j) => {
          const values = isObject(c) ? choiceLogprobs(c) : undefined;
          if (values?.length) out.push({ at: `exchanges.${kind}[${i}].response.choices[${j}]`, path: ['exchanges', kind, i, 'response', 'choices', j], values });
        });
      });
    }
  }
  return out;
}

export interface TurnFigure {
  group: number;
  trajectory: number;
  /** 0-based among the trajectory's turns with logprobs. */
  turn: number;
  at: string;
  tokens: number;
  mean: number;
  min: number;
}

/** The value at quantile q of sorted values: the one at index round(q × (n − 1)). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  return sorted[Math.round(q * (sorted.length - 1))]!;
}

export const QUANTILES = [0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 1] as const;

/** Logprobs over a file, group by group. */
export class LogprobDistribution {
  private readonly tokens: number[] = [];
  tokenCount = 0;
  readonly turnMeans: number[] = [];
  /** The WORST_TURNS turns with the lowest token logprob, lowest first. */
  readonly worst: TurnFigure[] = [];

  add(group: number, trajectory: number, t: unknown): void {
    turnLogprobs(t).forEach((turn, i) => {
      let sum = 0;
      let min = Infinity;
      for (const v of turn.values) {
        sum += v;
        if (v < min) min = v;
        if (this.tokens.length < MAX_TOKEN_VALUES) this.tokens.push(v);
      }
      this.tokenCount += turn.values.length;
      const mean = sum / turn.values.length;
      this.turnMeans.push(mean);
      const fig: TurnFigure = { group, trajectory, turn: i, at: turn.at, tokens: turn.values.length, mean, min };
      if (this.worst.length < WORST_TURNS || min < this.worst[this.worst.length - 1]!.min) {
        this.worst.push(fig);
        this.worst.sort((a, b) => a.min - b.min);
        if (this.worst.length > WORST_TURNS) this.worst.pop();
      }
    });
  }

  /** Token logprob quantiles (over the first MAX_TOKEN_VALUES) and turn mean quantiles, in QUANTILES order. */
  quantiles(): { tokens: number[]; turns: number[]; tokensCounted: number } | undefined {
    if (!this.tokens.length) return undefined;
    const tokens = Float64Array.from(this.tokens).sort();
    const turns = Float64Array.from(this.turnMeans).sort();
    return { tokens: QUANTILES.map((q) => quantile(tokens, q)), turns: QUANTILES.map((q) => quantile(turns, q)), tokensCounted: tokens.length };
  }
}

// --- the viewer's panel: bins and a few turns, as the index reads the file ---------------------------

/** Bin edges of a logprob, for tokens and turn means alike: bin k holds edges[k-1] <= v < edges[k]. */
export const LOGPROB_EDGES = [-20, -10, -5, -3, -2, -1, -0.5, -0.2, -0.1, -0.05, -0.01] as const;
/** Turns the viewer lists with the least likely tokens. */
export const LISTED_TURNS = 10;

/** The bin of a logprob: 0 (below the first edge) … LOGPROB_EDGES.length (at or above the last). */
export function binOf(v: number): number {
  // From the top: most sampled tokens are likely, so most lookups end at the first edge or two.
  let k = LOGPROB_EDGES.length;
  while (k > 0 && v < LOGPROB_EDGES[k - 1]!) k--;
  return k;
}

export interface LeastLikelyTurn {
  group: number;
  trajectory: number;
  /** 0-based among the trajectory's turns with logprobs. */
  turn: number;
  at: string;
  path: (string | number)[];
  tokens: number;
  mean: number;
  min: number;
  /** 0-based position of the least likely token in the turn. */
  minToken: number;
}

/**
 * Per-token and per-turn-mean logprob histograms of a file, and the `listed` turns with the least
 * likely tokens (lowest first; on a tie the first seen). Memory: the bins and `listed` turns,
 * whatever the file's size.
 */
export class LogprobHistogram {
  tokens = 0;
  turns = 0;
  private readonly tokenCounts = new Float64Array(LOGPROB_EDGES.length + 1);
  private readonly turnCounts = new Float64Array(LOGPROB_EDGES.length + 1);
  /** Tokens with a logprob above 0: no probability (counted in the last bin too). */
  positive = 0;
  readonly worst: LeastLikelyTurn[] = [];

  constructor(readonly listed = LISTED_TURNS) {}

  /** Tokens per bin (bin k: LOGPROB_EDGES[k-1] <= v < LOGPROB_EDGES[k]). */
  get tokenBins(): number[] {
    return Array.from(this.tokenCounts);
  }

  /** Turns per bin of their mean logprob. */
  get turnBins(): number[] {
    return Array.from(this.turnCounts);
  }

  add(group: number, trajectory: number, t: unknown): void {
    const turns = turnLogprobs(t);
    const counts = this.tokenCounts;
    const edges = LOGPROB_EDGES;
    const top = edges.length;
    for (let i = 0; i < turns.length; i++) {
      const turn = turns[i]!;
      const values = turn.values;
      let sum = 0;
      let min = Infinity;
      let minToken = 0;
      for (let k = 0; k < values.length; k++) {
        const v = values[k]!;
        sum += v;
        if (v < min) {
          min = v;
          minToken = k;
        }
        if (v > 0) this.positive++;
        // binOf, inlined: this runs once per token of the file.
        let b = top;
        while (b > 0 && v < edges[b - 1]!) b--;
        counts[b]!++;
      }
      this.tokens += values.length;
      this.turns++;
      const mean = sum / values.length;
      this.turnCounts[binOf(mean)]!++;
      const w = this.worst;
      if (w.length >= this.listed && !(min < w[w.length - 1]!.min)) continue;
      let at = w.length;
      while (at > 0 && min < w[at - 1]!.min) at--;
      w.splice(at, 0, { group, trajectory, turn: i, at: turn.at, path: turn.path, tokens: values.length, mean, min, minToken });
      if (w.length > this.listed) w.pop();
    }
  }
}
