// The trajectory viewer's view model: tool-call pairing, group stats, zero variance, ordering,
// search, and leniency towards what producers write.
import assert from 'node:assert/strict';
import { contentParts, messageViews } from '../../../src/files/messages';
import { asGroup, groupRewards, groupStats } from '../../../src/files/model';
import { isBareTrajectory } from '../../../src/api/schemas/models';
import { mayContain, searchTrajectory } from '../../../src/viewer/search';
import { filterByReward, groupDetail, sortSummaries, summarize, trajectoryView } from '../../../src/viewer/views';
import type { GroupRow, TrajectorySummary } from '../../../src/viewer/protocol';
import { transcript } from '../../../src/viewer/transcript';
import { artGroups } from '../../fixtures/viewer/producers';

const call = (id: string, name: string, args = '{}') => ({ id, type: 'function', function: { name, arguments: args } });

describe('viewer model: tool calls are paired with their results by tool_call_id', () => {
  it('pairs results given in another order than the calls', () => {
    const v = messageViews([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a', 'first'), call('b', 'second')] },
      { role: 'tool', tool_call_id: 'b', content: 'B' },
      { role: 'tool', tool_call_id: 'a', content: 'A' },
    ]);
    assert.equal(v[1]!.toolCalls[0]!.resultIndex, 3);
    assert.equal(v[1]!.toolCalls[1]!.resultIndex, 2);
    assert.equal(v[2]!.callIndex, 1);
    assert.equal(v[2]!.callName, 'second');
    assert.equal(v[3]!.callName, 'first');
  });

  it('pairs calls made inside a choice (an OpenAI-SDK message with tool_calls)', () => {
    const v = messageViews([
      { finish_reason: 'tool_calls', index: 0, logprobs: null, message: { role: 'assistant', content: null, refusal: null, annotations: null, audio: null, function_call: null, tool_calls: [call('x', 'lookup', '{"q":1}')] } },
      { role: 'tool', tool_call_id: 'x', content: 'found' },
    ]);
    assert.equal(v[0]!.trainable, true);
    assert.equal(v[0]!.toolCalls[0]!.resultIndex, 1);
    assert.equal(v[0]!.toolCalls[0]!.arguments, '{\n  "q": 1\n}', 'JSON arguments are pretty-printed');
    assert.deepEqual(v[0]!.extras, [], 'null fields of the SDK choice are not listed');
  });

  it('pairs a repeated id with the first unanswered call, and leaves an unknown id unpaired', () => {
    const v = messageViews([
      { role: 'assistant', tool_calls: [call('dup', 'one')] },
      { role: 'tool', tool_call_id: 'dup', content: '1' },
      { role: 'assistant', tool_calls: [call('dup', 'two')] },
      { role: 'tool', tool_call_id: 'dup', content: '2' },
      { role: 'tool', tool_call_id: 'nobody', content: '?' },
    ]);
    assert.equal(v[1]!.callIndex, 0);
    assert.equal(v[3]!.callIndex, 2);
    assert.equal(v[4]!.callIndex, undefined);
    assert.equal(v[4]!.toolCallId, 'nobody');
  });

  it('does not pair a result that comes before its call', () => {
    const v = messageViews([{ role: 'tool', tool_call_id: 'late', content: 'early' }, { role: 'assistant', tool_calls: [call('late', 'f')] }]);
    assert.equal(v[0]!.callIndex, undefined);
    assert.equal(v[1]!.toolCalls[0]!.resultIndex, undefined);
  });

  it('pairs a legacy function message with the function_call of the same name', () => {
    const v = messageViews([{ role: 'assistant', content: null, function_call: { name: 'add', arguments: '{"a":1}' } }, { role: 'function', name: 'add', content: '2' }]);
    assert.equal(v[0]!.toolCalls[0]!.legacy, true);
    assert.equal(v[0]!.toolCalls[0]!.resultIndex, 1);
    assert.equal(v[1]!.callName, 'add');
  });
});

