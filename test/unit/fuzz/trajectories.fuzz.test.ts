/**
 * Properties of src/files/ (validateTrajectoryFile, readTrajectoryGroups) on real
 * files: generated valid files, arbitrary bytes and mutations of valid files, as .json and .jsonl.
 *
 * The oracle is the zod schema itself (TrajectoryFile for a .json document, JsonlGroup per
 * non-blank line of a .jsonl file): the validator reports an error exactly when the oracle refuses
 * the file, and a file without errors reads back as the oracle parses it.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readTrajectoryGroups, validateTrajectoryFile, type GroupRecord, type ValidationSummary } from '../../../src/files';
import { JsonlGroup, TrajectoryFile } from '../../../src/trajectories/schema';
import { trajectoryArbitraries } from './arbitraries';
import { checkPositions, jsonLayout, jsonlLayout, mutateText, spanOf, swapValue, textMutation, valueSwap, writeJson, writeJsonl } from './files';
import { checkAsync, collect, errorsOf, fuzz, jsonlOracle, named, nastyBytes, readOutcome, Tally, useTempDir, withTimeout, writeFresh, type ReadOutcome as Outcome } from './helpers';

type Format = 'json' | 'jsonl';

interface Oracle {
  valid: boolean;
  /** The groups as zod parses them, when valid. */
  groups?: unknown[];
  split?: string;
}

function oracle(bytes: Buffer, format: Format): Oracle {
  // Bytes that are not UTF-8 would be sent altered: such a file is refused (issue 19, item 8).
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { valid: false };
  }
  if (format === 'jsonl') {
    const r = jsonlOracle(bytes, (v) => {
      const group = JsonlGroup.safeParse(v);
      return group.success ? (group.data as unknown) : undefined;
    });
    return r.valid ? { valid: true, groups: r.values } : { valid: false };
  }
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { valid: false };
  }
  const r = TrajectoryFile.safeParse(v);
  if (!r.success) return { valid: false };
  const d = r.data;
  if (Array.isArray(d)) return { valid: true, groups: d };
  if ('trajectory_groups' in d) return { valid: true, groups: d.trajectory_groups as unknown[], ...(typeof d.split === 'string' ? { split: d.split } : {}) };
  return { valid: true, groups: [d] };
}

type ReadOutcome = Outcome<GroupRecord>;
const readAll = (path: string) => readOutcome(() => readTrajectoryGroups(path), 'readTrajectoryGroups');

/**
 * The properties every file must have, whatever it holds: validation resolves (never throws, never
 * hangs) with well-placed problems; it reports an error exactly when the oracle refuses the file;
 * without errors, reading yields `summary.groups` groups equal to the oracle's; with errors,
 * reading fails with a ProblemError at the first error (or, for an empty JSONL file, yields nothing).
 */
async function checkFile(path: string, bytes: Buffer, format: Format): Promise<{ summary: ValidationSummary; read: ReadOutcome; oracle: Oracle }> {
  const summary = await withTimeout(validateTrajectoryFile(path), 10_000, 'validateTrajectoryFile');
  const text = bytes.toString('utf8');
  checkPositions(summary.problems, path, text, format);
  assert.equal(summary.format, format);
  assert.equal(summary.fileBytes, bytes.length);
  assert.equal(summary.truncated, false);
  const expected = oracle(bytes, format);
  const errors = errorsOf(summary);
  assert.equal(errors.length === 0, expected.valid, `validator says ${errors.length ? 'invalid' : 'valid'} (${JSON.stringify(summary.problems)}), the schema says ${expected.valid ? 'valid' : 'invalid'}`);
  const read = await withTimeout(readAll(path), 10_000, 'readTrajectoryGroups');
  if (expected.valid) {
    assert.ok('records' in read, `a file without errors could not be read: ${'problem' in read ? read.problem.message : ''}`);
    assert.equal(read.records.length, summary.groups);
    assert.deepEqual(
      read.records.map((r) => JSON.parse(r.json)),
      expected.groups,
    );
    assert.equal(summary.trajectories, read.records.reduce((n, r) => n + r.trajectories, 0));
    if (expected.split !== undefined) assert.equal(summary.split, expected.split);
    const lines = format === 'json' ? text.split(/\r\n|\r|\n/).length : text.split('\n').length;
    // Resuming at a group yields the rest, the same.
    const from = Math.floor(read.records.length / 2);
    assert.deepEqual(await collect(readTrajectoryGroups(path, { startGroup: from })), read.records.slice(from));
    for (const [i, r] of read.records.entries()) {
      assert.equal(r.index, i);
      assert.equal(r.trajectories, (JSON.parse(r.json) as { trajectories?: unknown[] }).trajectories?.length ?? 0);
      assert.equal(r.bytes, Buffer.byteLength(r.json));
      assert.ok(r.line >= 1 && r.line <= r.endLine && r.endLine <= lines, `group ${i} spans lines ${r.line}-${r.endLine} of ${lines}`);
      if (i > 0) assert.ok(r.line >= read.records[i - 1]!.endLine, `group ${i} starts before group ${i - 1} ends`);
    }
  } else if ('problem' in read) {
    // Reading stops at the first error the validator reported.
    assert.equal(read.problem.problem.severity, 'error');
    assert.equal(read.problem.problem.line, errors[0]!.line, `read stopped at ${JSON.stringify(read.problem.problem)}, validation's first error is ${JSON.stringify(errors[0])}`);
  } else {
    // Only an empty JSONL file has nothing to read and still is refused.
    assert.equal(format, 'jsonl');
    assert.equal(read.records.length, 0, `read an invalid file without an error: ${JSON.stringify(summary.problems)}`);
    assert.equal(summary.groups, 0);
  }
  return { summary, read, oracle: expected };
}

