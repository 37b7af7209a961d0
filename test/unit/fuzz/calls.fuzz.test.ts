/**
 * Properties of src/calls/reader.ts (validateCallsFile, readCallItems) on real files: generated
 * valid files, arbitrary bytes and mutations of valid files.
 *
 * The oracle is the zod schemas: a non-blank line is a call record when it is a CallBatchItem, a
 * bare `{"start": CallStart}` or a bare `{"end": CallEnd}`, and a file needs one record at least.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { z } from 'zod';
import { CallBatchItem, CallEnd, CallStart } from '../../../src/api/schemas/calls';
import { readCallItems, validateCallsFile, type CallItemRecord, type CallsValidationSummary } from '../../../src/calls/reader';
import { callArbitraries } from './arbitraries';
import { checkPositions, jsonlLayout, mutateText, swapValue, textMutation, valueSwap, writeJsonl } from './files';
import { checkAsync, collect, errorsOf, fuzz, jsonlOracle, named, nastyBytes, readOutcome, Tally, useTempDir, withTimeout, writeFresh, type ReadOutcome as Outcome } from './helpers';

/**
 * Files may hold `null` in optional fields (as tracing SDKs write them); those fields are left out
 * of what is sent (the trace endpoints are strict). The file-side schemas: optional fields nullable.
 */
const nullableOptionals = <S extends z.ZodObject>(schema: S) =>
  z.strictObject(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k, (v as z.ZodType).safeParse(undefined).success ? (v as z.ZodType).nullable() : v])));
const FileStart = nullableOptionals(CallStart);
const FileEnd = nullableOptionals(CallEnd);
const FileItem = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('start'), req: z.strictObject({ start: FileStart }) }),
  z.strictObject({ mode: z.literal('end'), req: z.strictObject({ end: FileEnd }) }),
]);
const BareStart = z.strictObject({ start: FileStart });
const BareEnd = z.strictObject({ end: FileEnd });

/** What is sent for a record of the file: null optional fields left out. */
function sent(item: CallBatchItem): CallBatchItem {
  const drop = (o: Record<string, unknown>, schema: z.ZodObject) =>
    Object.fromEntries(Object.entries(o).filter(([k, v]) => !(v === null && (schema.shape[k] as z.ZodType | undefined)?.safeParse(undefined).success)));
  return item.mode === 'start'
    ? { ...item, req: { ...item.req, start: drop(item.req.start, CallStart) as typeof item.req.start } }
    : { ...item, req: { ...item.req, end: drop(item.req.end, CallEnd) as typeof item.req.end } };
}

function oracle(bytes: Buffer): { valid: boolean; values?: CallBatchItem[] } {
  return jsonlOracle(bytes, (v) => {
    const item = FileItem.safeParse(v);
    const start = BareStart.safeParse(v);
    const end = BareEnd.safeParse(v);
    if (item.success) return sent(item.data as CallBatchItem);
    if (start.success) return sent({ mode: 'start', req: { start: start.data.start } } as CallBatchItem);
    if (end.success) return sent({ mode: 'end', req: { end: end.data.end } } as CallBatchItem);
    return undefined;
  });
}

type ReadOutcome = Outcome<CallItemRecord>;
const readAll = (path: string) => readOutcome(() => readCallItems(path), 'readCallItems');

/** Outcomes of the current property. */
let outcomes = new Tally();
function tally(r: { valid: boolean; read: ReadOutcome }): void {
  outcomes.add(r.valid ? 'valid' : 'problem' in r.read ? 'invalid' : 'invalid, nothing to read');
}

