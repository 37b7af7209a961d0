import * as assert from 'assert';
import { columnFormat, columnFormatter, scrollAfterSort } from '../../../src/dashboard/shared/columnFormat';

describe('dashboard table: one number format per column', () => {
  it('uses fixed decimals for a whole column when every |value| is in [1e-3, 1e6), enough for four significant digits of the smallest', () => {
    const f = columnFormatter([0.0033, 0.25, 1.5, null]);
    assert.deepStrictEqual([0.0033, 0.25, 1.5].map(f), ['0.003300', '0.250000', '1.500000']);
    assert.deepStrictEqual(columnFormat([0.25, 0.5]), { kind: 'fixed', decimals: 4 });
    assert.deepStrictEqual(columnFormat([12.5, 300.25]), { kind: 'fixed', decimals: 2 });
  });

  it('uses exponent notation for every value when one is below 1e-3 (never 1.000e-4 next to 0.0033)', () => {
    const f = columnFormatter([0.0001, 0.0033, 0]);
    assert.deepStrictEqual([0.0001, 0.0033, 0].map(f), ['1.000e-4', '3.300e-3', '0.000e+0']);
  });

  it('uses exponent notation when one value reaches 1e6, and no decimals for a column of integers', () => {
    assert.deepStrictEqual(columnFormat([5, 2_000_000]), { kind: 'exponent', digits: 3 });
    assert.deepStrictEqual(columnFormatter([3, 128, 0])(128), '128');
  });

  it('leaves missing values empty', () => {
    assert.strictEqual(columnFormatter([1.5])(null), '');
  });
});

describe('dashboard table: scroll after a sort', () => {
  it('goes to the top without a selection', () => {
    assert.strictEqual(scrollAfterSort(undefined, 26, 260, 5000), 0);
  });
  it('keeps the scroll when the selected row is still in view, else centres it', () => {
    assert.strictEqual(scrollAfterSort(5, 26, 260, 0), 0);
    assert.strictEqual(scrollAfterSort(100, 26, 260, 0), 100 * 26 - (260 - 26) / 2);
  });
});