const { group } = trajectoryArbitraries();
const groups = fc.array(group, { maxLength: 4 });
const format = fc.constantFrom<Format>('json', 'jsonl');

type Shape = 'request' | 'array' | 'single';
const jsonDoc = fc
  .record({
    groups,
    shape: fc.constantFrom<Shape>('request', 'array', 'single'),
    split: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: undefined }),
    splitFirst: fc.boolean(),
  })
  .map(({ groups: gs, shape, split, splitFirst }) => {
    const s: Shape = shape === 'single' && gs.length !== 1 ? 'array' : shape;
    let value: unknown;
    if (s === 'single') value = gs[0];
    else if (s === 'array') value = gs;
    else if (split === undefined) value = { trajectory_groups: gs };
    else value = splitFirst ? { split, trajectory_groups: gs } : { trajectory_groups: gs, split };
    return { value, groups: gs, shape: s, split: s === 'request' ? split : undefined, splitFirst };
  });

/** A valid file in either format, as text. */
const validFile = fc.oneof(
  fc.tuple(fc.array(group, { minLength: 1, maxLength: 4 }), jsonlLayout).map(([gs, layout]) => ({ format: 'jsonl' as Format, text: writeJsonl(gs, layout).text, value: gs as unknown })),
  fc.tuple(jsonDoc, jsonLayout).map(([doc, layout]) => ({ format: 'json' as Format, text: writeJson(doc.value, layout), value: doc.value })),
);

/** Outcomes of the current property. */
let outcomes = new Tally();
function tally(r: { oracle: Oracle; read: ReadOutcome }): void {
  outcomes.add(r.oracle.valid ? 'valid' : 'problem' in r.read ? 'invalid' : 'invalid, nothing to read');
}

const ext = (f: Format) => (f === 'json' ? '.json' : '.jsonl');

