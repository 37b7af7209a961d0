import assert from 'node:assert/strict';
import { ThreadRow } from '../../../src/api/schemas';
import { isThreadRow } from '../../../src/api/threads';
import { agreesWithSchema } from './agreement';

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
  agreesWithSchema('row', isThreadRow, ThreadRow, row, { seed: 0x7e4d, runs: 300, others: [undefined, null, '', 'x', 0, 1.5, -1, 2 ** 60, true, [], {}] });

  it('refuses what is not a row object', () => {
    for (const v of [null, [], 'row', 1]) assert.equal(isThreadRow(v), false);
  });
});
