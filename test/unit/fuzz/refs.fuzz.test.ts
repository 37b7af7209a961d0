/**
 * Properties of src/api/refs.ts (parseRef, callRef, REF_PATTERN) and of findRefs
 * (src/feedback/refText.ts), which applies REF_PATTERN to editor lines.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { callRef, isProjectId, parseRef, REF_PATTERN, REF_PREFIX, type ParsedRef } from '../../../src/api/refs';
import { findRefs, linkRefs, refAt } from '../../../src/feedback/refText';
import { check, fuzz, named } from './helpers';

const chars = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** Safe alphabets: what entities, projects, names, digests and call ids are made of in practice. */
const entity = chars(`${ALNUM}-_.`, 1, 16);
const name = chars(`${ALNUM}-_.`, 1, 16);
const digest = chars(ALNUM, 1, 44);
const callId = fc.oneof(fc.uuid(), chars(`${ALNUM}-_`, 1, 40));

const validRef: fc.Arbitrary<{ text: string; parts: ParsedRef }> = fc
  .tuple(fc.constantFrom('object' as const, 'op' as const, 'call' as const), entity, entity, name, digest, callId)
  .map(([kind, e, p, n, d, id]) => {
    const projectId = `${e}/${p}`;
    const parts: ParsedRef = kind === 'call' ? { kind, entity: e, project: p, projectId, callId: id } : { kind, entity: e, project: p, projectId, name: n, digest: d };
    return { text: rebuild(parts), parts };
  });

function rebuild(r: ParsedRef): string {
  const last = r.kind === 'call' ? r.callId! : `${r.name!}:${r.digest!}`;
  return `${REF_PREFIX}${r.entity}/${r.project}/${r.kind}/${last}`;
}

/** Pieces that ref parsing is sensitive to. */
const piece = fc.oneof(
  { weight: 4, arbitrary: chars('ab:./', 0, 4) },
  { weight: 2, arbitrary: fc.constantFrom('object', 'op', 'call', 'svc:', '//', '/', ':', ' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', '"', ',', '(', ')', '{', '}', '.', '🎉', 'é', '') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
);
/** A segment as parseRef takes it: anything but whitespace and '/', ':' and odd characters included. */
const looseSegment = fc.array(fc.oneof(chars('ab:.', 1, 3), fc.constantFrom('"', ',', '(', '{', '🎉', 'é', '\u200b', '%2F', '\\')), { minLength: 1, maxLength: 4 }).map((ps) => ps.join(''));

/** A mutation of a string: insert, delete or replace at a position. */
const mutated = (base: fc.Arbitrary<string>) =>
  fc.tuple(base, fc.array(fc.tuple(fc.constantFrom('insert', 'delete', 'replace'), fc.double({ min: 0, max: 1, noNaN: true }), piece), { minLength: 1, maxLength: 3 })).map(([s, edits]) => {
    for (const [op, at, p] of edits) {
      const i = Math.floor(at * s.length);
      if (op === 'insert') s = s.slice(0, i) + p + s.slice(i);
      else if (op === 'delete') s = s.slice(0, i) + s.slice(i + 1);
      else s = s.slice(0, i) + p + s.slice(i + 1);
    }
    return s;
  });

/** Strings that often look like refs, and often are. */
const refLike = fc.oneof(
  validRef.map((r) => r.text),
  mutated(validRef.map((r) => r.text)),
  fc.tuple(looseSegment, looseSegment, fc.constantFrom('object', 'op', 'call', 'x', ''), looseSegment).map(([a, b, k, c]) => `${REF_PREFIX}${a}/${b}/${k}/${c}`),
  mutated(fc.tuple(looseSegment, looseSegment, fc.constantFrom('object', 'op', 'call'), looseSegment).map(([a, b, k, c]) => `${REF_PREFIX}${a}/${b}/${k}/${c}`)),
  fc.array(piece, { maxLength: 8 }).map((ps) => REF_PREFIX + ps.join('')),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** A project id or call id as isProjectId / parseRef accept them: no whitespace, no '/'. */
const segment = fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).filter((s) => /^[^\s/]+$/.test(s));

const space = fc.constantFrom(' ', '  ', '\t', '\n', '\r\n', ' \u00a0 ', '\u3000');
/** Words of prose that hold no ref (so every ref found is one we put there). */
const word = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }).filter((w) => !/\s/.test(w) && !w.includes('svc:'));

const WHOLE_REF = new RegExp(`^(?:${REF_PATTERN.source})$`);

