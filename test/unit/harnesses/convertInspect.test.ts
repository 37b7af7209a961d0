// Convert to ART Trajectories on an Inspect AI `.eval` log (issue 32, item 3): the command's
// dispatcher (src/harnesses/convert.ts) finds the log's format and writes what
// src/files/inspectArt.ts makes of it, checked by the upload's own validator. The log is the
// demo's, written by Python's zipfile and the zstd tool (test/fixtures/inspect/write_eval.py).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { convertToArt, detectHarness, readConverted } from '../../../src/harnesses/convert';
import { validateTrajectoryFile } from '../../../src/files';

const DEMO = path.join(__dirname, '..', '..', 'fixtures', 'inspect', 'demo.eval');

describe('harnesses/convert: an Inspect .eval log', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-convert-eval-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is detected as an Inspect log, not as ATIF', async () => {
    assert.equal((await detectHarness(DEMO))?.id, 'inspect');
  });

  it('writes one group per sample (its epochs as trajectories) that the upload validates clean, naming the reward score', async () => {
    const output = path.join(dir, 'arith.art.jsonl');
    const report = await convertToArt({ source: DEMO, output });
    assert.equal(report.format, 'Inspect AI log (.eval)');
    assert.ok(report.scores.length > 0, 'the log has scores');
    assert.equal(report.reward, report.scores[0], 'the first score is the reward by default');
    const groups = (await readConverted(output)) as { trajectories: { reward?: unknown }[]; exceptions?: unknown[]; metadata: { sample_id?: string } }[];
    assert.equal(groups.length, report.groups);
    assert.equal(new Set(groups.map((g) => g.metadata.sample_id)).size, groups.length, 'one group per sample');
    for (const g of groups) for (const t of g.trajectories) assert.equal(typeof t.reward, 'number');
    assert.ok(groups.some((g) => g.exceptions?.length), 'the sample that ended in an error is its group\'s exception');
    const summary = await validateTrajectoryFile(output);
    assert.deepEqual(summary.problems.filter((p) => p.severity === 'error'), []);
  });

  it('refuses a score the log does not have, naming the scores it has, and writes nothing', async () => {
    const output = path.join(dir, 'x.jsonl');
    await assert.rejects(convertToArt({ source: DEMO, output, reward: 'nope' }), /no score "nope"; its scores: /);
    assert.ok(!fs.existsSync(output));
  });
});
