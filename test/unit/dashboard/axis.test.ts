// The y axis of a flat metric (issue 31, item 6): an exception rate that stayed 0 next to a reward std
// of 0–0.1 used to get uPlot's 0–100.
import * as assert from 'assert';
import { extentOf, flatAxis } from '../../../src/dashboard/shared/axis';

describe('dashboard: the axis of a flat metric', () => {
  it("takes its group's scale when a sibling varies", () => {
    assert.deepStrictEqual(flatAxis(0, [[0.02, 0.1], [0, 0]]), [0, 0.1]);
    assert.deepStrictEqual(flatAxis(0.5, [[0.02, 0.1]]), [0.02, 0.5]);
  });
  it('is 0–1 for a zero without a varying sibling, and 0 to twice the value otherwise', () => {
    assert.deepStrictEqual(flatAxis(0, []), [0, 1]);
    assert.deepStrictEqual(flatAxis(0, [[0, 0]]), [0, 1]);
    assert.deepStrictEqual(flatAxis(3e-5, []), [0, 6e-5]);
    assert.deepStrictEqual(flatAxis(-2, []), [-4, 0]);
  });
  it('reads the extent of finite values only', () => {
    assert.deepStrictEqual(extentOf([null, 0.3, Infinity, 0.1, undefined]), [0.1, 0.3]);
    assert.strictEqual(extentOf([null]), undefined);
  });
});
