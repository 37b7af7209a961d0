// Exchange trajectories (ART's request capture) in the viewer: each API's request and response as
// a conversation, tool calls paired across exchanges, repeated history shown once, and each
// exchange's model, duration and tokens. Fixtures from the producers' field lists
// (test/fixtures/art/producers.ts), not from our schemas.
import assert from 'node:assert/strict';
import { exchangeConversation, timeMs, usageOf } from '../../../src/files/exchanges';
import { asGroup } from '../../../src/files/model';
import { searchTrajectory } from '../../../src/viewer/search';
import { groupDetail, summarize, trajectoryView } from '../../../src/viewer/views';
import { ToWebview, type GroupRow } from '../../../src/viewer/protocol';
import { transcript } from '../../../src/viewer/transcript';
import { agentLoopTrajectory, ANTHROPIC_USAGE, COMPLETION_USAGE, compactGroups, RESPONSE_USAGE } from '../../fixtures/art/producers';

const roles = (t: unknown) => trajectoryView(t, 0, 0).messages.map((m) => `${m.role}${m.trainable ? '*' : ''}`);
const texts = (t: unknown) => trajectoryView(t, 0, 0).messages.map((m) => m.parts.map((p) => p.text).join(''));

describe('viewer: exchange trajectories as conversations', () => {
  it('Chat Completions: request messages, then the choice; the second request shows only what is new', () => {
    const t = agentLoopTrajectory('chat_completions', 1);
    assert.deepEqual(roles(t), ['system', 'user', 'assistant*', 'tool', 'assistant*']);
    const v = trajectoryView(t, 0, 0);
    assert.equal(v.exchanges?.length, 2);
    assert.deepEqual(v.exchanges!.map((x) => [x.kind, x.start, x.end, x.skipped]), [
      ['chat_completions', 0, 3, 0],
      ['chat_completions', 3, 5, 3],
    ]);
    // The call of exchange 1 is answered in the request of exchange 2.
    assert.equal(v.messages[2]!.toolCalls[0]!.resultIndex, 3);
    assert.equal(v.messages[3]!.callName, 'get_weather');
    assert.equal(texts(t)[4], 'Zürich: **12 °C**, fog.');
    assert.deepEqual(v.messages[3]!.path, ['exchanges', 'chat_completions', 1, 'request', 'messages', 3]);
    assert.deepEqual(v.tools.map((x) => x.name), ['get_weather']);
  });

  it('Completions: the prompt, then the generated text as the trainable turn', () => {
    const t = agentLoopTrajectory('completions', 0);
    assert.deepEqual(roles(t), ['prompt', 'assistant*']);
    assert.deepEqual(texts(t), ['The capital of France is', ' Paris is the capital of France.']);
  });

  it('Responses API: instructions and input items (function_call, function_call_output), then the output items (reasoning, function_call, message)', () => {
    const t = agentLoopTrajectory('responses', 0.5);
    const v = trajectoryView(t, 0, 0);
    assert.deepEqual(roles(t), ['system', 'user', 'assistant*', 'tool', 'assistant*']);
    assert.equal(v.messages[2]!.reasoning, 'Need the weather first.');
    assert.equal(v.messages[2]!.toolCalls[0]!.name, 'get_weather');
    assert.equal(v.messages[2]!.toolCalls[0]!.resultIndex, 3, 'function_call_output pairs by call_id');
    assert.equal(v.messages[3]!.parts[0]!.text, '12 °C, fog');
    assert.equal(v.messages[4]!.parts[0]!.text, 'Zürich: 12 °C, fog (Nebel).');
    assert.equal(v.exchanges![1]!.skipped, 3, 'instructions, the user message and the call are not repeated');
  });

  it('Anthropic Messages: system, content blocks (thinking, tool_use, tool_result, text)', () => {
    const t = agentLoopTrajectory('messages', 0.75);
    const v = trajectoryView(t, 0, 0);
    assert.deepEqual(roles(t), ['system', 'user', 'assistant*', 'tool', 'assistant*']);
    assert.equal(v.messages[2]!.reasoning, 'Look it up.');
    assert.equal(v.messages[2]!.toolCalls[0]!.arguments, JSON.stringify({ city: '京都' }, null, 2));
    assert.equal(v.messages[2]!.toolCalls[0]!.resultIndex, 3);
    assert.equal(v.messages[3]!.parts[0]!.text, '18 °C, clear');
    assert.equal(v.messages[4]!.parts[0]!.text, 'Kyoto: 18 °C, clear.');
    assert.equal(v.messages[4]!.finishReason, 'end_turn');
    // `model` is null on the second exchange: the response's model names it.
    assert.deepEqual(v.exchanges!.map((x) => x.model), ['claude-sonnet-4-5', 'claude-sonnet-4-5']);
  });

  it('each exchange has its duration (end_time − start_time, naive times read alike) and token usage, whatever the API', () => {
    assert.equal(timeMs('2026-01-01T10:00:02.500000')! - timeMs('2026-01-01T10:00:00.250000')!, 2250);
    assert.equal(timeMs('2026-01-01T10:00:00.000500Z')! - timeMs('2026-01-01T10:00:00Z')!, 0.5);
    assert.equal(timeMs('yesterday'), undefined);
    assert.deepEqual(usageOf('chat_completions', { usage: COMPLETION_USAGE }), { input: 118, output: 42, total: 160, cached: 64, reasoning: 12 });
    assert.deepEqual(usageOf('responses', { usage: RESPONSE_USAGE }), { input: 230, output: 57, total: 287, cached: 0, reasoning: 21 });
    // Anthropic's input_tokens leave out cache reads and writes.
    assert.deepEqual(usageOf('messages', { usage: ANTHROPIC_USAGE }), { input: 438, output: 96, cached: 128, total: 534 });
    assert.deepEqual(usageOf('completions', {}), {});
    const c = exchangeConversation(agentLoopTrajectory('chat_completions', 1));
    assert.deepEqual(c.exchanges.map((x) => x.durationMs), [2000, 2000]);
    assert.deepEqual(c.exchanges.map((x) => x.usage.total), [70, 70]);
  });

  it('a trajectory and a group show total tokens and time', () => {
    const s = summarize(agentLoopTrajectory('responses', 0.5), 0);
    assert.deepEqual(s.totals, { usage: { input: 490, output: 69, total: 559, cached: 0, reasoning: 21 }, durationMs: 4000, exchanges: 2 });
    const row: GroupRow = { index: 0, line: 1, endLine: 1, bare: false, stats: { count: 0, mean: null, std: null, min: null, max: null, zeroVariance: false, exceptions: 0 }, rewards: [], errors: 0, warnings: 0 };
    const d = groupDetail({ trajectories: [agentLoopTrajectory('chat_completions', 1), agentLoopTrajectory('messages', 0), { messages_and_choices: [] }] }, row, []);
    assert.equal(d.totals?.exchanges, 4);
    assert.equal(d.totals?.durationMs, 8000);
    assert.equal(d.totals?.usage.total, 70 + 70 + 534 + 534);
  });

  it('compact dumps render: a group without trajectories is an empty group, a trajectory without reward has 0', () => {
    const [full, mixed, exceptionOnly, empty] = compactGroups();
    assert.equal(asGroup(full)?.trajectories.length, 4);
    assert.deepEqual(asGroup(exceptionOnly), { trajectories: [], bare: false, raw: exceptionOnly });
    assert.deepEqual(asGroup(empty)?.trajectories, []);
    const legacy = asGroup(mixed)!.trajectories[0];
    assert.deepEqual([summarize(legacy, 0).reward, summarize(legacy, 0).rewardMissing], [0, true]);
    // A bare exchange trajectory is shown as a group of one.
    assert.equal(asGroup(agentLoopTrajectory('completions', 1))?.bare, true);
  });

  it('search and the Compare transcript cover exchange messages', () => {
    const t = agentLoopTrajectory('messages', 0.75);
    assert.deepEqual(searchTrajectory(t, 0, 'kyoto: 18').map((h) => h.message), [4]);
    const text = transcript(trajectoryView(t, 0, 0), 'x');
    assert.match(text, /# Exchange 1 · Anthropic Messages · claude-sonnet-4-5 · 2\.00 s · 438 in \(128 cached\) · 96 out · 534 tokens/);
    assert.match(text, /\(3 earlier messages of the request not repeated\)/);
    assert.match(text, /2 exchanges · 4\.00 s in requests/);
  });

  it('what the webview receives for an exchange trajectory passes the protocol schema', () => {
    for (const kind of ['chat_completions', 'completions', 'responses', 'messages'] as const) {
      const view = trajectoryView(agentLoopTrajectory(kind, 1), 0, 0);
      assert.ok(ToWebview.safeParse({ type: 'trajectory', version: 1, group: 0, index: 0, view }).success, kind);
    }
    for (const g of compactGroups()) for (const t of asGroup(g)!.trajectories) assert.ok(ToWebview.safeParse({ type: 'trajectory', version: 1, group: 0, index: 0, view: trajectoryView(t, 0, 0) }).success);
  });
});

describe('viewer: a Responses API request that repeats the earlier output item by item', () => {
  it('shows only what is new (the output items are repeated one by one, not as the merged turn)', () => {
    const at = (s: number) => `2026-01-01T10:00:0${s}`;
    const output = [
      { id: 'rs', type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }] },
      { id: 'm', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Let me check.', annotations: [] }] },
      { id: 'fc', type: 'function_call', call_id: 'c1', name: 'look', arguments: '{}' },
    ];
    const input = [{ role: 'user', content: 'q' }];
    const t = {
      exchanges: {
        responses: [
          { request: { input }, response: { id: 'r1', object: 'response', output }, model: 'm', start_time: at(0), end_time: at(1) },
          { request: { input: [...input, ...output, { type: 'function_call_output', call_id: 'c1', output: 'found' }] }, response: { id: 'r2', object: 'response', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }] }, model: 'm', start_time: at(2), end_time: at(3) },
        ],
      },
    };
    const v = trajectoryView(t, 0, 0);
    assert.deepEqual(v.exchanges!.map((x) => x.skipped), [0, 4]);
    assert.deepEqual(roles(t), ['user', 'assistant*', 'tool', 'assistant*']);
    assert.equal(v.messages[1]!.toolCalls[0]!.resultIndex, 2);
  });
});