describe('fuzz: api/refs', function () {
  this.timeout(60_000);

  const c1 = fuzz(0x2ef1, 3000);
  it(named('parseRef never throws; an ok result rebuilds the very same string and parses again to the same parts', c1), () => {
    const seen = { ok: 0, refused: 0 };
    check(
      fc.property(refLike, (s) => {
        const r = parseRef(s);
        seen[r.ok ? 'ok' : 'refused']++;
        if (!r.ok) {
          assert.equal(typeof r.reason, 'string');
          assert.ok(r.reason.length > 0);
          return;
        }
        assert.equal(rebuild(r.ref), s);
        assert.deepEqual(parseRef(rebuild(r.ref)), r);
        assert.equal(r.ref.projectId, `${r.ref.entity}/${r.ref.project}`);
        assert.ok(isProjectId(r.ref.projectId));
        // A ref free of the delimiters REF_PATTERN stops at is matched by it whole.
        if (!/["'`<>()[\]{},]/.test(s)) assert.match(s, WHOLE_REF);
        for (const part of [r.ref.entity, r.ref.project, r.ref.callId ?? r.ref.name!, r.ref.digest ?? 'x']) assert.match(part, /^[^\s/]+$/);
      }),
      c1,
    );
    // The generator must exercise both outcomes.
    assert.ok(seen.ok > c1.numRuns / 5 && seen.refused > c1.numRuns / 5, JSON.stringify(seen));
  });

  const c2 = fuzz(0x2ef2, 1000);
  it(named('a valid ref from safe alphabets parses to exactly its parts', c2), () => {
    check(
      fc.property(validRef, ({ text, parts }) => {
        assert.deepEqual(parseRef(text), { ok: true, ref: parts });
      }),
      c2,
    );
  });

  const c3 = fuzz(0x2ef3, 1000);
  it(named('callRef(projectId, id) parses back as a call ref with the same project and id', c3), () => {
    check(
      fc.property(segment, segment, segment, (e, p, id) => {
        const projectId = `${e}/${p}`;
        assert.ok(isProjectId(projectId));
        const r = parseRef(callRef(projectId, id));
        assert.deepEqual(r, { ok: true, ref: { kind: 'call', entity: e, project: p, projectId, callId: id } });
      }),
      c3,
    );
  });

  const c4 = fuzz(0x2ef4, 1000);
  it(named('REF_PATTERN finds every valid ref embedded in text, separated by whitespace', c4), () => {
    check(
      fc.property(fc.array(fc.tuple(fc.oneof(validRef.map((r) => r.text), word), space), { maxLength: 12 }), space, (items, lead) => {
        const text = lead + items.map(([w, s]) => w + s).join('');
        const embedded = items.map(([w]) => w).filter((w) => w.startsWith(REF_PREFIX));
        const found = [...text.matchAll(REF_PATTERN)].map((m) => m[0]);
        assert.deepEqual(found, embedded);
        // The exported /g regex keeps no state between uses.
        assert.equal(REF_PATTERN.lastIndex, 0);
      }),
      c4,
    );
  });

  const c5 = fuzz(0x2ef5, 1000);
  it(named('findRefs locates every ref of a line, also when sentence punctuation follows it', c5), () => {
    const punct = fc.constantFrom('', '', '.', ',', ';', ':', '!', '?', '...', ').', ')');
    check(
      fc.property(fc.array(fc.tuple(fc.oneof(validRef.map((r) => r.text), word), punct), { maxLength: 10 }), (items) => {
        let line = '';
        const expected: { ref: string; start: number; end: number }[] = [];
        for (const [w, p] of items) {
          if (line) line += ' ';
          if (w.startsWith(REF_PREFIX)) expected.push({ ref: w, start: line.length, end: line.length + w.length });
          line += w + p;
        }
        const found = findRefs(line).map(({ ref, start, end }) => ({ ref, start, end }));
        assert.deepEqual(found, expected);
        for (const f of findRefs(line)) assert.equal(line.slice(f.start, f.end), f.ref);
      }),
      c5,
    );
  });
});

/**
 * Issue 19, item 9: what the ref link provider (linkRefs) and the hover (refAt) do with one line
 * must stay linear, whatever the line: random patterns repeated up to 1 MB (runs of dots, slashes,
 * prefixes). Budget: 1 s per line, generous for a loaded 2-core machine (a quadratic regex took
 * 6 s for 80,000 dots); the worst case is printed.
 */
describe('fuzz: ref link provider and hover on hostile lines up to 1 MB (issue 19)', function () {
  this.timeout(300_000);
  const cfg = fuzz(0x19_0009, 40);
  it(named('9. every line up to 1 MB is scanned within 1 s by the link provider and the hover; the worst case is printed', cfg), () => {
    const hostilePiece = fc.oneof(
      piece,
      fc.constantFrom('svc:///', 'svc:///a/b/call/', 'svc:///a/b/object/n:', '.', '...', ',;:!?', '/', '//', 'x', ' '),
    );
    let worst = { ms: 0, length: 0, pattern: '' };
    check(
      fc.property(fc.array(hostilePiece, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 1_000_000 }), fc.constantFrom('', 'svc:///a/b/call/', 'x', '.x'), (parts, length, tail) => {
        const pattern = parts.join('') || '.';
        const line = (pattern.repeat(Math.ceil(length / pattern.length)).slice(0, length) + tail).slice(0, 1_000_000);
        const t = performance.now();
        linkRefs(line);
        for (const column of [0, line.length >> 1, line.length - 1, line.length]) refAt(line, column);
        const ms = performance.now() - t;
        if (ms > worst.ms) worst = { ms, length: line.length, pattern };
        assert.ok(ms < 1000, `${ms.toFixed(0)} ms for a line of ${line.length} characters: ${JSON.stringify(pattern)} repeated`);
      }),
      cfg,
    );
    console.log(`      [figure] worst line: ${worst.ms.toFixed(1)} ms, ${worst.length} characters of ${JSON.stringify(worst.pattern)} repeated`);
  });
});
