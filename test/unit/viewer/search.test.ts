import assert from 'node:assert/strict';
import { MemoryBytes, TrajectoryIndex } from '../../../src/files/groupIndex';
import { searchFile } from '../../../src/viewer/search';
import type { SearchHit } from '../../../src/viewer/protocol';
import { group } from '../../fixtures/art/searchRun';

async function search(lines: unknown[], query: string): Promise<SearchHit[]> {
  const index = new TrajectoryIndex(new MemoryBytes(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')), 'jsonl');
  await index.build();
  return searchFile(index, query, new AbortController().signal, () => undefined);
}

describe('viewer/search: the viewer\'s search of a file', () => {
  // Train step 6 of the search run: group 3 holds a TimeoutError.
  const step = [group(6, 0), group(6, 1), group(6, 2)];

  it('finds a group\'s exception (type, message and traceback) and says where it is', async () => {
    const hits = await search(step, 'timeout');
    assert.deepEqual(hits.map((h) => [h.group, h.trajectory, h.message, h.where]), [[2, -1, -1, 'exception 1 of group 3']]);
    assert.match(hits[0]!.snippet, /^TimeoutError: rollout 3 timed out after 30 s Traceback/);
    assert.equal((await search(step, 'rollout.py')).length, 1, 'the traceback');
  });

  it('finds metadata, logs and tool calls by name and arguments, each hit saying where it is', async () => {
    assert.deepEqual((await search(step, 'weather-lagos')).map((h) => h.where), [1, 2, 3, 4].map((t) => `metadata.scenario_id of trajectory 2.${t}`));
    assert.deepEqual((await search(step, 'rollout 6.0.1 done')).map((h) => h.where), ['logs[0] of trajectory 1.2']);
    const calls = await search([group(6, 0)], '"city"');
    assert.ok(calls.length > 0 && calls.every((h) => /^message 3 of trajectory 1\.\d \(tool call get_weather\)$/.test(h.where!)), JSON.stringify(calls));
    assert.deepEqual((await search(step, 'what is the weather in Quito')).map((h) => [h.where, h.message, h.trajectory]), [1, 2, 3, 4].map((t) => [`message 2 of trajectory 3.${t} (content)`, 1, t - 1]));
  });
});
