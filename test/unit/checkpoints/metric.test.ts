import assert from 'node:assert/strict';
import { countDescription, metricDescription, metricNames, pickMetric } from '../../../src/checkpoints/metric';

describe('checkpoints/metric: the metric a checkpoint row shows', () => {
  const run = [
    { metrics: { 'loss/train': 0.9, 'train/reward': 0.41234567 } },
    { metrics: { 'loss/train': 0.8, 'train/reward': 0.5, 'val/reward': 0.61 } },
  ];

  it('lists metric names in the order they first appear', () => {
    assert.deepEqual(metricNames(run), ['loss/train', 'train/reward', 'val/reward']);
    assert.deepEqual(metricNames([]), []);
  });

  it('picks the setting when set, else the first name containing "reward" (any case), else the first name', () => {
    assert.equal(pickMetric('val/reward', metricNames(run)), 'val/reward');
    assert.equal(pickMetric('  loss/train ', metricNames(run)), 'loss/train');
    assert.equal(pickMetric('', metricNames(run)), 'train/reward');
    assert.equal(pickMetric('', ['loss', 'Episode_Reward_Mean', 'reward']), 'Episode_Reward_Mean');
    assert.equal(pickMetric('', ['loss', 'accuracy']), 'loss');
    assert.equal(pickMetric('', []), undefined);
    assert.equal(pickMetric('not/there', ['loss']), 'not/there', "the user's pick stands even where a model lacks it");
  });

  it('describes a row with the value rounded for people, and says when the checkpoint lacks the metric', () => {
    assert.equal(metricDescription('train/reward', run[0]!.metrics), 'train/reward 0.4123');
    assert.equal(metricDescription('val/reward', run[0]!.metrics), 'val/reward —');
    assert.equal(metricDescription('loss', { loss: 3 }), 'loss 3');
    assert.equal(metricDescription('loss', { loss: 1234567.891 }), 'loss 1.235e+6');
    assert.equal(metricDescription(undefined, {}), '');
  });

  it('counts a model\'s checkpoints, with "+" while more pages remain, and says when there are none yet', () => {
    assert.equal(countDescription(0, false), 'no checkpoints yet');
    assert.equal(countDescription(1, false), '1 checkpoint');
    assert.equal(countDescription(20, true), '20+ checkpoints');
    assert.equal(countDescription(45, false), '45 checkpoints');
  });
});