describe('viewer model: messages as producers write them', () => {
  it('reads content given as a list of parts, and never loads images', () => {
    const parts = contentParts([{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }, { type: 'refusal', refusal: 'no' }]);
    assert.deepEqual(parts.map((p) => p.kind), ['text', 'media', 'refusal']);
    assert.equal(parts[1]!.text, 'https://example.com/cat.png');
    const data = contentParts([{ type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(5000)}` } }]);
    assert.ok(data[0]!.text.length < 100, 'a data URL is summarized, not shown whole');
  });

  it('shows vLLM reasoning_content, marks choices trainable, and lists unknown non-null fields', () => {
    const v = messageViews([{ finish_reason: 'stop', index: 0, stop_reason: 42, logprobs: { content: [{ token: 'a' }, { token: 'b' }], refusal: null }, message: { role: 'assistant', content: 'x', reasoning_content: 'think', refusal: null, audio: null, annotations: [] } }]);
    assert.equal(v[0]!.reasoning, 'think');
    assert.equal(v[0]!.trainable, true);
    assert.equal(v[0]!.finishReason, 'stop');
    assert.deepEqual(v[0]!.extras, [
      ['stop_reason', '42'],
      ['logprobs', '2 tokens'],
    ]);
  });

  it('keeps a message it cannot read as JSON instead of dropping it', () => {
    const v = messageViews([42, { role: 'user', content: { odd: true } }]);
    assert.equal(v[0]!.role, 'unknown');
    assert.match(v[0]!.parts[0]!.text, /42/);
    assert.equal(v[1]!.parts[0]!.kind, 'json');
  });

  it('reads an ART model_dump trajectory with nulls everywhere', () => {
    const t = artGroups()[1]!.trajectories[0]!;
    const view = trajectoryView(t, 1, 0);
    assert.equal(view.messages.length, 6);
    assert.deepEqual(view.tools, [], 'tools: null is no tools');
    assert.deepEqual(view.histories, []);
    assert.ok(!view.info.some(([k]) => k === 'initial_policy_version'), 'null policy versions are not shown');
    assert.deepEqual(view.metadata.find(([k]) => k === 'note'), ['note', 'null']);
  });

  it('shows a bare trajectory as a group of one', () => {
    const g = asGroup({ messages_and_choices: [], reward: 1 });
    assert.equal(g?.bare, true);
    assert.equal(g?.trajectories.length, 1);
    assert.equal(asGroup({ nothing: 1 }), undefined);
    assert.equal(asGroup([]), undefined);
  });

  it('shows as a group what the reader takes as one: `trajectories: null` beside a trajectory\'s content is an empty group, not a bare trajectory', () => {
    // The reader accepts (and uploads) this as an empty group; the viewer says the same (one rule: isBareTrajectory).
    const value = { trajectories: null, messages_and_choices: [{ role: 'user', content: 'hi' }], reward: 1 };
    assert.equal(isBareTrajectory(value), false);
    assert.deepEqual(asGroup(value), { trajectories: [], bare: false, raw: value });
  });
});

describe('viewer model: group stats and zero variance', () => {
  it('computes mean, population std, min and max', () => {
    const s = groupStats([0, 0.5, 1]);
    assert.equal(s.count, 3);
    assert.equal(s.mean, 0.5);
    assert.ok(Math.abs(s.std! - Math.sqrt(1 / 6)) < 1e-12);
    assert.equal(s.min, 0);
    assert.equal(s.max, 1);
    assert.equal(s.zeroVariance, false);
  });

  it('flags a group whose rewards are all equal, and only that', () => {
    assert.equal(groupStats([1, 1, 1]).zeroVariance, true);
    assert.equal(groupStats([0.1 + 0.2, 0.3]).zeroVariance, true, 'equal up to the rounding of decimals');
    assert.equal(groupStats([0.3, 0.3000001]).zeroVariance, false);
    assert.equal(groupStats([]).zeroVariance, false, 'no trajectories is not "equal rewards"');
    assert.equal(groupStats([1, 1]).std, 0);
  });

  it('does not flag a group of one as zero variance: one trajectory has no variance to learn from by construction', () => {
    const s = groupStats([0.9]);
    assert.equal(s.zeroVariance, false);
    assert.equal(s.count, 1);
    assert.equal(s.std, 0);
    assert.equal(groupStats([0.9, 0.9]).zeroVariance, true, 'two equal rewards are still flagged');
  });

  it('takes a missing or null reward as 0 (the service default) and leaves an invalid one out', () => {
    assert.deepEqual(groupRewards([{ reward: 1 }, {}, { reward: null }, { reward: 'high' }]), [1, 0, 0]);
    const s = summarize({ reward: 'high', messages_and_choices: [] }, 3);
    assert.equal(s.reward, null);
    assert.equal(s.rewardText, 'high');
    assert.equal(summarize({ messages_and_choices: [] }, 0).rewardMissing, true);
  });

  it('counts exceptions and lists unknown group fields in the group detail', () => {
    const art = artGroups()[1]!;
    const row = { index: 1, line: 2, endLine: 2, bare: false, stats: groupStats(groupRewards(art.trajectories), 1), rewards: [], errors: 0, warnings: 0 } satisfies GroupRow;
    const d = groupDetail({ ...art, run_id: 'r-1' }, row, []);
    assert.equal(d.exceptions.length, 1);
    assert.equal(d.exceptions[0]!.message, 'rollout timed out');
    assert.deepEqual(d.info, [['run_id', 'r-1']]);
    assert.equal(d.trajectories.length, 2);
    assert.deepEqual(d.metricNames, ['correct', 'latency_s', 'tool_calls']);
  });
});

describe('viewer model: ordering and filtering trajectories', () => {
  const rows = [
    { reward: 0.5, m: 3 },
    { reward: 1, m: undefined },
    { reward: 0.5, m: 1 },
    { reward: null, m: 2 },
  ].map((x, index): TrajectorySummary => ({ index, reward: x.reward, rewardMissing: false, messages: 1, choices: 0, toolCalls: 0, metrics: x.m === undefined ? {} : { m: x.m } }));

  it('sorts by reward, ties in file order, rows without a value last in both directions', () => {
    assert.deepEqual(sortSummaries(rows, 'reward', 'desc').map((r) => r.index), [1, 0, 2, 3]);
    assert.deepEqual(sortSummaries(rows, 'reward', 'asc').map((r) => r.index), [0, 2, 1, 3]);
  });

  it('sorts by any metric', () => {
    assert.deepEqual(sortSummaries(rows, 'metric:m', 'asc').map((r) => r.index), [2, 3, 0, 1]);
    assert.deepEqual(sortSummaries(rows, 'metric:m', 'desc').map((r) => r.index), [0, 3, 2, 1]);
    assert.deepEqual(sortSummaries(rows, 'index', 'desc').map((r) => r.index), [3, 2, 1, 0]);
  });

  it('filters by an inclusive reward range with open ends', () => {
    assert.deepEqual(filterByReward(rows, 0.5, 0.5).map((r) => r.index), [0, 2]);
    assert.deepEqual(filterByReward(rows, 0.75, undefined).map((r) => r.index), [1]);
    assert.deepEqual(filterByReward(rows, undefined, undefined).length, 4, 'no bounds keeps the invalid reward too');
  });
});

describe('viewer model: search', () => {
  const t = {
    messages_and_choices: [
      { role: 'user', content: [{ type: 'text', text: 'Weather in PARIS?' }] },
      { finish_reason: 'tool_calls', index: 0, message: { role: 'assistant', content: null, reasoning_content: 'Need the forecast', tool_calls: [call('c', 'get_weather', '{"city":"Paris"}')] } },
      { role: 'tool', tool_call_id: 'c', content: 'sunny' },
    ],
    additional_histories: [{ messages_and_choices: [{ role: 'user', content: 'paris again' }] }],
  };

  it('finds text case-insensitively in content parts, tool calls and additional histories', () => {
    const hits = searchTrajectory(t, 4, 'paris');
    assert.deepEqual(
      hits.map((h) => [h.history, h.message, h.field]),
      [
        [-1, 0, 'content'],
        [-1, 1, 'tool call get_weather'],
        [0, 0, 'content'],
      ],
    );
    assert.equal(hits[0]!.trajectory, 4);
    assert.match(hits[0]!.snippet, /PARIS/);
  });

  it('searches reasoning, and finds nothing for an empty query', () => {
    assert.deepEqual(searchTrajectory(t, 0, 'FORECAST').map((h) => h.field), ['reasoning']);
    assert.deepEqual(searchTrajectory(t, 0, ''), []);
  });

  it('rules out raw JSON only when the query cannot be escaped differently', () => {
    assert.equal(mayContain('{"content":"hello"}', 'world'), false);
    assert.equal(mayContain('{"content":"hello"}', 'hello'), true);
    assert.equal(mayContain('{"content":"caf\\u00e9"}', 'café'), true, 'non-ASCII may be escaped: parse to know');
    assert.equal(mayContain('{"content":"a\\"b"}', 'a"b'), true);
  });
});

describe('viewer transcript (Compare with…)', () => {
  it('is the same for the same conversation written with different formatting', () => {
    const a = { messages_and_choices: [{ role: 'assistant', content: null, tool_calls: [call('c', 'f', '{"a":1,"b":2}')] }], reward: 1 };
    const b = { reward: 1.0, messages_and_choices: [{ tool_calls: [call('c', 'f', '{ "a": 1, "b": 2 }')], role: 'assistant' }] };
    assert.equal(transcript(trajectoryView(a, 0, 0), 't'), transcript(trajectoryView(b, 0, 0), 't'));
  });

  it('lists messages in order with roles, trainable turns and paired results', () => {
    const text = transcript(trajectoryView(artGroups()[0]!.trajectories[0], 0, 0), 'title');
    assert.match(text, /## 3\. assistant \[trainable\] finish_reason=tool_calls/);
    assert.match(text, /## 4\. tool result of search_docs \(call_0_b\)/);
    assert.match(text, /reward: 0\.9/);
  });
});
