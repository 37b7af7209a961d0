/**
 * svc_summarize_run's view of the training client's history.jsonl: the dashboard's line reader and
 * per-step merge (src/dashboard/shared/history.ts: one JSON object per `log` call, `step` or
 * `training_step`, several lines per step merged), with the one thing a run summary needs beyond
 * the dashboard: which metrics were written as non-finite (`Infinity`, `NaN`), as `null`. Read
 * from disk here (a regular file, capped). No vscode import.
 */
import { HistoryLines, HistoryRowsBuilder, MAX_HISTORY_LINE_BYTES, readHistory, type HistoryRows } from '../../dashboard/shared/history';
import { openRegular, readRange } from '../../common/regular';

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

/** The dashboard's rows as a run summary's points (non-finite metrics kept as `null`). */
function historyOf(r: HistoryRows): History {
  return { points: r.rows.map(({ step, metrics }) => ({ step, metrics })), problems: r.problems.map((p) => ({ line: p.line, reason: p.message })), lines: r.lines };
}

export function parseHistory(text: string): History {
  return historyOf(readHistory(text, { nonFinite: true }));
}

/**
 * A history.jsonl read from disk: a regular file only (a device or a pipe, or a link to one, is
 * refused by name), refused before a byte is read when larger than MAX_HISTORY_BYTES, read to the
 * size seen at the open, a line over `maxLineBytes` named by its number (HistoryLines), merged per
 * step by the dashboard's HistoryRowsBuilder.
 */
export async function readHistoryFile(path: string, options: { maxLineBytes?: number; signal?: AbortSignal } = {}): Promise<History> {
  const { handle, stat } = await openRegular(path, MAX_HISTORY_BYTES);
  const lines = new HistoryLines(options.maxLineBytes ?? MAX_HISTORY_LINE_BYTES);
  const rows = new HistoryRowsBuilder(true);
  try {
    for (let at = 0; at < stat.size; ) {
      const bytes = await readRange(handle, at, Math.min(CHUNK_BYTES, stat.size - at), options.signal);
      if (!bytes.length) break;
      at += bytes.length;
      const chunk = lines.push(bytes);
      chunk.texts.forEach((t, i) => rows.text(t, chunk.first + i));
      for (const p of chunk.overlong) rows.problem(p);
    }
  } finally {
    await handle.close();
  }
  const rest = lines.rest();
  if (rest !== undefined) rows.text(rest, lines.lineNumber);
  return historyOf(rows.result());
}
