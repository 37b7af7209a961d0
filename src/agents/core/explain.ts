/**
 * svc_explain_trajectory: whether ART's trainer trains on one trajectory of a file, and why not, with
 * the numbers (reward, group mean and std, the advantage as ART computes it) and the ART rule behind
 * each reason (src/files/verdicts.ts). Reads the file locally; sends nothing. Pure: no vscode import.
 */
import { readTrajectoryGroups, validateTrajectoryFile, type GroupRecord } from '../../files';
import { ART_SETTINGS } from '../../files/artRules';
import { fmt, groupVerdict, WHY, type GroupVerdict, type TrajectoryVerdict, type VerdictReason } from '../../files/verdicts';
import { count } from './format';
import { readablePath, type RunContext } from './access';
import { ToolProblem, type ToolHost } from './host';
import type { ExplainTrajectoryInput } from './schemas';

const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** The settings the verdicts assume, as one sentence. */
export function settingsSentence(): string {
  const s = Object.entries(ART_SETTINGS).map(([k, v]) => `${k}=${v.default ? 'True' : 'False'}`);
  return `Verdicts assume ART's default settings (${s.join(', ')}); the rules and their sources in ART are listed in docs/trainability.md.`;
}

function reasonLine(r: VerdictReason): string {
  const label = r.unreached ? 'also' : r.severity === 'error' ? 'ART raises' : r.severity === 'skip' ? 'skipped' : 'note';
  return `- ${label}: ${r.message}`;
}

function advantageLine(v: TrajectoryVerdict, g: GroupVerdict): string | undefined {
  const a = v.advantage;
  if (!a) return undefined;
  if (a.raw === 0 && g.trajectories > 0 && !g.artTrainable) return `Advantage: 0 (ART sets every advantage in a group without reward variance to 0; reward ${fmt(a.reward)}, group mean ${fmt(a.mean)}).`;
  return `Advantage: reward ${fmt(a.reward)} − group mean ${fmt(a.mean)} = ${fmt(a.raw)}; over std ${fmt(a.std)} + 1e-6 (scale_rewards=True, ART's default) = ${fmt(a.scaled)}.`;
}

function turnsLine(v: TrajectoryVerdict): string {
  const turns = v.turns;
  const noun = v.shape === 'exchanges' ? 'sampled output in exchanges' : 'choice';
  const many = v.shape === 'exchanges' ? 'sampled outputs in exchanges' : 'choices';
  if (!turns.length) return `Turns: no ${many}.`;
  const withLp = turns.filter((t) => t.form !== 'none');
  const forms = [...new Set(withLp.map((t) => t.form))];
  const tokens = turns.reduce((a, t) => a + (t.tokens ?? 0), 0);
  const hasTokens = turns.some((t) => t.tokens !== undefined);
  return `Turns: ${plural(turns.length, noun, many)}, ${count(withLp.length)} with logprobs${forms.length ? ` (${forms.join(', ')})` : ''}${hasTokens ? `, ${plural(tokens, 'token')}` : ', no token ids'}.`;
}

async function groupAt(path: string, index: number, signal?: AbortSignal): Promise<GroupRecord> {
  try {
    for await (const g of readTrajectoryGroups(path, { signal, trusted: true, startGroup: index })) if (g.index === index) return g;
  } catch (e) {
    throw new ToolProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const summary = await validateTrajectoryFile(path, { signal, maxProblems: 1 }).catch(() => undefined);
  const n = summary?.groups;
  throw new ToolProblem(n === undefined ? `${path} has no group ${index}.` : `${path} has ${plural(n, 'group')}${n ? ` (0–${count(n - 1)})` : ''}: there is no group ${index}.`);
}

export async function explainTrajectory(host: ToolHost, input: ExplainTrajectoryInput, signal?: AbortSignal, context: RunContext = {}): Promise<string> {
  // Under the read roots, or confirmed by the user (access.ts); the texts name the path as given.
  const { shown: path, real } = await readablePath(host, input.file, context);
  const record = await groupAt(real, input.group, signal);
  const g = groupVerdict(JSON.parse(record.json));
  const v = g.members[input.trajectory];
  if (!v) throw new ToolProblem(`In ${path}, group ${input.group} has ${plural(g.trajectories, 'trajectory', 'trajectories')}${g.trajectories ? ` (0–${g.trajectories - 1})` : ''}: there is no trajectory ${input.trajectory}.`);
  const where = record.unit === 'row' ? `row ${record.line + input.trajectory}` : `line ${record.line}`;
  const verdict = v.trains ? 'ART trains on it.' : `ART does not train on it: ${WHY[v.primary!.code]}.`;
  const lines = [`${path}, group ${input.group} (${where}), trajectory ${input.trajectory} of ${g.trajectories}: ${verdict}`];
  const adv = advantageLine(v, g);
  if (adv) lines.push(adv);
  lines.push(turnsLine(v));
  if (v.reasons.length) lines.push('Reasons, in the order ART meets them:', ...v.reasons.map(reasonLine));
  const mean = g.mean === null ? '' : `; rewards mean ${fmt(g.mean)}, std ${fmt(g.std!)}`;
  lines.push(`The group: ${plural(g.trajectories, 'trajectory', 'trajectories')}, ${count(g.training)} train${mean}.`, ...g.reasons.map(reasonLine));
  lines.push(settingsSentence());
  return lines.join('\n');
}
