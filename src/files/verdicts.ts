// Over 300 lines: one verdict pass (group, trajectory, file summary) whose reasons read best together.
/**
 * "ART trains on this, or why not": a verdict per trajectory and per group of a trajectory file, and
 * a file's summary ("of 37 trajectories, 29 will train; 4 zero advantage, ..."), by the rules of
 * ART's trainer (artRules.ts, each with the file and commit it comes from). Where a rule depends on
 * a training setting the verdict is for ART's default and its message names the setting. Reads
 * groups as the file readers give them (both `messages_and_choices` and `exchanges` trajectories),
 * leniently like model.ts. No `vscode` import: the agents' tools and the viewer share it.
 */
import { isObject } from '../api/json';
import { ruleRef, type ArtRuleId, type ArtSetting } from './artRules';
import { hasExchanges } from './exchanges';
import { asGroup, exceptionsOf, rewardOf, type Obj } from './model';
import { exchangeTurns, legacyTurns, type TurnCheck, type TurnFault } from './turnChecks';

export type VerdictCode =
  | 'invalid-reward'
  | 'empty-group'
  | 'group-of-one'
  | 'zero-variance'
  | 'zero-advantage'
  | 'no-trainable-turn'
  | 'dict-logprobs'
  | 'no-logprobs'
  | 'some-turns-without-logprobs'
  | 'no-token-ids'
  | 'logprob-mismatch'
  | 'compact-invalid'
  | 'exchange-not-exact'
  | 'exchange-no-logprobs'
  | 'logprobs-unchecked'
  | 'exception';

/** skip: ART passes over it; error: ART raises and the step fails; note: it trains, but read this. */
export type Severity = 'skip' | 'error' | 'note';

export interface VerdictReason {
  code: VerdictCode;
  severity: Severity;
  message: string;
  rule: ArtRuleId;
  numbers?: Record<string, number>;
  setting?: ArtSetting;
  /** Also true of it, but ART stops at an earlier reason first for this trajectory. */
  unreached?: boolean;
}

export interface Advantage {
  reward: number;
  mean: number;
  std: number;
  /** reward − mean (0 in a zero-variance group). */
  raw: number;
  /** raw / (std + 1e-6): what ART trains with under scale_rewards (its default). */
  scaled: number;
}

export interface TrajectoryVerdict {
  index: number;
  trains: boolean;
  /** The first reason ART reaches that stops it, when it does not train. */
  primary?: VerdictReason;
  reasons: VerdictReason[];
  advantage?: Advantage;
  shape: 'messages' | 'exchanges';
  turns: TurnCheck[];
}

export interface GroupVerdict {
  trains: boolean;
  trajectories: number;
  training: number;
  exceptions: number;
  /** Counted by ART's data/step_num_groups_trainable (its rewards vary). */
  artTrainable: boolean;
  /** A trajectory here makes ART raise: the whole step fails. */
  fails: boolean;
  mean: number | null;
  std: number | null;
  reasons: VerdictReason[];
  members: TrajectoryVerdict[];
}

/** ART's epsilon in `advantage /= reward_std + 1e-6`. */
const STD_EPSILON = 1e-6;
/** ART's rewards_have_zero_variance tolerance. */
const ZERO_VARIANCE_TOLERANCE = 1e-12;

/** A number for a sentence: up to 6 significant digits. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return String(n);
  const a = Math.abs(n);
  return a !== 0 && (a < 1e-4 || a >= 1e9) ? n.toExponential(3) : String(Number(n.toPrecision(6)));
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function reason(code: VerdictCode, severity: Severity, rule: ArtRuleId, message: string, extra: { numbers?: Record<string, number>; setting?: ArtSetting } = {}): VerdictReason {
  return { code, severity, rule, message: `${message} [${ruleRef(rule)}]`, ...extra };
}

/** As ART's rewards_have_zero_variance: none or one reward, or all within 1e-12 of the first. */
export function zeroVariance(rewards: readonly number[]): boolean {
  if (rewards.length <= 1) return true;
  return rewards.every((r) => Math.abs(r - rewards[0]!) <= ZERO_VARIANCE_TOLERANCE);
}

/** Mean and population std as ART computes them (Python's left-to-right sum). */
function meanStd(rewards: readonly number[]): { mean: number; std: number } {
  let sum = 0;
  for (const r of rewards) sum += r;
  const mean = sum / rewards.length;
  let sq = 0;
  for (const r of rewards) sq += (r - mean) * (r - mean);
  return { mean, std: Math.sqrt(sq / rewards.length) };
}

