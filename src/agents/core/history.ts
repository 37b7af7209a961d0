/**
 * A reader of the training client's history.jsonl (`.art/<project>/models/<model>/history.jsonl`):
 * one JSON object per `log` call, metrics keyed by qualified name plus `step`, `training_step` and
 * `recorded_at`; several lines may share a step (train, then val); NaN values are left out, and a
 * bare `NaN` / `Infinity` token (Python's json.dumps default) is read as a non-finite value.
 * Pure: no vscode import.
 */
import { readFile } from 'node:fs/promises';

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

const RESERVED = new Set(['step', 'training_step', 'recorded_at']);
/** Python's json.dumps writes NaN and ±Infinity as bare tokens, which JSON.parse refuses. */
const NON_FINITE = /([:,[]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g;
export const MAX_HISTORY_BYTES = 256 * 1024 * 1024;

export function parseHistory(text: string): History {
  const byStep = new Map<number, RunPoint>();
  const problems: History['problems'] = [];
  const lines = text.split(/\r?\n/);
  let count = 0;
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    count++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      try {
        value = JSON.parse(line.replace(NON_FINITE, '$1"\u2063svc-non-finite"'));
      } catch (e) {
        problems.push({ line: i + 1, reason: `not JSON (${e instanceof Error ? e.message : String(e)})` });
        return;
      }
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({ line: i + 1, reason: 'not a JSON object' });
      return;
    }
    const obj = value as Record<string, unknown>;
    const step = typeof obj.step === 'number' ? obj.step : typeof obj.training_step === 'number' ? obj.training_step : undefined;
    if (step === undefined || !Number.isFinite(step)) {
      problems.push({ line: i + 1, reason: 'has no numeric step or training_step' });
      return;
    }
    let point = byStep.get(step);
    if (!point) byStep.set(step, (point = { step, metrics: {} }));
    for (const [k, v] of Object.entries(obj)) {
      if (RESERVED.has(k)) continue;
      if (typeof v === 'number') point.metrics[k] = Number.isFinite(v) ? v : null;
      else if (v === '\u2063svc-non-finite') point.metrics[k] = null;
    }
  });
  return { points: [...byStep.values()].sort((a, b) => a.step - b.step), problems, lines: count };
}

export async function readHistory(path: string): Promise<History> {
  const buffer = await readFile(path);
  if (buffer.length > MAX_HISTORY_BYTES) throw new Error(`${path} is larger than ${MAX_HISTORY_BYTES / 1024 / 1024} MiB.`);
  return parseHistory(buffer.toString('utf8'));
}
