/**
 * What the viewer's panes show: a group's pane (its trajectories' rows, tables, exceptions,
 * problems) and a trajectory's (its bubbles, tools, histories, metrics), and the order and filter of
 * the rows. No `vscode` import.
 */
import { exchangeConversation, exchangeTotals, hasExchanges, sumTotals } from '../files/exchanges';
import { extras, isChoice, itemsOf, messageOf, messageViews, rawToolCalls, toolViews } from '../files/messages';
import { isObject } from '../api/json';
import { asGroup, entries, exceptionsOf, GROUP_FIELDS, jsonText, numericMetrics, rewardOf } from '../files/model';
import type { GroupDetail, GroupRow, ProblemView, TrajectorySummary, TrajectoryView } from './protocol';
import { fmt, groupCell, groupVerdict, type GroupVerdict, type TrajectoryVerdict, type VerdictCode } from '../files/verdicts';

/** The short row of a trajectory in the group's list. */
export function summarize(t: unknown, index: number): TrajectorySummary {
  const exchanges = hasExchanges(t) ? exchangeConversation(t) : undefined;
  const items = exchanges?.items ?? itemsOf(t);
  const { value, missing } = rewardOf(t);
  let choices = 0;
  let toolCalls = 0;
  for (const it of items) {
    if (isChoice(it)) choices++;
    toolCalls += rawToolCalls(messageOf(it)).length;
  }
  const summary: TrajectorySummary = { index, reward: value ?? null, rewardMissing: missing, rewardText: isObject(t) && value === undefined ? jsonText(t.reward) : undefined, messages: items.length, choices, toolCalls, metrics: numericMetrics(t) };
  if (exchanges) summary.totals = exchangeTotals(exchanges.exchanges);
  return summary;
}

/** Metric names across the trajectories of a group, sorted. */
export function metricNames(summaries: readonly TrajectorySummary[]): string[] {
  const names = new Set<string>();
  for (const s of summaries) for (const k of Object.keys(s.metrics)) names.add(k);
  return [...names].sort();
}

const SHOWN_TRAJECTORY_FIELDS = new Set(['exchanges', 'messages_and_choices', 'reward', 'tools', 'additional_histories', 'metrics', 'auto_metrics', 'metadata', 'logs', 'start_time', 'initial_policy_version', 'final_policy_version']);

/** Everything the conversation pane shows for one trajectory. */
export function trajectoryView(t: unknown, group: number, index: number): TrajectoryView {
  const o = isObject(t) ? t : {};
  const histories = Array.isArray(o.additional_histories) ? o.additional_histories : [];
  const exchanges = hasExchanges(t) ? exchangeConversation(t) : undefined;
  const messages = messageViews(exchanges?.items ?? itemsOf(t));
  if (exchanges) messages.forEach((m, i) => (m.path = exchanges.paths[i]));
  // A strip's model is its request's, for finding its tokenizer.
  for (const x of exchanges?.exchanges ?? []) for (const m of messages.slice(x.start, x.end)) if (m.tokens && !m.tokens.model && x.model) m.tokens.model = x.model;
  return {
    group,
    index,
    summary: summarize(t, index),
    messages,
    ...(exchanges ? { exchanges: exchanges.exchanges } : {}),
    tools: toolViews(exchanges ? [...exchanges.tools, ...(Array.isArray(o.tools) ? (o.tools as unknown[]) : [])] : o.tools),
    histories: histories.map((h) => ({ messages: messageViews(itemsOf(h)), tools: toolViews(isObject(h) ? h.tools : undefined) })),
    metrics: [...entries(o.metrics), ...entries(o.auto_metrics).map(([k, v]): [string, string] => [`${k} (auto)`, v])],
    metadata: entries(o.metadata),
    logs: Array.isArray(o.logs) ? o.logs.map((l) => jsonText(l)) : [],
    info: [
      ...(['start_time', 'initial_policy_version', 'final_policy_version'] as const).filter((k) => o[k] !== undefined && o[k] !== null).map((k): [string, string] => [k, jsonText(o[k])]),
      ...extras(o, SHOWN_TRAJECTORY_FIELDS),
    ],
  };
}

// --- ordering and filtering ------------------------------------------------------------------------

export type SortKey = 'index' | 'reward' | `metric:${string}`;

/**
 * Trajectory rows in the order asked for. Stable (ties keep file order), and rows without the
 * value sort last in either direction.
 */
export function sortSummaries(rows: readonly TrajectorySummary[], key: SortKey, dir: 'asc' | 'desc'): TrajectorySummary[] {
  const value = (r: TrajectorySummary): number | undefined => {
    if (key === 'index') return r.index;
    if (key === 'reward') return r.reward ?? undefined;
    return r.metrics[key.slice('metric:'.length)];
  };
  const sign = dir === 'asc' ? 1 : -1;
  return rows
    .map((r) => ({ r, v: value(r) }))
    .sort((a, b) => {
      if (a.v === undefined || b.v === undefined) return a.v === b.v ? a.r.index - b.r.index : a.v === undefined ? 1 : -1;
      return a.v === b.v ? a.r.index - b.r.index : (a.v - b.v) * sign;
    })
    .map((x) => x.r);
}