/** The sentence for faults of one kind, over all a trajectory's turns. */
function faultReason(kind: TurnFault['kind'], faults: TurnFault[], total: number): VerdictReason {
  const first = faults[0]!.detail;
  const more = faults.length > 1 ? ` (and ${faults.length - 1} more)` : '';
  const numbers = { turns: faults.length, of: total, ...faults[0]!.numbers };
  switch (kind) {
    case 'no-token-ids':
      return reason('no-token-ids', 'error', 'choiceTokenIds', `${plural(faults.length, 'trainable choice')} of ${total} ${faults.length === 1 ? 'lacks' : 'lack'} the server's token ids: ${first}${more}. ART raises "Trainable Choice is missing vLLM prompt_token_ids/token_ids" and the whole step fails; serve the policy with vLLM's return_token_ids.`, { numbers });
    case 'logprob-mismatch':
      return reason('logprob-mismatch', 'error', 'choiceLogprobCount', `Logprobs that do not match their tokens: ${first}${more}. ART raises and the whole step fails.`, { numbers });
    case 'compact-invalid':
      return reason('compact-invalid', 'error', 'compactLogprobs', `Compact logprobs ART rejects: ${first}${more}. ART raises ("matching finite logprobs") and the whole step fails.`, { numbers });
    case 'not-exact':
      return reason('exchange-not-exact', 'error', 'exchangeExact', `${plural(faults.length, 'exchange response')} of ${total} without the server's own token ids: ${first}${more}. ART raises "Exchange training requires exact inference-provided token IDs" and the whole step fails.`, { numbers });
    case 'missing-logprobs':
      return reason('exchange-no-logprobs', 'error', 'exchangeLogprobs', `${plural(faults.length, 'sampled output')} of ${total} without logprobs: ${first}${more}. ART raises "Exchange trajectory is missing logprobs for trainable tokens" and the whole step fails (allow_training_without_logprobs, off by default, would train them without).`, { numbers, setting: 'allow_training_without_logprobs' });
  }
}

function faultReasons(turns: TurnCheck[]): VerdictReason[] {
  const trainable = turns.filter((t) => t.trainable);
  const kinds: TurnFault['kind'][] = ['no-token-ids', 'not-exact', 'compact-invalid', 'logprob-mismatch', 'missing-logprobs'];
  return kinds.flatMap((k) => {
    const faults = trainable.flatMap((t) => t.faults.filter((f) => f.kind === k));
    return faults.length ? [faultReason(k, faults, trainable.length)] : [];
  });
}

/** The reasons of a trajectory's turns, in the order ART meets them. */
function turnReasons(t: Obj): { shape: 'messages' | 'exchanges'; turns: TurnCheck[]; reasons: VerdictReason[] } {
  if (hasExchanges(t)) {
    const turns = exchangeTurns(t);
    if (!turns.length) return { shape: 'exchanges', turns, reasons: [reason('no-trainable-turn', 'skip', 'exchangeTokens', 'No response choice in its exchanges: nothing was sampled, so nothing trains.')] };
    const reasons = faultReasons(turns);
    const unchecked = turns.filter((x) => x.unchecked).length;
    if (unchecked) reasons.push(reason('logprobs-unchecked', 'note', 'exchangeLogprobs', `${plural(unchecked, 'Responses API generation')}: their logprobs are not checked here.`));
    return { shape: 'exchanges', turns, reasons };
  }
  const { turns, items, assistantDicts, dictLogprobs } = legacyTurns(t);
  const trainable = turns.filter((x) => x.trainable).length;
  const reasons: VerdictReason[] = [];
  if (!trainable) {
    if (turns.length) {
      reasons.push(
        reason('no-logprobs', 'skip', 'choiceTrainable', `No logprobs on its ${plural(turns.length, 'assistant choice')} (logprobs is null): ART trains only choices with logprobs, so this trajectory yields nothing and is dropped without a message (ART issue #336). allow_training_without_logprobs (off by default; ART issue #528 proposes removing it) would train them.`, {
          numbers: { choices: turns.length, withLogprobs: 0 },
          setting: 'allow_training_without_logprobs',
        }),
      );
    } else if (dictLogprobs) {
      reasons.push(reason('dict-logprobs', 'skip', 'dictLogprobs', `Its logprobs are on ${plural(dictLogprobs, 'plain assistant message')} ({"role": "assistant", "logprobs": ...}), which ART does not read: only choices ({"message": ..., "logprobs": ...}) train (ART pull request #467). Nothing here trains.`, { numbers: { assistantMessages: assistantDicts, withLogprobs: dictLogprobs } }));
    } else {
      const what = assistantDicts ? `its ${plural(assistantDicts, 'assistant turn')} ${assistantDicts === 1 ? 'is a message dict' : 'are message dicts'} ({"role": "assistant", ...}), which ART reads as context, not as trainable choices (ART issue #127)` : `its ${plural(items, 'item')} ${items === 1 ? 'has' : 'have'} no assistant turn`;
      reasons.push(reason('no-trainable-turn', 'skip', 'choiceTrainable', `No trainable assistant choice: ${what}. Nothing trains.`, { numbers: { items, assistantMessages: assistantDicts } }));
    }
    return { shape: 'messages', turns, reasons };
  }
  reasons.push(...faultReasons(turns));
  const without = turns.length - trainable;
  if (without) reasons.push(reason('some-turns-without-logprobs', 'note', 'choiceTrainable', `${without} of ${plural(turns.length, 'choice')} have no logprobs: ART trains only the other ${trainable}.`, { numbers: { choices: turns.length, withLogprobs: trainable }, setting: 'allow_training_without_logprobs' }));
  if (dictLogprobs) reasons.push(reason('dict-logprobs', 'note', 'dictLogprobs', `${plural(dictLogprobs, 'plain assistant message')} carry logprobs ART does not read (ART pull request #467).`, { numbers: { withLogprobs: dictLogprobs } }));
  return { shape: 'messages', turns, reasons };
}

