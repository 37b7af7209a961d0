/**
 * The JSON entries of an Inspect `.eval` log, read without long holds of the event loop (issue 32):
 * a list (`summaries.json`) item by item, a sample member by member with its `events` streamed (a
 * line each kept, see eventLine), both over the streaming scanner (jsonScan.ts) with yields between
 * 64 KiB chunks and between values. Errors name the file, entry and field, quoting none of the
 * file's text. No `vscode` import.
 */
import { isObject } from '../api/json';
import { dict } from '../api/dict';
import { MemoryBytes } from './bytes';
import { scanJson } from './jsonScan';
import { JsonScanError } from './jsonScanEvents';
import { MAX_ENTRY_BYTES, type ZipReader } from './zip';

/** A log that cannot be read as Inspect writes it: the message names the file, entry and field. */
export class EvalLogError extends Error {
  constructor(
    message: string,
    readonly entry?: string,
  ) {
    super(message);
    this.name = 'EvalLogError';
  }
}

/** Work between yields to the event loop while a large entry is parsed. */
const SLICE_MS = 8;

function slicer(): () => Promise<void> {
  let start = performance.now();
  return async () => {
    if (performance.now() - start < SLICE_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    start = performance.now();
  };
}

function parseText(zip: ZipReader, entry: string, where: string, text: string, line: number): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new EvalLogError(`${zip.name}, entry ${entry}, ${where} (line ${line}): not JSON: ${quoteless((e as Error).message)}`, entry);
  }
}

/** JSON.parse's message without the text it quotes (errors reach logs and the language model tools). */
function quoteless(message: string): string {
  return message.replace(/"(?:[^"\\]|\\.)*"(?: is not valid JSON)?/g, 'the text');
}

function scanError(zip: ZipReader, entry: string, e: unknown): unknown {
  return e instanceof JsonScanError ? new EvalLogError(`${zip.name}, entry ${entry}: ${e.message} (line ${e.line}, column ${e.column})`, entry) : e;
}

/** A JSON list entry item by item (summaries: 20,000 of them parse in slices, not in one 300 ms hold). */
export async function readList(zip: ZipReader, entry: string, each: (value: unknown, index: number) => void, signal?: AbortSignal): Promise<void> {
  const bytes = await zip.read(entry, signal);
  const pause = slicer();
  try {
    for await (const ev of scanJson(new MemoryBytes(bytes), { streamMember: '', maxValueChars: MAX_ENTRY_BYTES, signal, chunkBytes: 64 * 1024, afterChunk: pause })) {
      if (ev.kind === 'item') each(parseText(zip, entry, `item [${ev.index}]`, ev.value.text, ev.value.line), ev.index);
      else if (ev.kind === 'root' && ev.container === 'object') throw new EvalLogError(`${zip.name}, entry ${entry}: expected a list of sample summaries, found an object`, entry);
      else if (ev.kind === 'scalar') throw new EvalLogError(`${zip.name}, entry ${entry}: expected a list of sample summaries, found ${kind(JSON.parse(ev.value.text))}`, entry);
      await pause();
    }
  } catch (e) {
    throw scanError(zip, entry, e);
  }
}

/** A sample entry member by member; its `events` streamed and counted, the first model call with tools kept. */
export async function readSampleObject(zip: ZipReader, entry: string, signal?: AbortSignal): Promise<{ value: Record<string, unknown>; events: number; lines: string[] }> {
  const bytes = await zip.read(entry, signal);
  const pause = slicer();
  const value = dict<unknown>();
  let events = 0;
  let tools: unknown;
  const lines: string[] = [];
  try {
    for await (const ev of scanJson(new MemoryBytes(bytes), { streamMember: 'events', maxValueChars: MAX_ENTRY_BYTES, signal, chunkBytes: 64 * 1024, afterChunk: pause })) {
      if (ev.kind === 'member') value[ev.key] = parseText(zip, entry, `field ${ev.key}`, ev.value.text, ev.value.line);
      else if (ev.kind === 'stream') value.events = [];
      else if (ev.kind === 'item') {
        events++;
        if (lines.length < MAX_EVENT_LINES) {
          const e = parseText(zip, entry, `field events[${ev.index}]`, ev.value.text, ev.value.line);
          if (tools === undefined && isObject(e) && e.event === 'model' && Array.isArray(e.tools) && e.tools.length) tools = e;
          lines.push(eventLine(e));
        }
      } else if (ev.kind === 'root' && ev.container === 'array') throw new EvalLogError(`${zip.name}, entry ${entry}: expected a sample (an object), found a list`, entry);
      else if (ev.kind === 'scalar') throw new EvalLogError(`${zip.name}, entry ${entry}: expected a sample (an object), found ${kind(JSON.parse(ev.value.text))}`, entry);
      await pause();
    }
  } catch (e) {
    throw scanError(zip, entry, e);
  }
  if (Array.isArray(value.events)) value.events = tools ? [tools] : [];
  if (events > lines.length) lines.push(`… ${events - lines.length} more events (not read)`);
  return { value, events, lines };
}

/** The most events of a sample given a line each. */
const MAX_EVENT_LINES = 2000;

/** One line of an event (inspect_ai/event/_*.py): its kind and the few fields that say what happened. */
export function eventLine(e: unknown): string {
  if (!isObject(e)) return 'event (not an object)';
  const cut = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}…` : s);
  const json = (v: unknown) => cut(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
  const at = typeof e.timestamp === 'string' ? `${e.timestamp.slice(11, 19)} ` : '';
  const err = (v: unknown) => (isObject(v) && typeof v.message === 'string' ? ` error: ${cut(v.message)}` : typeof v === 'string' ? ` error: ${cut(v)}` : '');
  const kind = typeof e.event === 'string' ? e.event : 'event';
  switch (kind) {
    case 'model': {
      const usage = isObject(e.output) && isObject(e.output.usage) ? e.output.usage : undefined;
      const tokens = usage ? `: ${json(usage.input_tokens ?? 0)} in / ${json(usage.output_tokens ?? 0)} out` : '';
      return `${at}model ${json(e.model)}${tokens}${err(e.error)}`;
    }
    case 'tool':
      return `${at}tool ${json(e.function)}(${json(e.arguments ?? {})})${err(e.error)}`;
    case 'score':
      return `${at}score${typeof e.scorer === 'string' ? ` ${e.scorer}` : ''}: ${json(isObject(e.score) ? e.score.value : e.score)}${e.intermediate ? ' (intermediate)' : ''}`;
    case 'error':
      return `${at}error${err(e.error)}`;
    case 'sample_limit':
      return `${at}limit ${json(e.type)}: ${json(e.message)}`;
    case 'logger':
      return `${at}log ${isObject(e.message) ? `${json(e.message.level)}: ${json(e.message.message)}` : ''}`;
    case 'info':
      return `${at}info ${json(e.data)}`;
    case 'span_begin':
    case 'subtask':
      return `${at}${kind} ${json(e.name)}`;
    case 'step':
      return `${at}step ${json(e.action)} ${json(e.name)}`;
    default:
      return `${at}${kind}`;
  }
}

export async function readJson(zip: ZipReader, entry: string, signal?: AbortSignal): Promise<unknown> {
  const bytes = await zip.read(entry, signal);
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new EvalLogError(`${zip.name}, entry ${entry}: not JSON: ${quoteless((e as Error).message)}`, entry);
  }
}

function kind(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}
