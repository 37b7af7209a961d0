// Trainability verdicts: each verdict follows a rule of ART's trainer, named in the test's title
// (artRules.ts has the file, commit and function of each). Fixtures: test/fixtures/trainability/,
// written by Python's json module in ART's own shapes (make.py).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MemoryBytes, TrajectoryIndex } from '../../../src/files/groupIndex';
import { ART_RULES, ART_SETTINGS, ruleRef } from '../../../src/files/artRules';
import { addToSummary, emptySummary, groupCell, groupVerdict, summaryText, zeroVariance, type GroupVerdict, type VerdictCode } from '../../../src/files/verdicts';

const dir = path.resolve(__dirname, '../../fixtures/trainability');
const groupsOf = (file: string): unknown[] =>
  fs
    .readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
const step = groupsOf('step.jsonl');
const raises = groupsOf('raises.jsonl');
const codes = (g: GroupVerdict) => g.members.map((m) => (m.trains ? 'trains' : m.primary!.code));

const choice = (extra: Record<string, unknown> = {}) => ({
  finish_reason: 'stop',
  index: 0,
  logprobs: { content: [{ token: 'token_id:5', logprob: -0.5, bytes: null, top_logprobs: [] }], refusal: null },
  message: { role: 'assistant', content: 'x' },
  prompt_token_ids: [1],
  token_ids: [5],
  ...extra,
});
const traj = (reward: unknown, c: unknown = choice()) => ({ messages_and_choices: [{ role: 'user', content: 'q' }, c], reward });

