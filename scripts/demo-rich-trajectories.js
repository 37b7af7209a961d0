// The demo's rich trajectory file (`support-agent.trajectories.jsonl`): what a GRPO step of a tool-using
// support agent looks like, to show the Trajectory Viewer. Groups of 4 to 8 rollouts with varied
// rewards, one group whose rewards are all equal (no learning signal), parallel tool calls whose
// results come back out of order, reasoning, a group where rollouts raised, and a long message.
// So that every verdict of docs/trainability.md shows: most choices carry OpenAI logprobs with the
// server's token ids, one group ART's compact logprobs, one rollout none, and one reward equals its
// group's mean (zero advantage).
//
// Written from the producers' field lists (test/fixtures/viewer/producers.ts), not from our schemas:
//   ART TrajectoryGroup (model_dump(mode="json")): trajectories, exceptions, metadata, metrics, logs
//   ART Trajectory: messages_and_choices, tools, additional_histories, reward, initial_policy_version,
//                   final_policy_version, metrics, metadata, logs
//   ART PydanticException: type, message, traceback
//   OpenAI Choice: finish_reason, index, logprobs, message (+ vLLM stop_reason)
//   OpenAI ChatCompletionMessage: content, refusal, role, annotations, audio, function_call, tool_calls
//                                 (+ vLLM reasoning_content)
//   OpenAI ChatCompletionMessageToolCall: id, function {arguments, name}, type
//
//   const { richGroups, RICH_FILE } = require('./demo-rich-trajectories');
'use strict';

const RICH_FILE = 'support-agent.trajectories.jsonl';

const TOOLS = [
  { type: 'function', function: { name: 'lookup_order', description: 'An order by its number', parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] } } },
  { type: 'function', function: { name: 'track_parcel', description: 'Where a parcel is now', parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] } } },
  { type: 'function', function: { name: 'search_policy', description: 'Full-text search of the support policies', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } } },
];
const SYSTEM = { role: 'system', content: 'You are a support agent for an online shop. Use the tools; answer in markdown; never promise what the policy does not allow.' };

