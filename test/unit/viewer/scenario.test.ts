// A scenario followed across the steps of a run (issue 31, item 4). The run is test/fixtures/art/run.ts:
// 40 train + 20 val step files (Parquet by DuckDB, steps 1 and 2 as JSONL by Python's json); what
// each table should hold is computed here from the fixture's own rules (rewardOf, answerAt,
// changeStep), never from the code under test.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { answerAt, changeStep, questionOf, rewardOf, scenarioId, writeArtRun, writtenQuestion, type WrittenRun } from '../../fixtures/art/run';
import { MAX_ANSWER, normaliseText, resolveRun, scenarioHistory } from '../../../src/viewer/scenario';

describe('A scenario across steps (scenarioHistory)', function () {
  this.timeout(120_000);
  let dir: string;
  let run: WrittenRun;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scenario-'));
    run = await writeArtRun(dir, { splits: { train: 40, val: 20 }, jsonlSteps: [1, 2] });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lines up scenario_id at every train step: rewards, final answers and the first step whose answer changed', async () => {
    const h = await scenarioHistory({ run: run.modelDir, scenario: scenarioId(2) });
    assert.equal(h.split, 'train');
    assert.equal(h.key, 'scenario_id');
    assert.equal(h.read, 40);
    assert.deepEqual(
      h.steps.map((s) => s.step),
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    for (const s of h.steps) {
      assert.equal(s.error, undefined, `step ${s.step}: ${s.error}`);
      assert.deepEqual(
        s.rollouts.map((r) => r.reward),
        [0, 1, 2].map((t) => rewardOf('train', 2, s.step, t)),
        `rewards of step ${s.step}`,
      );
      assert.deepEqual(
        s.rollouts.map((r) => r.answer),
        [0, 1, 2].map(() => answerAt(2, s.step)),
      );
      assert.deepEqual(
        s.rollouts.map((r) => [r.group, r.trajectory]),
        [
          [2, 0],
          [2, 1],
          [2, 2],
        ],
      );
    }
    assert.equal(h.firstChange, changeStep(2));
    assert.deepEqual(
      h.steps.filter((s) => s.changed).map((s) => s.step),
      [changeStep(2)],
    );
    assert.deepEqual(h.matchedBy, { key: 120, firstMessage: 0 });
  });

  it('finds a scenario without metadata by its first user message, whatever its case and spaces', async () => {
    assert.notEqual(writtenQuestion(5, 3), writtenQuestion(5, 4));
    const h = await scenarioHistory({ run: run.history, scenario: `  ${questionOf(5).toUpperCase()}` });
    assert.equal(h.steps.length, 40);
    assert.deepEqual(h.matchedBy, { key: 0, firstMessage: 120 });
    assert.equal(h.firstChange, changeStep(5));
    assert.equal(h.steps[0]!.rollouts[0]!.answer, answerAt(5, 1));
  });

  it('takes another metadata key, and the split of a step file given as the run', async () => {
    const val = run.files.val![4]!.path;
    const h = await scenarioHistory({ run: val, scenario: 'task-3', key: 'task' });
    assert.equal(h.split, 'val');
    assert.equal(h.steps.length, 20);
    assert.deepEqual(
      h.steps[6]!.rollouts.map((r) => r.reward),
      [0, 1, 2].map((t) => rewardOf('val', 3, 7, t)),
    );
    assert.equal(h.firstChange, changeStep(3));
  });

  it('an unknown scenario is found nowhere, and the answer says which ones exist', async () => {
    const h = await scenarioHistory({ run: run.modelDir, scenario: 'nope', maxFiles: 3 });
    assert.equal(h.steps.length, 0);
    assert.ok(h.known?.includes(scenarioId(0)), JSON.stringify(h.known));
    assert.ok(h.known?.includes(normaliseText(questionOf(5))), JSON.stringify(h.known));
    assert.deepEqual(h.cut, { left: 37, why: 'only the newest 3 step files are read' });
  });

  it('a malformed step file in the middle is a step with its error; the others are read', async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scenario-bad-'));
    try {
      const small = await writeArtRun(copy, { splits: { train: 5 }, jsonlSteps: [2] });
      fs.writeFileSync(small.files.train![2]!.path, 'PAR1 this is not a parquet file');
      fs.writeFileSync(small.files.train![1]!.path, '{"trajectories": [\n');
      const h = await scenarioHistory({ run: small.modelDir, scenario: scenarioId(1) });
      assert.deepEqual(
        h.steps.map((s) => [s.step, s.error === undefined]),
        [
          [1, true],
          [2, false],
          [3, false],
          [4, true],
          [5, true],
        ],
      );
      assert.match(h.steps[1]!.error!, /0002\.jsonl:1:/);
      assert.equal(h.steps[3]!.rollouts.length, 3);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('cuts a long answer to MAX_ANSWER characters and says so; a path outside a run is refused by name', async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scenario-long-'));
    try {
      const small = await writeArtRun(copy, { splits: { train: 2 }, scenarios: 2 });
      const file = path.join(small.modelDir, 'trajectories', 'train', '0003.jsonl');
      const long = 'é'.repeat(MAX_ANSWER + 50);
      const group = { trajectories: [{ messages_and_choices: [{ role: 'user', content: 'q' }, { role: 'assistant', content: long }], reward: 1, metadata: { scenario_id: scenarioId(0) } }] };
      fs.writeFileSync(file, JSON.stringify(group) + '\n');
      const h = await scenarioHistory({ run: small.modelDir, scenario: scenarioId(0) });
      const last = h.steps.at(-1)!;
      assert.equal(last.step, 3);
      assert.equal(last.rollouts[0]!.answer.length, MAX_ANSWER);
      assert.equal(last.rollouts[0]!.cut, true);
      assert.throws(() => resolveRun(copy), /is not an ART run/);
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('A scenario across steps: the key is an own metadata key', () => {
  it('"__proto__" or "constructor" as the key finds nothing by the key (every trajectory falls back to its first message)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scenario-proto-'));
    try {
      const run = await writeArtRun(dir, { splits: { train: 2 }, jsonlSteps: [1, 2], scenarios: 2 });
      for (const key of ['__proto__', 'constructor']) {
        const h = await scenarioHistory({ run: run.modelDir, scenario: '{}', key });
        assert.equal(h.steps.length, 0, key);
        assert.deepEqual(h.matchedBy, { key: 0, firstMessage: 0 });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