async function checkFile(path: string, bytes: Buffer): Promise<{ summary: CallsValidationSummary; read: ReadOutcome; valid: boolean }> {
  const summary = await withTimeout(validateCallsFile(path), 10_000, 'validateCallsFile');
  checkPositions(summary.problems, path, bytes.toString('utf8'), 'jsonl');
  assert.equal(summary.fileBytes, bytes.length);
  assert.equal(summary.truncated, false);
  assert.ok(summary.starts + summary.ends <= summary.items);
  const expected = oracle(bytes);
  const errors = errorsOf(summary);
  assert.equal(errors.length === 0, expected.valid, `validator says ${errors.length ? 'invalid' : 'valid'} (${JSON.stringify(summary.problems)}), the schemas say ${expected.valid ? 'valid' : 'invalid'}`);
  const read = await withTimeout(readAll(path), 10_000, 'readCallItems');
  if (expected.valid) {
    assert.ok('records' in read, `a file without errors could not be read: ${'problem' in read ? read.problem.message : ''}`);
    assert.equal(read.records.length, summary.items);
    assert.deepEqual(
      read.records.map((r) => r.item),
      expected.values,
    );
    assert.equal(summary.starts, read.records.filter((r) => r.item.mode === 'start').length);
    assert.equal(summary.ends, read.records.filter((r) => r.item.mode === 'end').length);
    const from = Math.floor(read.records.length / 2);
    assert.deepEqual(await collect(readCallItems(path, { startItem: from })), read.records.slice(from));
    for (const [i, r] of read.records.entries()) {
      assert.equal(r.index, i);
      assert.equal(r.bytes, Buffer.byteLength(JSON.stringify(r.item)));
    }
  } else if ('problem' in read) {
    assert.equal(read.problem.problem.severity, 'error');
    assert.equal(read.problem.problem.line, errors[0]!.line, `read stopped at ${JSON.stringify(read.problem.problem)}, validation's first error is ${JSON.stringify(errors[0])}`);
  } else {
    // Only an empty file has nothing to read and still is refused.
    assert.equal(read.records.length, 0, `read an invalid file without an error: ${JSON.stringify(summary.problems)}`);
    assert.equal(summary.items, 0);
  }
  return { summary, read, valid: expected.valid };
}

const { line: callLine } = callArbitraries();
const callLines = fc.array(callLine, { maxLength: 5 });

describe('fuzz: calls/reader', function () {
  this.timeout(120_000);
  const dir = useTempDir('svc-fuzz-calls-');

  const c1 = fuzz(0xca1, 200);
  it(named('generated valid call files (all four record shapes, any layout): no errors, the items read back normalized', c1), async () => {
    await checkAsync(
      fc.asyncProperty(callLines, jsonlLayout, async (ls, layout) => {
        for (const l of ls) assert.ok(oracle(Buffer.from(JSON.stringify(l.value))).valid, `the generator made an invalid record: ${JSON.stringify(l.value)}`);
        const { text, lines: at } = writeJsonl(
          ls.map((l) => l.value),
          layout,
        );
        const bytes = Buffer.from(text);
        const path = writeFresh(dir(), '.jsonl', bytes);
        const { summary, read } = await checkFile(path, bytes);
        if (ls.length === 0) {
          assert.deepEqual(summary.problems.map((p) => [p.line, p.message]), [[1, 'The file is empty']]);
          return;
        }
        // Only warnings: a start without an id.
        const noId = ls.filter((l) => l.item.mode === 'start' && !('id' in (l.item.req as { start: object }).start)).length;
        assert.equal(summary.problems.length, noId, JSON.stringify(summary.problems));
        assert.ok('records' in read);
        assert.deepEqual(
          read.records.map((r) => r.item),
          JSON.parse(JSON.stringify(ls.map((l) => sent(l.item as CallBatchItem)))),
        );
        assert.deepEqual(
          read.records.map((r) => r.line),
          at,
        );
      }),
      c1,
    );
  });

  const c2 = fuzz(0xca2, 400);
  it(named('arbitrary bytes: validation resolves, problems are well placed and agree with the schemas; reading agrees', c2), async () => {
    outcomes = new Tally();
    await checkAsync(
      fc.asyncProperty(nastyBytes(30), async (bytes) => {
        tally(await checkFile(writeFresh(dir(), '.jsonl', bytes), bytes));
      }),
      c2,
    );
    outcomes.expectShare('invalid', 0.5);
  });

  const c3 = fuzz(0xca3, 400);
  it(named('valid files with characters deleted, inserted or replaced, or a value swapped for another type: the same agreement', c3), async () => {
    outcomes = new Tally();
    await checkAsync(
      fc.asyncProperty(
        fc.array(callLine, { minLength: 1, maxLength: 4 }),
        jsonlLayout,
        fc.oneof(fc.array(textMutation, { minLength: 1, maxLength: 3 }).map((m) => ({ text: m })), valueSwap.map((s) => ({ swap: s }))),
        async (ls, layout, mutation) => {
          let values = ls.map((l) => l.value);
          if ('swap' in mutation) {
            const i = mutation.swap.pick % values.length;
            const changed = swapValue(values[i], { ...mutation.swap, pick: Math.floor(mutation.swap.pick / values.length) });
            values = values.map((v, j) => (j === i ? changed.value : v));
          }
          let text = writeJsonl(values, layout).text;
          if ('text' in mutation) for (const m of mutation.text) text = mutateText(text, m);
          const bytes = Buffer.from(text);
          tally(await checkFile(writeFresh(dir(), '.jsonl', bytes), bytes));
        },
      ),
      c3,
    );
    outcomes.expectShare('valid', 0.1);
    outcomes.expectShare('invalid', 0.3);
  });
});

