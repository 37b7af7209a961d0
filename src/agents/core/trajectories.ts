/**
 * svc_summarize_trajectories: per group of a trajectory file, the rewards and what else the file
 * says (exceptions, tokens, time), what ART's trainer will train on (src/files/verdicts.ts), and the
 * validation problems with line and column. Reads the file
 * with the uploader's reader and validator. Pure: no vscode import.
 */
import { z } from 'zod';
import { formatPath } from '../../api/errors';
import { TrajectoryGroup } from '../../api/schemas/models';
import { readTrajectoryGroups, validateTrajectoryFile, type Problem, type ValidationSummary } from '../../files';
import { isObject } from '../../api/json';
import { exceptionsOf, groupRewards, groupStats } from '../../files/model';
import { readablePath, type RunContext } from './access';
import { addToSummary, emptySummary, groupCell, groupVerdict, summaryText } from '../../files/verdicts';
import { bytes, count, cutNote, num, stats, table } from './format';
import { LogprobDistribution, QUANTILES } from '../../files/logprobStats';
import { ToolProblem, type ToolHost } from './host';
import { stat } from 'node:fs/promises';
import { detectHarness } from '../../harnesses/convert';
import { summarizeAtif } from './harnessSummary';
import type { SummarizeTrajectoriesInput } from './schemas';
import { isEvalLog } from '../../files/evalIndex';
import { EvalLogError } from '../../files/inspectEval';
import { ZipError } from '../../files/zip';
import { summarizeEvalLog } from './evalSummary';

export const MAX_GROUP_ROWS = 100;
const MAX_PROBLEMS = 20;

const TOKENS = /tokens?$/i;
const TIME = /(duration|latency|elapsed|seconds|(^|[/_])time)($|_s$|_ms$|_sec)/i;

/** A group's figures: the viewer's reward stats (the same numbers as the trajectory viewer), and tokens and time. */
export interface GroupFigures {
  index: number;
  line: number;
  trajectories: number;
  rewards: number[];
  stats: ReturnType<typeof groupStats>;
  tokens?: number;
  /** Sum over trajectories of time-like metrics, with the metric names. */
  time?: { total: number; names: string[] };
  /** What ART's trainer trains on here: "3 of 4", "0 of 3: no reward variance" (src/files/verdicts.ts). */
  trains?: string;
}

/** The usage of a raw exchange response (OpenAI or Anthropic shapes). */
function usageTokens(exchange: unknown): number {
  if (!isObject(exchange) || !isObject(exchange.response) || !isObject(exchange.response.usage)) return 0;
  const u = exchange.response.usage;
  if (typeof u.total_tokens === 'number') return u.total_tokens;
  return [u.input_tokens, u.output_tokens, u.prompt_tokens, u.completion_tokens].reduce<number>((a, v) => a + (typeof v === 'number' ? v : 0), 0);
}

export function groupFigures(index: number, line: number, group: unknown): GroupFigures {
  const g = isObject(group) ? group : {};
  const trajectories = Array.isArray(g.trajectories) ? g.trajectories : [];
  const rewards = groupRewards(trajectories);
  const out: GroupFigures = { index, line, trajectories: trajectories.length, rewards, stats: groupStats(rewards, exceptionsOf(g).length) };
  let tokens = 0;
  let sawTokens = false;
  const timeNames = new Set<string>();
  let time = 0;
  for (const t of trajectories) {
    if (!isObject(t)) continue;
    if (isObject(t.metrics)) {
      for (const [k, v] of Object.entries(t.metrics)) {
        if (typeof v !== 'number' || !Number.isFinite(v)) continue;
        if (TOKENS.test(k)) {
          tokens += v;
          sawTokens = true;
        } else if (TIME.test(k)) {
          time += v;
          timeNames.add(k);
        }
      }
    }
    if (isObject(t.exchanges)) {
      for (const list of Object.values(t.exchanges)) {
        if (!Array.isArray(list)) continue;
        for (const x of list) {
          const n = usageTokens(x);
          if (n) {
            tokens += n;
            sawTokens = true;
          }
        }
      }
    }
  }
  if (sawTokens) out.tokens = tokens;
  if (timeNames.size) out.time = { total: time, names: [...timeNames] };
  return out;
}

let fieldNames: ReadonlySet<string> | undefined;

