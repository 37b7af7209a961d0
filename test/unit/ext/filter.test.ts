import assert from 'node:assert/strict';
import { checkDateTime, describeFilter, describeSort, parseStoredFilter, parseStoredSort, parseThreadIds, toQueryFilter } from '../../../src/threads/filter';

describe('threads/filter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');

  it('computes relative presets against now', () => {
    assert.deepEqual(toQueryFilter({ kind: 'relative', preset: 'hour' }, now), { after_datetime: '2026-11-21T11:00:00.000Z' });
    assert.deepEqual(toQueryFilter({ kind: 'relative', preset: 'week' }, now), { after_datetime: '2026-11-14T12:00:00.000Z' });
  });

  it('passes ranges and id lists through', () => {
    assert.deepEqual(toQueryFilter({ kind: 'range', after: '2026-11-01T00:00:00Z' }), { after_datetime: '2026-11-01T00:00:00Z' });
    assert.deepEqual(toQueryFilter({ kind: 'ids', threadIds: ['a', 'b'] }), { thread_ids: ['a', 'b'] });
    assert.equal(toQueryFilter(undefined), undefined);
  });

  it('describes filters and sorts for the view description', () => {
    assert.equal(describeFilter({ kind: 'relative', preset: 'day' }), 'last 24 hours');
    assert.equal(describeFilter({ kind: 'ids', threadIds: ['a', 'b'] }), '2 thread ids');
    assert.equal(describeSort({ field: 'turn_count', direction: 'asc' }), 'turns ↑');
  });

  it('checks ISO date-times with a zone', () => {
    assert.equal(checkDateTime('2026-11-20T09:00:00Z'), undefined);
    assert.equal(checkDateTime('2026-11-20T09:00:00.123+02:00'), undefined);
    assert.match(checkDateTime('2026-11-20')!, /ISO 8601/);
    assert.match(checkDateTime('2026-11-20T09:00:00')!, /ISO 8601/);
  });

  it('parses thread id lists', () => {
    assert.deepEqual(parseThreadIds(' a, b\nc  a '), ['a', 'b', 'c']);
  });

  it('reads sort and filter back from workspaceState, dropping anything malformed', () => {
    assert.deepEqual(parseStoredSort({ field: 'turn_count', direction: 'asc' }), { field: 'turn_count', direction: 'asc' });
    assert.deepEqual(parseStoredSort({ field: 'cost', direction: 'up' }), { field: 'last_updated', direction: 'desc' });
    assert.deepEqual(parseStoredSort(undefined), { field: 'last_updated', direction: 'desc' });
    assert.deepEqual(parseStoredFilter({ kind: 'relative', preset: 'day' }), { kind: 'relative', preset: 'day' });
    assert.deepEqual(parseStoredFilter({ kind: 'range', after: '2026-11-20T09:00:00Z', before: 'soon' }), { kind: 'range', after: '2026-11-20T09:00:00Z' });
    assert.deepEqual(parseStoredFilter({ kind: 'ids', threadIds: ['t1', 3, ''] }), { kind: 'ids', threadIds: ['t1'] });
    for (const bad of [undefined, null, 'hour', { kind: 'relative', preset: 'year' }, { kind: 'range' }, { kind: 'ids', threadIds: [] }, { kind: 'other' }]) {
      assert.equal(parseStoredFilter(bad), undefined, JSON.stringify(bad));
    }
  });
});
