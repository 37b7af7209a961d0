import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isUpsertBatchResponse } from '../../../src/api/calls';
import { UpsertBatchResponse } from '../../../src/api/schemas';
import { swapValue, valueSwap } from '../fuzz/files';
import { check, fuzz, named } from '../fuzz/helpers';

// An import's answers are checked with a cheap yes/no first; the schema speaks only when it says no.
// The two must agree on every value.

const answer = { res: [{ id: 'c1', trace_id: 't1' }, {}, { id: 'c2', trace_id: 't2', extra: [1] }], note: 'kept' };

describe('api/calls: the fast upsert answer check agrees with the UpsertBatchResponse schema', () => {
  it('on every kind of value at the top, in res and in each result', () => {
    const kinds = [undefined, null, '', 'x', 0, 1.5, true, [], {}, [{}], { id: 1 }];
    for (const v of kinds) {
      assert.equal(isUpsertBatchResponse(v), UpsertBatchResponse.safeParse(v).success, `answer = ${JSON.stringify(v)}`);
      const res = { ...answer, res: v };
      assert.equal(isUpsertBatchResponse(res), UpsertBatchResponse.safeParse(res).success, `res = ${JSON.stringify(v)}`);
      const item = { res: [answer.res[0], v] };
      assert.equal(isUpsertBatchResponse(item), UpsertBatchResponse.safeParse(item).success, `res[1] = ${JSON.stringify(v)}`);
    }
  });

  const b = fuzz(0x5e7a, 400);
  it(named('on answers with one value swapped or removed', b), () => {
    check(
      fc.property(valueSwap, (swap) => {
        const { value } = swapValue(answer, swap);
        assert.equal(isUpsertBatchResponse(value), UpsertBatchResponse.safeParse(value).success, JSON.stringify(value));
      }),
      b,
    );
  });
});