describe('fuzz: trajectories/reader', function () {
  this.timeout(120_000);
  const dir = useTempDir('svc-fuzz-traj-');

  const c1 = fuzz(0x7a1, 200);
  it(named('generated valid JSONL files: no problems, and the groups read back equal, on their lines', c1), async () => {
    await checkAsync(
      fc.asyncProperty(groups, jsonlLayout, async (gs, layout) => {
        for (const g of gs) assert.ok(JsonlGroup.safeParse(g).success, `the generator made an invalid group: ${JSON.stringify(g)}`);
        const { text, lines } = writeJsonl(gs, layout);
        const bytes = Buffer.from(text);
        const path = writeFresh(dir(), '.jsonl', bytes);
        const { summary, read } = await checkFile(path, bytes, 'jsonl');
        if (gs.length === 0) {
          assert.deepEqual(summary.problems.map((p) => [p.line, p.message]), [[1, 'The file is empty']]);
          return;
        }
        assert.deepEqual(summary.problems, []);
        assert.equal(summary.groups, gs.length);
        assert.ok('records' in read);
        assert.deepEqual(
          read.records.map((r) => JSON.parse(r.json)),
          JSON.parse(JSON.stringify(gs)),
        );
        assert.deepEqual(
          read.records.map((r) => [r.line, r.endLine]),
          lines.map((l) => [l, l]),
        );
        // Trusted reading (no second schema pass) yields the same records for compact JSON lines.
        assert.deepEqual(await collect(readTrajectoryGroups(path, { trusted: true })), read.records);
      }),
      c1,
    );
  });

  const c2 = fuzz(0x7a2, 200);
  it(named('generated valid JSON files (request, array, single group; any layout): no errors, the groups and their lines read back', c2), async () => {
    await checkAsync(
      fc.asyncProperty(jsonDoc, jsonLayout, async (doc, layout) => {
        const text = writeJson(doc.value, layout);
        const bytes = Buffer.from(text);
        const path = writeFresh(dir(), '.json', bytes);
        const { summary, read } = await checkFile(path, bytes, 'json');
        assert.deepEqual(errorsOf(summary), []);
        // The only warning a valid file gets: no groups at all.
        assert.equal(summary.problems.length, doc.groups.length === 0 ? 1 : 0, JSON.stringify(summary.problems));
        assert.equal(summary.groups, doc.groups.length);
        assert.equal(summary.split, doc.split);
        assert.ok('records' in read);
        assert.deepEqual(
          read.records.map((r) => JSON.parse(r.json)),
          JSON.parse(JSON.stringify(doc.groups)),
        );
        // Where each group starts and ends, counted from the layout.
        const first = layout.leadingLines + (doc.shape === 'single' ? 1 : doc.shape === 'array' ? 2 : doc.split !== undefined && doc.splitFirst ? 4 : 3);
        let line = first;
        const spans = doc.groups.map((g) => {
          const n = layout.indent === undefined ? 1 : spanOf(g, layout.indent);
          const span = layout.indent === undefined ? [layout.leadingLines + 1, layout.leadingLines + 1] : [line, line + n - 1];
          line += n;
          return span;
        });
        assert.deepEqual(
          read.records.map((r) => [r.line, r.endLine]),
          spans,
        );
      }),
      c2,
    );
  });

  const c3 = fuzz(0x7a3, 400);
  it(named('arbitrary bytes as .json and .jsonl: validation resolves, problems are well placed and agree with the schema; reading agrees', c3), async () => {
    outcomes = new Tally();
    await checkAsync(
      fc.asyncProperty(nastyBytes(30), format, async (bytes, f) => {
        tally(await checkFile(writeFresh(dir(), ext(f), bytes), bytes, f));
      }),
      c3,
    );
    outcomes.expectShare('invalid', 0.5);
  });

  const c4 = fuzz(0x7a4, 400);
  it(named('valid files with characters deleted, inserted or replaced: the same agreement', c4), async () => {
    outcomes = new Tally();
    await checkAsync(
      fc.asyncProperty(validFile, fc.array(textMutation, { minLength: 1, maxLength: 3 }), fc.boolean(), async (file, mutations, swapFormat) => {
        let text = file.text;
        for (const m of mutations) text = mutateText(text, m);
        // Sometimes the "wrong" extension: a JSON document named .jsonl and the other way round.
        const f: Format = swapFormat ? (file.format === 'json' ? 'jsonl' : 'json') : file.format;
        const bytes = Buffer.from(text);
        tally(await checkFile(writeFresh(dir(), ext(f), bytes), bytes, f));
      }),
      c4,
    );
    outcomes.expectShare('valid', 0.05);
    outcomes.expectShare('invalid', 0.5);
  });

  const c5 = fuzz(0x7a5, 400);
  it(named('valid files with a value swapped for another type or a member removed: the same agreement', c5), async () => {
    outcomes = new Tally();
    await checkAsync(
      fc.asyncProperty(validFile, valueSwap, jsonLayout, jsonlLayout, async (file, swap, layout, lineLayout) => {
        let text: string;
        if (file.format === 'json') text = writeJson(swapValue(file.value, swap).value, layout);
        else {
          // One line's group is changed (or the whole line replaced).
          const gs = file.value as unknown[];
          const i = swap.pick % gs.length;
          const changed = swapValue(gs[i], { ...swap, pick: Math.floor(swap.pick / gs.length) });
          text = writeJsonl(gs.map((g, j) => (j === i ? changed.value : g)), lineLayout).text;
        }
        const bytes = Buffer.from(text);
        tally(await checkFile(writeFresh(dir(), ext(file.format), bytes), bytes, file.format));
      }),
      c5,
    );
    outcomes.expectShare('valid', 0.1);
    outcomes.expectShare('invalid', 0.3);
  });
});

/**
 * Bugs this suite found, now fixed; these keep them fixed. Each
 * names its shrunk counterexample.
 */
