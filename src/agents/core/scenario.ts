/**
 * svc_scenario_history: one scenario of an ART run across its steps, the same answer as "svc:
 * Follow Scenario Across Steps…" (src/viewer/scenario.ts): per step the rewards of that scenario's
 * rollouts and their final answers, and the first step whose answer changed. The run (a folder, a
 * history.jsonl or a step file) must be under the read roots (core/access.ts), or confirmed by the
 * user where the host confirms. Pure: no vscode import.
 */
import { realpath } from 'node:fs/promises';
import { isUnder, type RunContext } from './access';
import { cell, count, num, table } from './format';
import { ToolProblem, type ToolHost } from './host';
import type { ScenarioHistoryInput } from './schemas';
import { meanReward, rewardsText, scenarioHistory, type ScenarioHistory } from '../../viewer/scenario';

/** Steps listed at most (the steps around the first change and the last ones first). */
export const MAX_STEP_ROWS = 60;
const ANSWER_CHARS = 160;

/** The run's real path, once it is under the read roots (or confirmed). */
async function readableRun(host: ToolHost, run: string, context: RunContext): Promise<string> {
  const shown = host.resolvePath(run);
  let real: string;
  try {
    real = await realpath(shown);
  } catch {
    throw new ToolProblem(`${shown}: no such file or folder.`);
  }
  const roots = await Promise.all(host.readRoots().map((r) => realpath(r).catch(() => r)));
  if (roots.some((r) => isUnder(r, real)) || (host.outsideRoots === 'confirm' && context.allowOutside?.(real))) return real;
  const where = real !== shown ? `${shown} (a link to ${real})` : shown;
  throw new ToolProblem(
    host.outsideRoots === 'refuse'
      ? `${where} is outside the folders this server reads (${roots.join(', ') || 'none'}): not read. Start the MCP server with --root <folder> to let it read files under that folder.`
      : `${where} is outside the workspace folders (${roots.join(', ') || 'none'}): not read. Give a run inside the workspace.`,
  );
}

export async function scenarioHistoryTool(host: ToolHost, input: ScenarioHistoryInput, signal?: AbortSignal, context: RunContext = {}): Promise<string> {
  const real = await readableRun(host, input.run, context);
  let h: ScenarioHistory;
  try {
    h = await scenarioHistory({ run: real, scenario: input.scenario, key: input.key, split: input.split, signal });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ToolProblem(e instanceof Error ? e.message : String(e));
  }
  return scenarioText(h);
}

const quote = (s: string) => `"${cell(s, ANSWER_CHARS)}"`;

/** The history as the model reads it: a sentence of what was found, the first change, a table per step. */
export function scenarioText(h: ScenarioHistory): string {
  const found = h.steps.filter((s) => s.rollouts.length);
  const errors = h.steps.filter((s) => s.error);
  const lines: string[] = [];
  const head = `${h.modelDir}, split "${h.split}": scenario ${quote(h.scenario)} (key "${h.key}", else the first user message)`;
  if (!found.length) {
    lines.push(`${head} was found in none of the ${count(h.read)} step files read.`);
    if (h.known?.length) lines.push(`Scenarios seen there (the key's values, else first user messages, normalised): ${h.known.map(quote).join(', ')}.`);
  } else {
    const rollouts = found.reduce((a, s) => a + s.rollouts.length + (s.more ?? 0), 0);
    lines.push(
      `${head}: ${count(rollouts)} rollouts at ${count(found.length)} of ${count(h.read)} step files read (steps ${found[0]!.step}–${found.at(-1)!.step}); ` +
        `${count(h.matchedBy.key)} matched by the key, ${count(h.matchedBy.firstMessage)} by the first user message.`,
    );
    if (h.firstChange !== undefined) {
      const i = found.findIndex((s) => s.step === h.firstChange);
      const before = found[i - 1]!;
      lines.push(`The answer first changed at step ${h.firstChange} (from step ${before.step}): before ${before.answers.map(quote).join(' | ')}; after ${found[i]!.answers.map(quote).join(' | ')}.`);
    } else lines.push('The answer never changed across these steps.');
    const changed = found.filter((s) => s.changed).map((s) => s.step);
    if (changed.length > 1) lines.push(`Steps whose answers differ from the step before: ${changed.join(', ')}.`);
    const shown = found.length > MAX_STEP_ROWS ? pickRows(found, h.firstChange) : found;
    lines.push(
      '',
      table(
        ['step', 'rollouts', 'rewards', 'mean', 'final answer(s)', 'changed'],
        shown.map((s) => {
          const mean = meanReward(s);
          return [s.step, s.rollouts.length + (s.more ?? 0), rewardsText(s), mean === null ? '' : num(mean), s.answers.map((a) => cell(a, ANSWER_CHARS)).join(' | '), s.changed ? 'yes' : ''];
        }),
      ),
    );
    if (shown.length < found.length) lines.push('', `Showing ${count(shown.length)} of ${count(found.length)} steps (the first ten, five either side of the first change, then the newest); the first change and the counts above cover every step.`);
    lines.push('', 'Answers are the last assistant message of each rollout (its tool calls when it has no text), cut; rewards in group and trajectory order.');
  }
  if (errors.length) lines.push('', `Step files that could not be read (skipped): ${errors.map((s) => `step ${s.step} (${s.file}): ${s.error}`).join('; ')}.`);
  if (h.cut) lines.push('', `${count(h.cut.left)} older step files were not read: ${h.cut.why}.`);
  return lines.join('\n');
}

/** The rows kept when there are too many: the first, those around the first change, and the last. */
function pickRows<T extends { step: number }>(steps: readonly T[], change: number | undefined): T[] {
  const keep = new Set<number>();
  const at = change === undefined ? -1 : steps.findIndex((s) => s.step === change);
  for (let i = 0; i < 10 && i < steps.length; i++) keep.add(i);
  if (at >= 0) for (let i = Math.max(0, at - 5); i <= Math.min(steps.length - 1, at + 5); i++) keep.add(i);
  for (let i = steps.length - 1; keep.size < MAX_STEP_ROWS && i >= 0; i--) keep.add(i);
  return [...keep].sort((a, b) => a - b).map((i) => steps[i]!);
}
