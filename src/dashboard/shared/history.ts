/**
 * The run's metrics as the official training client (OpenPipe ART) writes them:
 * `.art/<project>/models/<model>/history.jsonl`, one line per `log` call with the qualified metrics
 * (`train/reward`, `val/reward`, `loss/*`, `time/*`, `costs/*`, …) plus `training_step`, `step` and
 * `recorded_at` (a naive ISO time: local, no zone). NaN values are left out by the client. One step
 * can have several lines (train, then val): they are merged per step, a later line's value winning.
 *
 * Pure (no vscode, no Node import): the dashboard, the agents' tools and the bench share it.
 */
import { firstSyntaxError } from '../../files/jsonText';
import type { CheckpointRow } from './series';
import { dict } from '../../api/dict';

/** What a line that Python's json.dumps wrote with an infinite (or NaN) value looks like (not JSON). */
const PY_NON_FINITE = /(:\s*)(?:-?Infinity|NaN)(?=\s*[,}])/g;
/** Stands in for a non-finite value while the line is parsed again (no key of the client's can hold it). */
const NON_FINITE = '\u2063svc-non-finite';

/** One line that could not be read: its 1-based number and why. */
export interface HistoryProblem {
  line: number;
  message: string;
}

/** One line of the file, read. */
export interface HistoryLine {
  line: number;
  step: number;
  metrics: Record<string, number>;
  /** Metrics the line gives as `Infinity`, `-Infinity` or `NaN` (not JSON): missing from `metrics`. */
  nonFinite?: string[];
  /** `recorded_at` as written (naive ISO), when there is one. */
  recordedAt?: string;
}

/**
 * The names a step's trajectory file can have under `<model dir>/trajectories/<split>/`, in the
 * order to look for them: ART writes `<step:04d>.parquet` now, `.jsonl` before (and migrates those).
 */
export function stepFileNames(step: number): string[] {
  const name = String(step).padStart(4, '0');
  return [`${name}.parquet`, `${name}.jsonl`];
}

/** The id a step's row has in the dashboard's series (one row per step). */
export function historyRowId(step: number): string {
  return String(step);
}

/**
 * Reads one line (`number` is its 1-based line number). A blank line is nothing; anything that is
 * not an object with a whole `step` (or `training_step`) ≥ 0 is a problem. Non-numeric values are
 * not metrics; infinities (which the client writes as `Infinity`, not JSON) count as missing.
 */
export function parseHistoryLine(text: string, number: number): HistoryLine | HistoryProblem | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    try {
      value = JSON.parse(trimmed.replace(PY_NON_FINITE, `$1"${NON_FINITE}"`));
    } catch {
      return { line: number, message: notJson(text, trimmed) };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { line: number, message: `not a JSON object (${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value})` };
  const o = value as Record<string, unknown>;
  const step = o.step ?? o.training_step;
  if (step === undefined) return { line: number, message: 'no "step" or "training_step"' };
  // The value is named by its kind unless it is a number: a line's text is never quoted.
  if (typeof step !== 'number' || !Number.isSafeInteger(step) || step < 0) return { line: number, message: `"step" is not a whole number ≥ 0 (${typeof step === 'number' ? String(step) : step === null ? 'null' : Array.isArray(step) ? 'an array' : `a ${typeof step}`})` };
  // Own keys only (JSON.parse makes no others); `v - v === 0` is Number.isFinite for a number.
  const metrics = dict<number>(); // keyed by the line's names: "__proto__" is a metric too
  let nonFinite: string[] | undefined;
  for (const k in o) {
    const v = o[k];
    if (typeof v === 'number' && v - v === 0 && k !== 'step' && k !== 'training_step') metrics[k] = v;
    else if (v === NON_FINITE) (nonFinite ??= []).push(k);
  }
  const recordedAt = o.recorded_at;
  const line: HistoryLine = { line: number, step, metrics };
  if (nonFinite) line.nonFinite = nonFinite;
  if (typeof recordedAt === 'string') line.recordedAt = recordedAt;
  return line;
}

/**
 * Why a line is not JSON, by place and what was expected (the JSON reader's words), never quoting
 * it: a file that is not a history (a token file) may be read by mistake, and the words reach the
 * log and the agents' tools.
 */
function notJson(text: string, trimmed: string): string {
  const e = firstSyntaxError(trimmed);
  if (!e) return 'not JSON';
  return `not JSON: ${e.description}, at column ${text.indexOf(trimmed) + e.offset + 1}`;
}

export function isProblem(x: HistoryLine | HistoryProblem): x is HistoryProblem {
  return (x as HistoryProblem).message !== undefined;
}

/**
 * A naive ISO time (`2026-03-01T12:34:56.123456`, the client's `datetime.now().isoformat()`) as
 * epoch ms in the reader's local time zone, like the writer's; a time with a zone keeps its zone.
 * Undefined when it is not such a time.
 */
export function parseRecordedAt(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const ms = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  if (zone) {
    const t = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}.${String(ms).padStart(3, '0')}${zone === 'Z' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
    return Number.isNaN(t) ? undefined : t;
  }
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0), ms);
  return Number.isNaN(date.getTime()) || date.getMonth() !== Number(mo) - 1 ? undefined : date.getTime();
}