/** Rows whose reward lies in [min, max] (either bound may be open); an invalid reward never matches a bound. */
export function filterByReward(rows: readonly TrajectorySummary[], min: number | undefined, max: number | undefined): TrajectorySummary[] {
  if (min === undefined && max === undefined) return [...rows];
  return rows.filter((r) => r.reward !== null && (min === undefined || r.reward >= min) && (max === undefined || r.reward <= max));
}

// --- groups ----------------------------------------------------------------------------------------

const SHOWN_GROUP_FIELDS = GROUP_FIELDS;

/** A trajectory's badge text when ART does not train on it. */
const BADGE: Record<VerdictCode, string> = {
  'invalid-reward': 'ART raises: reward',
  'empty-group': 'empty group',
  'group-of-one': 'group of one',
  'zero-variance': 'no variance',
  'zero-advantage': 'zero advantage',
  'no-trainable-turn': 'no trainable turn',
  'dict-logprobs': 'dict logprobs',
  'no-logprobs': 'no logprobs',
  'some-turns-without-logprobs': 'some turns without logprobs',
  'no-token-ids': 'ART raises: token ids',
  'logprob-mismatch': 'ART raises: logprobs',
  'compact-invalid': 'ART raises: compact logprobs',
  'exchange-not-exact': 'ART raises: exchange ids',
  'exchange-no-logprobs': 'ART raises: exchange logprobs',
  'logprobs-unchecked': 'logprobs unchecked',
  exception: 'exception',
};

const signed = (n: number) => (n > 0 ? `+${fmt(n)}` : fmt(n));

/** The badge of a trajectory in the group's list: what ART does with it, with the advantage, and why not. */
export function verdictBadge(v: TrajectoryVerdict): NonNullable<TrajectorySummary['verdict']> {
  const a = v.advantage;
  const adv = a ? `Advantage ${signed(a.raw)} (reward ${fmt(a.reward)} − group mean ${fmt(a.mean)}); ${signed(a.scaled)} over the group's std ${fmt(a.std)} + 1e-6, as ART trains with it (scale_rewards, its default).` : '';
  const notes = v.reasons.filter((r) => r !== v.primary).map((r) => r.message);
  if (v.trains) {
    const note = v.reasons.some((r) => r.severity === 'note');
    return {
      trains: true,
      severity: note ? 'note' : 'train',
      label: a ? `adv ${a.scaled > 0 ? '+' : ''}${a.scaled.toFixed(2)}${note ? ' · note' : ''}` : 'trains',
      tooltip: ['ART trains on this trajectory.', adv, ...notes].filter(Boolean).join('\n'),
    };
  }
  const p = v.primary!;
  const label = p.code === 'zero-advantage' && a ? `zero advantage (${fmt(a.reward)} − ${fmt(a.mean)} = 0)` : BADGE[p.code];
  return { trains: false, severity: p.severity === 'error' ? 'error' : 'skip', label, tooltip: ['ART does not train on this trajectory.', p.message, adv, ...notes].filter(Boolean).join('\n') };
}

/** The row verdict a group's list shows, from the verdict on the group. */
export function rowVerdict(g: GroupVerdict): NonNullable<GroupRow['verdict']> {
  return { training: g.training, trajectories: g.trajectories, text: groupCell(g), fails: g.fails };
}

/**
 * The group pane: its trajectories' rows, tables, exceptions and the problems found in its lines.
 * `verdicts`: each row gets ART's verdict (not for files without the choices' logprobs, such as
 * ART's lossy Parquet format version 1); the row's group verdict is set from it when missing.
 */
export function groupDetail(value: unknown, row: GroupRow, problems: ProblemView[], opts: { verdicts?: boolean } = {}): GroupDetail {
  const group = asGroup(value);
  const trajectories = (group?.trajectories ?? []).map((t, i) => summarize(t, i));
  if (opts.verdicts && group) {
    const gv = groupVerdict(value);
    gv.members.forEach((m, i) => (trajectories[i]!.verdict = verdictBadge(m)));
    row = row.verdict ? row : { ...row, verdict: rowVerdict(gv) };
  }
  const raw = group && !group.bare && isObject(group.raw) ? group.raw : {};
  const totals = sumTotals(trajectories.map((s) => s.totals));
  return {
    ...(totals ? { totals } : {}),
    row,
    trajectories,
    metricNames: metricNames(trajectories),
    metadata: entries(raw.metadata),
    metrics: entries(raw.metrics),
    logs: Array.isArray(raw.logs) ? raw.logs.map((l) => jsonText(l)) : [],
    exceptions: group && !group.bare ? exceptionsOf(raw) : [],
    problems,
    info: extras(raw, SHOWN_GROUP_FIELDS),
  };
}
