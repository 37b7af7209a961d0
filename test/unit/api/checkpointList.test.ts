import { isCheckpointList } from '../../../src/api/models';
import { CheckpointList } from '../../../src/api/schemas';
import { agreesWithSchema } from './agreement';

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
  agreesWithSchema('page', isCheckpointList, CheckpointList, page, { seed: 0xc4e7, runs: 400, others: [undefined, null, '', 'x', 0, 1.5, true, [], {}] });
});
