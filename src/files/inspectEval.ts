/**
 * Inspect AI's `.eval` logs (issue 32): a zip (src/files/zip.ts) holding `header.json` (the
 * EvalLog without its samples), `summaries.json` (one EvalSampleSummary per sample and epoch),
 * `reductions.json`, and `samples/<id>_epoch_<n>.json` (one EvalSample each). A log still being
 * written has `_journal/start.json` and `_journal/summaries/<n>.json` instead of the header and
 * summaries (inspect_ai/log/_recorders/eval.py, commit 499e615; docs/inspect.md lists the fields).
 * Listing reads the central directory and the header only (the samples and epochs come from the
 * entry names); the summaries are read item by item, on their own; a sample is read when it is
 * asked for, its `attachment://<hash>` strings resolved from its `attachments`.
 * Errors name the file, the entry and the field. No `vscode` import.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { isObject } from '../api/json';
import { dict } from '../api/dict';
import { EvalLogError, readJson, readList, readSampleObject } from './inspectJson';
import { ZipError, ZipReader, type ZipOpenOptions } from './zip';



// Inspect's models, as lenient as its own readers: unknown fields pass, optional ones may be null.
const opt = <T extends z.ZodType>(s: T) => s.nullable().optional();
const Id = z.union([z.string(), z.number()]);
export const EvalScore = z.looseObject({ value: z.unknown(), answer: opt(z.string()), explanation: opt(z.string()), metadata: opt(z.looseObject({})) });
const Usage = z.looseObject({
  input_tokens: opt(z.number()),
  output_tokens: opt(z.number()),
  total_tokens: opt(z.number()),
  input_tokens_cache_write: opt(z.number()),
  input_tokens_cache_read: opt(z.number()),
  reasoning_tokens: opt(z.number()),
  total_cost: opt(z.number()),
});
export const EvalSampleSummary = z.looseObject({
  id: Id,
  epoch: z.number().int(),
  input: z.unknown(),
  target: z.unknown(),
  metadata: opt(z.looseObject({})),
  scores: opt(z.record(z.string(), EvalScore)),
  model_usage: opt(z.record(z.string(), Usage)),
  total_time: opt(z.number()),
  working_time: opt(z.number()),
  error: opt(z.string()),
  limit: opt(z.string()),
});
export type EvalSampleSummary = z.infer<typeof EvalSampleSummary>;
const Spec = z.looseObject({ task: z.string(), model: z.string(), created: opt(z.string()), run_id: opt(z.string()), eval_id: opt(z.string()) });
const Header = z.looseObject({
  version: opt(z.number()),
  status: opt(z.string()),
  eval: Spec,
  results: opt(z.looseObject({ scores: opt(z.array(z.looseObject({ name: z.string() }))) })),
  stats: opt(z.looseObject({ model_usage: opt(z.record(z.string(), Usage)) })),
  error: opt(z.looseObject({ message: opt(z.string()) })),
});
export type EvalHeader = z.infer<typeof Header>;
const ChatMessage = z.looseObject({ role: z.enum(['system', 'user', 'assistant', 'tool']), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]) });
export const EvalSample = z.looseObject({
  id: Id,
  epoch: z.number().int(),
  input: z.union([z.string(), z.array(ChatMessage)]),
  target: z.union([z.string(), z.array(z.string())]),
  messages: opt(z.array(ChatMessage)),
  output: opt(z.looseObject({ choices: opt(z.array(z.looseObject({}))), usage: opt(Usage) })),
  scores: opt(z.record(z.string(), EvalScore)),
  metadata: opt(z.looseObject({})),
  events: opt(z.array(z.looseObject({ event: z.string() }))),
  model_usage: opt(z.record(z.string(), Usage)),
  attachments: opt(z.record(z.string(), z.string())),
  error: opt(z.looseObject({ message: opt(z.string()), traceback: opt(z.string()) })),
});
export type EvalSample = z.infer<typeof EvalSample>;

/**
 * A sample and its epochs: first as the zip's entry names list them (`samples/<id>_epoch_<n>.json`,
 * in the order written), each epoch's summary filled in once the summaries are read.
 */
export interface EvalSampleGroup {
  id: string | number;
  epochs: EvalSampleSummary[];
}

