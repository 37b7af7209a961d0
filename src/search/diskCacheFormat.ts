/**
 * The layout of a disk cache file of the run search (diskCache.ts) and its reading: records
 * `[u32 length][u8 kind][JSON]` between MAGIC and the trailer (TRAILER, then the counts of groups
 * and problems as two u32), read a chunk at a time, each length and each record checked, so a
 * damaged or hostile cache file costs at most one record of MAX_RECORD bytes and is then refused
 * (Corrupt). No `vscode` import.
 */
import type { FileHandle } from 'node:fs/promises';
import type { CachedGroup } from './searchCache';
import type { RunProblem, Verdict } from './runSearch';

export const MAGIC = Buffer.from('SVCSRCH1');
export const TRAILER = Buffer.from('SVCSEND1');
export const TRAILER_BYTES = TRAILER.length + 8;
/** The largest record read or written: a group whose texts are larger is not cached (its file is read each time). */
export const MAX_RECORD = 64 * 1024 * 1024;
const CHUNK = 1024 * 1024;

/** A cache file that is not whole or not valid. */
export class Corrupt extends Error {}

/** A group as its record holds it: arrays rather than objects (the keys would be most of a short field's bytes). */
export function groupRecord(g: CachedGroup): unknown {
  return [g.group, g.fields.map((f) => [f.trajectory, f.history, f.message, f.role ?? null, f.tool ?? null, f.field, f.text]), g.facts.map((x) => [x.reward ?? null, x.tools]), g.verdicts ?? null];
}

/** Reads records of a cache file between `pos` and `end`, a chunk at a time. */
export class RecordReader {
  private buf: Buffer = Buffer.alloc(0);
  private at = 0;

  constructor(
    private readonly fh: FileHandle,
    private pos: number,
    private readonly end: number,
  ) {}

  atEnd(): boolean {
    return this.at >= this.buf.length && this.pos >= this.end;
  }

  /** The next `n` bytes (a view valid until the next call). */
  async take(n: number): Promise<Buffer> {
    if (this.buf.length - this.at >= n) {
      this.at += n;
      return this.buf.subarray(this.at - n, this.at);
    }
    const have = this.buf.subarray(this.at);
    const more = Math.min(Math.max(n, CHUNK) - have.length, this.end - this.pos);
    if (have.length + more < n) throw new Corrupt('truncated');
    const next = Buffer.allocUnsafe(have.length + more);
    have.copy(next);
    const read = await readExact(this.fh, this.pos, more);
    read.copy(next, have.length);
    this.pos += more;
    this.buf = next;
    this.at = n;
    return next.subarray(0, n);
  }

  async record(): Promise<{ kind: string; value: unknown }> {
    const head = await this.take(5);
    const length = head.readUInt32LE(0);
    const kind = String.fromCharCode(head[4]!);
    if (length > MAX_RECORD) throw new Corrupt('record too large');
    const body = await this.take(length);
    try {
      return { kind, value: JSON.parse(body.toString('utf8')) };
    } catch {
      throw new Corrupt('bad JSON');
    }
  }
}

export async function readExact(fh: FileHandle, pos: number, n: number): Promise<Buffer> {
  const out = Buffer.allocUnsafe(n);
  for (let at = 0; at < n; ) {
    const { bytesRead } = await fh.read(out, at, n - at, pos + at);
    if (bytesRead === 0) throw new Corrupt('truncated');
    at += bytesRead;
  }
  return out;
}

// Records are checked by hand rather than by a zod schema: a step file's entry holds some 150,000
// fields, and this check runs on each of them in the second search's hot loop.
const VERDICT_SET = new Set<unknown>(['trains', 'not-trained', 'fails'] satisfies Verdict[]);
const isInt = (v: unknown): v is number => Number.isInteger(v);
const optString = (v: unknown) => v === null || typeof v === 'string';

export function isHeader(v: unknown): v is { path: string; size: number; mtimeMs: number; verdicts: boolean } {
  const o = v as Record<string, unknown> | null;
  return typeof o === 'object' && o !== null && typeof o.path === 'string' && typeof o.size === 'number' && typeof o.mtimeMs === 'number' && typeof o.verdicts === 'boolean';
}

export function isProblem(v: unknown): v is RunProblem {
  const o = v as Record<string, unknown> | null;
  return typeof o === 'object' && o !== null && typeof o.file === 'string' && typeof o.message === 'string' && (o.at === undefined || typeof o.at === 'string');
}

/** A group record back as a CachedGroup; undefined when it is not one. */
export function asCachedGroup(v: unknown): CachedGroup | undefined {
  if (!Array.isArray(v) || v.length !== 4) return undefined;
  const [group, fields, facts, verdicts] = v as unknown[];
  if (!isInt(group) || !Array.isArray(fields) || !Array.isArray(facts)) return undefined;
  const g: CachedGroup = { group, fields: [], facts: [] };
  for (const f of fields) {
    if (!Array.isArray(f) || f.length !== 7) return undefined;
    const [trajectory, history, message, role, tool, field, text] = f as unknown[];
    if (!isInt(trajectory) || !isInt(history) || !isInt(message) || !optString(role) || !optString(tool) || typeof field !== 'string' || typeof text !== 'string') return undefined;
    g.fields.push({ trajectory, history, message, ...(role !== null ? { role: role as string } : {}), ...(tool !== null ? { tool: tool as string } : {}), field, text });
  }
  for (const x of facts) {
    if (!Array.isArray(x) || x.length !== 2) return undefined;
    const [reward, tools] = x as unknown[];
    if ((reward !== null && typeof reward !== 'number') || !Array.isArray(tools) || !tools.every((t) => typeof t === 'string')) return undefined;
    g.facts.push({ reward: reward === null ? undefined : reward, tools: tools as string[] });
  }
  if (verdicts !== null) {
    if (!Array.isArray(verdicts) || !verdicts.every((x) => VERDICT_SET.has(x))) return undefined;
    g.verdicts = verdicts as Verdict[];
  }
  return g;
}
