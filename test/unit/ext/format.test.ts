import assert from 'node:assert/strict';
import { escapeMarkdown, formatDuration, formatMetric, formatRelative } from '../../../src/common/format';

describe('common/format', () => {
  it('formats durations and shows n/a for null, undefined and -1', () => {
    assert.equal(formatDuration(850), '850 ms');
    assert.equal(formatDuration(1234), '1.23 s');
    assert.equal(formatDuration(45_000), '45.0 s');
    assert.equal(formatDuration(90_000), '1.5 min');
    assert.equal(formatDuration(null), 'n/a');
    assert.equal(formatDuration(undefined), 'n/a');
    assert.equal(formatDuration(-1), 'n/a');
  });

  it('formats relative times', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    assert.equal(formatRelative('2026-11-21T11:59:50Z', now), 'just now');
    assert.equal(formatRelative('2026-11-21T11:50:00Z', now), '10 min ago');
    assert.equal(formatRelative('2026-11-21T09:00:00Z', now), '3 h ago');
    assert.equal(formatRelative('2026-11-19T12:00:00Z', now), '2 d ago');
    assert.equal(formatRelative('2026-01-01T00:00:00Z', now), '2026-01-01');
    assert.equal(formatRelative(null, now), 'n/a');
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
