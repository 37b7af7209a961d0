import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ThreadRow } from '../../../src/api/schemas';
import { isThreadRow } from '../../../src/api/threads';
import { swapValue, valueSwap } from '../fuzz/files';
import { check, fuzz, named } from '../fuzz/helpers';

// The threads stream checks each row with a cheap yes/no and asks the schema only when it says
// no. The two must agree on every value.

const row = {
  thread_id: 't1',
  turn_count: 3,
  start_time: '2026-11-20T10:00:00.000Z',
  last_updated: '2026-11-20T10:05:00.000Z',
  first_turn_id: 'a',
  last_turn_id: null,
  p50_turn_duration_ms: 1200.5,
  p99_turn_duration_ms: -1,
  extra: { kept: true },
};

describe('api/threads: the fast row check agrees with the ThreadRow schema', () => {
  it('on each field absent, null and of every other kind', () => {
    const others = [undefined, null, '', 'x', 0, 1.5, -1, 2 ** 60, true, [], {}];
    for (const key of Object.keys(row)) {
      for (const v of others) {
        const value = { ...row, [key]: v };
        if (v === undefined) delete (value as Record<string, unknown>)[key];
        assert.equal(isThreadRow(value), ThreadRow.safeParse(value).success, `${key} = ${JSON.stringify(v)}`);
      }
    }
    for (const v of [null, [], 'row', 1]) assert.equal(isThreadRow(v), false);
    assert.equal(isThreadRow(row), true);
  });

  const b = fuzz(0x7e4d, 300);
  it(named('on rows with one value swapped or removed', b), () => {
    check(
      fc.property(valueSwap, (swap) => {
        const { value } = swapValue(row, swap);
        assert.equal(isThreadRow(value), ThreadRow.safeParse(value).success, JSON.stringify(value));
      }),
      b,
    );
  });
});
