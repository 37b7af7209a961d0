/**
 * Reading and validating JSONL files of call records to import. No `vscode` import.
 *
 * Each non-blank line holds one batch item of POST /call/upsert_batch, `{"mode", "req"}`, or the
 * bare record `{"start": {...}}` / `{"end": {...}}`, which is read as `{"mode": "start", "req":
 * {"start": {...}}}` (and likewise for end). Problem paths are relative to the line's value.
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { CallBatchItem, CallEnd, CallStart } from '../api/schemas/calls';
import { DEFAULT_MAX_LINE_BYTES, readLines, type Line } from '../files/lines';
import { formatPath } from '../api/errors';
import { byPosition, INVALID_UTF8, isBlank, lineProblem, ProblemError, ProblemList, parseJsonLine, parseLineForValidation, readJsonLines, type Problem } from '../files/problems';
import { isObject } from '../api/json';
import { kindOf, valueAt } from '../files/issues';
import { JsonText, type JsonPath } from '../files/jsonText';
import { formatBytes } from '../common/format';

export { ProblemError, type Problem } from '../files/problems';

export interface CallItemRecord {
  /** 0-based item index (non-blank lines). */
  index: number;
  /** 1-based file line. */
  line: number;
  /** Normalized to `{mode, req}`. */
  item: CallBatchItem;
  /** UTF-8 bytes of JSON.stringify(item) (computed when read). */
  readonly bytes: number;
}

export interface CallsValidationSummary {
  file: string;
  /** Non-blank lines, valid or not. */
  items: number;
  starts: number;
  ends: number;
  /** Sorted by position; errors block an import, warnings do not. */
  problems: Problem[];
  truncated: boolean;
  fileBytes: number;
  /** With `plan`: how the import sends each item, for the file as it was validated. */
  plan?: CallsSendPlan;
}

/**
 * What the validation pass learnt about each item, so the send pass needs no parse of an item that
 * goes as written (src/calls/send.ts): the file's size and modification time when it was read
 * (a file changed since is read as if there were no plan), and per item its line's byte length
 * and how it is sent.
 */
export interface CallsSendPlan {
  size: number;
  mtimeMs: number;
  /** Items planned (non-blank lines). */
  items: number;
  /** Per item: one of the SEND_* codes. */
  codes: Uint8Array;
  /** Per item: the line's bytes (without the line break), as a check that it is the same line. */
  lengths: Uint32Array;
  /** With `threadsOf`: the first thread ids of that project's starts, in file order (up to 50). */
  threadIds: string[];
}

/** Parse the line, fill its ids, drop its null optional fields, serialize it (what every item took before). */
export const SEND_REWRITE = 0;
/** A `{mode, req}` start or end that needs no change: its bytes go as written. */
export const SEND_AS_IS = 1;
/** A bare `{"start": ...}` that needs no other change: its bytes go inside `{"mode":"start","req":...}`. */
export const SEND_WRAP_START = 2;
/** A bare `{"end": ...}` likewise. */
export const SEND_WRAP_END = 3;
/** Added to a code for a start (for the counts). */
export const SEND_START = 4;
/** Thread ids the import offers to show. */
export const MAX_PLANNED_THREADS = 50;

export interface CallsValidateOptions {
  signal?: AbortSignal;
  /** Default 1000. */
  maxProblems?: number;
  /** Longest line, bytes. Default 64 MiB. */
  maxLineBytes?: number;
  /** Also make the send plan (`summary.plan`) for the import that follows. */
  plan?: boolean;
  /** With `plan`: collect the thread ids of this project's starts (for the import's Show Thread). */
  threadsOf?: string;
}

export interface CallsReadOptions {
  signal?: AbortSignal;
  /** Skip the items before this index, without parsing them. */
  startItem?: number;
  maxLineBytes?: number;
  /**
   * Skip the schema check of each record (default false), as the trajectory reader does: for a
   * file that was just validated, when the client checks every batch again before sending it.
   * A line that holds none of the three record shapes gets the full check, for its exact problem.
   */
  trusted?: boolean;
}