/** The field names of the trajectory format (every property of the group schema, at any depth). */
function formatFields(): ReadonlySet<string> {
  if (fieldNames) return fieldNames;
  const names = new Set<string>(['trajectory_groups', 'split']);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (isObject(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'properties' && isObject(x)) for (const name of Object.keys(x)) names.add(name);
        walk(x);
      }
    }
  };
  walk(z.toJSONSchema(TrajectoryGroup, { io: 'input', unrepresentable: 'any' }));
  return (fieldNames = names);
}

/**
 * A problem's words for the model, quoting nothing of the file: a key of the path that is not a
 * field of the format is named by its length, a string value received by its kind. (The file may
 * not be a trajectory file at all: a token or a key file read by mistake.) Line and column say
 * where; the syntax errors quote nothing anyway (files/jsonText.ts).
 */
export function problemText(p: Problem): string {
  let message = p.message;
  if (p.path?.length) {
    const where = formatPath(p.path);
    const fields = formatFields();
    const safe = formatPath(p.path.map((k) => (typeof k === 'number' || fields.has(k) ? k : `<key of ${k.length} characters>`)));
    if (where !== safe && message.startsWith(`${where}: `)) message = `${safe}: ${message.slice(where.length + 2)}`;
  }
  return message.replace(/received "(?:[^"\\]|\\.)*"/g, 'received a string');
}

function problemLine(p: Problem): string {
  return `- ${p.severity} at line ${p.line}, column ${p.column}: ${problemText(p)}`;
}

export async function summarizeTrajectories(host: ToolHost, input: SummarizeTrajectoriesInput, signal?: AbortSignal, context: RunContext = {}): Promise<string> {
  // Under the read roots or confirmed, a regular file (core/access.ts), or a Harbor job folder; read by its real path.
  const { shown: path, real, roots } = await readablePath(host, input.file, context, { folders: true });
  if (isEvalLog(real)) {
    try {
      return await summarizeEvalLog(path, real, signal);
    } catch (e) {
      if (e instanceof ZipError || e instanceof EvalLogError) throw new ToolProblem(`Could not read the Inspect log ${path}: ${e.message}`);
      throw e;
    }
  }
  const harness = await detectHarness(real).catch(() => undefined);
  if (harness?.id === 'atif') return summarizeAtif(path, real, roots, signal, summarizeArtFile);
  if (!harness && (await stat(real)).isDirectory()) throw new ToolProblem(`${path} is a folder but not a Harbor job (no <trial>/agent/trajectory.json): give a trajectory file, or a job folder.`);
  return summarizeArtFile(path, real, signal);
}

