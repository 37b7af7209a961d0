import assert from 'node:assert/strict';
import { BEARER, postJson, useServer } from './helpers';

const trajectory = (extra: Record<string, unknown> = {}) => ({
  messages_and_choices: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Weather in Paris?', name: 'alice' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
    },
    { role: 'tool', content: '18C, clear', tool_call_id: 'call_1' },
    { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'Clear, 18C.' }, logprobs: null },
  ],
  reward: 0.75,
  tools: [{ type: 'function', function: { name: 'weather', description: 'Look up weather', parameters: { type: 'object' }, strict: true } }],
  additional_histories: [{ messages_and_choices: [{ role: 'user', content: 'again' }], tools: [] }],
  metrics: { correct: true, latency_s: 1.2 },
  metadata: { scenario: 'weather', attempt: 2, flaky: false, note: null },
  logs: ['started', 'done'],
  start_time: '2026-11-19T08:00:00Z',
  initial_policy_version: 3,
  final_policy_version: 4,
  ...extra,
});


/** One captured request as ART dumps it (art.trajectories.ChatCompletionsExchange and friends). */
const EXCHANGE = { request: { model: 'm', messages: [] }, response: { id: 'r', usage: { total_tokens: 3 } }, model: 'm', start_time: '2026-01-01T10:00:00', end_time: '2026-01-01T10:00:02Z' };