describe('fuzz: trajectories/reader, regressions (bugs this suite found, now fixed)', function () {
  this.timeout(60_000);
  const dir = useTempDir('svc-fuzz-traj-bugs-');

  // FIXED BUG 1: with more problems than maxProblems, the kept ones can all be warnings, so a file
  // with errors validates as error-free and the upload fails part-way, after groups were sent.
  // Shrunk: maxProblems 1, .jsonl = `{"trajectories":[],"logs":["\xff"]}\n0\n` (bytes; \xff is
  // invalid UTF-8): problems = [1:... warning "not valid UTF-8"], truncated, no error.
  const b1 = fuzz(0x7b1, 200);
  it(named('regression: a file the schema refuses has an error in its summary, whatever maxProblems', b1), async () => {
    const latin1Line = fc.constant(Buffer.from([...Buffer.from('{"trajectories":[],"logs":["'), 0xff, ...Buffer.from('"]}')]));
    const badLine = fc.constantFrom('0', '{', '{"trajectories":1}', '[]').map((s) => Buffer.from(s));
    await checkAsync(
      fc.asyncProperty(fc.array(fc.oneof(latin1Line, badLine), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 4 }), async (lines, maxProblems) => {
        const bytes = Buffer.concat(lines.flatMap((l) => [l, Buffer.from('\n')]));
        const path = writeFresh(dir(), '.jsonl', bytes);
        const summary = await validateTrajectoryFile(path, { maxProblems });
        if (!oracle(bytes, 'jsonl').valid) assert.ok(errorsOf(summary).length > 0, `no error kept: ${JSON.stringify(summary.problems)}, truncated ${summary.truncated}`);
      }),
      b1,
    );
  });

  it('regression: 1000 groups with Latin-1 text, then a broken line: validation with the default maxProblems reports the error', async () => {
    const latin1 = Buffer.from('{"trajectories":[],"logs":["caf\xe9"]}\n', 'latin1');
    const path = writeFresh(dir(), '.jsonl', Buffer.concat([...Array<Buffer>(1000).fill(latin1), Buffer.from('{"trajectories":\n')]));
    const summary = await validateTrajectoryFile(path);
    assert.ok(errorsOf(summary).length > 0, `no error among ${summary.problems.length} problems (truncated: ${summary.truncated})`);
  });

  it('regression: a .json document with a Latin-1 byte and a schema error, maxProblems 1: the error is kept', async () => {
    const path = writeFresh(dir(), '.json', Buffer.from('[{"trajectories":[],"logs":["caf\xe9"]}, 0]', 'latin1'));
    const summary = await validateTrajectoryFile(path, { maxProblems: 1 });
    assert.ok(errorsOf(summary).length > 0, JSON.stringify(summary.problems));
  });

  // FIXED BUG 2: a "__proto__" key in a free-form record (metadata, metrics, tool parameters,
  // logprobs) is valid, but zod's record parsing assigns it as the prototype, so the group read
  // for upload silently loses it. Shrunk: `{"trajectories":[{"messages_and_choices":[],"metrics":{"__proto__":0}}]}`
  // reads back as `{"trajectories":[{"messages_and_choices":[],"metrics":{}}]}`.
  const b2 = fuzz(0x7b2, 200);
  it(named('regression: groups with "__proto__" record keys read back equal to what was written', b2), async () => {
    const { group: protoGroup } = trajectoryArbitraries({ withProto: true });
    await checkAsync(
      fc.asyncProperty(fc.array(protoGroup, { minLength: 1, maxLength: 3 }), async (gs) => {
        const text = gs.map((g) => JSON.stringify(g)).join('\n');
        const path = writeFresh(dir(), '.jsonl', text);
        const summary = await validateTrajectoryFile(path);
        assert.deepEqual(errorsOf(summary), []);
        const records = await collect(readTrajectoryGroups(path));
        assert.equal(JSON.stringify(records.map((r) => JSON.parse(r.json))), JSON.stringify(gs));
      }),
      b2,
    );
  });

  // FIXED BUG 3: deep nesting overflows the stack. Validation throws RangeError (jsonc-parser's
  // recursive parse, used to place a problem) from about 5,100 nested brackets, a 5 KB file; and a
  // file that validates without problems fails to read with RangeError (JSON.stringify in
  // byteLength) from about 4,100 levels inside a free-form field such as logprobs. JSON.parse itself
  // handles 200,000 levels. Shrunk: [4105, "in logprobs", "jsonl"] (the depth depends on the stack).
  const b3 = fuzz(0x7b3, 40);
  it(named('regression: deeply nested JSON neither crashes validation nor a read of a file that validated', b3), async () => {
    await checkAsync(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 30_000 }),
        fc.constantFrom('unclosed', 'closed', 'in logprobs'),
        format,
        async (depth, where, f) => {
          const nest = '['.repeat(depth) + (where === 'unclosed' ? '' : ']'.repeat(depth));
          const text = where === 'in logprobs' ? `{"trajectories":[{"messages_and_choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant"},"logprobs":{"x":${nest}}}]}]}` : nest;
          const path = writeFresh(dir(), ext(f), text);
          // No deep comparisons here: the checks themselves would overflow the stack.
          const summary = await validateTrajectoryFile(path);
          if (errorsOf(summary).length === 0) {
            const read = await readAll(path);
            assert.ok('records' in read && read.records.length === summary.groups);
          }
        },
      ),
      b3,
    );
  });
});
