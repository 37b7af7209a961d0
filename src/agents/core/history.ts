/**
 * svc_summarize_run's view of the training client's history.jsonl: the dashboard's line reader
 * (src/dashboard/shared/history.ts: one JSON object per `log` call, `step` or `training_step`, several
 * lines per step merged), kept with the one thing a run summary needs beyond the dashboard: which
 * metrics were written as non-finite (`Infinity`, `NaN`), as `null`. Pure: no vscode import.
 */
import { HistoryLines, isProblem, MAX_HISTORY_LINE_BYTES, parseHistoryLine } from '../../dashboard/shared/history';
import { openRegular, readRange } from '../../common/regular';
import { dict } from '../../api/dict';

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
const CHUNK_BYTES = 1024 * 1024;

/** Lines read one by one into points per step. */
class HistoryAccumulator {
  private readonly byStep = new Map<number, RunPoint>();
  readonly problems: History['problems'] = [];
  lines = 0;

  line(raw: string, number: number): void {
    const r = parseHistoryLine(raw, number);
    if (!r) return;
    this.lines++;
    if (isProblem(r)) {
      this.problems.push({ line: r.line, reason: r.message });
      return;
    }
    let point = this.byStep.get(r.step);
    if (!point) this.byStep.set(r.step, (point = { step: r.step, metrics: dict() }));
    Object.assign(point.metrics, r.metrics);
    for (const k of r.nonFinite ?? []) point.metrics[k] = null;
  }

  overlong(line: number, reason: string): void {
    this.lines++;
    this.problems.push({ line, reason });
  }

  result(): History {
    this.problems.sort((a, b) => a.line - b.line);
    return { points: [...this.byStep.values()].sort((a, b) => a.step - b.step), problems: this.problems, lines: this.lines };
  }
}

export function parseHistory(text: string): History {
  const acc = new HistoryAccumulator();
  text.split('\n').forEach((raw, i) => acc.line(raw, i + 1));
  return acc.result();
}

/**
 * A history.jsonl read from disk: a regular file only (a device or a pipe, or a link to one, is
 * refused by name), refused before a byte is read when larger than MAX_HISTORY_BYTES, read to the
 * size seen at the open, a line over `maxLineBytes` named by its number (HistoryLines).
 */
export async function readHistory(path: string, options: { maxLineBytes?: number; signal?: AbortSignal } = {}): Promise<History> {
  const { handle, stat } = await openRegular(path, MAX_HISTORY_BYTES);
  const lines = new HistoryLines(options.maxLineBytes ?? MAX_HISTORY_LINE_BYTES);
  const acc = new HistoryAccumulator();
  try {
    for (let at = 0; at < stat.size; ) {
      const bytes = await readRange(handle, at, Math.min(CHUNK_BYTES, stat.size - at), options.signal);
      if (!bytes.length) break;
      at += bytes.length;
      const chunk = lines.push(bytes);
      chunk.texts.forEach((t, i) => acc.line(t, chunk.first + i));
      for (const p of chunk.overlong) acc.overlong(p.line, p.message);
    }
  } finally {
    await handle.close();
  }
  const rest = lines.rest();
  if (rest !== undefined) acc.line(rest, lines.lineNumber);
  return acc.result();
}
