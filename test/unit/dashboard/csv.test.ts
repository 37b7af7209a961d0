import assert from 'node:assert/strict';
import { csvField, toCsv } from '../../../src/dashboard/shared/csv';
import { CheckpointSeries } from '../../../src/dashboard/shared/series';

describe('dashboard/csv', () => {
  it('quotes fields with commas, quotes, line breaks or edge spaces, doubling quotes', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\nlines'), '"two\nlines"');
    assert.equal(csvField('cr\r'), '"cr\r"');
    assert.equal(csvField(' padded'), '" padded"');
  });

  it('defuses text a spreadsheet would run as a formula, but writes negative numbers as numbers', () => {
    assert.equal(csvField('=HYPERLINK("http://x")'), `"'=HYPERLINK(""http://x"")"`);
    assert.equal(csvField('+1'), "'+1");
    assert.equal(csvField('-x'), "'-x");
    assert.equal(csvField('@sum'), "'@sum");
    assert.equal(csvField(-0.25), '-0.25');
    assert.equal(csvField(1e-7), '1e-7');
  });

  it('leaves missing values empty', () => {
    assert.equal(csvField(null), '');
    assert.equal(csvField(undefined), '');
    assert.equal(csvField(Number.NaN), '');
  });

  it('writes id, step and every metric in group order, one CRLF line per checkpoint in step order', () => {
    const s = new CheckpointSeries();
    s.merge([
      { id: 'b', step: 20, metrics: { 'loss/train': 1.5, 'val/reward': 0.8, 'odd,name': 1 } },
      { id: 'a', step: 10, metrics: { 'loss/train': 2, 'val/reward': null } },
    ]);
    assert.equal(toCsv(s), 'id,step,val/reward,loss/train,"odd,name"\r\na,10,,2,\r\nb,20,0.8,1.5,1\r\n');
  });
});
