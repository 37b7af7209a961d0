// The trainability verdicts, fuzzed: whatever a file holds, the verdict pass answers (never throws),
// and on well-formed groups it agrees with ART's rule written out independently here
// (tokenize_trajectory_groups: skip when zero variance, or reward == mean).
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { addToSummary, emptySummary, groupCell, groupVerdict, summaryText } from '../../../src/files/verdicts';
import { fuzz } from './helpers';

const choice = (n: number) => ({
  finish_reason: 'stop',
  index: 0,
  logprobs: { content: Array.from({ length: n }, (_, i) => ({ token: `token_id:${i}`, logprob: -0.1, bytes: null, top_logprobs: [] })), refusal: null },
  message: { role: 'assistant', content: 'x' },
  prompt_token_ids: [1],
  token_ids: Array.from({ length: n }, (_, i) => i),
});

/** Anything: groups, trajectories and turns with any field of any JSON kind. */
const anyGroup = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.record({
    trajectories: fc.array(
      fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.record({
          reward: fc.oneof(fc.double(), fc.jsonValue({ maxDepth: 1 })),
          messages_and_choices: fc.array(fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ message: fc.jsonValue({ maxDepth: 1 }), logprobs: fc.jsonValue({ maxDepth: 2 }), token_ids: fc.jsonValue({ maxDepth: 1 }), prompt_token_ids: fc.jsonValue({ maxDepth: 1 }), compact_logprobs: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: ['message'] })), { maxLength: 4 }),
          exchanges: fc.dictionary(fc.constantFrom('chat_completions', 'completions', 'responses', 'messages', 'other'), fc.array(fc.record({ response: fc.jsonValue({ maxDepth: 4 }) }), { maxLength: 2 })),
          additional_histories: fc.jsonValue({ maxDepth: 3 }),
        }, { requiredKeys: [] }),
      ),
      { maxLength: 6 },
    ),
    exceptions: fc.jsonValue({ maxDepth: 2 }),
  }, { requiredKeys: [] }),
);

describe('fuzz: trainability verdicts', () => {
  it('any JSON value gets a verdict, a cell and a summary, never a throw (seed 3001)', () => {
    fc.assert(
      fc.property(anyGroup, (g) => {
        const v = groupVerdict(g);
        assert.equal(typeof v.trains, 'boolean');
        assert.equal(v.training, v.members.filter((m) => m.trains).length);
        for (const m of v.members) assert.equal(m.trains, m.primary === undefined);
        assert.equal(typeof groupCell(v), 'string');
        const s = emptySummary();
        addToSummary(s, v);
        assert.match(summaryText(s), /^Of \d+ trajector(y|ies), \d+ will train/);
      }),
      fuzz(3001, 400),
    );
  });

  it("agrees with ART's advantage rule on well-formed groups (seed 3002)", () => {
    const rewards = fc.array(fc.oneof(fc.constantFrom(0, 0.5, 1, 0.1 + 5e-13), fc.double({ min: -10, max: 10, noNaN: true })), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(rewards, fc.integer({ min: 1, max: 5 }), (rs, n) => {
        const v = groupVerdict({ trajectories: rs.map((reward) => ({ messages_and_choices: [{ role: 'user', content: 'q' }, choice(n)], reward })) });
        // ART: rewards_have_zero_variance, then reward - mean == 0 with Python's left-to-right sum.
        const zero = rs.length <= 1 || rs.every((r) => Math.abs(r - rs[0]!) <= 1e-12);
        let sum = 0;
        for (const r of rs) sum += r;
        const mean = sum / rs.length;
        assert.deepEqual(
          v.members.map((m) => m.trains),
          rs.map((r) => !zero && r - mean !== 0),
        );
      }),
      fuzz(3002, 300),
    );
  });
});
