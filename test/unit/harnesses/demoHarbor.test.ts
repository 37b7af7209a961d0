// The demo workspace's Harbor job (scripts/demo-harbor.js): it reads as 4 trials of 2 tasks with
// their rewards and a subagent, and converts to an ART file the upload's validator accepts, with
// the trainable turns ART needs (token ids and logprobs).
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atifViewerGroups, convertToArt } from '../../../src/harnesses/convert';
import { validateTrajectoryFile } from '../../../src/files';
import { groupVerdict } from '../../../src/files/verdicts';

const { writeHarborDemo } = require('../../../scripts/demo-harbor.js') as { writeHarborDemo: (dir: string) => string };

type Obj = Record<string, any>;

describe('demo workspace: the Harbor job', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-harbor-'));
  let job: string;
  before(() => (job = path.join(dir, writeHarborDemo(dir))));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens as one group of 4 trials with their rewards, and the subagent as a group of its own', async () => {
    const groups = (await atifViewerGroups(job, true)) as Obj[];
    assert.deepStrictEqual(groups.map((g) => g.trajectories.length), [4, 1]);
    assert.deepStrictEqual(groups[0]!.trajectories.map((t: Obj) => t.reward), [1, undefined, 1, 0], 'count-errors (one raised), then fix-build');
  });

  it('converts to ART groups per task that the upload accepts, and ART trains on the task whose trials differ', async () => {
    const output = path.join(dir, 'job.art.jsonl');
    const r = await convertToArt({ source: job, output });
    assert.deepStrictEqual([r.groups, r.trajectories, r.reward], [2, 3, 'reward']);
    const summary = await validateTrajectoryFile(output);
    assert.deepStrictEqual(summary.problems, []);
    const groups = fs.readFileSync(output, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Obj);
    const verdicts = groups.map((g) => groupVerdict(g));
    // count-errors: one trajectory (the other raised: the group's exception), a group of one;
    // fix-build: rewards 1 and 0, every agent turn with token ids and logprobs: both train.
    assert.deepStrictEqual(verdicts.map((v) => [v.trajectories, v.exceptions, v.training]), [[1, 1, 0], [2, 0, 2]]);
  });
});