/** The steps of a history, merged: one row per step, in step order. */
export interface HistoryRows {
  /** One row per step (id = the step as text), ascending. */
  rows: CheckpointRow[];
  /** Lines that could not be read; the others are kept. */
  problems: HistoryProblem[];
  /** Lines read (blank lines aside). */
  lines: number;
  /** The step of the last line read (the run's latest step), if any. */
  latestStep?: number;
  /** The latest `recorded_at` per step, as written. */
  recordedAt: Map<number, string>;
  /** The `recorded_at` of the last line read (when the run last wrote), as written. */
  lastRecordedAt?: string;
}

/**
 * Lines read one by one into rows per step: the one per-step merge of history lines (the
 * dashboard's series, its sync's pending line, and svc_summarize_run). The metrics of every line of
 * a step are merged, a later line's value winning where two give the same metric. `nonFinite`:
 * a line's `Infinity`/`NaN` metrics become `null` in its step's row (a later line's value wins
 * there too) instead of being left out.
 */
export class HistoryRowsBuilder {
  private readonly bySteps = new Map<number, CheckpointRow>();
  private sorted = true;
  private last = -1;
  private readonly problems: HistoryProblem[] = [];
  private lines = 0;
  private latestStep: number | undefined;
  private readonly recordedAt = new Map<number, string>();
  private lastRecordedAt: string | undefined;

  constructor(private readonly nonFinite = false) {}

  /** One line's text (`number`: its 1-based line number); a blank line is nothing. */
  text(text: string, number: number): void {
    const r = parseHistoryLine(text, number);
    if (!r) return;
    if (isProblem(r)) {
      this.problem(r);
      return;
    }
    this.lines++;
    this.add(r);
    this.latestStep = r.step;
    this.lastRecordedAt = r.recordedAt;
    if (r.recordedAt) this.recordedAt.set(r.step, r.recordedAt);
  }

  /** A line that could not be read (one over the limit, say). */
  problem(p: HistoryProblem): void {
    this.lines++;
    this.problems.push(p);
  }

  /** A line read, merged into its step's row. */
  add(l: HistoryLine): void {
    let row = this.bySteps.get(l.step);
    if (row) {
      for (const k of Object.keys(l.metrics)) row.metrics[k] = l.metrics[k]!;
    } else {
      if (l.step < this.last) this.sorted = false;
      this.last = l.step;
      // The line's own metrics object becomes the row's: nothing else holds it.
      this.bySteps.set(l.step, (row = { id: historyRowId(l.step), step: l.step, metrics: l.metrics }));
    }
    if (this.nonFinite) for (const k of l.nonFinite ?? []) row.metrics[k] = null;
  }

  /** One row per step, in step order. */
  rows(): CheckpointRow[] {
    const rows = [...this.bySteps.values()];
    return this.sorted ? rows : rows.sort((a, b) => a.step - b.step);
  }

  result(): HistoryRows {
    const problems = this.problems.sort((a, b) => a.line - b.line);
    return { rows: this.rows(), problems, lines: this.lines, latestStep: this.latestStep, recordedAt: this.recordedAt, lastRecordedAt: this.lastRecordedAt };
  }
}

/** Merges read lines per step (HistoryRowsBuilder). */
export function mergeHistoryLines(lines: Iterable<HistoryLine>): CheckpointRow[] {
  const builder = new HistoryRowsBuilder();
  for (const l of lines) builder.add(l);
  return builder.rows();
}

/**
 * Reads a whole history.jsonl text (or its lines) into rows per step, keeping every good line and
 * naming each bad one. `firstLine` numbers the first line (for a part read after others);
 * `nonFinite`: non-finite metrics as `null` (HistoryRowsBuilder).
 */
export function readHistory(text: string | readonly string[], options: { firstLine?: number; nonFinite?: boolean } = {}): HistoryRows {
  const texts = typeof text === 'string' ? text.split('\n') : text;
  const first = options.firstLine ?? 1;
  const builder = new HistoryRowsBuilder(options.nonFinite);
  texts.forEach((t, i) => builder.text(t, first + i));
  return builder.result();
}

/** The longest history line read, in bytes. One line is one `log` call: a few hundred bytes, some 100 KiB with thousands of metrics. */
export const MAX_HISTORY_LINE_BYTES = 16 * 1024 * 1024;

const LF = 0x0a;

