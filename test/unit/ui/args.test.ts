import assert from 'node:assert/strict';
import { z } from 'zod';
import { InputError } from '../../../src/api';
import { nonBlank, parseArgs } from '../../../src/ui/args';

/** The InputError parseArgs throws for `value`. */
function refusal(schema: z.ZodType, value: unknown, usage?: string): InputError {
  try {
    parseArgs('svc.example', schema, value, usage);
  } catch (e) {
    assert.ok(e instanceof InputError, `not an InputError: ${String(e)}`);
    return e;
  }
  assert.fail(`accepted ${JSON.stringify(value)}`);
}

const schema = z.strictObject({
  file: z.string().trim().min(1),
  group: z.int().min(0).optional(),
  order: z.enum(['asc', 'desc']).optional(),
  ids: z.array(z.string()).min(1).optional(),
  when: z.string({ error: '"when" must be a date such as 2026-11-15.' }).optional(),
  left: z.object({ trajectory: z.int() }).optional(),
});

describe('ui/args: parseArgs', () => {
  it('returns the parsed value (transforms applied)', () => {
    assert.deepEqual(parseArgs('svc.example', schema, { file: '  a.jsonl ', group: 2 }), { file: 'a.jsonl', group: 2 });
  });

  it('names the command and the field, and sets place.field', () => {
    const e = refusal(schema, { file: 3 });
    assert.equal(e.message, 'svc.example: "file" must be a string.');
    assert.deepEqual(e.place, { field: 'file' });
  });

  it('says what each kind of check wants', () => {
    assert.equal(refusal(schema, {}).message, 'svc.example: "file" is needed (a string).');
    assert.equal(refusal(schema, { file: '  ' }).message, 'svc.example: "file" must be a non-empty string.');
    assert.equal(refusal(schema, { file: 'a', group: 1.5 }).message, 'svc.example: "group" must be an integer.');
    assert.equal(refusal(schema, { file: 'a', group: -1 }).message, 'svc.example: "group" must be at least 0.');
    assert.equal(refusal(schema, { file: 'a', order: 'up' }).message, 'svc.example: "order" must be "asc" or "desc", not "up".');
    assert.equal(refusal(schema, { file: 'a', ids: [] }).message, 'svc.example: "ids" must hold at least 1 item.');
    assert.equal(refusal(schema, { file: 'a', ids: ['x', 7] }).message, 'svc.example: "ids[1]" must be a string.');
    assert.equal(refusal(schema, { file: 'a', left: { trajectory: 1.5 } }).message, 'svc.example: "left.trajectory" must be an integer.');
    assert.equal(refusal(schema, { file: 'a', bogus: 1 }).message, 'svc.example: unknown argument "bogus".');
    assert.equal(refusal(z.object({ x: z.unknown().nonoptional() }), {}).message, 'svc.example: "x" is needed.');
  });

  it("keeps a schema's own message, prefixed with the command unless it names it", () => {
    assert.equal(refusal(schema, { file: 'a', when: 5 }).message, 'svc.example: "when" must be a date such as 2026-11-15.');
    const own = z.object({ x: z.string({ error: 'svc.example needs { x }.' }) });
    assert.equal(refusal(own, {}).message, 'svc.example needs { x }.');
  });

  it('nonBlank() refuses white space only and keeps the text as written', () => {
    const own = z.object({ dir: nonBlank() });
    assert.equal(refusal(own, { dir: ' \t' }).message, 'svc.example: "dir" must be a non-empty string.');
    assert.equal(refusal(own, { dir: 4 }).message, 'svc.example: "dir" must be a non-empty string.');
    assert.equal(refusal(own, {}).message, 'svc.example: "dir" must be a non-empty string.');
    assert.deepEqual(parseArgs('svc.example', own, { dir: ' a ' }), { dir: ' a ' });
    const said = z.object({ dir: nonBlank('"dir" must be a run folder') });
    assert.equal(refusal(said, { dir: 4 }).message, 'svc.example: "dir" must be a run folder.');
    assert.equal(refusal(said, { dir: '' }).message, 'svc.example: "dir" must be a run folder.');
  });

  it('refuses a value that is not an object, followed by what the command takes', () => {
    const e = refusal(schema, 'day', '{ file, group? }');
    assert.equal(e.message, 'svc.example: the argument must be an object. svc.example takes { file, group? }.');
    assert.deepEqual(e.place, {});
  });
});
