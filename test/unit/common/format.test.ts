import assert from 'node:assert/strict';
import { escapeMarkdown, formatBytes, formatDuration, formatLocalDate, formatLocalDateTime, formatMetric, formatRelative, plural } from '../../../src/common/format';

describe('common/format', () => {
  it('rounds durations for people: three significant digits, minutes and hours in whole units', () => {
    assert.equal(formatDuration(3536.8199999999997), '3.54 s');
    assert.equal(formatDuration(850), '850 ms');
    assert.equal(formatDuration(1234), '1.23 s');
    assert.equal(formatDuration(1000), '1 s');
    assert.equal(formatDuration(3500), '3.5 s');
    assert.equal(formatDuration(45_000), '45 s');
    assert.equal(formatDuration(45_260), '45.3 s');
    assert.equal(formatDuration(90_000), '1 min 30 s');
    assert.equal(formatDuration(120_400), '2 min');
    assert.equal(formatDuration(3_600_000), '1 h');
    assert.equal(formatDuration(7_500_000), '2 h 5 min');
  });

  it('never says "0.0 s": zero and sub-millisecond durations read in ms, and rounding moves to the next unit', () => {
    assert.equal(formatDuration(0), '0 ms');
    assert.equal(formatDuration(0.2), '< 1 ms');
    assert.equal(formatDuration(0.7), '1 ms');
    assert.equal(formatDuration(999.6), '1 s');
    assert.equal(formatDuration(59_999), '1 min');
    for (const ms of [0, 0.01, 0.5, 1, 49, 50, 99.9, 999.4, 999.5, 59_949, 59_950, 3_599_999]) {
      assert.doesNotMatch(formatDuration(ms), /^0(\.0+)? s$|^60 s$|^60 min|\.0 /, String(ms));
    }
  });

  it('shows n/a for null, undefined, -1 and other non-durations', () => {
    assert.equal(formatDuration(null), 'n/a');
    assert.equal(formatDuration(undefined), 'n/a');
    assert.equal(formatDuration(-1), 'n/a');
    assert.equal(formatDuration(Number.NaN), 'n/a');
  });

  it('formats times relative to now for 7 days, then as the local date, so rows read alike', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    assert.equal(formatRelative('2026-11-21T11:59:50Z', now), 'just now');
    assert.equal(formatRelative('2026-11-21T11:50:00Z', now), '10 min ago');
    assert.equal(formatRelative('2026-11-21T09:00:00Z', now), '3 h ago');
    assert.equal(formatRelative('2026-11-19T12:00:00Z', now), '2 d ago');
    assert.equal(formatRelative('2026-11-14T12:00:01Z', now), '6 d ago');
    const weekAgo = Date.parse('2026-11-14T12:00:00Z');
    assert.equal(formatRelative('2026-11-14T12:00:00Z', now), formatLocalDate(weekAgo), 'from 7 days: a date');
    assert.equal(formatRelative('2026-10-01T00:00:00Z', now), formatLocalDate(Date.parse('2026-10-01T00:00:00Z')));
    assert.match(formatRelative('2026-01-01T12:00:00Z', now), /^2026-01-0[12]$/);
    assert.equal(formatRelative('2026-11-21T12:00:30Z', now), 'just now', 'a clock a little behind the service');
    assert.equal(formatRelative(null, now), 'n/a');
  });

  it('formats local dates and times', () => {
    const t = new Date(2026, 10, 15, 9, 5, 7);
    assert.equal(formatLocalDate(t), '2026-11-15');
    assert.equal(formatLocalDateTime(t.toISOString()), '2026-11-15 09:05:07');
    assert.equal(formatLocalDateTime(new Date(2026, 10, 15).toISOString(), { dateOnlyAtMidnight: true }), '2026-11-15');
    assert.equal(formatLocalDateTime(null), 'n/a');
    assert.equal(formatLocalDateTime('not a date'), 'not a date');
  });

  it('uses correct plurals', () => {
    assert.equal(plural(1, 'file'), '1 file');
    assert.equal(plural(2, 'group'), '2 groups');
    assert.equal(plural(0, 'problem'), '0 problems');
    assert.equal(plural(1, 'entry', 'entries'), '1 entry');
    assert.equal(plural(3, 'entry', 'entries'), '3 entries');
    assert.equal(plural(12_345, 'row'), '12,345 rows');
    assert.equal(formatBytes(1), '1 byte');
    assert.equal(formatBytes(2), '2 bytes');
    assert.equal(formatBytes(1536), '1.5 KiB');
    assert.equal(formatBytes(64 * 1024 * 1024), '64 MiB');
    assert.equal(formatBytes(2.5 * 1024 ** 3), '2.5 GiB');
  });

  it('formats metrics', () => {
    assert.equal(formatMetric(0.123456), '0.1235');
    assert.equal(formatMetric(42), '42');
    assert.equal(formatMetric(true), 'true');
    assert.equal(formatMetric(1.5e-7), '1.500e-7');
  });

  it('escapes markdown so server strings cannot inject links, html or tables', () => {
    const evil = '[click](command:svc.signOut) <img src=x> | col\nnext';
    const out = escapeMarkdown(evil);
    assert.ok(!/(^|[^\\])\[click/.test(out), out);
    assert.ok(!/(^|[^\\])</.test(out), out);
    assert.ok(!/(^|[^\\])\|/.test(out), out);
    assert.ok(!out.includes('\n'));
  });
});
