import assert from 'node:assert/strict';
import { bestRow, defaultBestMetric, defaultCharts, diffRows, groupMetrics, guessDirection, knownDirection, orderPair } from '../../../src/dashboard/shared/metrics';
import { CheckpointSeries } from '../../../src/dashboard/shared/series';

function series(rows: [string, number, Record<string, number | null>][]): CheckpointSeries {
  const s = new CheckpointSeries();
  s.merge(rows.map(([id, step, metrics]) => ({ id, step, metrics })));
  return s;
}

describe('dashboard/metrics', () => {
  describe('grouping by the prefix before "/"', () => {
    it('orders train/, val/, loss/, data/, time/, then other prefixes, then names without one; the main metrics first within a group', () => {
      const groups = groupMetrics(['zeta', 'time/step_wall_s', 'loss/train', 'custom/x', 'val/reward', 'train/zz_custom', 'train/reward', 'train/a_custom', 'train/exception_rate', 'data/step_num_trajectories', 'accuracy', 'loss/kl_div', 'alpha/y']);
      assert.deepEqual(
        groups.map((g) => [g.label, g.metrics]),
        [
          ['train/', ['train/reward', 'train/exception_rate', 'train/a_custom', 'train/zz_custom']],
          ['val/', ['val/reward']],
          ['loss/', ['loss/train', 'loss/kl_div']],
          ['data/', ['data/step_num_trajectories']],
          ['time/', ['time/step_wall_s']],
          ['alpha/', ['alpha/y']],
          ['custom/', ['custom/x']],
          ['other', ['accuracy', 'zeta']],
        ],
      );
    });

    it('treats a leading slash as no prefix and splits at the first slash only', () => {
      const groups = groupMetrics(['/odd', 'train/a/b']);
      assert.deepEqual(groups.map((g) => [g.group, g.metrics]), [['train', ['train/a/b']], ['', ['/odd']]]);
    });
  });

  describe('the default metric of the best checkpoint', () => {
    it('is val/reward when it exists', () => {
      assert.equal(defaultBestMetric(['train/reward', 'loss/train', 'val/reward']), 'val/reward');
    });
    it('is otherwise the first reward-like metric, not its spread', () => {
      assert.equal(defaultBestMetric(['train/reward_std_dev', 'loss/train', 'train/reward']), 'train/reward');
      assert.equal(defaultBestMetric(['loss', 'reward', 'accuracy']), 'reward');
      assert.equal(defaultBestMetric(['train/reward_std_dev', 'eval/mean_reward']), 'eval/mean_reward');
    });
    it('is none without a reward-like metric', () => {
      assert.equal(defaultBestMetric(['loss/train', 'accuracy']), undefined);
    });
  });

  it('guesses that losses, KL and times go down and rewards go up', () => {
    assert.equal(guessDirection('loss/train'), 'min');
    assert.equal(guessDirection('loss/kl_div'), 'min');
    assert.equal(guessDirection('time/step_wall_s'), 'min');
    assert.equal(guessDirection('train/exception_rate'), 'min');
    assert.equal(guessDirection('val/reward'), 'max');
  });

  it('colours a Δ only where the name says which way is better', () => {
    assert.equal(knownDirection('val/reward'), 'max');
    assert.equal(knownDirection('loss/train'), 'min');
    assert.equal(knownDirection('loss/kl_div'), 'min');
    assert.equal(knownDirection('time/step_wall_s'), 'min');
    assert.equal(knownDirection('loss/learning_rate'), undefined);
    assert.equal(knownDirection('train/reward_std_dev'), undefined);
    assert.equal(knownDirection('data/step_num_trajectories'), undefined);
  });

  it('charts the train/, val/ and loss/ metrics until the user picks, at most 12', () => {
    assert.deepEqual(defaultCharts(['time/step_wall_s', 'val/reward', 'loss/train', 'data/n', 'train/reward']), ['train/reward', 'val/reward', 'loss/train']);
    assert.deepEqual(defaultCharts(['b', 'a']), ['a', 'b']);
    assert.equal(defaultCharts(Array.from({ length: 30 }, (_, i) => `train/m${String(i).padStart(2, '0')}`)).length, 12);
  });

  it("charts the share of groups that would train by default, beside the core metrics and within the 12", () => {
    const names = ['trainable/groups', 'trainable/group_share', 'val/reward', 'train/reward', 'data/n'];
    assert.deepEqual(defaultCharts(names), ['train/reward', 'val/reward', 'trainable/group_share']);
    const many = [...Array.from({ length: 30 }, (_, i) => `train/m${String(i).padStart(2, '0')}`), 'trainable/group_share'];
    assert.equal(defaultCharts(many).length, 12);
    assert.equal(defaultCharts(many).at(-1), 'trainable/group_share');
    assert.deepEqual(defaultCharts(['trainable/group_share', 'a']), ['a', 'trainable/group_share']);
  });

  describe('the best checkpoint', () => {
    const s = series([
      ['a', 10, { r: 0.5, l: 2 }],
      ['b', 20, { r: 0.9, l: 1 }],
      ['c', 30, { r: 0.9, l: 1 }],
      ['d', 40, { r: null, l: 3 }],
      ['e', 50, { r: 0.7 }],
    ]);
    it('maximises or minimises the chosen metric', () => {
      assert.equal(s.ids[bestRow(s, 'r', 'max')!], 'b');
      assert.equal(s.ids[bestRow(s, 'r', 'min')!], 'a');
      assert.equal(s.ids[bestRow(s, 'l', 'max')!], 'd');
    });
    it('picks the earliest step on a tie', () => {
      assert.equal(s.ids[bestRow(s, 'l', 'min')!], 'b');
      const ties = series([['x', 5, { r: 1 }], ['y', 1, { r: 1 }]]);
      assert.equal(ties.ids[bestRow(ties, 'r', 'max')!], 'y', 'the lower step, whatever the arrival order');
    });
    it('skips checkpoints without the metric, and has none when no checkpoint has it', () => {
      const sparse = series([['a', 1, { r: null }], ['b', 2, { r: -5 }], ['c', 3, {}]]);
      assert.equal(sparse.ids[bestRow(sparse, 'r', 'max')!], 'b');
      assert.equal(bestRow(sparse, 'missing', 'max'), undefined);
      assert.equal(bestRow(series([['a', 1, { r: null }]]), 'r', 'max'), undefined);
      assert.equal(bestRow(new CheckpointSeries(), 'r', 'min'), undefined);
    });
  });

  describe('the diff of two checkpoints', () => {
    const s = series([
      ['a', 10, { 'val/reward': 0.5, 'loss/train': 2, only_a: 1, zero: 0 }],
      ['b', 20, { 'val/reward': 0.8, 'loss/train': 1.5, zero: 3 }],
    ]);
    it('gives value, Δ = later − earlier and % of the earlier, whatever the selection order', () => {
      const [a, b] = orderPair(s, 1, 0);
      assert.deepEqual([a, b], [0, 1]);
      const rows = diffRows(s, a, b);
      const byName = Object.fromEntries(rows.map((r) => [r.metric, r]));
      assert.equal(byName['val/reward']!.a, 0.5);
      assert.equal(byName['val/reward']!.b, 0.8);
      assert.ok(Math.abs(byName['val/reward']!.delta! - 0.3) < 1e-12);
      assert.ok(Math.abs(byName['val/reward']!.percent! - 60) < 1e-9);
      assert.equal(byName['loss/train']!.delta, -0.5);
      assert.equal(byName['loss/train']!.percent, -25);
    });
    it('has no Δ for a metric one side lacks, and no % from zero', () => {
      const byName = Object.fromEntries(diffRows(s, 0, 1).map((r) => [r.metric, r]));
      assert.deepEqual(byName['only_a'], { metric: 'only_a', a: 1, b: null, delta: null, percent: null });
      assert.deepEqual(byName['zero'], { metric: 'zero', a: 0, b: 3, delta: 3, percent: null });
    });
    it('lists metrics in group order', () => {
      assert.deepEqual(diffRows(s, 0, 1).map((r) => r.metric), ['val/reward', 'loss/train', 'only_a', 'zero']);
    });
  });
});
