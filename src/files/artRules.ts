/**
 * The rules of OpenPipe ART's trainer that decide whether a trajectory is trained on, each with the
 * file, commit and function it comes from (read in ART's source; docs/trainability.md cites the same
 * table). verdicts.ts applies them; tests name them. The settings a rule depends on, with ART's
 * defaults, are in ART_SETTINGS. No `vscode` import.
 */

export const ART_REPO = 'OpenPipe/ART';

export interface ArtRule {
  /** The file in ART's repository. */
  path: string;
  /** The commit it was read at. */
  commit: string;
  /** The function (or test) that holds the rule. */
  where: string;
  /** The rule in one sentence. */
  rule: string;
}

const TOKENIZE = 'src/art/preprocessing/tokenize.py';
const TOKENIZE_AT = 'e8f1ffc3cc00bb607cb239725ca033a97460f529';

export const ART_RULES = {
  emptyGroup: { path: TOKENIZE, commit: TOKENIZE_AT, where: 'tokenize_trajectory_groups', rule: 'A group with no trajectories is passed over (`if not group: continue`).' },
  zeroVariance: {
    path: 'src/art/utils/grpo.py',
    commit: TOKENIZE_AT,
    where: 'rewards_have_zero_variance',
    rule: 'A group of one trajectory (or none), or one whose rewards all lie within 1e-12 of the first, has zero variance; tokenize_trajectory_groups then gives every member advantage 0.',
  },
  advantage: {
    path: TOKENIZE,
    commit: TOKENIZE_AT,
    where: 'tokenize_trajectory_groups',
    rule: 'advantage = reward − group mean (0 in a zero-variance group); with scale_rewards it is divided by (std + 1e-6), std the population standard deviation of the group’s rewards; a trajectory whose advantage == 0 is skipped when drop_zero_advantage_trajectories.',
  },
  groupTrainable: {
    path: 'src/art/metrics_taxonomy.py',
    commit: '9ff532901877db8a026dc8127ff5ff297ffa3ff0',
    where: '_group_is_trainable, summarize_trajectory_groups',
    rule: 'data/step_num_groups_trainable counts the groups without zero variance; data/step_num_trajectories counts trajectories and exceptions.',
  },
  choiceTrainable: {
    path: TOKENIZE,
    commit: TOKENIZE_AT,
    where: 'assemble_vllm_training_sequences',
    rule: 'Of messages_and_choices (and additional_histories), only Choice items train, and only those with logprobs (logprobs not null, or exact completion logprobs) unless allow_training_without_logprobs; message dicts, assistant ones included, never train. A trajectory with no such choice yields nothing and is dropped without a word.',
  },
  choiceTokenIds: {
    path: TOKENIZE,
    commit: TOKENIZE_AT,
    where: 'assemble_vllm_training_sequences; choice_vllm_token_metadata (src/art/preprocessing/vllm_tokens.py)',
    rule: 'A trainable choice must carry prompt_token_ids and token_ids, or ART raises "Trainable Choice is missing vLLM prompt_token_ids/token_ids" and the step fails.',
  },
  choiceLogprobCount: {
    path: TOKENIZE,
    commit: TOKENIZE_AT,
    where: '_choice_logprobs',
    rule: 'A choice’s logprobs.content (or refusal) must have one entry per token id, and exact completion logprobs one value per token id, or ART raises and the step fails.',
  },
  compactLogprobs: {
    path: 'tests/unit/trajectories/test_rich_token_metadata.py',
    commit: '0565c0da554f334cfe7ea5f662e5fa4d448e9581',
    where: 'test_compact_logprobs_and_routes_survive_tokenize_tensorize_and_serialization, test_malformed_compact_logprobs_fail_even_with_classic_fallback; choice_completion_logprobs (src/art/preprocessing/dynamo_tokens.py)',
    rule: 'A choice’s compact_logprobs (or art_completion_logprobs) is a list of finite numbers, one per token id, read in place of logprobs.content; otherwise ART raises "matching finite logprobs".',
  },
  dictLogprobs: {
    path: TOKENIZE,
    commit: TOKENIZE_AT,
    where: 'assemble_vllm_training_sequences (isinstance(item, Choice)); OpenPipe/ART pull request #467 (closed)',
    rule: 'Logprobs stored on a plain message dict ({"role": "assistant", "logprobs": ...}) are not read: only Choice objects carry trainable logprobs.',
  },
  exchangeExact: {
    path: TOKENIZE,
    commit: TOKENIZE_AT,
    where: 'tokenize_trajectory_groups (exchange branch)',
    rule: 'A trajectory with exchanges trains only on the inference server’s own token ids (prompt_token_ids and token_ids); if any token had to be rendered locally ART raises "Exchange training requires exact inference-provided token IDs".',
  },
  exchangeLogprobs: {
    path: TOKENIZE,
    commit: TOKENIZE_AT,
    where: 'tokenize_trajectory_groups (exchange branch)',
    rule: 'Every sampled token of an exchange must have a logprob unless allow_training_without_logprobs, or ART raises "Exchange trajectory is missing logprobs for trainable tokens".',
  },
  exchangeTokens: {
    path: 'src/art/trajectories/_tokenize.py',
    commit: '02f488061b8223e7cd7f7ec7d9afbf9a919c376e',
    where: '_chat_choice_output_tokens, _chat_choice_tokens, _completion_evidence, _token_id',
    rule: 'A chat choice’s token ids are its token_ids, else the ids in logprobs.content ("token_id:N" or token_id); prompt ids are the choice’s or the response’s prompt_token_ids; logprobs are art_completion_logprobs/compact_logprobs, else logprobs.content[].logprob. Completions read logprobs.tokens and token_logprobs.',
  },
  exceptions: {
    path: 'src/art/metrics_taxonomy.py',
    commit: '9ff532901877db8a026dc8127ff5ff297ffa3ff0',
    where: 'summarize_trajectory_groups',
    rule: 'A rollout that raised is in the group’s exceptions, not its trajectories: it has no reward and is never tokenized, but it counts in data/step_num_trajectories.',
  },
} satisfies Record<string, ArtRule>;