/** A small deterministic hash (FNV-1a), for made-up token ids and logprobs. */
function hash(text, seed = 0) {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * The tokens a vLLM server would return for `text` (made up, but shaped as ART stores them): word
 * pieces, ids, a logprob per token (mostly likely, a few unlikely ones) and two alternatives each.
 */
function tokensOf(text) {
  return (text.match(/\s*[A-Za-z0-9]+|\s*[^\sA-Za-z0-9]/g) ?? []).map((token, i) => {
    const h = hash(token, i);
    const logprob = -Number((h % 97 === 0 ? 2 + (h % 300) / 100 : (h % 1000) / 2500).toFixed(4));
    const alt = (k) => ({ token: `${token.trimStart().slice(0, 3)}${'_'.repeat(k)}`, id: (h + k * 7919) % 151000, logprob: Number((logprob - 0.7 - k * 1.3).toFixed(4)) });
    return { token, id: h % 151000, logprob, alts: [alt(1), alt(2)] };
  });
}
const PROMPT_TOKEN_IDS = Array.from({ length: 24 }, (_, i) => (hash('prompt', i) % 151000));
const bytes = (t) => [...Buffer.from(t, 'utf8')];

/**
 * The logprobs of a choice, in the forms ART reads. `openai` (the default): vLLM's OpenAI
 * `logprobs.content[{token, logprob, bytes, top_logprobs}]` with the server's `prompt_token_ids` and
 * `token_ids`; `compact`: ART 2026's `compact_logprobs`, `compact_top_logprobs {token_ids, logprobs}`
 * (one list per token) and `logprobs_mode`, with `logprobs` null; `none`: `logprobs: null` and no
 * token ids (ART drops such a trajectory, ART issue #336).
 */
function logprobFields(text, form) {
  if (form === 'none') return { logprobs: null };
  const tokens = tokensOf(text);
  const ids = { prompt_token_ids: PROMPT_TOKEN_IDS, token_ids: tokens.map((t) => t.id) };
  if (form === 'compact') {
    return {
      logprobs: null,
      ...ids,
      compact_logprobs: tokens.map((t) => t.logprob),
      compact_top_logprobs: { token_ids: tokens.map((t) => t.alts.map((a) => a.id)), logprobs: tokens.map((t) => t.alts.map((a) => a.logprob)) },
      logprobs_mode: 'processed_logprobs',
    };
  }
  return {
    logprobs: {
      content: tokens.map((t) => ({ token: t.token, logprob: t.logprob, bytes: bytes(t.token), top_logprobs: [{ token: t.token, logprob: t.logprob, bytes: bytes(t.token) }, ...t.alts.map((a) => ({ token: a.token, logprob: a.logprob, bytes: bytes(a.token) }))] })),
      refusal: null,
    },
    ...ids,
  };
}

/** An OpenAI-SDK choice as vLLM returns it through ART (every key present); `logprobs`: see logprobFields. */
function choice(content, { toolCalls = null, reasoning, logprobs = 'openai' } = {}) {
  const sampled = content ?? (toolCalls ?? []).map((c) => `<tool_call>${JSON.stringify({ name: c.function.name, arguments: JSON.parse(c.function.arguments) })}</tool_call>`).join('');
  return {
    finish_reason: toolCalls ? 'tool_calls' : 'stop',
    index: 0,
    ...logprobFields(sampled, logprobs),
    message: {
      content,
      refusal: null,
      role: 'assistant',
      annotations: null,
      audio: null,
      function_call: null,
      tool_calls: toolCalls,
      ...(reasoning !== undefined ? { reasoning_content: reasoning } : {}),
    },
    stop_reason: null,
  };
}
const call = (id, name, args) => ({ id, function: { arguments: JSON.stringify(args), name }, type: 'function' });
const result = (id, value) => ({ role: 'tool', tool_call_id: id, content: JSON.stringify(value) });

function trajectory(messages, reward, metrics, metadata = {}) {
  return {
    messages_and_choices: messages,
    tools: TOOLS,
    additional_histories: [],
    reward,
    initial_policy_version: 12,
    final_policy_version: 12,
    metrics,
    metadata,
    logs: [],
  };
}

function group(trajectories, extra = {}) {
  return { trajectories, exceptions: [], metadata: { scenario: extra.scenario ?? '' }, metrics: {}, logs: extra.logs ?? [], ...(extra.exceptions ? { exceptions: extra.exceptions } : {}) };
}

/** Where is my order: two tool calls in one turn; the parcel's answer comes back before the order's. */
function orderGroup() {
  const answers = [
    ['Your order **A-1042** left our warehouse on Monday and is with the carrier: it is in Lyon today and should arrive **Thursday**.', 1],
    ['Order A-1042 shipped Monday; the carrier expects to deliver it on Thursday.', 0.85],
    ['It has shipped. You will get it soon.', 0.35],
    ['Your order A-1042 is in Lyon and arrives Thursday. I have also refunded the shipping fee.', 0.1],
    ['Order A-1042 is in transit (Lyon), expected **Thursday**. Track it any time with the link in your confirmation email.', 0.95],
    ['I could not find that order.', 0],
  ];
  return group(
    answers.map(([answer, reward], i) => {
      // Rollout 3 was sampled without logprobs (ART drops it); rollout 5's are in ART's compact form.
      const logprobs = i === 2 ? 'none' : i === 4 ? 'compact' : 'openai';
      const order = call(`call_${i}_order`, 'lookup_order', { order: 'A-1042' });
      const parcel = call(`call_${i}_parcel`, 'track_parcel', { order: 'A-1042' });
      return trajectory(
        [
          SYSTEM,
          { role: 'user', content: `Where is my order A-1042? I ordered it last week.${i ? '' : ' It was a birthday present.'}` },
          choice(null, { toolCalls: [order, parcel], reasoning: 'The user asks where an order is. I need the order (did it ship?) and the parcel (where is it?): call both at once.', logprobs }),
          // The results come back in the order the tools finished: the parcel first.
          result(parcel.id, { status: 'in_transit', location: 'Lyon', eta: 'Thursday' }),
          result(order.id, { order: 'A-1042', status: 'shipped', shipped_on: 'Monday', items: 2 }),
          choice(answer, { reasoning: reward > 0.5 ? 'Both results agree: shipped Monday, in Lyon, due Thursday. Answer with the date.' : 'Answer briefly.', logprobs }),
        ],
        reward,
        { tool_calls: 2, duration: 1.4 + i / 10, answer_chars: answer.length },
        { order: 'A-1042' },
      );
    }),
    { scenario: 'order status' },
  );
}

/** A long policy: the search result is a long message (collapsed, with Show all). */
function policyText() {
  const sections = ['Eligibility', 'Time limits', 'Condition of items', 'Refund method', 'Shipping costs', 'Exceptions', 'Damaged items', 'Gifts', 'Sale items', 'Digital goods'];
  return sections
    .map((s, i) => `## ${i + 1}. ${s}\n\n` + Array.from({ length: 6 }, (_, j) => `${s} rule ${j + 1}: a customer may return an item within 30 days of delivery when it is unused and in its original packaging; the refund goes to the original payment method within 5 to 10 working days, and shipping costs are refunded only when the item arrived damaged or was not what was ordered.`).join(' '))
    .join('\n\n');
}

/** Can I return this: one search, a long policy, answers of varied quality. */
function refundGroup() {
  const policy = policyText();
  const answers = [
    ['Yes: within **30 days** of delivery, unused and in its packaging. The refund reaches your card in 5 to 10 working days.', 0.9],
    // Its reward is the group's mean (0.5): zero advantage, so ART skips it.
    ['Yes, you can return it within 30 days.', 0.5],
    ['Returns are accepted within 30 days; shipping costs are refunded only for damaged items. Start the return from your orders page.', 1],
    ['No, sale items cannot be returned.', 0],
    ['Yes. Send it back and we refund you immediately, shipping included.', 0.1],
  ];
  return group(
    answers.map(([answer, reward], i) => {
      const search = call(`call_${i}_policy`, 'search_policy', { query: 'return unused item refund' });
      return trajectory(
        [
          SYSTEM,
          { role: 'user', content: 'Can I return a jacket I have not worn? It arrived two weeks ago.' },
          choice(null, { toolCalls: [search], reasoning: 'A returns question: check the policy before answering.', logprobs: 'compact' }),
          result(search.id, { title: 'Returns and refunds policy', text: policy }),
          choice(answer, { logprobs: 'compact' }),
        ],
        reward,
        { tool_calls: 1, duration: 2.1 + i / 10, answer_chars: answer.length },
      );
    }),
    { scenario: 'returns' },
  );
}

/** A greeting every rollout gets right: equal rewards, nothing to learn from. */
function greetingGroup() {
  const answers = ['Hello! How can I help you today?', 'Hi there, what can I do for you?', 'Hello! What can I help you with?', 'Hi! How can I help?'];
  return group(
    answers.map((answer, i) => trajectory([SYSTEM, { role: 'user', content: 'Hello' }, choice(answer)], 1, { tool_calls: 0, duration: 0.3 + i / 100, answer_chars: answer.length })),
    { scenario: 'greeting' },
  );
}

/** Rollouts that raised: ART keeps the group, with the exceptions beside the rollouts that finished. */
function timeoutGroup() {
  const finished = [
    ['Your address is changed to 12 Rue de la Paix, Paris: the parcel has not shipped yet.', 1],
    ['I have updated the address.', 0.5],
    ['The parcel has already shipped, so I cannot change the address.', 0],
    ['Done: the new address is on the order, and the confirmation email is on its way.', 0.8],
  ];
  const exception = {
    type: "<class 'TimeoutError'>",
    message: 'rollout 5 timed out after 30 s waiting for lookup_order',
    traceback: 'Traceback (most recent call last):\n  File "rollout.py", line 48, in rollout\n    result = await tools.lookup_order(order)\n  File "tools.py", line 17, in lookup_order\n    return await asyncio.wait_for(client.get(url), 30)\nTimeoutError: rollout 5 timed out after 30 s waiting for lookup_order\n',
  };
  return group(
    finished.map(([answer, reward], i) => {
      const order = call(`call_${i}_order`, 'lookup_order', { order: 'B-2210' });
      return trajectory(
        [
          SYSTEM,
          { role: 'user', content: 'Please change the delivery address of order B-2210 to 12 Rue de la Paix, Paris.' },
          choice(null, { toolCalls: [order], reasoning: 'An address can change only before the parcel ships: look the order up first.' }),
          result(order.id, { order: 'B-2210', status: 'processing' }),
          choice(answer),
        ],
        reward,
        { tool_calls: 1, duration: 3 + i / 10, answer_chars: answer.length },
      );
    }),
    { scenario: 'change address', exceptions: [exception, { ...exception, message: 'rollout 6 timed out after 30 s waiting for lookup_order', traceback: exception.traceback.replace(/rollout 5/g, 'rollout 6') }], logs: ['2 of 6 rollouts raised: kept the 4 that finished'] },
  );
}

/** The groups of the rich file, in file order. */
function richGroups() {
  return [orderGroup(), refundGroup(), greetingGroup(), timeoutGroup()];
}

module.exports = { richGroups, RICH_FILE };