/** The summary of an ART trajectory file (JSON, JSONL or Parquet) at `real`, named `path`. */
async function summarizeArtFile(path: string, real: string, signal?: AbortSignal): Promise<string> {
  let summary: ValidationSummary;
  try {
    summary = await validateTrajectoryFile(real, { signal, maxProblems: 200 });
  } catch (e) {
    throw new ToolProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const errors = summary.problems.filter((p) => p.severity === 'error');
  // A .json file that does not parse has no group count (the viewer still shows the groups it can
  // step over to): "0 groups" would be false.
  const unparsed = errors.some((p) => p.shownBy === 'json');
  const counted = unparsed ? 'groups not counted: it is not valid JSON' : `${count(summary.groups)} groups, ${count(summary.trajectories)} trajectories`;
  const lines = [`${path}: ${summary.format.toUpperCase()}, ${bytes(summary.fileBytes)}, ${counted}${summary.split ? `, split "${summary.split}"` : ''}.`];
  if (summary.problems.length) {
    lines.push(
      `Validation: ${count(errors.length)} errors, ${count(summary.problems.length - errors.length)} warnings${summary.truncated ? ' (more not counted)' : ''}${errors.length ? '; the service would refuse this file' : ''}. Lines and columns are 1-based.`,
      ...summary.problems.slice(0, MAX_PROBLEMS).map(problemLine),
    );
    if (summary.problems.length > MAX_PROBLEMS) lines.push(`(first ${MAX_PROBLEMS} of ${count(summary.problems.length)} problems)`);
  } else {
    lines.push('Validation: no problems; the service would accept it.');
  }
  if (errors.length) return lines.join('\n');
  const groups: GroupFigures[] = [];
  const all: number[] = [];
  const verdicts = emptySummary();
  const logprobs = new LogprobDistribution();
  try {
    for await (const g of readTrajectoryGroups(real, { signal, trusted: true, groupTrajectories: summary.groupTrajectories })) {
      const value: unknown = JSON.parse(g.json);
      const s = groupFigures(g.index, g.line, value);
      const v = groupVerdict(value);
      addToSummary(verdicts, v);
      if (isObject(value) && Array.isArray(value.trajectories)) value.trajectories.forEach((t, i) => logprobs.add(g.index, i, t));
      s.trains = groupCell(v);
      all.push(...s.rewards);
      groups.push(s);
    }
  } catch (e) {
    throw new ToolProblem(`Could not read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const zero = groups.filter((g) => g.stats.zeroVariance).length;
  const withExceptions = groups.filter((g) => g.stats.exceptions > 0);
  const overall = stats(all);
  lines.push(
    `Rewards over all ${count(all.length)} trajectories: ${overall ? `mean ${num(overall.mean)}, std ${num(overall.std)}, min ${num(overall.min)}, max ${num(overall.max)}` : 'none'}. ` +
      `Zero-variance groups (two or more trajectories, all rewards equal: no learning signal; a group of one is not counted, it has no variance to learn from): ${count(zero)} of ${count(groups.length)}. ` +
      `Groups with exceptions: ${count(withExceptions.length)} (${count(withExceptions.reduce((a, g) => a + g.stats.exceptions, 0))} exceptions).`,
    '',
    `ART training (its default settings): ${summaryText(verdicts)} For why one trajectory does or does not train, with its advantage and the ART rule: svc_explain_trajectory {file, group, trajectory}.`,
  );
  lines.push('', logprobText(logprobs));
  const hasTokens = groups.some((g) => g.tokens !== undefined);
  const timeNames = [...new Set(groups.flatMap((g) => g.time?.names ?? []))];
  const shown = groups.slice(0, MAX_GROUP_ROWS);
  const headers = ['group', summary.format === 'parquet' ? 'first row' : 'line', 'trajectories', 'reward mean', 'std', 'min', 'max', 'zero variance', 'exceptions'];
  if (hasTokens) headers.push('tokens');
  if (timeNames.length) headers.push('time (sum)');
  headers.push('ART trains');
  lines.push(
    '',
    table(
      headers,
      shown.map((g) => {
        const s = g.stats;
        const row: unknown[] = [g.index, g.line, g.trajectories, num(s.mean), num(s.std), num(s.min), num(s.max), s.zeroVariance ? 'yes' : 'no', s.exceptions];
        if (hasTokens) row.push(g.tokens === undefined ? '' : num(g.tokens));
        if (timeNames.length) row.push(g.time ? num(g.time.total) : '');
        row.push(g.trains ?? '');
        return row;
      }),
    ),
  );
  if (timeNames.length) lines.push('', `Time is the sum over the group's trajectories of the metrics ${timeNames.join(', ')} (units as the file has them).`);
  const cut = cutNote(shown.length, 0, groups.length, 'groups', 'the totals above cover every group');
  if (cut) lines.push('', cut);
  return lines.join('\n');
}

const QUANTILE_NAMES = QUANTILES.map((q) => (q === 0 ? 'min' : q === 1 ? 'max' : q === 0.5 ? 'median' : `${q * 100}%`));

/** The distribution of token logprobs and of turn mean logprobs, and the turns with the least likely tokens. */
export function logprobText(d: LogprobDistribution): string {
  const q = d.quantiles();
  if (!q) return 'Logprobs: none on any sampled turn (compact_logprobs, art_completion_logprobs or logprobs.content).';
  const list = (values: number[]) => values.map((v, i) => `${QUANTILE_NAMES[i]} ${num(v)}`).join(', ');
  const cut = q.tokensCounted < d.tokenCount ? ` (quantiles over the first ${count(q.tokensCounted)})` : '';
  const worst = d.worst.map((w) => `group ${w.group}, trajectory ${w.trajectory}, turn ${w.turn} (${w.at}): lowest ${num(w.min)} (probability ${num(Math.exp(w.min))}), mean ${num(w.mean)} over ${count(w.tokens)} tokens`);
  return [
    `Logprobs of the sampled tokens (${count(d.tokenCount)} tokens in ${count(d.turnMeans.length)} turns${cut}): ${list(q.tokens)}.`,
    `Mean logprob per turn: ${list(q.turns)}.`,
    `Turns with the least likely tokens: ${worst.join('; ')}.`,
  ].join('\n');
}