function advantageReason(adv: Advantage, n: number, zeroVar: boolean, rewards: readonly number[]): VerdictReason | undefined {
  const numbers = { reward: adv.reward, mean: adv.mean, std: adv.std, advantage: adv.raw, scaled: adv.scaled, trajectories: n };
  if (n === 1) return reason('group-of-one', 'skip', 'zeroVariance', `A group of one: with no other reward to compare its reward ${fmt(adv.reward)} with, ART gives it advantage 0 and skips it (drop_zero_advantage_trajectories, on by default).`, { numbers, setting: 'drop_zero_advantage_trajectories' });
  if (zeroVar) {
    const spread = Math.max(...rewards) - Math.min(...rewards);
    const all = spread === 0 ? `all ${n} rewards are ${fmt(adv.reward)}` : `all ${n} rewards lie within 1e-12 of ${fmt(rewards[0]!)}`;
    return reason('zero-variance', 'skip', 'zeroVariance', `No reward variance in its group: ${all}, so ART gives every member advantage 0 and skips them (drop_zero_advantage_trajectories, on by default).`, { numbers, setting: 'drop_zero_advantage_trajectories' });
  }
  if (adv.raw === 0) {
    return reason('zero-advantage', 'skip', 'advantage', `Zero advantage: its reward ${fmt(adv.reward)} equals its group's mean ${fmt(adv.mean)}, so reward − mean = 0 (and 0 over std ${fmt(adv.std)} + 1e-6). ART skips it (drop_zero_advantage_trajectories, on by default).`, { numbers, setting: 'drop_zero_advantage_trajectories' });
  }
  return undefined;
}