/** Bugs this suite found, now fixed; these keep them fixed. Each. */
describe('fuzz: calls/reader, regressions (bugs this suite found, now fixed)', function () {
  this.timeout(60_000);
  const dir = useTempDir('svc-fuzz-calls-bugs-');

  // FIXED BUG 1 (calls): past maxProblems (default 1000) only the first problems are kept, and each
  // start without an id is a warning; so 1000 such starts followed by a broken line validate
  // without errors, and the import sends the 1000 calls before it fails on the broken line.
  it('regression: 1000 starts without an id, then a broken line: validation reports the error', async () => {
    const start = JSON.stringify({ start: { project_id: 'acme/bot', op_name: 'op', started_at: '2026-01-01T10:00:00Z', attributes: {}, inputs: {} } });
    const path = writeFresh(dir(), '.jsonl', `${`${start}\n`.repeat(1000)}{"start": \n`);
    const summary = await validateCallsFile(path);
    assert.ok(errorsOf(summary).length > 0, `no error among ${summary.problems.length} problems (truncated: ${summary.truncated})`);
  });

  // FIXED BUG 2 (calls): a "__proto__" key in inputs, attributes, summary or otel_dump is valid, but
  // zod's record parsing drops it (assigns the prototype), so the imported call silently lacks it.
  const b2 = fuzz(0xcb2, 200);
  it(named('regression: records with "__proto__" keys read back equal to what was written', b2), async () => {
    const { line } = callArbitraries({ withProto: true });
    await checkAsync(
      fc.asyncProperty(line, async (l) => {
        const path = writeFresh(dir(), '.jsonl', JSON.stringify(l.value));
        const records = await collect(readCallItems(path));
        assert.equal(JSON.stringify(records.map((r) => r.item)), JSON.stringify([sent(l.item as CallBatchItem)]));
      }),
      b2,
    );
  });

  // FIXED BUG 3 (calls): deep nesting overflows the stack: validation throws RangeError for a line
  // of about 8,800 "[" (jsonc-parser's recursive parse) or a valid start without an id whose inputs
  // nest that deep (locating the warning); reading a valid file throws RangeError (JSON.stringify)
  // from about 4,100 levels.
  const b3 = fuzz(0xcb3, 40);
  it(named('regression: deeply nested JSON neither crashes validation nor a read of a file that validated', b3), async () => {
    await checkAsync(
      fc.asyncProperty(fc.integer({ min: 1, max: 30_000 }), fc.constantFrom('unclosed', 'in inputs', 'in inputs, no id'), async (depth, where) => {
        const nest = '['.repeat(depth) + (where === 'unclosed' ? '' : ']'.repeat(depth));
        const id = where === 'in inputs' ? '"id":"1",' : '';
        const text = where === 'unclosed' ? nest : `{"start":{${id}"project_id":"a/b","op_name":"x","started_at":"2026-01-01T00:00:00Z","attributes":{},"inputs":{"x":${nest}}}}`;
        const path = writeFresh(dir(), '.jsonl', text);
        // No deep comparisons here: the checks themselves would overflow the stack.
        const summary = await validateCallsFile(path);
        if (errorsOf(summary).length === 0) {
          const read = await readAll(path);
          assert.ok('records' in read && read.records.length === summary.items);
        }
      }),
      b3,
    );
  });
});
