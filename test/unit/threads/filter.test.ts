import assert from 'node:assert/strict';
import { ThreadsQueryFilter } from '../../../src/api';
import { checkDateBound, checkDateTime, describeFilter, describeSort, parseDateBound, parseStoredFilter, parseStoredSort, parseThreadIds, toQueryFilter } from '../../../src/threads/filter';

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

  it('takes a plain date as local midnight', () => {
    const r = parseDateBound('2026-11-15');
    assert.ok(r.ok);
    assert.equal(r.iso, new Date(2026, 10, 15, 0, 0, 0, 0).toISOString());
    const d = new Date(r.iso);
    assert.deepEqual([d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes()], [2026, 10, 15, 0, 0]);
    assert.equal(parseDateBound(' 2026-11-15 ').ok, true, 'spaces around are fine');
  });

  it('takes a date-time without a zone as local time, and one with a zone as written', () => {
    const local = parseDateBound('2026-11-15 09:30');
    assert.ok(local.ok);
    assert.equal(local.iso, new Date(2026, 10, 15, 9, 30).toISOString());
    const t = parseDateBound('2026-11-15T09:30:15.250');
    assert.ok(t.ok);
    assert.equal(t.iso, new Date(2026, 10, 15, 9, 30, 15, 250).toISOString());
    assert.deepEqual(parseDateBound('2026-11-20T09:00:00Z'), { ok: true, iso: '2026-11-20T09:00:00Z' });
    assert.deepEqual(parseDateBound('2026-11-20T09:00:00.123456+02:00'), { ok: true, iso: '2026-11-20T09:00:00.123456+02:00' });
  });

  it('refuses what is not a real date or time, saying which forms work', () => {
    for (const bad of ['2026-02-30', '2026-13-01', '2026-11-15T24:00', '2026-11-15T09:60Z', '15/11/2026', 'yesterday', '2026-11-5', '']) {
      const r = parseDateBound(bad);
      assert.equal(r.ok, false, bad);
      assert.match(checkDateBound(bad)!, /2026-11-15.*local midnight/, bad);
    }
    assert.equal(checkDateBound('2028-02-29'), undefined, 'a leap day is a day');
  });

  it('refuses up front a zoned date-time that the query would refuse (one check for both)', () => {
    // Each used to pass the box and then fail the view's query.
    for (const bad of ['2026-02-30T09:00:00Z', '2026-11-20T09:00Z', '2026-11-20T09:00:00.1234567890Z', '2026-11-20T09:00:00+24:00']) {
      assert.equal(parseDateBound(bad).ok, false, bad);
      assert.match(checkDateBound(bad)!, /2026-11-15T09:30:00Z/, bad);
      assert.equal(ThreadsQueryFilter.safeParse({ after_datetime: bad }).success, false, `the query refuses ${bad} too`);
      assert.match(checkDateTime(bad)!, /ISO 8601/, bad);
    }
    for (const good of ['2026-02-28T09:00:00Z', '2028-02-29T23:59:59.123456789+02:00']) {
      const r = parseDateBound(good);
      assert.deepEqual(r, { ok: true, iso: good });
      assert.equal(ThreadsQueryFilter.safeParse({ after_datetime: good }).success, true, good);
    }
  });

  it('describes a date range in local dates, and a plain date without a time', () => {
    const after = parseDateBound('2026-11-15');
    const before = parseDateBound('2026-11-20 18:00');
    assert.ok(after.ok && before.ok);
    assert.equal(describeFilter({ kind: 'range', after: after.iso }), 'after 2026-11-15');
    assert.equal(describeFilter({ kind: 'range', after: after.iso, before: before.iso }), '2026-11-15 – 2026-11-20 18:00:00');
    assert.equal(describeFilter({ kind: 'ids', threadIds: ['a'] }), 'thread a');
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
