/**
 * svc_summarize_trajectories on an Inspect AI `.eval` log (issue 32): per task (a log is one task)
 * and per sample, the scores (mean over epochs, as Inspect's value_to_float reads them), the
 * samples that ended in an error or hit a limit, and the tokens. Read from the header and the
 * summaries alone: no sample entry is opened, so a 1 GiB log is summarized as fast as a small one.
 * Quotes no sample text (inputs, answers, explanations): only ids, numbers and error messages.
 * Pure: no vscode import.
 */
import { EvalLog } from '../../files/inspectEval';
import { scoreValue, usageMetrics } from '../../files/inspectArt';
import { count, num, stats, table } from './format';

const MAX_SAMPLE_ROWS = 100;
const MAX_FAILURES = 20;

export async function summarizeEvalLog(shown: string, real: string, signal?: AbortSignal): Promise<string> {
  const log = await EvalLog.open(real, { signal });
  try {
    const h = log.header;
    const names = log.scoreNames;
    const epochs = Math.max(0, ...log.samples.map((g) => g.epochs.length));
    const lines = [
      `${shown}: an Inspect AI log (.eval), ${log.journal ? 'unfinished (read from its journal)' : `status ${h.status ?? 'unknown'}`}. Task ${log.task}, model ${log.model}: ${count(log.samples.length)} samples × ${count(epochs)} epochs (${count(log.summaries)} sample runs). Scores: ${names.join(', ') || 'none'}.`,
    ];
    if (h.error?.message) lines.push(`The eval ended in an error: ${h.error.message}`);
    // Per score, over every sample run: mean, spread, and runs whose value is not a number.
    const byScore = new Map<string, { values: number[]; other: number }>(names.map((n) => [n, { values: [], other: 0 }]));
    const failures: string[] = [];
    let failed = 0;
    let limited = 0;
    const tokens = new Map<string, number>();
    for (const g of log.samples) {
      for (const s of g.epochs) {
        if (s.error) {
          failed++;
          if (failures.length < MAX_FAILURES) failures.push(`- sample ${g.id}, epoch ${s.epoch}: error: ${s.error}`);
        } else if (s.limit) {
          limited++;
          if (failures.length < MAX_FAILURES) failures.push(`- sample ${g.id}, epoch ${s.epoch}: stopped by its ${s.limit} limit`);
        }
        for (const [name, score] of Object.entries(s.scores ?? {})) {
          const v = scoreValue(score.value);
          const slot = byScore.get(name);
          if (!slot) continue;
          if (v === undefined) slot.other++;
          else slot.values.push(v);
        }
        for (const [k, v] of Object.entries(usageMetrics(s.model_usage as Record<string, Record<string, unknown>> | undefined))) tokens.set(k, (tokens.get(k) ?? 0) + v);
      }
    }
    lines.push(
      '',
      `Scores per task (${log.task}), over every sample run; values as Inspect's value_to_float reads them (C 1, P 0.5, I and N 0):`,
      table(
        ['score', 'runs scored', 'mean', 'std', 'min', 'max', 'not a number'],
        [...byScore].map(([name, { values, other }]) => {
          const s = stats(values);
          return [name, values.length, num(s?.mean), num(s?.std), num(s?.min), num(s?.max), other];
        }),
      ),
    );
    const results = h.results?.scores ?? [];
    if (results.length) {
      const metrics = results.map((r) => `${r.name}: ${Object.entries((r as Record<string, unknown>).metrics ?? {}).map(([k, m]) => `${k} ${num((m as { value?: unknown }).value)}`).join(', ')}`);
      lines.push('', `The log's own results (header.json): ${metrics.join('; ')}.`);
    }
    lines.push('', `Failures: ${count(failed)} sample runs ended in an error, ${count(limited)} stopped by a limit.`, ...failures);
    if (failed + limited > failures.length) lines.push(`(first ${failures.length} of ${count(failed + limited)})`);
    lines.push('', tokens.size ? `Tokens over every sample run: ${[...tokens].map(([k, v]) => `${k} ${num(v)}`).join(', ')}.` : 'Tokens: the summaries record no model usage.');
    const shownSamples = log.samples.slice(0, MAX_SAMPLE_ROWS);
    lines.push(
      '',
      table(
        ['sample', 'epochs', ...names.map((n) => `${n} (mean)`), 'errors', 'tokens'],
        shownSamples.map((g) => {
          const row: unknown[] = [g.id, g.epochs.length];
          for (const n of names) row.push(num(stats(g.epochs.map((s) => scoreValue(s.scores?.[n]?.value)).filter((v): v is number => v !== undefined))?.mean));
          row.push(g.epochs.filter((s) => s.error).length);
          const t = g.epochs.reduce((a, s) => a + (usageMetrics(s.model_usage as Record<string, Record<string, unknown>> | undefined).total_tokens ?? 0), 0);
          row.push(t ? num(t) : '');
          return row;
        }),
      ),
    );
    if (log.samples.length > shownSamples.length) lines.push('', `(first ${shownSamples.length} of ${count(log.samples.length)} samples; the totals above cover every sample)`);
    lines.push('', 'To read a sample as a conversation, open the log in the trajectory viewer; to train on it, convert it to ART trajectories (docs/inspect.md says what is lost).');
    return lines.join('\n');
  } finally {
    await log.close();
  }
}
