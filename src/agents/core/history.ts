/**
 * svc_summarize_run's view of the training client's history.jsonl: the dashboard's line reader
 * (src/dashboard/shared/history.ts: one JSON object per `log` call, `step` or `training_step`, several
 * lines per step merged), kept with the one thing a run summary needs beyond the dashboard: which
 * metrics were written as non-finite (`Infinity`, `NaN`), as `null`. Pure: no vscode import.
 */
import { readFile } from 'node:fs/promises';
import { InputError } from '../../api/errors';
import { isProblem, parseHistoryLine } from '../../dashboard/shared/history';
import { dict } from '../../common/dict';

export interface RunPoint {
  step: number;
  /** Metric values; `null` marks a non-finite value. */
  metrics: Record<string, number | null>;
}

export interface History {
  points: RunPoint[];
  /** Lines that could not be read, 1-based, with why. */
  problems: { line: number; reason: string }[];
  lines: number;
}

export const MAX_HISTORY_BYTES = 256 * 1024 * 1024;

export function parseHistory(text: string): History {
  const byStep = new Map<number, RunPoint>();
  const problems: History['problems'] = [];
  let lines = 0;
  text.split('\n').forEach((raw, i) => {
    const r = parseHistoryLine(raw, i + 1);
    if (!r) return;
    lines++;
    if (isProblem(r)) {
      problems.push({ line: r.line, reason: r.message });
      return;
    }
    let point = byStep.get(r.step);
    if (!point) byStep.set(r.step, (point = { step: r.step, metrics: dict() }));
    Object.assign(point.metrics, r.metrics);
    for (const k of r.nonFinite ?? []) point.metrics[k] = null;
  });
  return { points: [...byStep.values()].sort((a, b) => a.step - b.step), problems, lines };
}

export async function readHistory(path: string): Promise<History> {
  const buffer = await readFile(path);
  if (buffer.length > MAX_HISTORY_BYTES) throw new InputError(`${path} is larger than ${MAX_HISTORY_BYTES / 1024 / 1024} MiB.`, { file: path });
  return parseHistory(buffer.toString('utf8'));
}
