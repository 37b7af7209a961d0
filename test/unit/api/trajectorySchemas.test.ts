import assert from 'node:assert/strict';
import { TrajectoryLogRequest } from '../../../src/api/schemas/models';
import { HttpError } from '../../server/errors';
import { Store } from '../../server/store';
import { logTrajectories } from '../../server/trajectories';

// The client's zod schemas must refuse, before sending, whatever the strictest server refuses with
// a 422, and accept what it accepts. The reference server's validator was written separately, so
// agreeing with it case by case is worth something.

const call = { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{}' } };
const choice = { finish_reason: 'stop', index: 0, message: { role: 'assistant', content: 'x' } };
const tool = { type: 'function', function: { name: 'weather', description: 'd', parameters: { type: 'object' }, strict: true } };

const items: [string, unknown][] = [
  ['a user message', { role: 'user', content: 'x' }],
  ['a user message with null content', { role: 'user', content: null }],
  ['a user message without content', { role: 'user' }],
  ['a system message with a name', { role: 'system', content: 'x', name: 'n' }],
  ['a null name', { role: 'user', content: 'x', name: null }],
  ['an unknown message field', { role: 'user', content: 'x', extra: 1 }],
  ['tool_calls on a user message', { role: 'user', content: 'x', tool_calls: [] }],
  ['tool_call_id on a user message', { role: 'user', content: 'x', tool_call_id: 'a' }],
  ['an assistant message without content', { role: 'assistant' }],
  ['an assistant message with tool calls', { role: 'assistant', content: null, tool_calls: [call] }],
  ['a tool call with an unknown field', { role: 'assistant', tool_calls: [{ ...call, extra: 1 }] }],
  ['a tool call of another type', { role: 'assistant', tool_calls: [{ ...call, type: 'custom' }] }],
  ['a tool call without id', { role: 'assistant', tool_calls: [{ type: 'function', function: call.function }] }],
  ['tool call arguments as an object', { role: 'assistant', tool_calls: [{ ...call, function: { name: 'f', arguments: {} } }] }],
  ['an unknown tool call function field', { role: 'assistant', tool_calls: [{ ...call, function: { ...call.function, x: 1 } }] }],
  ['null tool_calls', { role: 'assistant', tool_calls: null }],
  ['tool_call_id on an assistant message', { role: 'assistant', content: 'x', tool_call_id: 'a' }],
  ['a tool message', { role: 'tool', content: 'x', tool_call_id: 'a' }],
  ['a tool message without tool_call_id', { role: 'tool', content: 'x' }],
  ['a numeric tool_call_id', { role: 'tool', content: 'x', tool_call_id: 1 }],
  ['a tool message without content', { role: 'tool', tool_call_id: 'a' }],
  ['a function message', { role: 'function', content: 'x', name: 'f' }],
  ['a developer message', { role: 'developer', content: 'x' }],
  ['an unknown role', { role: 'robot', content: 'x' }],
  ['a null role', { role: null, content: 'x' }],
  ['content without role', { content: 'x' }],
  ['an empty object', {}],
  ['a string', 'hi'],
  ['a choice', choice],
  ['a choice with null logprobs', { ...choice, logprobs: null }],
  ['a choice with object logprobs', { ...choice, logprobs: { content: [] } }],
  ['a choice with array logprobs', { ...choice, logprobs: [] }],
  ['a choice without index', { finish_reason: 'stop', message: choice.message }],
  ['a choice with a fractional index', { ...choice, index: 1.5 }],
  ['an unknown finish_reason', { ...choice, finish_reason: 'done' }],
  ['a choice without finish_reason', { index: 0, message: choice.message }],
  ['a choice without message', { finish_reason: 'stop', index: 0 }],
  ['a choice message with role user', { ...choice, message: { role: 'user', content: 'x' } }],
  ['a choice message without role', { ...choice, message: { content: 'x' } }],
  ['a choice message with null content', { ...choice, message: { role: 'assistant', content: null } }],
  ['a choice message with tool calls', { ...choice, finish_reason: 'tool_calls', message: { role: 'assistant', tool_calls: [call] } }],
  ['a choice message with tool_call_id', { ...choice, message: { role: 'assistant', content: 'x', tool_call_id: 'a' } }],
  ['a choice with an unknown field', { ...choice, extra: 1 }],
  ['a choice that also has a role', { ...choice, role: 'assistant' }],
];

const trajectories: [string, Record<string, unknown>][] = [
  ['tools', { tools: [tool] }],
  ['null tools', { tools: null }],
  ['a tool with an unknown field', { tools: [{ ...tool, extra: 1 }] }],
  ['a tool function with an unknown field', { tools: [{ ...tool, function: { ...tool.function, extra: 1 } }] }],
  ['a null strict', { tools: [{ ...tool, function: { ...tool.function, strict: null } }] }],
  ['an empty tool name', { tools: [{ ...tool, function: { ...tool.function, name: '' } }] }],
  ['array parameters', { tools: [{ ...tool, function: { ...tool.function, parameters: [] } }] }],
  ['a history with tools', { additional_histories: [{ messages_and_choices: [], tools: [] }] }],
  ['a history with null tools', { additional_histories: [{ messages_and_choices: [], tools: null }] }],
  ['a history with an unknown field', { additional_histories: [{ messages_and_choices: [], reward: 1 }] }],
  ['an infinite reward', { reward: Infinity }],
  ['a null reward', { reward: null }],
];

const exchange = { request: { messages: [] }, response: { id: 'r' }, model: 'm', start_time: '2026-01-01T10:00:00.123456', end_time: '2026-01-01T10:00:01Z' };

/** Whole trajectories (ART's compact dumps and exchange trajectories). */
const whole: [string, unknown][] = [
  ['no fields at all (a compact dump of defaults)', {}],
  ['only a reward', { reward: 1 }],
  ['null messages_and_choices', { messages_and_choices: null }],
  ['messages_and_choices that is an object', { messages_and_choices: {} }],
  ['exchanges of each API', { exchanges: { chat_completions: [exchange], completions: [exchange], responses: [exchange], messages: [exchange] } }],
  ['empty exchanges', { exchanges: {} }],
  ['null exchanges', { exchanges: null }],
  ['null exchange lists', { exchanges: { chat_completions: null, responses: null } }],
  ['exchanges that is a list', { exchanges: [exchange] }],
  ['an exchange list that is an object', { exchanges: { messages: exchange } }],
  ['an unknown exchange list', { exchanges: { embeddings: [1] } }],
  ['an exchange with a null model', { exchanges: { responses: [{ ...exchange, model: null }] } }],
  ['an exchange without model', { exchanges: { responses: [{ ...exchange, model: undefined }] } }],
  ['an exchange with a numeric model', { exchanges: { responses: [{ ...exchange, model: 7 }] } }],
  ['an exchange without request', { exchanges: { responses: [{ ...exchange, request: undefined }] } }],
  ['an exchange with a string response', { exchanges: { responses: [{ ...exchange, response: 'ok' }] } }],
  ['an exchange with a null response', { exchanges: { responses: [{ ...exchange, response: null }] } }],
  ['an exchange with a bad start_time', { exchanges: { responses: [{ ...exchange, start_time: 'now' }] } }],
  ['an exchange without end_time', { exchanges: { responses: [{ ...exchange, end_time: undefined }] } }],
  ['an exchange with an unknown field', { exchanges: { responses: [{ ...exchange, trace: {} }] } }],
  ['an exchange that is a string', { exchanges: { responses: ['x'] } }],
  ['exchanges and messages_and_choices', { exchanges: { responses: [exchange] }, messages_and_choices: [{ role: 'user', content: 'x' }] }],
  ['exchanges and empty messages_and_choices', { exchanges: { responses: [exchange] }, messages_and_choices: [] }],
  ['exchanges and empty tools', { exchanges: { responses: [exchange] }, tools: [] }],
  ['exchanges and null tools', { exchanges: { responses: [exchange] }, tools: null }],
  ['exchanges and a history', { exchanges: { responses: [exchange] }, additional_histories: [{ messages_and_choices: [] }] }],
  ['exchanges and empty histories', { exchanges: { responses: [exchange] }, additional_histories: [] }],
  ['empty exchange lists and messages', { exchanges: { responses: [] }, messages_and_choices: [{ role: 'user', content: 'x' }], tools: [tool] }],
  ['exchanges, legacy fields and a wrong reward', { exchanges: { responses: [exchange] }, tools: [], reward: 'x' }],
];

const groups: [string, unknown][] = [
  ['no trajectories', {}],
  ['null trajectories', { trajectories: null }],
  ['only exceptions', { exceptions: [{ type: 'E', message: 'm', traceback: 't' }] }],
  ['trajectories that is an object', { trajectories: {} }],
];

function serverRefuses(body: unknown): boolean {
  try {
    logTrajectories('m', body, new Store());
    return false;
  } catch (e) {
    if (e instanceof HttpError && e.status === 422) return true;
    throw e;
  }
}

function check(body: unknown): void {
  const server = serverRefuses(body);
  const client = !TrajectoryLogRequest.safeParse(body).success;
  assert.equal(client, server, `the server ${server ? 'refuses' : 'accepts'} it, the client ${client ? 'refuses' : 'accepts'} it`);
}

describe('trajectory schemas agree with the reference server', () => {
  for (const [what, item] of items) {
    it(`${what} in messages_and_choices`, () => {
      check({ split: 'train', trajectory_groups: [{ trajectories: [{ messages_and_choices: [item] }] }] });
      check({ split: 'train', trajectory_groups: [{ trajectories: [{ messages_and_choices: [], additional_histories: [{ messages_and_choices: [item] }] }] }] });
    });
  }
  for (const [what, t] of whole) {
    it(`a whole trajectory with ${what}`, () => {
      check({ split: 'train', trajectory_groups: [{ trajectories: [t] }] });
    });
  }
  for (const [what, g] of groups) {
    it(`a group with ${what}`, () => {
      check({ split: 'train', trajectory_groups: [g] });
    });
  }
  for (const [what, fields] of trajectories) {
    it(`a trajectory with ${what}`, () => {
      check({ split: 'train', trajectory_groups: [{ trajectories: [{ messages_and_choices: [], ...fields }] }] });
    });
  }
});