describe('reference server: POST /v1/preview/models/{model_id}/log', () => {
  const server = useServer();
  const log = (body: unknown, modelId = 'my-model') =>
    postJson(server(), `/v1/preview/models/${encodeURIComponent(modelId)}/log`, body, BEARER);

  it('accepts a full request, answers 200 and records it in the store', async () => {
    const body = { split: 'train', trajectory_groups: [{ trajectories: [trajectory(), trajectory({ reward: -1 })] }, { trajectories: [trajectory()], metrics: { n: 1 }, metadata: { g: 'a' }, logs: ['x'] }] };
    const res = await log(body);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok', trajectories: 3 });
    const [entry] = server().store.logs;
    assert.equal(entry!.modelId, 'my-model');
    assert.equal(entry!.split, 'train');
    assert.equal(entry!.trajectoryCount, 3);
    assert.equal(entry!.groupCount, 2);
    assert.deepEqual(entry!.body, body);
  });

  it('accepts a minimal trajectory (reward defaults to 0) and decodes the model id from the path', async () => {
    const res = await log({ split: 'val', trajectory_groups: [{ trajectories: [{ messages_and_choices: [] }] }] }, 'team/model v2');
    assert.equal(res.status, 200);
    assert.equal(server().store.logs[0]!.modelId, 'team/model v2');
  });

  it('lists every problem in detail, with integer indices in loc', async () => {
    const res = await log({
      split: 'train',
      trajectory_groups: [
        {
          trajectories: [
            trajectory(),
            trajectory(),
            trajectory({
              reward: 'high',
              messages_and_choices: [{ role: 'robot', content: 'x' }, { finish_reason: 'done', index: 0, message: { role: 'user' } }, 42],
              metrics: { ok: 'yes' },
              metadata: { nested: {} },
              logs: [1],
              start_time: 'tomorrow',
              tools: [{ type: 'function', function: {} }],
              surprise: 1,
            }),
          ],
        },
      ],
    });
    assert.equal(res.status, 422);
    const at = ['body', 'trajectory_groups', 0, 'trajectories', 2];
    const locs = res.body.detail.map((d: { loc: unknown[] }) => JSON.stringify(d.loc.slice(at.length)));
    for (const d of res.body.detail) {
      assert.deepEqual(d.loc.slice(0, at.length), at);
      assert.equal(typeof d.msg, 'string');
      assert.equal(typeof d.type, 'string');
    }
    assert.deepEqual(locs.sort(), [
      '["logs",0]',
      '["messages_and_choices",0,"role"]',
      '["messages_and_choices",1,"finish_reason"]',
      '["messages_and_choices",1,"message","role"]',
      '["messages_and_choices",2]',
      '["metadata","nested"]',
      '["metrics","ok"]',
      '["reward"]',
      '["start_time"]',
      '["tools",0,"function","name"]',
    ]);
    assert.equal(res.body.detail.find((d: { loc: unknown[] }) => d.loc.at(-1) === 'reward').type, 'float_type');
    assert.equal(server().store.logs.length, 0);
  });

  const invalid: [string, unknown, unknown[], string][] = [
    ['a missing split', { trajectory_groups: [] }, ['body', 'split'], 'missing'],
    ['a missing trajectory_groups', { split: 'train' }, ['body', 'trajectory_groups'], 'missing'],
    ['trajectories that is not a list', { split: 'train', trajectory_groups: [{ trajectories: {} }] }, ['body', 'trajectory_groups', 0, 'trajectories'], 'list_type'],
    ['exchanges and messages_and_choices together', { split: 'train', trajectory_groups: [{ trajectories: [{ exchanges: { chat_completions: [EXCHANGE] }, messages_and_choices: [{ role: 'user', content: 'x' }] }] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0], 'value_error'],
    ['exchanges and tools (even empty) together', { split: 'train', trajectory_groups: [{ trajectories: [{ exchanges: { responses: [EXCHANGE] }, tools: [] }] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0], 'value_error'],
    ['an exchange without end_time', { split: 'train', trajectory_groups: [{ trajectories: [{ exchanges: { messages: [{ ...EXCHANGE, end_time: undefined }] } }] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'exchanges', 'messages', 0, 'end_time'], 'missing'],
    ['an exchange whose response is not an object', { split: 'train', trajectory_groups: [{ trajectories: [{ exchanges: { completions: [{ ...EXCHANGE, response: 'text' }] } }] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'exchanges', 'completions', 0, 'response'], 'dict_type'],
    ['a boolean reward', { split: 'train', trajectory_groups: [{ trajectories: [{ messages_and_choices: [], reward: true }] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'reward'], 'float_type'],
    ['a fractional policy version', { split: 'train', trajectory_groups: [{ trajectories: [trajectory({ final_policy_version: 1.5 })] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'final_policy_version'], 'int_type'],
    ['a tool message without tool_call_id', { split: 'train', trajectory_groups: [{ trajectories: [{ messages_and_choices: [{ role: 'tool', content: 'x' }] }] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'messages_and_choices', 0, 'tool_call_id'], 'missing'],
    ['a user message without content', { split: 'train', trajectory_groups: [{ trajectories: [{ messages_and_choices: [{ role: 'user' }] }] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'messages_and_choices', 0, 'content'], 'missing'],
    ['an additional history without messages', { split: 'train', trajectory_groups: [{ trajectories: [trajectory({ additional_histories: [{}] })] }] },
      ['body', 'trajectory_groups', 0, 'trajectories', 0, 'additional_histories', 0, 'messages_and_choices'], 'missing'],
    ['a body that is an array', [], ['body'], 'model_attributes_type'],
  ];
  for (const [what, body, loc, type] of invalid) {
    it(`answers 422 with loc ${JSON.stringify(loc)} for ${what}`, async () => {
      const res = await log(body);
      assert.equal(res.status, 422);
      assert.deepEqual(res.body.detail.map((d: { loc: unknown[]; type: string }) => [d.loc, d.type]), [[loc, type]]);
    });
  }

  it('takes what the official training client sends: unknown fields, null optional fields, naive start_time; stores them as sent', async () => {
    const body = {
      model_id: 'm',
      split: 'train',
      trajectory_groups: [
        {
          trajectories: [
            trajectory({
              tools: null,
              additional_histories: null,
              initial_policy_version: null,
              final_policy_version: null,
              start_time: '2025-06-01T10:00:00.123456',
              auto_metrics: { x: 1 },
              messages_and_choices: [
                { role: 'user', content: [{ type: 'text', text: 'hi' }] },
                {
                  finish_reason: 'stop',
                  index: 0,
                  logprobs: null,
                  stop_reason: null,
                  message: { content: 'yo', refusal: null, role: 'assistant', annotations: null, audio: null, function_call: null, tool_calls: null, reasoning_content: 'think' },
                },
              ],
            }),
          ],
          metadata: {},
          metrics: {},
          logs: [],
          exceptions: [{ type: "<class 'ValueError'>", message: 'boom', traceback: 'Traceback...' }],
        },
      ],
    };
    const res = await log(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(server().store.logs.at(-1)!.body, body);
  });

  it("takes ART's compact dumps: a group without trajectories, a trajectory without messages_and_choices, exchange trajectories", async () => {
    const body = {
      model_id: 'm',
      split: 'train',
      trajectory_groups: [
        {},
        { exceptions: [{ type: 'TimeoutError', message: 'late', traceback: '...' }] },
        { trajectories: [{}, { reward: 0.5 }, { exchanges: { chat_completions: [EXCHANGE], completions: [EXCHANGE], responses: [EXCHANGE], messages: [{ ...EXCHANGE, model: null }] }, reward: 1 }] },
        { trajectories: [{ exchanges: {}, tools: [], messages_and_choices: [] }, { exchanges: { responses: [] }, messages_and_choices: [{ role: 'user', content: 'x' }] }] },
      ],
    };
    const res = await log(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(server().store.logs.at(-1)!.body, body);
    assert.equal(res.body.trajectories, 5);
  });

  it('still refuses a wrong type for a known field inside a whole choice', async () => {
    const res = await log({ split: 'train', trajectory_groups: [{ trajectories: [trajectory({ messages_and_choices: [{ finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'x', refusal: 3 } }] })] }] });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail.map((d: { loc: unknown[] }) => d.loc.slice(-1)), [['refusal']]);
  });

  it('answers 422 when the body is not JSON or not sent as application/json', async () => {
    const notJson = await postJson(server(), '/v1/preview/models/m/log', '{"split":', BEARER);
    assert.equal(notJson.status, 422);
    assert.equal(notJson.body.detail[0].type, 'json_invalid');
    const wrongType = await postJson(server(), '/v1/preview/models/m/log', '{"split":"train","trajectory_groups":[]}', BEARER, {
      'content-type': 'text/plain',
    });
    assert.equal(wrongType.status, 422);
  });
});