/** The verdict on every trajectory of a group, and on the group. */
export function groupVerdict(value: unknown): GroupVerdict {
  const g = asGroup(value);
  const trajectories = g?.trajectories ?? [];
  const exceptions = exceptionsOf(g?.raw).length;
  const rewards: number[] = [];
  for (const t of trajectories) {
    const r = rewardOf(t).value;
    if (r !== undefined) rewards.push(r);
  }
  const n = trajectories.length;
  const zeroVar = zeroVariance(rewards);
  const ms = rewards.length ? meanStd(rewards) : undefined;
  const members = trajectories.map((t, index) => trajectoryVerdict(isObject(t) ? t : {}, index, n, zeroVar, rewards, ms));
  const training = members.filter((m) => m.trains).length;
  const reasons: VerdictReason[] = [];
  if (!n) reasons.push(reason('empty-group', 'skip', 'emptyGroup', `No trajectories${exceptions ? ` (only ${plural(exceptions, 'exception')})` : ''}: ART passes the group over.`));
  else if (n === 1) reasons.push(reason('group-of-one', 'skip', 'zeroVariance', 'A group of one: its one trajectory has nothing to be compared with, so ART trains on nothing here.', { numbers: { trajectories: 1 } }));
  else if (zeroVar) reasons.push(reason('zero-variance', 'skip', 'zeroVariance', `No reward variance: all ${n} rewards are equal (within 1e-12), so ART trains on nothing here and does not count it in data/step_num_groups_trainable.`, { numbers: { trajectories: n, reward: rewards[0] ?? 0 } }));
  if (exceptions) reasons.push(reason('exception', 'note', 'exceptions', `${plural(exceptions, 'rollout')} raised (the group's exceptions): ${exceptions === 1 ? 'it has' : 'they have'} no trajectory to train on; ART still counts ${exceptions === 1 ? 'it' : 'them'} in data/step_num_trajectories.`, { numbers: { exceptions } }));
  const raising = members.flatMap((m) => m.reasons.filter((r) => r.severity === 'error' && !r.unreached));
  const k = members.filter((m) => m.primary?.severity === 'error').length;
  if (raising.length) reasons.push(reason(raising[0]!.code, 'error', raising[0]!.rule, `${k === 1 ? 'A trajectory here makes' : `${k} trajectories here make`} ART raise: the whole training step fails, not only this group.`));
  return {
    trains: training > 0,
    trajectories: n,
    training,
    exceptions,
    artTrainable: n > 0 && !zeroVar,
    fails: raising.length > 0,
    mean: ms?.mean ?? null,
    std: ms?.std ?? null,
    reasons,
    members,
  };
}

function trajectoryVerdict(t: Obj, index: number, n: number, zeroVar: boolean, rewards: readonly number[], ms: { mean: number; std: number } | undefined): TrajectoryVerdict {
  const reasons: VerdictReason[] = [];
  const reward = rewardOf(t);
  let advantage: Advantage | undefined;
  if (reward.value === undefined) {
    reasons.push(reason('invalid-reward', 'error', 'advantage', `Its reward ${JSON.stringify(t.reward)} is not a number: ART's Trajectory needs a float, so ART cannot load or train it.`));
  } else if (ms) {
    const raw = zeroVar ? 0 : reward.value - ms.mean;
    advantage = { reward: reward.value, mean: ms.mean, std: ms.std, raw, scaled: raw / (ms.std + STD_EPSILON) };
    const r = advantageReason(advantage, n, zeroVar, rewards);
    if (r) reasons.push(r);
  }
  const turns = turnReasons(t);
  const stopped = reasons.some((r) => r.severity !== 'note');
  for (const r of turns.reasons) reasons.push(stopped && r.severity !== 'note' ? { ...r, unreached: true, message: `Also (ART stops before this check): ${r.message}` } : r);
  const primary = reasons.find((r) => r.severity !== 'note' && !r.unreached);
  return { index, trains: !primary, ...(primary ? { primary } : {}), reasons, ...(advantage ? { advantage } : {}), shape: turns.shape, turns: turns.turns };
}

// --- a file's summary ------------------------------------------------------------------------------

export interface VerdictSummary {
  groups: number;
  groupsTraining: number;
  /** What ART's data/step_num_groups_trainable would count. */
  groupsArtTrainable: number;
  trajectories: number;
  exceptions: number;
  training: number;
  /** Trajectories by the reason they do not train (the first ART reaches). */
  byCode: Partial<Record<VerdictCode, number>>;
  /** Trajectories that make ART raise. */
  failing: number;
}

export function emptySummary(): VerdictSummary {
  return { groups: 0, groupsTraining: 0, groupsArtTrainable: 0, trajectories: 0, exceptions: 0, training: 0, byCode: {}, failing: 0 };
}

export function addToSummary(s: VerdictSummary, g: GroupVerdict): void {
  s.groups++;
  if (g.trains) s.groupsTraining++;
  if (g.artTrainable) s.groupsArtTrainable++;
  s.trajectories += g.trajectories;
  s.exceptions += g.exceptions;
  s.training += g.training;
  for (const m of g.members) {
    if (!m.primary) continue;
    s.byCode[m.primary.code] = (s.byCode[m.primary.code] ?? 0) + 1;
    if (m.primary.severity === 'error') s.failing++;
  }
}

