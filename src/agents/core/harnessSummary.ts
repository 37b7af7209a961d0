/**
 * svc_summarize_trajectories on ATIF (Harbor): an agent/trajectory.json or a job folder of trials.
 * Per trial its scores (the verifier's rewards in result.json), steps, tool calls, tokens and cost,
 * and whether it raised; per task the mean score and failures; then the trials as the ART groups
 * Convert to ART writes (one per task), summarized as any trajectory file is. Files are read only
 * under the read roots (or the folder the user confirmed). Pure: no vscode import.
 */
import { rm, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { stat } from 'node:fs/promises';
import { isObject } from '../../api/json';
import { defaultScore, readTrials, scoreNames, trialDirOf, type AtifTrial } from '../../harnesses/atif';
import { trialsToArtGroups } from '../../harnesses/convert';
import { isUnder } from './access';
import { count, cutNote, num, stats, table } from './format';
import { ToolProblem } from './host';

export const MAX_TRIAL_ROWS = 200;

function figures(t: AtifTrial): { steps: number; toolCalls: number; prompt?: number; completion?: number; cost?: number } {
  const items = Array.isArray(t.trajectory.messages_and_choices) ? t.trajectory.messages_and_choices : [];
  let toolCalls = 0;
  const steps = new Set<unknown>();
  for (const m of items) {
    if (!isObject(m)) continue;
    steps.add(JSON.stringify([m.atif_continuation ?? 0, m.atif_step]));
    const msg = isObject(m.message) ? m.message : m;
    if (Array.isArray(msg.tool_calls)) toolCalls += msg.tool_calls.length;
  }
  const metrics = isObject(t.trajectory.metrics) ? t.trajectory.metrics : {};
  const n = (k: string) => (typeof metrics[k] === 'number' ? (metrics[k] as number) : undefined);
  return {
    steps: steps.size,
    toolCalls,
    prompt: n('total_prompt_tokens'),
    completion: n('total_completion_tokens'),
    cost: n('total_cost_usd'),
  };
}

export async function summarizeAtif(
  shown: string,
  real: string,
  roots: readonly string[],
  signal: AbortSignal | undefined,
  summarizeArtFile: (path: string, real: string, signal?: AbortSignal) => Promise<string>,
): Promise<string> {
  const isDir = (await stat(real)).isDirectory();
  // What may be read: under the read roots, or under the job (or trial) the user named.
  const base = isDir ? real : (trialDirOf(real) ?? nodePath.dirname(real));
  const canRead = (p: string) => roots.some((r) => isUnder(r, p)) || p === real || isUnder(base, p);
  let trials: AtifTrial[];
  try {
    trials = await readTrials(real, { isDir, signal, canRead });
  } catch (e) {
    throw new ToolProblem(`Could not read ${shown}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const scores = scoreNames(trials);
  const reward = defaultScore(scores);
  const tasks = new Map<string, AtifTrial[]>();
  for (const t of trials) tasks.set(t.task, [...(tasks.get(t.task) ?? []), t]);
  const failed = trials.filter((t) => t.result?.exception_info);
  const noResult = trials.filter((t) => !t.result);
  const lines = [
    `${shown}: ATIF (Harbor) ${isDir ? 'job folder' : 'trajectory file'}, ${count(trials.length)} ${trials.length === 1 ? 'trial' : 'trials'} of ${count(tasks.size)} ${tasks.size === 1 ? 'task' : 'tasks'}. ` +
      `Scores (verifier_result.rewards in each trial's result.json): ${scores.length ? scores.join(', ') : 'none'}${reward ? `; "${reward}" is the reward below` : ''}.`,
    `Failures: ${count(failed.length)} ${failed.length === 1 ? 'trial' : 'trials'} raised${failed.length ? ` (${failed.map((t) => `${t.name}: ${t.result!.exception_info!.exception_type ?? 'exception'}`).join('; ')})` : ''}; ${count(noResult.length)} without a result.json.`,
  ];
  const headers = ['trial', 'task', ...scores, 'steps', 'tool calls', 'prompt tokens', 'completion tokens', 'cost (USD)', 'exception', 'subagents'];
  const shownTrials = trials.slice(0, MAX_TRIAL_ROWS);
  lines.push(
    '',
    table(
      headers,
      shownTrials.map((t) => {
        const f = figures(t);
        return [t.name, t.task, ...scores.map((s) => (t.rewards[s] === undefined ? '' : num(t.rewards[s]!))), f.steps, f.toolCalls, f.prompt === undefined ? '' : num(f.prompt), f.completion === undefined ? '' : num(f.completion), f.cost === undefined ? '' : num(f.cost), t.result?.exception_info?.exception_type ?? '', t.subagents.length];
      }),
    ),
  );
  const cut = cutNote(shownTrials.length, 0, trials.length, 'trials', 'the figures per task cover every trial');
  if (cut) lines.push('', cut);
  if (reward) {
    lines.push(
      '',
      table(
        ['task', 'trials', `${reward} mean`, 'min', 'max', 'raised'],
        [...tasks].map(([task, ts]) => {
          const values = ts.map((t) => t.rewards[reward]).filter((v): v is number => v !== undefined);
          const s = stats(values);
          return [task, ts.length, s ? num(s.mean) : '', s ? num(s.min) : '', s ? num(s.max) : '', ts.filter((t) => t.result?.exception_info).length];
        }),
      ),
    );
  }
  // The trials as ART groups (one per task), as Convert to ART writes them, summarized like any trajectory file.
  if (!reward) {
    lines.push('', `As ART trajectories: not summarized: ${scores.length ? `pick the score to use as the reward among ${scores.join(', ')} (svc: Convert to ART Trajectories…)` : 'no trial has a score to use as the reward'}.`);
    return lines.join('\n');
  }
  const dir = await mkdtemp(nodePath.join(tmpdir(), 'svc-atif-summary-'));
  try {
    const { groups, lost } = trialsToArtGroups(real, trials, { reward, groupBy: 'task' });
    const file = nodePath.join(dir, 'groups.jsonl');
    await writeFile(file, groups.map((g) => JSON.stringify(g)).join('\n') + '\n');
    const art = await summarizeArtFile(`${shown} as ART groups (one per task, reward "${reward}")`, file, signal);
    lines.push('', art);
    if (lost.length) lines.push('', `Left out of the ART groups: ${lost.join('; ')}.`);
  } catch (e) {
    lines.push('', `As ART trajectories: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  return lines.join('\n');
}
