import assert from 'node:assert/strict';
import { sortRows } from '../../../src/files/parquetOrder';

describe('files/parquetOrder: sorting the rows of a step file out of order', () => {
  it('sorts stably by the key, as Array.prototype.sort does, and gives the event loop back while it sorts', async () => {
    const n = 300_000;
    // A fixed pseudo-random order: many groups of a few trajectories, with repeated pairs.
    const g = Float64Array.from({ length: n }, (_, i) => Math.floor(((i * 7919) % n) / 5));
    const t = Float64Array.from({ length: n }, (_, i) => (i * 31) % 4);
    const cmp = (a: number, b: number) => g[a]! - g[b]! || t[a]! - t[b]!;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const sorted = await sortRows(n, cmp);
    clearInterval(timer);
    const expected = Array.from({ length: n }, (_, i) => i).sort((a, b) => cmp(a, b) || a - b);
    assert.deepEqual([...sorted], expected);
    assert.ok(ticks > 0, 'timers ran during the sort');
    assert.deepEqual([...(await sortRows(0, cmp))], []);
    assert.deepEqual([...(await sortRows(1, cmp))], [0]);
  });
});