/** Short names of the reasons, for counts ("4 zero advantage") and table cells. */
export const SHORT: Record<VerdictCode, string> = {
  'invalid-reward': 'reward not a number',
  'empty-group': 'empty group',
  'group-of-one': 'in groups of one',
  'zero-variance': 'in groups without reward variance',
  'zero-advantage': 'zero advantage',
  'no-trainable-turn': 'without a trainable assistant turn',
  'dict-logprobs': 'with logprobs only in message dicts (not read)',
  'no-logprobs': 'without logprobs',
  'some-turns-without-logprobs': 'some turns without logprobs',
  'no-token-ids': 'without token ids (ART raises)',
  'logprob-mismatch': 'with logprobs not matching their tokens (ART raises)',
  'compact-invalid': 'with compact logprobs ART rejects (ART raises)',
  'exchange-not-exact': 'with exchanges lacking exact token ids (ART raises)',
  'exchange-no-logprobs': 'with exchanges without logprobs (ART raises)',
  'logprobs-unchecked': 'logprobs not checked',
  exception: 'exception',
};

/** Why one trajectory does not train, as the end of "ART does not train on it: ...". */
export const WHY: Record<VerdictCode, string> = {
  'invalid-reward': 'its reward is not a number',
  'empty-group': 'its group is empty',
  'group-of-one': 'it is a group of one',
  'zero-variance': 'its group has no reward variance',
  'zero-advantage': 'zero advantage',
  'no-trainable-turn': 'no trainable assistant turn',
  'dict-logprobs': 'its logprobs are in message dicts, which ART does not read',
  'no-logprobs': 'no logprobs',
  'some-turns-without-logprobs': 'some turns have no logprobs',
  'no-token-ids': 'a trainable choice without token ids, which makes ART raise',
  'logprob-mismatch': 'logprobs that do not match its tokens, which make ART raise',
  'compact-invalid': 'compact logprobs ART rejects, which make ART raise',
  'exchange-not-exact': "exchanges without the server's token ids, which make ART raise",
  'exchange-no-logprobs': 'sampled outputs without logprobs, which make ART raise',
  'logprobs-unchecked': 'logprobs not checked',
  exception: 'an exception',
};

const SHORT_ONE: Partial<Record<VerdictCode, string>> = { 'group-of-one': 'in a group of one', 'zero-variance': 'in a group without reward variance' };

const ORDER: VerdictCode[] = ['zero-advantage', 'zero-variance', 'group-of-one', 'no-logprobs', 'dict-logprobs', 'no-trainable-turn', 'no-token-ids', 'logprob-mismatch', 'compact-invalid', 'exchange-not-exact', 'exchange-no-logprobs', 'invalid-reward'];

/**
 * "Of 37 trajectories, 29 will train; 4 zero advantage, 3 without logprobs, 1 exception." Exceptions
 * count as trajectories, as ART's data/step_num_trajectories counts them.
 */
export function summaryText(s: VerdictSummary): string {
  const total = s.trajectories + s.exceptions;
  const parts = ORDER.filter((c) => s.byCode[c]).map((c) => `${s.byCode[c]} ${(s.byCode[c] === 1 && SHORT_ONE[c]) || SHORT[c]}`);
  if (s.exceptions) parts.push(plural(s.exceptions, 'exception'));
  let text = `Of ${plural(total, 'trajectory', 'trajectories')}, ${s.training} will train${parts.length ? `; ${parts.join(', ')}` : ''}.`;
  text += ` ${s.groupsTraining} of ${plural(s.groups, 'group')} train${s.groupsTraining === 1 ? 's' : ''}`;
  text += s.groupsArtTrainable !== s.groupsTraining ? ` (ART's data/step_num_groups_trainable would say ${s.groupsArtTrainable}: it counts groups whose rewards vary).` : '.';
  if (s.failing) text += ` ART would stop with an error at this step: ${plural(s.failing, 'trajectory', 'trajectories')} make${s.failing === 1 ? 's' : ''} it raise.`;
  else if (total && !s.training) text += ' ART would not update the model at this step.';
  return text;
}

/** What a group's cell says when it trains on nothing. */
const CELL: Partial<Record<VerdictCode, string>> = { 'empty-group': 'empty group', 'group-of-one': 'group of one', 'zero-variance': 'no reward variance' };

/** A group's cell: "3 of 4", "0 of 4: no reward variance", "2 of 4; ART raises". */
export function groupCell(g: GroupVerdict): string {
  const base = `${g.training} of ${g.trajectories}`;
  if (g.fails) return `${base}; ART raises`;
  if (g.training) return base;
  const r = g.reasons.find((x) => x.severity === 'skip') ?? g.members.find((m) => m.primary)?.primary;
  return r ? `${base}: ${CELL[r.code] ?? SHORT[r.code]}` : base;
}
