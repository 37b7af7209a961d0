import * as assert from 'assert';
import { alignByStep, compareCellTexts, compareTable, stepRange, summarize } from '../../../src/dashboard/shared/compare';
import { CompareState, FromCompare, ToCompare } from '../../../src/dashboard/shared/compareProtocol';
import { parseMessage } from '../../../src/webview/protocol';
import { CheckpointSeries, rowsFromCheckpoints } from '../../../src/dashboard/shared/series';

function run(points: [number, Record<string, number>][], prefix = 'r'): CheckpointSeries {
  const s = new CheckpointSeries();
  s.merge(rowsFromCheckpoints(points.map(([step, metrics], i) => ({ id: `${prefix}${i}`, step, metrics }))));
  return s;
}

describe('Compare Runs: alignment by step', () => {
  it('puts every run on the union of their steps, null where a run has no value', () => {
    const a = run([[0, { x: 1 }], [10, { x: 2 }], [20, { x: 3 }]]);
    const b = run([[5, { x: 9 }], [10, { x: 8 }], [30, { x: 7 }]]);
    assert.deepStrictEqual(alignByStep([a, b], 'x'), {
      steps: [0, 5, 10, 20, 30],
      values: [
        [1, null, 2, 3, null],
        [null, 9, 8, null, 7],
      ],
    });
  });

  it('leaves out steps where no run has the metric, and gives a run without it all nulls', () => {
    const a = run([[0, { x: 1 }], [10, { y: 2 }]]);
    const b = run([[10, { y: 3 }]]);
    assert.deepStrictEqual(alignByStep([a, b], 'x'), { steps: [0], values: [[1], [null]] });
  });
});

describe('Compare Runs: best and latest per run', () => {
  it('takes the best by direction (the earliest step on a tie) and the value at the last step that has one', () => {
    const s = run([[1, { r: 0.5 }], [2, { r: 0.9 }], [3, { r: 0.9 }], [4, { r: 0.2 }], [5, { other: 1 }]]);
    assert.deepStrictEqual(summarize(s, 'r', 'max'), { best: { step: 2, value: 0.9 }, latest: { step: 4, value: 0.2 } });
    assert.deepStrictEqual(summarize(s, 'r', 'min'), { best: { step: 4, value: 0.2 }, latest: { step: 4, value: 0.2 } });
    assert.deepStrictEqual(summarize(s, 'missing', 'max'), {});
  });

  it('lists every metric in the dashboard order, with the dashboard\'s direction and the leading run', () => {
    const a = run([[1, { 'val/reward': 0.5, 'loss/train': 0.4 }], [2, { 'val/reward': 0.6, 'loss/train': 0.3 }]]);
    const b = run([[1, { 'val/reward': 0.7, 'loss/train': 0.5, 'other': 1 }]]);
    const rows = compareTable([a, b]);
    assert.deepStrictEqual(rows.map((r) => [r.metric, r.direction, r.leader]), [
      ['val/reward', 'max', 1],
      ['loss/train', 'min', 0],
      ['other', 'max', undefined],
    ]);
    assert.deepStrictEqual(rows[0]!.runs[0], { best: { step: 2, value: 0.6 }, latest: { step: 2, value: 0.6 } });
    assert.deepStrictEqual(rows[2]!.runs[0], {}, 'a run without the metric has no values');
  });

  it('names no leader on a tie', () => {
    const rows = compareTable([run([[1, { 'val/reward': 0.5 }]]), run([[3, { 'val/reward': 0.5 }]])]);
    assert.strictEqual(rows[0]!.leader, undefined);
  });
});

describe('Compare Runs: messages', () => {
  it('refuses an init with one run and data for a run index out of range', () => {
    assert.ok(!parseMessage(ToCompare, { type: 'init', runs: [{ label: 'a', kind: 'model' }] }).ok);
    const state = { runs: [{ modelId: 'a' }, { file: '/r/b/history.jsonl' }] };
    assert.ok(parseMessage(ToCompare, { type: 'init', runs: [{ label: 'a', kind: 'model' }, { label: 'b', kind: 'file' }], state }).ok);
    // What the webview keeps for a window reload: two or more runs, each a model id or a file.
    assert.ok(!parseMessage(ToCompare, { type: 'init', runs: [{ label: 'a', kind: 'model' }, { label: 'b', kind: 'file' }] }).ok, 'the state is required');
    assert.ok(!CompareState.safeParse({ runs: [{ modelId: 'a' }] }).success);
    assert.ok(!CompareState.safeParse({ runs: [{ modelId: 'a' }, { path: 'x' }] }).success);
    assert.ok(!parseMessage(ToCompare, { type: 'data', run: 99, columns: { ids: [], steps: [], metrics: {} }, done: true }).ok);
    assert.ok(!parseMessage(FromCompare, { type: 'rendered', counts: [1], charts: 1, lines: {}, table: [{ metric: 'x', direction: 'up', runs: [] }] }).ok);
  });
});

describe('Compare Runs: one number format per metric across the runs (issue 31, item 6)', () => {
  it('a reward reads the same way in every run, whatever small loss another row of a run has', () => {
    // Run b logged a tiny learning rate; run a did not. Per run column (the old table), run b's
    // reward turned exponent ("8.584e-1") next to run a's "0.86130".
    const a = run([[1, { 'val/reward': 0.8613, 'loss/train': 0.0123 }], [2, { 'val/reward': 0.85, 'loss/train': 0.011 }]], 'a');
    const b = run([[1, { 'val/reward': 0.8584, 'loss/train': 0.02, lr: 0.00001 }]], 'b');
    const rows = compareTable([a, b]);
    const texts = compareCellTexts(rows);
    const reward = texts[rows.findIndex((r) => r.metric === 'val/reward')]!;
    assert.deepStrictEqual(reward, [
      { best: '0.8613 (1)', latest: '0.8500 (2)' },
      { best: '0.8584 (1)', latest: '0.8584 (1)' },
    ]);
    const loss = texts[rows.findIndex((r) => r.metric === 'loss/train')]!;
    assert.deepStrictEqual(loss, [
      { best: '0.01100 (2)', latest: '0.01100 (2)' },
      { best: '0.02000 (1)', latest: '0.02000 (1)' },
    ]);
    const lr = texts[rows.findIndex((r) => r.metric === 'lr')]!;
    assert.deepStrictEqual(lr, [
      { best: '', latest: '' },
      { best: '1.000e-5 (1)', latest: '1.000e-5 (1)' },
    ]);
  });
});

describe('Compare Runs: one step range for every chart of a comparison (issue 31, item 6)', () => {
  it('is the first and last step of any run, whichever metric a run logged there', () => {
    const a = run([[10, { 'val/reward': 0.1 }], [50, { 'val/reward': 0.2 }], [300, { 'train/reward': 0.3 }]], 'a');
    const b = run([[0, { 'train/reward': 0.1 }], [40, { 'val/reward': 0.2 }]], 'b');
    assert.deepStrictEqual(stepRange([a, b]), [0, 300]);
    // Each chart's own steps differ (what the charts used to scale to):
    assert.deepStrictEqual(alignByStep([a, b], 'val/reward').steps, [10, 40, 50]);
    assert.deepStrictEqual(stepRange([run([[7, { x: 1 }]])]), [6, 8]);
    assert.strictEqual(stepRange([new CheckpointSeries()]), undefined);
  });
});