export const SAMPLE_ENTRY = (id: string | number, epoch: number) => `samples/${id}_epoch_${epoch}.json`;
/** A sample entry's name: its id (a number when it reads as one) and epoch. */
const SAMPLE_NAME = /^samples\/(.+)_epoch_(\d+)\.json$/;
/** An id that reads as a (safe) integer is one, as Inspect wrote it. */
const INTEGER = /^(0|-?[1-9]\d{0,14})$/;

const ATTACHMENT = 'attachment://';

/** An epoch listed from its entry name whose summary is not read (yet). */
class Listed {
  input: unknown = undefined;
  target: unknown = undefined;
  constructor(
    readonly id: string | number,
    readonly epoch: number,
  ) {}
}
const listedOnly = { has: (s: EvalSampleSummary) => s instanceof Listed };

/** Whether `s` is an epoch listed from its entry name whose summary has not been read. */
export function isListedOnly(s: EvalSampleSummary): boolean {
  return listedOnly.has(s);
}

/** Work between yields while the entry names are listed. */
const SLICE_MS = 8;

export class EvalLog {
  /** Sample runs summarised so far (the summaries read, a retried run once). */
  summaries = 0;
  /** Whether the summaries have been read (readSummaries). */
  summarised = false;
  private readonly byId = new Map<string, EvalSampleGroup>();
  private reading: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    readonly zip: ZipReader,
    readonly header: EvalHeader,
    /** The log is unfinished: read from its journal (no header.json). */
    readonly journal: boolean,
    readonly samples: EvalSampleGroup[],
  ) {}

  get name(): string {
    return path.basename(this.path);
  }

  get task(): string {
    return this.header.eval.task;
  }

  get model(): string {
    return this.header.eval.model;
  }

  /** Score names: the header's results first, then any other a summary has, in the order met. */
  get scoreNames(): string[] {
    const names = new Set<string>((this.header.results?.scores ?? []).map((s) => s.name));
    for (const g of this.samples) for (const s of g.epochs) for (const k of Object.keys(s.scores ?? {})) names.add(k);
    return [...names];
  }

  /** Sample runs listed: one per sample entry, and per summary of a run the zip has no entry for. */
  get runs(): number {
    let n = 0;
    for (const g of this.samples) n += g.epochs.length;
    return n;
  }

  /** Opens the log and reads its summaries (scores, errors): what every reader but the viewer needs. */
  static async open(file: string, opts: ZipOpenOptions = {}): Promise<EvalLog> {
    const log = await EvalLog.list(file, opts);
    try {
      await log.readSummaries(opts.signal);
      return log;
    } catch (e) {
      await log.close();
      throw e;
    }
  }

  /**
   * Opens the log: the zip's central directory and the header only. The samples and their epochs
   * are listed from the entry names; their summaries (scores, errors) are read by readSummaries.
   */
  static async list(file: string, opts: ZipOpenOptions = {}): Promise<EvalLog> {
    const zip = await ZipReader.open(file, opts);
    try {
      const journal = !zip.has('header.json');
      const headerEntry = journal ? '_journal/start.json' : 'header.json';
      if (!zip.has(headerEntry)) throw new EvalLogError(`${zip.name}: not an Inspect log: it has neither header.json nor _journal/start.json`);
      const header = parse(Header, await readJson(zip, headerEntry, opts.signal), zip.name, headerEntry);
      const log = new EvalLog(file, zip, header, journal, []);
      let slice = performance.now();
      for (const name of zip.entries.keys()) {
        if (performance.now() - slice >= SLICE_MS) {
          opts.signal?.throwIfAborted();
          await new Promise<void>((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
        if (!name.startsWith('samples/')) continue;
        const m = SAMPLE_NAME.exec(name);
        if (!m) continue;
        const id = INTEGER.test(m[1]!) ? Number(m[1]) : m[1]!;
        log.place(new Listed(id, Number(m[2])) as EvalSampleSummary);
      }
      for (const g of log.samples) if (g.epochs.length > 1) g.epochs.sort((a, b) => a.epoch - b.epoch);
      return log;
    } catch (e) {
      await zip.close();
      throw e;
    }
  }

  /** Puts a run in its sample's group (a new group at the end): a run met again replaces the one before. */
  private place(s: EvalSampleSummary): void {
    const key = String(s.id);
    let g = this.byId.get(key);
    if (!g) {
      this.byId.set(key, (g = { id: s.id, epochs: [] }));
      this.samples.push(g);
    }
    const at = g.epochs.findIndex((e) => e.epoch === s.epoch);
    if (at >= 0) {
      if (!listedOnly.has(g.epochs[at]!)) this.summaries--;
      g.epochs[at] = s;
    } else {
      g.epochs.push(s);
      if (g.epochs.length > 1 && g.epochs[g.epochs.length - 2]!.epoch > s.epoch) g.epochs.sort((a, b) => a.epoch - b.epoch);
    }
    if (!listedOnly.has(s)) {
      g.id = s.id;
      this.summaries++;
    }
  }

  /**
   * Reads the summaries (`summaries.json`, or an unfinished log's journal files in their numeric
   * order) item by item with yields between, each put on its sample's epoch as it is read (a run
   * summarised twice, a retried sample, is its last summary, as Inspect reads it; a run the zip
   * has no entry for is added, and says so when it is shown). Once: a second call waits for the first.
   */
  readSummaries(signal?: AbortSignal, onItem?: (read: number) => void): Promise<void> {
    this.reading ??= (async () => {
      const zip = this.zip;
      const entries = zip.has('summaries.json')
        ? ['summaries.json']
        : zip
            .names()
            .map((name) => ({ name, n: /^_journal\/summaries\/(\d+)\.json$/.exec(name)?.[1] }))
            .filter((e) => e.n !== undefined)
            .sort((a, b) => Number(a.n) - Number(b.n))
            .map((e) => e.name);
      let read = 0;
      for (const entry of entries) {
        await readList(
          zip,
          entry,
          (s, i) => {
            this.place(parse(EvalSampleSummary, s, zip.name, entry, [i]));
            onItem?.(++read);
          },
          signal,
        );
      }
      this.summarised = true;
    })();
    return this.reading;
  }

  async close(): Promise<void> {
    await this.zip.close();
  }

  /**
   * One sample of one epoch, read from its entry member by member (with yields between), its
   * attachments resolved. Its `events` are counted, not kept: only the first model call that
   * lists tools stays (the tools the model was given).
   */
  async sample(id: string | number, epoch: number, signal?: AbortSignal): Promise<EvalSample & { eventCount: number; eventLines: string[] }> {
    const entry = SAMPLE_ENTRY(id, epoch);
    if (!this.zip.has(entry)) throw new EvalLogError(`${this.name}: no entry ${entry} (the summaries list sample ${id}, epoch ${epoch})`, entry);
    const { value, events, lines } = await readSampleObject(this.zip, entry, signal);
    const sample = parse(EvalSample, value, this.name, entry);
    return Object.assign(resolveAttachments(sample), { eventCount: events, eventLines: lines });
  }

  /** The reductions (`reductions.json`), or undefined when the log has none. */
  async reductions(signal?: AbortSignal): Promise<unknown> {
    return this.zip.has('reductions.json') ? readJson(this.zip, 'reductions.json', signal) : undefined;
  }
}


function parse<T extends z.ZodType>(schema: T, value: unknown, file: string, entry: string, base: (string | number)[] = []): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const at = [...base, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
  const field = at.length ? at.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('') : '(the whole entry)';
  throw new EvalLogError(`${file}, entry ${entry}, field ${field}: ${issue.message}`, entry);
}


/**
 * `attachment://<hash>` strings anywhere in the sample replaced by their text (log/_condense.py,
 * resolve_sample_attachments; the older `tc://` prefix too). An unknown hash stays as it is.
 */
export function resolveAttachments<T>(sample: T & { attachments?: Record<string, string> | null }): T {
  const attachments = sample.attachments ?? dict<string>();
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const ref = v.startsWith(ATTACHMENT) ? v.slice(ATTACHMENT.length) : v.startsWith('tc://') ? v.slice(5) : undefined;
      return ref !== undefined && Object.prototype.hasOwnProperty.call(attachments, ref) ? attachments[ref] : v;
    }
    if (depth > 200) return v;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) v[i] = walk(v[i], depth + 1);
      return v;
    }
    if (isObject(v)) {
      for (const k of Object.keys(v)) if (k !== 'attachments') v[k] = walk(v[k], depth + 1);
      return v;
    }
    return v;
  };
  return walk(sample, 0) as T;
}

export { EvalLogError, ZipError };
