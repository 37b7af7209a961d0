/**
 * Shared plumbing of the property-based (fuzz) suite.
 *
 * Every property runs with a fixed seed and a bounded number of runs, so CI is deterministic. The
 * seed is in each test's name; fast-check prints the seed, path and shrunk counterexample on
 * failure. To explore further locally:
 *
 *   FUZZ_RUNS=20 npx mocha --config test/.mocharc.json 'test/unit/fuzz/**\/*.test.ts'   (20x the runs)
 *   FUZZ_SEED=123 ...                                                                   (another seed for every property)
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProblemError, type Problem } from '../../../src/files/problems';

const RUN_FACTOR = Number(process.env.FUZZ_RUNS ?? 1) || 1;
const SEED_OVERRIDE = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

export interface FuzzConfig {
  seed: number;
  numRuns: number;
}

/** The seed and run count of one property (env overrides applied). */
export function fuzz(seed: number, numRuns: number): FuzzConfig {
  return { seed: SEED_OVERRIDE ?? seed, numRuns: Math.max(1, Math.round(numRuns * RUN_FACTOR)) };
}

/** `name [seed 42, 200 runs]`: the seed is visible in the test name, so a failure is reproducible. */
export function named(name: string, cfg: FuzzConfig): string {
  return `${name} [seed ${cfg.seed}, ${cfg.numRuns} runs]`;
}

/** fc.assert with the config (fast-check names the seed and the shrunk counterexample on failure). */
export function check<Ts>(prop: fc.IProperty<Ts>, cfg: FuzzConfig): void {
  fc.assert(prop, { seed: cfg.seed, numRuns: cfg.numRuns });
}

export function checkAsync<Ts>(prop: fc.IAsyncProperty<Ts>, cfg: FuzzConfig): Promise<void> {
  return fc.assert(prop, { seed: cfg.seed, numRuns: cfg.numRuns });
}

/** Rejects when `p` has not settled within `ms`: a hang becomes a failure with a message. */
export async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms (hang?)`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A temporary directory for the suite, removed after it. */
export function useTempDir(prefix: string): () => string {
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

let counter = 0;
/** Writes `content` to a fresh file named `<n><suffix>` in `dir`. */
export function writeFresh(dir: string, suffix: string, content: string | Uint8Array): string {
  const path = join(dir, `${++counter}${suffix}`);
  writeFileSync(path, content);
  return path;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Splits `bytes` at the given cut points (any order, duplicates and out-of-range ignored). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const p of [...points, bytes.length]) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  return out;
}

export const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Bytes that stress line and text decoders: mostly printable ASCII and JSON punctuation, plus line
 * breaks, CR, BOM pieces, whitespace oddities and multi-byte or invalid UTF-8 sequences.
 */
export const nastyBytes = (maxPieces: number): fc.Arbitrary<Buffer> =>
  fc
    .array(
      fc.oneof(
        { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 8 }).map((s) => Buffer.from(s)) },
        { weight: 3, arbitrary: fc.constantFrom('\n', '\r\n', '\r', '{', '}', '[', ']', '"', ',', ':', ' ', '\t', '0', '-1e5', 'null', 'true', '{"a":1}', '[1,2]', '"x"').map((s) => Buffer.from(s)) },
        { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 4 }).map((s) => Buffer.from(s)) },
        {
          weight: 2,
          arbitrary: fc.constantFrom(
            BOM,
            Buffer.from([0xef, 0xbb]),
            Buffer.from([0xc3]), // truncated 2-byte sequence
            Buffer.from([0xe2, 0x82]), // truncated 3-byte sequence
            Buffer.from([0xf0, 0x9f, 0x8e]), // truncated 4-byte sequence
            Buffer.from([0x80]), // lone continuation byte
            Buffer.from([0xff]),
            Buffer.from([0xed, 0xa0, 0x80]), // encoded surrogate (invalid)
            Buffer.from([0xc0, 0xaf]), // overlong encoding (invalid)
            Buffer.from('\u00a0\u2028\ufeff'),
            Buffer.from('é€🎉'),
            Buffer.from([0x00]),
          ),
        },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 8 }).map((a) => Buffer.from(a)) },
      ),
      { maxLength: maxPieces },
    )
    .map((parts) => Buffer.concat(parts));

/** Cut points for `splitAt`, as fractions so they fit any length. */
export const cutFractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 });

export function cutsFor(length: number, fractions: readonly number[]): number[] {
  return fractions.map((f) => Math.floor(f * length));
}

/** 1-based line count as an editor sees it (`\r\n`, `\r` and `\n` break lines; "" has 1 line). */
export function editorLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * Counts the outcomes a property met, so a test can insist that its generator reaches each of them
 * (a fuzzer whose inputs all fail the same early check tests nothing).
 */
export class Tally {
  private readonly counts = new Map<string, number>();
  private total = 0;

  add(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.total++;
  }

  /** Fails unless at least `min` (a fraction) of the outcomes were `key`. */
  expectShare(key: string, min: number): void {
    const n = this.counts.get(key) ?? 0;
    if (process.env.FUZZ_VERBOSE) console.log(`      outcomes: ${this.toString()}`);
    assert.ok(n >= min * this.total, `the generator reached "${key}" in ${n} of ${this.total} runs, under ${min * 100}%: ${this.toString()}`);
  }

  toString(): string {
    return [...this.counts].map(([k, n]) => `${k} ${n}`).join(', ');
  }
}

/** JSONL lines as src/files/lines.ts defines them: \n ends a line, a final \r is dropped, a leading BOM is not text. */
export function jsonlLines(bytes: Buffer): string[] {
  const body = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  const parts: string[] = [];
  let start = 0;
  while (start < body.length) {
    let nl = body.indexOf(0x0a, start);
    if (nl < 0) nl = body.length;
    const end = nl > start && body[nl - 1] === 0x0d ? nl - 1 : nl;
    parts.push(body.toString('utf8', start, end));
    start = nl + 1;
  }
  return parts;
}

/**
 * The oracle of a JSONL file: each non-blank line parsed and passed to `accept` (undefined: the
 * schemas refuse it). Valid with the accepted values when every line is and there is at least one.
 */
export function jsonlOracle<T>(bytes: Buffer, accept: (value: unknown) => T | undefined): { valid: boolean; values?: T[] } {
  const values: T[] = [];
  for (const line of jsonlLines(bytes)) {
    if (!/\S/.test(line)) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return { valid: false };
    }
    const accepted = accept(v);
    if (accepted === undefined) return { valid: false };
    values.push(accepted);
  }
  return values.length ? { valid: true, values } : { valid: false };
}

/** What reading a whole file gave: its records, or the ProblemError it stopped with. */
export type ReadOutcome<T> = { records: T[] } | { problem: ProblemError };

/** Reads all records; anything thrown but a ProblemError fails the property. */
export async function readOutcome<T>(read: () => AsyncIterable<T>, what: string): Promise<ReadOutcome<T>> {
  try {
    return { records: await collect(read()) };
  } catch (e) {
    if (e instanceof ProblemError) return { problem: e };
    throw new Error(`${what} threw a non-ProblemError: ${e instanceof Error ? e.stack : String(e)}`);
  }
}

export const errorsOf = (summary: { problems: Problem[] }): Problem[] => summary.problems.filter((p) => p.severity === 'error');