const BareStart = z.strictObject({ start: CallStart });
const BareEnd = z.strictObject({ end: CallEnd });

const SHAPES = '{"mode": "start" or "end", "req": {...}}, {"start": {...}} or {"end": {...}}';

/** Validates every line and reports every problem (up to maxProblems). Throws only on I/O errors or abort. */
export async function validateCallsFile(path: string, opts: CallsValidateOptions = {}): Promise<CallsValidationSummary> {
  const problems = new ProblemList(opts.maxProblems);
  const summary: CallsValidationSummary = { file: path, items: 0, starts: 0, ends: 0, problems: [], truncated: false, fileBytes: 0 };
  const before = opts.plan ? await stat(path) : undefined;
  const plan = before ? new PlanBuilder(opts.threadsOf) : undefined;
  for await (const line of readLines(path, { signal: opts.signal, maxLineBytes: opts.maxLineBytes, skipOverlong: true })) {
    if (line.overlong) {
      summary.items++;
      const limit = formatBytes(opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
      problems.add(lineProblem(path, line.line, `line ${line.line} is longer than ${limit}: a call record must fit on one line within the limit`));
      continue;
    }
    if (isBlank(line.text)) continue;
    summary.items++;
    const parsed = parseLineForValidation(path, line, problems);
    if (!parsed) continue;
    const { doc, value } = parsed;
    const kind = kindOfItem(value);
    if (kind === 'start') summary.starts++;
    else if (kind === 'end') summary.ends++;
    if (problems.truncated && problems.hasError) continue;
    const found = checkItem(doc, value, line).problems;
    problems.addAll(found.sort(byPosition));
    plan?.add(summary.items - 1, line, value, found);
  }
  if (summary.items === 0) problems.add(lineProblem(path, 1, 'The file is empty'));
  const after = await stat(path);
  summary.fileBytes = after.size;
  // A file written while it was read has no plan: the import then parses every line.
  if (plan && before && before.size === after.size && before.mtimeMs === after.mtimeMs) summary.plan = plan.done(after.size, after.mtimeMs, summary.items);
  summary.problems = problems.items;
  summary.truncated = problems.truncated;
  return summary;
}

/** The items of a file, normalized, in order. Meant for a file that validated: the first error met is thrown as a ProblemError. */
export async function* readCallItems(path: string, opts: CallsReadOptions = {}): AsyncGenerator<CallItemRecord> {
  for await (const { index, line, doc, value } of readJsonLines(path, { signal: opts.signal, maxLineBytes: opts.maxLineBytes, start: opts.startItem })) {
    const trusted = opts.trusted ? normalize(withoutNulls(value)) : undefined;
    const { item, problems } = trusted ? { item: trusted, problems: [] } : checkItem(doc, value, line);
    if (!item) throw new ProblemError(problems.filter((p) => p.severity === 'error').sort(byPosition)[0] ?? lineProblem(path, line.line, 'Not a call record'));
    yield {
      index,
      line: line.line,
      item,
      // Only tests and tools ask; the import serializes each batch once, in the client.
      get bytes() {
        return Buffer.byteLength(JSON.stringify(item), 'utf8');
      },
    };
  }
}

/**
 * The item of one line of a file that validated, as `readCallItems` with `trusted` reads it:
 * normalized by its keys, without null optional fields; a line that is not JSON or holds no record
 * shape is thrown as a ProblemError naming its first problem.
 */
export function trustedItemOf(path: string, line: Line): CallBatchItem {
  const { doc, value } = parseJsonLine(path, line);
  const trusted = normalize(withoutNulls(value));
  if (trusted) return trusted;
  const { item, problems } = checkItem(doc, value, line);
  if (item) return item;
  throw new ProblemError(problems.filter((p) => p.severity === 'error').sort(byPosition)[0] ?? lineProblem(path, line.line, 'Not a call record'));
}

/** Builds a CallsSendPlan as the validation pass goes. */
class PlanBuilder {
  private codes = new Uint8Array(1024);
  private lengths = new Uint32Array(1024);
  private readonly threadIds = new Set<string>();
  constructor(private readonly threadsOf: string | undefined) {}

  add(index: number, line: Line, value: unknown, problems: Problem[]): void {
    if (index >= this.codes.length) {
      const codes = new Uint8Array(this.codes.length * 2);
      codes.set(this.codes);
      this.codes = codes;
      const lengths = new Uint32Array(this.lengths.length * 2);
      lengths.set(this.lengths);
      this.lengths = lengths;
    }
    this.lengths[index] = line.byteEnd - line.byteStart;
    this.codes[index] = problems.some((p) => p.severity === 'error') || line.invalidUtf8 ? SEND_REWRITE : sendCode(value);
    if (this.threadsOf !== undefined && this.threadIds.size < MAX_PLANNED_THREADS) {
      const start = isObject(value) ? (isObject(value.req) ? value.req.start : value.start) : undefined;
      if (isObject(start) && typeof start.thread_id === 'string' && start.thread_id && start.project_id === this.threadsOf) this.threadIds.add(start.thread_id);
    }
  }

  done(size: number, mtimeMs: number, items: number): CallsSendPlan {
    return { size, mtimeMs, items, codes: this.codes.subarray(0, items), lengths: this.lengths.subarray(0, items), threadIds: [...this.threadIds] };
  }
}

/** How a valid record is sent: as written when nothing in it changes, else SEND_REWRITE. */
function sendCode(value: unknown): number {
  if (!isObject(value)) return SEND_REWRITE;
  const kind = kindOfItem(value);
  const bare = !('mode' in value);
  const record = bare ? value[kind ?? ''] : isObject(value.req) ? value.req[kind ?? ''] : undefined;
  if (!isObject(record)) return SEND_REWRITE;
  if (kind === 'start') {
    if (!record.id || !record.trace_id || hasNullIn(record, OPTIONAL_START)) return SEND_REWRITE;
    return SEND_START + (bare ? SEND_WRAP_START : SEND_AS_IS);
  }
  if (kind === 'end') return hasNullIn(record, OPTIONAL_END) ? SEND_REWRITE : bare ? SEND_WRAP_END : SEND_AS_IS;
  return SEND_REWRITE;
}

/** Whether dropNulls would leave anything out. */
function hasNullIn(record: Record<string, unknown>, optional: ReadonlySet<string>): boolean {
  for (const k in record) if (record[k] === null && optional.has(k)) return true;
  return false;
}

/** A record in the `{mode, req}` form, judged by its keys only (for a trusted file). */
function normalize(value: unknown): CallBatchItem | undefined {
  switch (kindOfItem(value)) {
    case undefined:
      return undefined;
    case 'start':
      return 'mode' in (value as object) ? (value as CallBatchItem) : { mode: 'start', req: { start: (value as { start: CallStart }).start } };
    case 'end':
      return 'mode' in (value as object) ? (value as CallBatchItem) : { mode: 'end', req: { end: (value as { end: CallEnd }).end } };
  }
}

/** Which record a line holds, judged by its keys only (for the counts). */
function kindOfItem(value: unknown): 'start' | 'end' | undefined {
  if (!isObject(value)) return undefined;
  if ('mode' in value) return value.mode === 'start' || value.mode === 'end' ? value.mode : undefined;
  if ('start' in value && !('end' in value)) return 'start';
  if ('end' in value && !('start' in value)) return 'end';
  return undefined;
}

/**
 * Tracing SDKs write `null` for unset optional fields (`display_name`, `thread_id`, `parent_id`,
 * `exception`, `output`, ...). The trace endpoints are strict (older servers refuse a `null`
 * there), and a `null` optional field means the same as an absent one, so it is left out of what
 * is sent; everything else goes as written. Required fields keep their `null` (and are refused).
 */
const OPTIONAL_START = new Set(Object.entries(CallStart.shape).filter(([, s]) => s.safeParse(undefined).success).map(([k]) => k));
const OPTIONAL_END = new Set(Object.entries(CallEnd.shape).filter(([, s]) => s.safeParse(undefined).success).map(([k]) => k));

function dropNulls(record: unknown, optional: ReadonlySet<string>): unknown {
  if (!isObject(record) || !Object.values(record).includes(null)) return record;
  // defineProperty, not assignment: a "__proto__" key must stay a key. The copy is only sent (as JSON) and compared, never read by key.
  // eslint-disable-next-line svc/null-prototype-records -- defineProperty keeps "__proto__" a key; the record goes to JSON.stringify as the file wrote it
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!(v === null && optional.has(k))) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** The record with null optional fields of its start or end left out (a copy only when there are some). */
function withoutNulls(value: unknown): unknown {
  if (!isObject(value)) return value;
  if (isObject(value.req)) {
    if ('start' in value.req) return { ...value, req: { ...value.req, start: dropNulls(value.req.start, OPTIONAL_START) } };
    if ('end' in value.req) return { ...value, req: { ...value.req, end: dropNulls(value.req.end, OPTIONAL_END) } };
    return value;
  }
  if ('start' in value && !('end' in value)) return { ...value, start: dropNulls(value.start, OPTIONAL_START) };
  if ('end' in value && !('start' in value)) return { ...value, end: dropNulls(value.end, OPTIONAL_END) };
  return value;
}

function checkItem(doc: JsonText, raw: unknown, line: Line): { item?: CallBatchItem; problems: Problem[] } {
  const problems: Problem[] = [];
  const value = withoutNulls(raw);
  const at = (path: JsonPath, message: string, severity: Problem['severity'] = 'error') => {
    const { offset, length } = doc.locate(path);
    problems.push(doc.problem(offset, length, message, severity, path));
  };
  if (line.invalidUtf8) problems.push(doc.problem(Math.max(0, line.text.indexOf('\uFFFD')), 1, `line ${line.line} ${INVALID_UTF8}`, 'warning'));
  if (!isObject(value)) {
    at([], `expected a call record (${SHAPES}), received ${kindOf(value)}`);
    return { problems };
  }

  let item: CallBatchItem | undefined;
  let startPath: JsonPath | undefined;
  if ('mode' in value || 'req' in value) {
    const r = CallBatchItem.safeParse(value);
    // The parsed JSON itself, not zod's copy: a record key such as "__proto__" survives only there.
    if (r.success) item = value as CallBatchItem;
    else problems.push(...doc.issueProblems(r.error.issues, value));
    if (value.mode === 'start') startPath = ['req', 'start'];
  } else if ('start' in value && 'end' in value) {
    at([], `line ${line.line} holds both a start and an end: put each on its own line, start first`);
  } else if ('start' in value) {
    const r = BareStart.safeParse(value);
    if (r.success) item = { mode: 'start', req: { start: (value as { start: CallStart }).start } };
    else problems.push(...doc.issueProblems(r.error.issues, value));
    startPath = ['start'];
  } else if ('end' in value) {
    const r = BareEnd.safeParse(value);
    if (r.success) item = { mode: 'end', req: { end: (value as { end: CallEnd }).end } };
    else problems.push(...doc.issueProblems(r.error.issues, value));
  } else {
    at([], `expected a call record (${SHAPES})`);
  }

  // The client fills a missing id with a fresh UUID, so each import would create another call.
  const start = startPath && valueAt(value, startPath);
  if (startPath && isObject(start) && !('id' in start)) {
    at(startPath, 'start without an id: the import derives one from the file, line and content, so editing this line and importing again creates a new call (give each call an "id")', 'warning');
  }
  if (startPath && isObject(start) && 'svc_user_id' in start) {
    const path = [...startPath, 'svc_user_id'];
    at(path, `${formatPath(path)}: set by the service from your credentials, so this value is not kept`, 'warning');
  }
  return { item: problems.some((p) => p.severity === 'error') ? undefined : item, problems };
}