export type ArtRuleId = keyof typeof ART_RULES;

/** The training settings the verdicts depend on, with the defaults they assume. */
export const ART_SETTINGS = {
  scale_rewards: {
    default: true,
    source: { path: 'src/art/_backend_training.py', commit: '0b3a6dfd8cc22676779f71c7fbb753712af6150e', where: 'build_rl_train_configs(scale_rewards: bool = True)' },
    effect: 'divides the advantage by the group’s std + 1e-6; whether it is 0 does not change',
  },
  drop_zero_advantage_trajectories: {
    default: true,
    source: { path: TOKENIZE, commit: TOKENIZE_AT, where: 'tokenize_trajectory_groups(drop_zero_advantage_trajectories: bool = True)' },
    effect: 'off, zero-advantage trajectories are tokenized but still add no gradient',
  },
  allow_training_without_logprobs: {
    default: false,
    source: { path: 'src/art/local/backend.py', commit: '', where: '_train_model: dev_config.get("allow_training_without_logprobs", False); build_rl_train_configs leaves it unset' },
    effect: 'on, choices without logprobs train too (ART issue #528 proposes removing it)',
  },
} as const;

export type ArtSetting = keyof typeof ART_SETTINGS;

/** `path` (function) at `commit`, short, for messages. */
export function ruleRef(id: ArtRuleId): string {
  const r: ArtRule = ART_RULES[id];
  return `ART ${r.path}: ${r.where.split(';')[0]!.replace(/\s*\(.*$/, '').split(', ')[0]!.trim()}, ${ART_REPO}@${r.commit.slice(0, 8)}`;
}
