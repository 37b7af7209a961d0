import assert from 'node:assert/strict';
import { kindOfHead } from '../../../src/calls/fileKind';

describe('calls/fileKind: what a JSONL file holds, from its first line', () => {
  it('knows call records in each shape the import reads', () => {
    assert.equal(kindOfHead('{"mode": "start", "req": {"start": {"project_id": "a/b"}}}\n{"mode": "end"}'), 'calls');
    assert.equal(kindOfHead('\uFEFF\r\n{"end": {"id": "x"}}\r\n'), 'calls');
    assert.equal(kindOfHead('{"start": {"id": "x"}}'), 'calls');
  });

  it('knows trajectory groups, and a training metrics line is neither', () => {
    assert.equal(kindOfHead('{"trajectories": [{"messages_and_choices": []}]}'), 'trajectories');
    assert.equal(kindOfHead('{"messages_and_choices": [], "reward": 1}'), 'trajectories');
    assert.equal(kindOfHead('{"step": 1, "train/reward": 0.5}'), 'unknown');
    assert.equal(kindOfHead(''), 'unknown');
  });

  it('judges a first line longer than the sniff by its opening', () => {
    assert.equal(kindOfHead('{"mode": "start", "req": {"start": {"inputs": "' + 'x'.repeat(70_000)), 'calls');
    assert.equal(kindOfHead('{"trajectories": [{"messages_and_choices": [{"content": "' + 'x'.repeat(70_000)), 'trajectories');
  });
});
