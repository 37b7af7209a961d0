import assert from 'node:assert/strict';
import { CheckpointSeries, columnsFromCheckpoints, columnsFromWire, columnsToWire, concatColumns, rowsFromCheckpoints, rowsFromColumns, type CheckpointRow, type Columns } from '../../../src/dashboard/shared/series';

const row = (id: string, step: number, metrics: Record<string, number | null> = {}): CheckpointRow => ({ id, step, metrics });

// Metric records are null-prototype ones (metric names are data): compared through structuredClone or a spread.
describe('dashboard/series: the incremental merge of polled pages', () => {
  it('appends pages in step order and keeps one column per metric, null where a checkpoint lacks it', () => {
    const s = new CheckpointSeries();
    const r1 = s.merge([row('a', 10, { 'train/reward': 0.1 }), row('b', 20, { 'train/reward': 0.2, 'val/reward': 0.3 })]);
    assert.deepEqual(r1, { added: 2, updated: 0, inserted: false });
    const r2 = s.merge([row('c', 30, { 'train/reward': 0.4 })]);
    assert.deepEqual(r2, { added: 1, updated: 0, inserted: false });
    assert.deepEqual(s.ids, ['a', 'b', 'c']);
    assert.deepEqual(s.steps, [10, 20, 30]);
    assert.deepEqual(s.columns.get('train/reward'), [0.1, 0.2, 0.4]);
    assert.deepEqual(s.columns.get('val/reward'), [null, 0.3, null]);
  });

  it('ignores a page polled twice (same ids) and counts nothing new', () => {
    const s = new CheckpointSeries();
    const page = [row('a', 10, { m: 1 }), row('b', 20, { m: 2 })];
    s.merge(page);
    assert.deepEqual(s.merge(page), { added: 0, updated: 0, inserted: false });
    assert.equal(s.length, 2);
  });

  it('fills values that arrive later for a known checkpoint (a validation metric computed afterwards)', () => {
    const s = new CheckpointSeries();
    s.merge([row('a', 10, { 'train/reward': 0.1 })]);
    const r = s.merge([row('a', 10, { 'train/reward': 0.1, 'val/reward': 0.5 })]);
    assert.deepEqual(r, { added: 0, updated: 1, inserted: false });
    assert.deepEqual({ ...s.row(0).metrics }, { 'train/reward': 0.1, 'val/reward': 0.5 });
  });

  it('puts a late checkpoint with an earlier step in its place and finds every id afterwards', () => {
    const s = new CheckpointSeries();
    s.merge([row('a', 10, { m: 1 }), row('c', 30, { m: 3 })]);
    const r = s.merge([row('b', 20, { m: 2 }), row('d', 30, { m: 4 })]);
    assert.deepEqual(r, { added: 2, updated: 0, inserted: true });
    assert.deepEqual(s.ids, ['a', 'b', 'c', 'd'], 'equal steps keep arrival order');
    assert.deepEqual(s.columns.get('m'), [1, 2, 3, 4]);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((id) => s.indexOf(id)), [0, 1, 2, 3]);
  });

  it('appends columns as they are when every id is new and the steps follow, and merges row by row otherwise', () => {
    const s = new CheckpointSeries();
    assert.deepEqual(s.mergeColumns({ ids: ['a', 'b'], steps: [1, 2], metrics: { x: [1, null] } }), { added: 2, updated: 0, inserted: false });
    assert.deepEqual(s.mergeColumns({ ids: ['c'], steps: [3], metrics: { y: [5] } }), { added: 1, updated: 0, inserted: false });
    assert.deepEqual(structuredClone(s.slice()), { ids: ['a', 'b', 'c'], steps: [1, 2, 3], metrics: { x: [1, null, null], y: [null, null, 5] } });
    assert.equal(s.indexOf('c'), 2);
    // A repeated id and a late step take the row-by-row path, with the same result as merge().
    assert.deepEqual(s.mergeColumns({ ids: ['c', 'z'], steps: [3, 0], metrics: { y: [6, 7] } }), { added: 1, updated: 1, inserted: true });
    assert.deepEqual(s.ids, ['z', 'a', 'b', 'c']);
    assert.deepEqual(s.columns.get('y'), [7, null, null, 6]);
    assert.deepEqual(s.mergeColumns({ ids: ['d', 'd'], steps: [9, 9], metrics: {} }), { added: 1, updated: 0, inserted: false });
  });

  it('joins column sets, filling a metric one set lacks with nulls', () => {
    const joined = concatColumns([
      { ids: ['a'], steps: [1], metrics: { x: [1] } },
      { ids: ['b', 'c'], steps: [2, 3], metrics: { y: [2, 3] } },
    ]);
    assert.deepEqual(structuredClone(joined), { ids: ['a', 'b', 'c'], steps: [1, 2, 3], metrics: { x: [1, null, null], y: [null, 2, 3] } });
  });

  it('sends joined column sets as Float64Arrays of one buffer (NaN where missing) and reads them back as the join', () => {
    const parts: Columns[] = [
      { ids: ['a'], steps: [1], metrics: { x: [1] } },
      { ids: ['b', 'c'], steps: [2, 3], metrics: { y: [2, null], x: [-0.5, 1e-9] } },
    ];
    const wire = columnsToWire(parts);
    assert.ok(wire.steps instanceof Float64Array);
    assert.ok(Object.values(wire.metrics).every((v) => v instanceof Float64Array && v.buffer === (wire.steps as Float64Array).buffer));
    assert.equal((wire.steps as Float64Array).buffer.byteLength, 3 * 3 * 8);
    assert.deepEqual([...(wire.metrics.y as Float64Array)], [NaN, 2, NaN]);
    assert.deepEqual(structuredClone(columnsFromWire(wire)), structuredClone(concatColumns(parts)));
    assert.deepEqual(structuredClone(columnsFromWire(columnsToWire([]))), { ids: [], steps: [], metrics: {} });
    // Plain arrays (null where missing) read as they are.
    assert.deepEqual(structuredClone(columnsFromWire(parts[1]!)), parts[1]);
  });

  it('keeps numbers only: strings, booleans, NaN and nested values count as missing', () => {
    const page = [
      { id: 'a', step: 1, metrics: { ok: 1.5, s: 'x', b: true, o: { n: 1 }, nan: Number.NaN } },
      { id: 'b', step: 2, metrics: { late: 2 } },
    ];
    const rows = rowsFromCheckpoints(page);
    assert.deepEqual({ ...rows[0]!.metrics }, { ok: 1.5, s: null, b: null, o: null, nan: null });
    assert.deepEqual(structuredClone(columnsFromCheckpoints(page)), {
      ids: ['a', 'b'],
      steps: [1, 2],
      metrics: { ok: [1.5, null], s: [null, null], b: [null, null], o: [null, null], nan: [null, null], late: [null, 2] },
    });
  });

  it('slices to columns and reads them back unchanged', () => {
    const s = new CheckpointSeries();
    s.merge([row('a', 1, { x: 1 }), row('b', 2, { x: null, y: 2 }), row('c', 3, { x: 3 })]);
    const cols = s.slice(1, 3);
    assert.deepEqual(structuredClone(cols), { ids: ['b', 'c'], steps: [2, 3], metrics: { x: [null, 3], y: [2, null] } });
    const copy = new CheckpointSeries();
    copy.merge(rowsFromColumns(s.slice()));
    assert.deepEqual(copy.slice(), s.slice());
  });
});
