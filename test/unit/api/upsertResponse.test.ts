import assert from 'node:assert/strict';
import { isUpsertBatchResponse } from '../../../src/api/calls';
import { UpsertBatchResponse } from '../../../src/api/schemas';
import { agreesWithSchema } from './agreement';

// An import's answers are checked with a cheap yes/no first; the schema speaks only when it says no.
// The two must agree on every value.

const answer = { res: [{ id: 'c1', trace_id: 't1' }, {}, { id: 'c2', trace_id: 't2', extra: [1] }], note: 'kept' };
const kinds = [undefined, null, '', 'x', 0, 1.5, true, [], {}, [{}], { id: 1 }];

describe('api/calls: the fast upsert answer check agrees with the UpsertBatchResponse schema', () => {
  agreesWithSchema('answer', isUpsertBatchResponse, UpsertBatchResponse, answer, { seed: 0x5e7a, runs: 400, others: kinds });

  it('on every kind of value at the top and as a result', () => {
    for (const v of kinds) {
      assert.equal(isUpsertBatchResponse(v), UpsertBatchResponse.safeParse(v).success, `answer = ${JSON.stringify(v)}`);
      const item = { res: [answer.res[0], v] };
      assert.equal(isUpsertBatchResponse(item), UpsertBatchResponse.safeParse(item).success, `res[1] = ${JSON.stringify(v)}`);
    }
  });
});