/** "1 KiB", "16 MiB": the limit as a problem names it. */
function sizeText(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** The problem of a line over the limit (named once, as soon as it is over). */
export function overlongMessage(maxLineBytes: number): string {
  return `longer than ${sizeText(maxLineBytes)}: not read (a history line holds one log call)`;
}

/** The texts of complete lines, numbered from `first` ('' for a line over the limit), and the lines over the limit. */
export interface HistoryChunk {
  texts: string[];
  first: number;
  overlong: HistoryProblem[];
}

/**
 * A history file's bytes split into lines as they arrive, the rule of the JSONL reader
 * (src/files/lines.ts): every byte is scanned once for its newline (an unfinished line is kept as
 * the parts read, never joined and searched again), and a line longer than `maxLineBytes` is
 * named as soon as it is and its bytes dropped as they come, so memory is bounded by the limit.
 * A line is decoded once it is whole (a character split between two reads is joined first).
 */
export class HistoryLines {
  private parts: Uint8Array[] = [];
  private partBytes = 0;
  private overlong = false;
  private nextLine = 1;

  constructor(readonly maxLineBytes = MAX_HISTORY_LINE_BYTES) {}

  /** Line number the next complete line will have. */
  get lineNumber(): number {
    return this.nextLine;
  }

  /** Bytes held for the unfinished line (never more than the limit and a final `\r`). */
  get buffered(): number {
    return this.partBytes;
  }

  /** The complete lines among `bytes`; the rest waits for its newline. `bytes` may be reused by the caller afterwards. */
  push(bytes: Uint8Array): HistoryChunk {
    const out: HistoryChunk = { texts: [], first: this.nextLine, overlong: [] };
    let pos = 0;
    for (let nl = bytes.indexOf(LF); nl >= 0; nl = bytes.indexOf(LF, pos)) {
      if (this.overlong || this.partBytes + (nl - pos) > this.maxLineBytes + 1) {
        if (!this.overlong) out.overlong.push(this.problem());
        out.texts.push('');
      } else {
        out.texts.push(this.decode(bytes.subarray(pos, nl)));
      }
      this.parts = [];
      this.partBytes = 0;
      this.overlong = false;
      this.nextLine++;
      pos = nl + 1;
    }
    if (pos < bytes.length && !this.overlong) {
      if (this.partBytes + (bytes.length - pos) > this.maxLineBytes + 1) {
        out.overlong.push(this.problem());
        this.overlong = true;
        this.parts = [];
        this.partBytes = 0;
      } else {
        // Copied (a Buffer's slice would not copy): the caller's buffer is read into again.
        this.parts.push(new Uint8Array(bytes.subarray(pos)));
        this.partBytes += bytes.length - pos;
      }
    }
    return out;
  }

  /** The unfinished line's text so far (undefined when there is none, or it is over the limit). Not consumed. */
  rest(): string | undefined {
    return this.overlong || this.partBytes === 0 ? undefined : this.decode(new Uint8Array(0));
  }

  reset(): void {
    this.parts = [];
    this.partBytes = 0;
    this.overlong = false;
    this.nextLine = 1;
  }

  private problem(): HistoryProblem {
    return { line: this.nextLine, message: overlongMessage(this.maxLineBytes) };
  }

  /** The held parts and `tail`, decoded as one line (a `\r` before the newline is trimmed by the parser). */
  private decode(tail: Uint8Array): string {
    if (this.parts.length === 0) return decoder.decode(tail);
    const whole = new Uint8Array(this.partBytes + tail.length);
    let at = 0;
    for (const p of this.parts) {
      whole.set(p, at);
      at += p.length;
    }
    whole.set(tail, at);
    return decoder.decode(whole);
  }
}

const decoder = new TextDecoder('utf-8');

/**
 * Reads a history file as it grows: give it the bytes appended since the last call, and it returns
 * the complete lines among them, read. A line without its newline yet waits for the next call
 * (the client may be writing it), so does a character split between two calls. A line over
 * `maxLineBytes` is a problem named as soon as it is (HistoryLines).
 */
export class HistoryReader {
  private readonly lines: HistoryLines;
  /** Bytes consumed so far: the offset to read from next. */
  offset = 0;

  constructor(maxLineBytes = MAX_HISTORY_LINE_BYTES) {
    this.lines = new HistoryLines(maxLineBytes);
  }

  /** Line number the next complete line will have. */
  get lineNumber(): number {
    return this.lines.lineNumber;
  }

  /** Bytes held for the unfinished line. */
  get buffered(): number {
    return this.lines.buffered;
  }

  /** Reads the complete lines in `bytes` (the file's bytes from `offset` on). */
  push(bytes: Uint8Array): HistoryRows {
    this.offset += bytes.byteLength;
    const chunk = this.lines.push(bytes);
    const builder = new HistoryRowsBuilder();
    chunk.texts.forEach((t, i) => builder.text(t, chunk.first + i));
    // An overlong line that ended here is among the texts (as ''); one still going is not.
    for (const p of chunk.overlong) builder.problem(p);
    return builder.result();
  }

  /**
   * The last line when the file does not end with a newline, if it reads as a whole line (a file
   * written by hand may lack the final newline). Not consumed: once its newline arrives it is read
   * again, which merges the same values. A half-written line is no problem yet: nothing.
   */
  pending(): HistoryLine | undefined {
    const rest = this.lines.rest();
    const r = rest === undefined ? undefined : parseHistoryLine(rest, this.lines.lineNumber);
    return r && !isProblem(r) ? r : undefined;
  }

  /** Starts over (the file was truncated or rewritten). */
  reset(): void {
    this.lines.reset();
    this.offset = 0;
  }
}
