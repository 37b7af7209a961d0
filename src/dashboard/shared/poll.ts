/** When to poll for new checkpoints. Pure. */

export const MAX_POLL_DELAY_MS = 10 * 60_000;

/**
 * Delay before the next poll: the interval, doubled after each failure in a row, at most
 * 10 minutes (or the interval, if that is longer). Undefined when polling is off (0).
 */
export function pollDelayMs(pollSeconds: number, failures: number): number | undefined {
  if (!(pollSeconds > 0)) return undefined;
  const base = pollSeconds * 1000;
  return Math.min(base * 2 ** Math.min(failures, 20), Math.max(base, MAX_POLL_DELAY_MS));
}
