import assert from 'node:assert/strict';
import { smoothEma } from '../../../src/dashboard/shared/smooth';
import { pollDelayMs } from '../../../src/dashboard/shared/poll';
import { DEFAULT_UI, FromWebview, ToWebview } from '../../../src/dashboard/shared/protocol';
import { parseMessage } from '../../../src/webview/protocol';

describe('dashboard/protocol: messages checked at both ends', () => {
  it('accepts well-formed messages in both directions', () => {
    const data = { type: 'data', columns: { ids: ['a'], steps: [1], metrics: { m: [0.5] } }, done: true, fresh: false };
    assert.ok(parseMessage(ToWebview, data).ok);
    assert.ok(parseMessage(ToWebview, { type: 'init', modelId: 'm', ui: DEFAULT_UI, best: { metric: 'val/reward', direction: 'max' } }).ok);
    assert.ok(parseMessage(FromWebview, { type: 'copy', what: 'step', checkpointId: 'a' }).ok);
    assert.ok(parseMessage(FromWebview, { type: 'rendered', count: 1, charts: 1, ms: 3.5, selected: [] }).ok);
  });

  it('takes columns as Float64Arrays (NaN where missing) or plain arrays, and refuses infinities, fractional steps and other typed arrays', () => {
    const data = (columns: object) => parseMessage(ToWebview, { type: 'data', columns, done: true, fresh: false });
    assert.ok(data({ ids: ['a', 'b'], steps: new Float64Array([1, 2]), metrics: { m: new Float64Array([0.5, NaN]) } }).ok);
    assert.ok(data({ ids: ['a', 'b'], steps: [1, 2], metrics: { m: [0.5, null] } }).ok);
    assert.equal(data({ ids: ['a', 'b'], steps: new Float64Array([1, 2]), metrics: { m: new Float64Array([0.5, Infinity]) } }).ok, false);
    assert.equal(data({ ids: ['a'], steps: new Float64Array([1.5]), metrics: {} }).ok, false);
    assert.equal(data({ ids: ['a'], steps: new Float64Array([1]), metrics: { m: new Float32Array([1]) } }).ok, false);
    assert.equal(data({ ids: ['a'], steps: [1], metrics: { m: [NaN] } }).ok, false);
    const short = data({ ids: ['a', 'b'], steps: new Float64Array([1, 2]), metrics: { m: new Float64Array([1]) } });
    assert.match((short as { error: string }).error, /one value per checkpoint/);
  });

  it('refuses columns of different lengths, unknown types and out-of-range settings, naming the place', () => {
    const bad = parseMessage(ToWebview, { type: 'data', columns: { ids: ['a', 'b'], steps: [1], metrics: {} }, done: true, fresh: false });
    assert.equal(bad.ok, false);
    assert.match((bad as { error: string }).error, /one value per checkpoint/);
    assert.equal(parseMessage(FromWebview, { type: 'eval', code: '1' }).ok, false);
    const ui = parseMessage(FromWebview, { type: 'ui', ui: { ...DEFAULT_UI, smoothing: 5 } });
    assert.equal(ui.ok, false);
    assert.match((ui as { error: string }).error, /^message "ui" refused at ui\.smoothing/);
    assert.equal(parseMessage(FromWebview, { type: 'ui', ui: { ...DEFAULT_UI, selected: ['a', 'b', 'c'] } }).ok, false);
    assert.equal(parseMessage(FromWebview, null).ok, false);
  });

  it('carries the reward distribution: steps in (finite numbers, capped sketch), a reward band and the drawn bins out; refuses the rest', () => {
    const step = { step: 3, file: '0003.parquet', groups: 2, trajectories: 4, rewards: 4, mean: 0.5, quantiles: [0, 0, 0.25, 0.5, 0.75, 1, 1], sketch: [0, 0.5, 0.5, 1] };
    assert.ok(parseMessage(ToWebview, { type: 'distribution', split: 'train', steps: [step], done: false }).ok);
    assert.ok(parseMessage(ToWebview, { type: 'distribution', split: 'val', steps: [{ ...step, mean: null, quantiles: [], sketch: [], error: 'line 1 is not JSON' }], done: true }).ok);
    assert.equal(parseMessage(ToWebview, { type: 'distribution', split: 'train', steps: [{ ...step, mean: Infinity }], done: true }).ok, false);
    assert.equal(parseMessage(ToWebview, { type: 'distribution', split: 'train', steps: [{ ...step, sketch: new Array(257).fill(0) }], done: true }).ok, false);
    assert.equal(parseMessage(ToWebview, { type: 'distribution', split: '', steps: [], done: true }).ok, false);
    assert.ok(parseMessage(FromWebview, { type: 'openStep', step: 3, split: 'train', reward: { min: 0.25, max: 0.3 } }).ok);
    assert.equal(parseMessage(FromWebview, { type: 'openStep', step: 3, split: 'train', reward: { min: '0' } }).ok, false);
    assert.ok(parseMessage(FromWebview, { type: 'distributionRendered', splits: [{ split: 'train', lo: 0, hi: 1, steps: [3], bins: [[1, 2, 1]], errors: 0, done: true }] }).ok);
    // Without `done` the bench and the tests could not tell a split drawn whole from one still read.
    assert.equal(parseMessage(FromWebview, { type: 'distributionRendered', splits: [{ split: 'train', lo: 0, hi: 1, steps: [3], bins: [[1, 2, 1]], errors: 0 }] }).ok, false);
  });

  it('carries a file dashboard: its title and file status in, step-file requests out, and refuses a bad step or split', () => {
    assert.ok(parseMessage(ToWebview, { type: 'init', modelId: 'file:/r/history.jsonl', title: 'agent-7b (history.jsonl)', ui: DEFAULT_UI, best: { direction: 'max' } }).ok);
    const status = { loading: false, count: 50, pollSeconds: 0, file: { name: '.art/demo/models/agent-7b/history.jsonl', watching: true, problems: 1, problem: 'line 7: not JSON', splits: ['train', 'val'] } };
    assert.ok(parseMessage(ToWebview, { type: 'status', status }).ok);
    assert.equal(parseMessage(ToWebview, { type: 'status', status: { ...status, file: { ...status.file, problems: 1.5 } } }).ok, false);
    assert.ok(parseMessage(FromWebview, { type: 'openStep', step: 40, split: 'val' }).ok);
    assert.ok(parseMessage(FromWebview, { type: 'rendered', count: 50, charts: 9, ms: 3, best: '40', latest: '50', selected: [] }).ok);
    assert.equal(parseMessage(FromWebview, { type: 'openStep', step: -1, split: 'val' }).ok, false);
    assert.equal(parseMessage(FromWebview, { type: 'openStep', step: 1.5, split: 'val' }).ok, false);
    assert.equal(parseMessage(FromWebview, { type: 'openStep', step: 1, split: '' }).ok, false);
  });
});

describe('dashboard/smoothing and polling', () => {
  it('smooths with a debiased EMA, skipping missing values, and returns the data as is at 0', () => {
    assert.deepEqual(smoothEma([1, null, 3], 0), [1, null, 3]);
    const out = smoothEma([1, null, 3], 0.5);
    assert.equal(out[0], 1, 'debiased: the first point is itself');
    assert.equal(out[1], null);
    assert.ok(Math.abs(out[2]! - (0.5 * 0.5 + 0.5 * 3) / 0.75) < 1e-12);
  });

  it('polls at the interval, doubles the delay after each failure up to 10 minutes, and not at all at 0', () => {
    assert.equal(pollDelayMs(30, 0), 30_000);
    assert.equal(pollDelayMs(30, 1), 60_000);
    assert.equal(pollDelayMs(30, 3), 240_000);
    assert.equal(pollDelayMs(30, 8), 600_000);
    assert.equal(pollDelayMs(900, 2), 900_000, 'an interval above the cap is kept');
    assert.equal(pollDelayMs(0, 0), undefined);
  });
});
