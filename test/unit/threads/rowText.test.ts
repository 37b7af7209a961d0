import assert from 'node:assert/strict';
import { threadDescription } from '../../../src/threads/rowText';

describe('threads/rowText', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const row = { turn_count: 3, start_time: '2026-11-25T09:00:00Z', last_updated: '2026-11-25T11:55:00Z', p50_turn_duration_ms: 1234, p99_turn_duration_ms: 4500 };

  it('leads with the value of the sort field, so the sidebar cuts the rest, not it', () => {
    assert.equal(threadDescription(row, 'last_updated', now), '5 min ago · 3 turns · p50 1.23 s');
    assert.equal(threadDescription(row, 'start_time', now), 'started 3 h ago · 3 turns · p50 1.23 s');
    assert.equal(threadDescription(row, 'turn_count', now), '3 turns · 5 min ago · p50 1.23 s');
    assert.equal(threadDescription(row, 'p50_turn_duration_ms', now), 'p50 1.23 s · 5 min ago · 3 turns');
    assert.equal(threadDescription(row, 'p99_turn_duration_ms', now), 'p99 4.5 s · 5 min ago · 3 turns');
    // Sorted by id (the label itself): the time the README promises comes first.
    assert.equal(threadDescription(row, 'thread_id', now), '5 min ago · 3 turns · p50 1.23 s');
  });

  it('keeps the default description short enough for the default sidebar width', () => {
    assert.ok(threadDescription(row, 'last_updated', now).length <= 32);
  });
});
