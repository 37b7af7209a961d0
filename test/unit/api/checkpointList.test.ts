import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isCheckpointList } from '../../../src/api/models';
import { CheckpointList } from '../../../src/api/schemas';
import { swapValue, valueSwap } from '../fuzz/files';
import { check, fuzz, named } from '../fuzz/helpers';

// Checkpoint pages are checked with a cheap yes/no first; the schema speaks only when it says no.
// The two must agree on every value.

const page = {
  object: 'list',
  data: [
    { id: '0b6f4a8e-2c1d-4e5f-9a7b-1c2d3e4f5a6b', step: 10, metrics: { 'train/reward': 0.5 }, extra: 1 },
    { id: '1b6f4a8e-2c1d-4e5f-9a7b-1c2d3e4f5a6b', step: 20, metrics: {} },
  ],
  has_more: true,
  first_id: '0b6f4a8e-2c1d-4e5f-9a7b-1c2d3e4f5a6b',
  last_id: '1b6f4a8e-2c1d-4e5f-9a7b-1c2d3e4f5a6b',
};

describe('api/models: the fast checkpoint page check agrees with the CheckpointList schema', () => {
  it('on each envelope field absent, null and of every other kind', () => {
    for (const key of Object.keys(page)) {
      for (const v of [undefined, null, '', 'x', 0, 1.5, true, [], {}]) {
        const value: Record<string, unknown> = { ...page, [key]: v };
        if (v === undefined) delete value[key];
        assert.equal(isCheckpointList(value), CheckpointList.safeParse(value).success, `${key} = ${JSON.stringify(v)}`);
      }
    }
  });

  const b = fuzz(0xc4e7, 400);
  it(named('on pages with one value swapped or removed', b), () => {
    check(
      fc.property(valueSwap, (swap) => {
        const { value } = swapValue(page, swap);
        assert.equal(isCheckpointList(value), CheckpointList.safeParse(value).success, JSON.stringify(value));
      }),
      b,
    );
  });
});
