/**
 * The numbers of a token strip: mean logprob, perplexity, tokens under a probability threshold, and
 * the colour bucket of a token. Shared by the host (tests, reports) and the webview; no `vscode`
 * and no DOM import.
 */

/** Colour buckets by probability, lowest first: bucket i holds p < BUCKET_EDGES[i] (the last holds the rest). */
export const BUCKET_EDGES = [0.01, 0.1, 0.5, 0.9] as const;
/** The threshold under which a token counts as unlikely, by default (p < 0.1). */
export const DEFAULT_THRESHOLD = 0.1;

export interface StripNumbers {
  /** Tokens with a finite logprob. */
  scored: number;
  /** Mean of their logprobs; undefined with none. */
  meanLogprob?: number;
  /** exp(−mean logprob). */
  perplexity?: number;
  /** Tokens with probability under the threshold. */
  under: number;
}

/** Numbers of a list of logprobs (null or non-finite entries are not scored). */
export function stripNumbers(logprobs: readonly (number | null | undefined)[], threshold = DEFAULT_THRESHOLD): StripNumbers {
  let scored = 0;
  let sum = 0;
  let under = 0;
  const cut = Math.log(threshold);
  for (const lp of logprobs) {
    if (typeof lp !== 'number' || !Number.isFinite(lp)) continue;
    scored++;
    sum += lp;
    if (lp < cut) under++;
  }
  if (!scored) return { scored, under };
  const meanLogprob = sum / scored;
  return { scored, meanLogprob, perplexity: Math.exp(-meanLogprob), under };
}

/** The colour bucket of a logprob: 0 (p < 0.01) … 4 (p ≥ 0.9); -1 when there is none. */
export function bucketOf(logprob: number | null | undefined): number {
  if (typeof logprob !== 'number' || !Number.isFinite(logprob)) return -1;
  const p = Math.exp(logprob);
  for (let i = 0; i < BUCKET_EDGES.length; i++) if (p < BUCKET_EDGES[i]!) return i;
  return BUCKET_EDGES.length;
}

/** The rank of the chosen token among its alternatives (1 = most likely), when they are given. */
export function rankOf(logprob: number | null | undefined, alternatives: readonly number[] | undefined): number | undefined {
  if (typeof logprob !== 'number' || !alternatives?.length) return undefined;
  return 1 + alternatives.filter((a) => a > logprob).length;
}