describe('trainability verdicts: advantage (ART tokenize_trajectory_groups, scale_rewards default True)', () => {
  it('zero advantage: reward equal to the group mean is skipped (tokenize_trajectory_groups: advantage == 0 and drop_zero_advantage_trajectories)', () => {
    const v = groupVerdict(step[0]);
    assert.deepEqual(codes(v), ['trains', 'trains', 'zero-advantage', 'zero-advantage']);
    const r = v.members[2]!.primary!;
    assert.equal(r.rule, 'advantage');
    assert.equal(r.setting, 'drop_zero_advantage_trajectories');
    assert.deepEqual([r.numbers!.reward, r.numbers!.mean, r.numbers!.advantage], [0.5, 0.5, 0]);
    assert.match(r.message, /its reward 0\.5 equals its group's mean 0\.5, so reward − mean = 0/);
    assert.match(r.message, /\[ART src\/art\/preprocessing\/tokenize\.py: tokenize_trajectory_groups, OpenPipe\/ART@e8f1ffc3\]/);
  });

  it('shows the advantage as ART computes it: reward − mean over (population std + 1e-6) (tokenize_trajectory_groups, scale_rewards=True)', () => {
    const rewards = [0, 0.25, 1];
    const v = groupVerdict({ trajectories: rewards.map((r) => traj(r)) });
    const mean = (0 + 0.25 + 1) / 3;
    const std = Math.sqrt(rewards.reduce((a, r) => a + (r - mean) ** 2, 0) / 3);
    // The figures ART's own test (tests/unit/test_grpo_zero_variance.py) expects for these rewards.
    assert.deepEqual(
      v.members.map((m) => m.advantage!.scaled),
      rewards.map((r) => (r - mean) / (std + 1e-6)),
    );
    assert.deepEqual(v.members.map((m) => m.advantage!.raw), rewards.map((r) => r - mean));
    assert.equal(v.std, std);
    assert.deepEqual(codes(v), ['trains', 'trains', 'trains']);
  });

  it('no variance: every member of an equal-reward group is skipped, tolerance 1e-12 (utils/grpo.py rewards_have_zero_variance)', () => {
    const v = groupVerdict(step[1]);
    assert.deepEqual(codes(v), ['zero-variance', 'zero-variance', 'zero-variance']);
    assert.equal(v.trains, false);
    assert.equal(v.artTrainable, false);
    assert.deepEqual(v.reasons.map((r) => r.code), ['zero-variance']);
    // ART's own cases: within 1e-12 of the first is zero variance, 2e-12 away is not.
    assert.equal(zeroVariance([0.1, 0.1 + 5e-13, 0.1 - 5e-13]), true);
    assert.equal(zeroVariance([0, 2e-12, -2e-12]), false);
    const near = groupVerdict({ trajectories: [0.1, 0.1 + 5e-13, 0.1 - 5e-13].map((r) => traj(r)) });
    assert.deepEqual(codes(near), ['zero-variance', 'zero-variance', 'zero-variance']);
    assert.match(near.members[0]!.primary!.message, /all 3 rewards lie within 1e-12 of 0\.1/);
    const apart = groupVerdict({ trajectories: [0, 2e-12, -2e-12].map((r) => traj(r)) });
    assert.deepEqual(codes(apart), ['zero-advantage', 'trains', 'trains']);
  });

  it('a group of one is skipped: one reward has no variance (rewards_have_zero_variance: len(rewards) <= 1)', () => {
    const v = groupVerdict(step[2]);
    assert.deepEqual(codes(v), ['group-of-one']);
    assert.equal(v.members[0]!.primary!.rule, 'zeroVariance');
    assert.deepEqual(v.reasons.map((r) => r.code), ['group-of-one']);
    assert.equal(groupCell(v), '0 of 1: group of one');
  });

  it('an empty group is passed over (tokenize_trajectory_groups: if not group: continue)', () => {
    const v = groupVerdict({ trajectories: [], exceptions: [{ type: 'E', message: 'm', traceback: '' }] });
    assert.deepEqual(v.reasons.map((r) => r.code), ['empty-group', 'exception']);
    assert.equal(v.trains, false);
    assert.equal(groupCell(v), '0 of 0: empty group');
  });

  it('a reward that is not a number cannot be trained on (ART Trajectory.reward is a float)', () => {
    const v = groupVerdict({ trajectories: [traj('high'), traj(1), traj(0)] });
    assert.deepEqual(codes(v), ['invalid-reward', 'trains', 'trains']);
    assert.equal(v.mean, 0.5, 'the mean is over the numeric rewards');
  });
});

describe('trainability verdicts: trainable turns and logprobs (ART assemble_vllm_training_sequences)', () => {
  it('a trajectory whose choice has no logprobs yields nothing, silently (assemble_vllm_training_sequences, allow_training_without_logprobs default False; ART issue #336)', () => {
    const v = groupVerdict(step[3]);
    assert.deepEqual(codes(v), ['no-logprobs', 'trains']);
    const r = v.members[0]!.primary!;
    assert.equal(r.rule, 'choiceTrainable');
    assert.equal(r.setting, 'allow_training_without_logprobs');
    assert.equal(ART_SETTINGS.allow_training_without_logprobs.default, false);
    assert.match(r.message, /logprobs is null/);
    assert.match(r.message, /#336/);
  });

  it('compact_logprobs train in place of logprobs.content (test_rich_token_metadata, choice_completion_logprobs)', () => {
    const v = groupVerdict(step[3]);
    assert.deepEqual(v.members[1]!.turns.map((t) => [t.form, t.tokens]), [['compact_logprobs', 3]]);
    assert.equal(v.members[1]!.reasons.length, 0);
  });

  it('logprobs on a plain assistant message dict are not read (isinstance(item, Choice); ART pull request #467)', () => {
    const v = groupVerdict(step[4]);
    assert.equal(v.members[0]!.primary!.code, 'dict-logprobs');
    assert.equal(v.members[0]!.primary!.rule, 'dictLogprobs');
    assert.match(v.members[0]!.primary!.message, /#467/);
  });

  it('a trajectory with no assistant choice has nothing to train (only Choice items train; ART issue #127)', () => {
    const v = groupVerdict(step[4]);
    assert.equal(v.members[1]!.primary!.code, 'no-trainable-turn');
    assert.match(v.members[1]!.primary!.message, /1 assistant turn is a message dict/);
    assert.equal(groupVerdict({ trajectories: [{ messages_and_choices: [{ role: 'user', content: 'q' }], reward: 1 }, traj(0)] }).members[0]!.primary!.code, 'no-trainable-turn');
  });

  it('some choices without logprobs: the others still train (assemble_vllm_training_sequences filters choice by choice)', () => {
    const t = { messages_and_choices: [{ role: 'user', content: 'q' }, choice({ logprobs: null }), { role: 'user', content: 'again' }, choice()], reward: 1 };
    const v = groupVerdict({ trajectories: [t, traj(0)] });
    assert.deepEqual(codes(v), ['trains', 'trains']);
    assert.deepEqual(v.members[0]!.reasons.map((r) => [r.code, r.severity]), [['some-turns-without-logprobs', 'note']]);
  });

  it('choices in additional_histories count as turns (tokenize_trajectory_groups passes trajectory.additional_histories)', () => {
    const t = { messages_and_choices: [{ role: 'user', content: 'q' }], additional_histories: [{ messages_and_choices: [{ role: 'user', content: 'q' }, choice()] }], reward: 1 };
    assert.deepEqual(codes(groupVerdict({ trajectories: [t, traj(0)] })), ['trains', 'trains']);
  });

  it('a zero-advantage trajectory is skipped before tokenization: its turn problems are "also", not the reason (tokenize_trajectory_groups order)', () => {
    const v = groupVerdict({ trajectories: [traj(1), traj(0), traj(0.5, choice({ prompt_token_ids: undefined, token_ids: undefined }))] });
    const m = v.members[2]!;
    assert.equal(m.primary!.code, 'zero-advantage');
    assert.deepEqual(m.reasons.map((r) => [r.code, r.unreached === true]), [['zero-advantage', false], ['no-token-ids', true]]);
    assert.equal(v.fails, false);
  });
});

describe('trainability verdicts: what makes ART raise (the whole step fails)', () => {
  it('a trainable choice without prompt_token_ids/token_ids (assemble_vllm_training_sequences, choice_vllm_token_metadata)', () => {
    const v = groupVerdict(raises[0]);
    assert.deepEqual(codes(v), ['no-token-ids', 'trains']);
    assert.equal(v.fails, true);
    assert.equal(v.members[0]!.primary!.severity, 'error');
    assert.match(v.members[0]!.primary!.message, /Trainable Choice is missing vLLM prompt_token_ids\/token_ids/);
    assert.equal(groupCell(v), '1 of 2; ART raises');
  });

  it('logprobs.content one short of token_ids (_choice_logprobs: length must match)', () => {
    const v = groupVerdict(raises[1]);
    assert.equal(v.members[0]!.primary!.code, 'logprob-mismatch');
    assert.deepEqual([v.members[0]!.primary!.numbers!.logprobs, v.members[0]!.primary!.numbers!.tokens], [2, 3]);
  });

  it('compact_logprobs with a null (choice_completion_logprobs: "matching finite logprobs")', () => {
    const v = groupVerdict(raises[2]);
    assert.equal(v.members[0]!.primary!.code, 'compact-invalid');
    assert.equal(v.members[0]!.primary!.rule, 'compactLogprobs');
  });

  it('exchanges without the server token ids, or without logprobs (tokenize_trajectory_groups, exchange branch)', () => {
    const v = groupVerdict(raises[3]);
    assert.deepEqual(codes(v), ['exchange-not-exact', 'exchange-no-logprobs']);
    assert.match(v.members[0]!.primary!.message, /Exchange training requires exact inference-provided token IDs/);
    assert.match(v.members[1]!.primary!.message, /Exchange trajectory is missing logprobs for trainable tokens/);
  });
});

describe('trainability verdicts: exchanges (ART trajectories/_tokenize.py)', () => {
  it("reads ART 2026's token_ids, response prompt_token_ids and compact_logprobs, and token_id pairs in logprobs.content (_chat_choice_output_tokens)", () => {
    const v = groupVerdict(step[6]);
    assert.deepEqual(codes(v), ['trains', 'trains']);
    assert.deepEqual(v.members.map((m) => [m.shape, m.turns.map((t) => [t.form, t.tokens])]), [
      ['exchanges', [['compact_logprobs', 2]]],
      ['exchanges', [['logprobs.content', 2]]],
    ]);
  });

  it('an exchange trajectory with no response choice trains nothing', () => {
    const t = { exchanges: { chat_completions: [{ request: { messages: [] }, response: { choices: [] } }] }, reward: 1 };
    assert.equal(groupVerdict({ trajectories: [t, traj(0)] }).members[0]!.primary!.code, 'no-trainable-turn');
  });
});

describe('trainability verdicts: the file summary', () => {
  it('counts exceptions as trajectories, as data/step_num_trajectories does (metrics_taxonomy.summarize_trajectory_groups)', () => {
    const v = groupVerdict(step[5]);
    assert.equal(v.exceptions, 1);
    assert.deepEqual(v.reasons.map((r) => [r.code, r.rule]), [['exception', 'exceptions']]);
  });

  it('says of how many trajectories ART will train on and why not the others', () => {
    const s = emptySummary();
    for (const g of step) addToSummary(s, groupVerdict(g));
    assert.equal(
      summaryText(s),
      'Of 17 trajectories, 7 will train; 2 zero advantage, 3 in groups without reward variance, 1 in a group of one, 1 without logprobs, 1 with logprobs only in message dicts (not read), 1 without a trainable assistant turn, 1 exception. ' +
        "4 of 7 groups train (ART's data/step_num_groups_trainable would say 5: it counts groups whose rewards vary).",
    );
    const byCode: Partial<Record<VerdictCode, number>> = { 'zero-advantage': 2, 'zero-variance': 3, 'group-of-one': 1, 'no-logprobs': 1, 'dict-logprobs': 1, 'no-trainable-turn': 1 };
    assert.deepEqual(s.byCode, byCode);
  });

  it('says when ART would stop with an error, and when it would not update the model', () => {
    const s = emptySummary();
    for (const g of raises) addToSummary(s, groupVerdict(g));
    assert.match(summaryText(s), /ART would stop with an error at this step: 5 trajectories make it raise\.$/);
    const none = emptySummary();
    addToSummary(none, groupVerdict(step[1]));
    assert.match(summaryText(none), /^Of 3 trajectories, 0 will train; 3 in groups without reward variance\. .* ART would not update the model at this step\.$/);
  });

  it('every rule cites a file and a 40-hex commit of OpenPipe/ART', () => {
    for (const [id, r] of Object.entries(ART_RULES)) {
      assert.match(r.commit, /^[0-9a-f]{40}$/, id);
      assert.match(r.path, /^(src|tests)\/art|^tests\//, id);
    }
  });
});

describe("trainability verdicts: the viewer's index of a JSONL file", () => {
  it('gives each group row its verdict and keeps the file summary, from the parse it does anyway', async () => {
    const index = new TrajectoryIndex(new MemoryBytes(fs.readFileSync(path.join(dir, 'step.jsonl'))), 'jsonl');
    await index.build();
    assert.deepEqual(index.row(1).verdict, { training: 0, trajectories: 3, text: '0 of 3: no reward variance', fails: false });
    assert.deepEqual(index.row(0).verdict, { training: 2, trajectories: 4, text: '2 of 4', fails: false });
    assert.match(summaryText(index.verdicts), /^Of 17 trajectories, 7 will train; 2 zero advantage,/);
    const raising = new TrajectoryIndex(new MemoryBytes(fs.readFileSync(path.join(dir, 'raises.jsonl'))), 'jsonl');
    await raising.build();
    assert.deepEqual(raising.row(0).verdict, { training: 1, trajectories: 2, text: '1 of 2; ART raises', fails: true });
  });
});

describe('viewer/artRules: the short reference a tooltip shows', () => {
  it('names each rule by its file and function, never a cut-off parenthesis', () => {
    for (const id of Object.keys(ART_RULES) as (keyof typeof ART_RULES)[]) {
      const ref = ruleRef(id);
      assert.match(ref, /^ART [\w/.]+\.py: \w+, OpenPipe\/ART@[0-9a-f]{8}$/, ref);
    }
  });
});
