/**
 * A scenario across the steps of a run (issue 31, item 4): the trajectories that are the same task
 * at every step of a split, lined up step by step with their rewards and final answers, and the
 * first step where the answer changed. The same task is found by a metadata key (ART's
 * `metadata.scenario_id` by default, another key the user picks; the trajectory's metadata first,
 * then its group's), falling back to the first user message, normalised (case, spaces). Shared by
 * "svc: Follow Scenario Across Steps…" and the agents' svc_scenario_history. No `vscode` import.
 *
 * Bounded: only the step files of the split (the newest MAX_STEP_FILES and MAX_STEP_BYTES at most,
 * stepShares.ts), a Parquet file by its small columns first (`group_index`, `trajectory_index`,
 * `reward`, `metadata`, `group_metadata`, one page at a time) and its `trajectory_json` only where
 * a row matched or has no key; a JSONL or JSON file group by group. A step keeps its first
 * MAX_ROLLOUTS_PER_STEP matching rollouts, each answer cut to MAX_ANSWER characters.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isObject } from '../api/json';
import { openArtParquet, readTrajectoryGroups } from '../files';
import { hasExchanges, exchangeConversation } from '../files/exchanges';
import { itemsOf, messageViews } from '../files/messages';
import type { MessageView } from './protocol';
import { chooseSteps, listStepFiles, type StepFile } from '../files/stepShares';

export const DEFAULT_SCENARIO_KEY = 'scenario_id';
export const MAX_ANSWER = 400;
export const MAX_ROLLOUTS_PER_STEP = 64;
/** Characters of a first user message kept as a scenario's name. */
const MAX_KEY_TEXT = 2000;

export interface ScenarioRollout {
  group: number;
  trajectory: number;
  reward: number | null;
  /** The last assistant message's text (or its tool calls), cut to MAX_ANSWER characters. */
  answer: string;
  /** The answer was longer: `answer` is its beginning. */
  cut?: boolean;
}

export interface ScenarioStep {
  step: number;
  /** The step file (absolute). */
  file: string;
  rollouts: ScenarioRollout[];
  /** Matching rollouts past MAX_ROLLOUTS_PER_STEP, not listed. */
  more?: number;
  /** The distinct answers of the step (as first met; two answers that differ only in case or spaces are one), in the order met. */
  answers: string[];
  /** This step's answers differ from the previous step's that had the scenario. */
  changed?: boolean;
  /** Why the file could not be read (then no rollouts); the other steps go on. */
  error?: string;
}

export interface ScenarioHistory {
  modelDir: string;
  split: string;
  key: string;
  scenario: string;
  /** Steps whose file holds the scenario, or could not be read, ascending. */
  steps: ScenarioStep[];
  /** Step files read. */
  read: number;
  /** How the scenario was found at each step: by the key, by the first user message, or both. */
  matchedBy: { key: number; firstMessage: number };
  /** The first step whose answers differ from the step before it. */
  firstChange?: number;
  /** Step files left out (caps), and why. */
  cut?: { left: number; why: string };
  /** Scenarios seen (by the key, else first messages), a few, when this one was found nowhere. */
  known?: string[];
}

export interface ScenarioQuery {
  /** The run: its model folder, its history.jsonl, or one of its step files. */
  run: string;
  scenario: string;
  key?: string;
  /** Default: the split of a step file given as `run`, else `train`. */
  split?: string;
  signal?: AbortSignal;
  maxFiles?: number;
  maxBytes?: number;
}

/** A first user message (or a scenario typed by hand) as compared: Unicode NFC, case folded, spaces collapsed. */
export function normaliseText(s: string): string {
  return s.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The model folder and split a `run` path names; an Error naming it when it is none of them. */
export function resolveRun(run: string, split?: string): { modelDir: string; split: string } {
  const abs = path.resolve(run);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new Error(`${abs}: no such file or folder.`);
  }
  if (st.isDirectory()) {
    if (fs.existsSync(path.join(abs, 'trajectories'))) return { modelDir: abs, split: split ?? 'train' };
    if (path.basename(abs) === 'trajectories') return { modelDir: path.dirname(abs), split: split ?? 'train' };
    if (path.basename(path.dirname(abs)) === 'trajectories') return { modelDir: path.dirname(path.dirname(abs)), split: split ?? path.basename(abs) };
    throw new Error(`${abs} is not an ART run: it has no trajectories/ folder (a run is .art/<project>/models/<model>/).`);
  }
  if (path.basename(abs) === 'history.jsonl') return { modelDir: path.dirname(abs), split: split ?? 'train' };
  const splitDir = path.dirname(abs);
  if (path.basename(path.dirname(splitDir)) === 'trajectories') return { modelDir: path.dirname(path.dirname(splitDir)), split: split ?? path.basename(splitDir) };
  throw new Error(`${abs} is not part of an ART run: give the run's folder (.art/<project>/models/<model>/), its history.jsonl or one of its step files (trajectories/<split>/<step>.parquet).`);
}

const textOf = (m: MessageView) =>
  m.parts
    .filter((p) => p.kind === 'text' || p.kind === 'refusal')
    .map((p) => p.text)
    .join('');

/** The messages of a trajectory, whatever its form (messages_and_choices or exchanges). */
function messagesOf(t: unknown): MessageView[] {
  return messageViews(hasExchanges(t) ? exchangeConversation(t).items : itemsOf(t));
}

/** The first user message's text, normalised (the fallback key). */
export function firstUserKey(t: unknown): string | undefined {
  const m = messagesOf(t).find((x) => x.role === 'user');
  const text = m ? textOf(m) : '';
  return text.trim() ? normaliseText(text.slice(0, MAX_KEY_TEXT)) : undefined;
}

/** The last assistant message: its text, else its tool calls; cut to MAX_ANSWER characters. */
export function finalAnswer(t: unknown): { answer: string; cut?: boolean } {
  const msgs = messagesOf(t);
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role !== 'assistant') continue;
    let text = textOf(m).trim();
    if (!text && m.toolCalls.length) text = m.toolCalls.map((c) => `→ ${c.name}(${c.arguments})`).join(' ');
    if (!text && m.refusal) text = `[refusal] ${m.refusal}`;
    if (!text) continue;
    return text.length > MAX_ANSWER ? { answer: text.slice(0, MAX_ANSWER), cut: true } : { answer: text };
  }
  return { answer: '(no assistant message)' };
}

/** A metadata value as a scenario name (strings as they are, numbers and the rest as JSON). */
function keyValue(metadata: unknown, key: string): string | undefined {
  // Own keys only: "__proto__" or "constructor" is not a metadata value.
  if (!isObject(metadata) || !Object.hasOwn(metadata, key)) return undefined;
  const v = metadata[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const parseObject = (s: unknown): unknown => {
  if (typeof s !== 'string') return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
};

interface Matcher {
  key: string;
  scenario: string;
  normalised: string;
  seen: Set<string>;
}

/** Whether a trajectory (its key's value, else its first user message) is the scenario. */
function matches(m: Matcher, byKey: string | undefined, firstUser: () => string | undefined): 'key' | 'firstMessage' | undefined {
  if (byKey !== undefined) {
    if (m.seen.size < 20) m.seen.add(byKey);
    return byKey === m.scenario ? 'key' : undefined;
  }
  const f = firstUser();
  if (f !== undefined && m.seen.size < 20) m.seen.add(f.length > 80 ? `${f.slice(0, 80)}…` : f);
  return f !== undefined && f === m.normalised ? 'firstMessage' : undefined;
}

interface Found {
  rollouts: ScenarioRollout[];
  more: number;
  by: { key: number; firstMessage: number };
}

function add(found: Found, group: number, trajectory: number, t: unknown, reward: number | null, by: 'key' | 'firstMessage'): void {
  found.by[by]++;
  if (found.rollouts.length >= MAX_ROLLOUTS_PER_STEP) {
    found.more++;
    return;
  }
  found.rollouts.push({ group, trajectory, reward, ...finalAnswer(t) });
}

const rewardValue = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const index = (v: unknown): number | null => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : null);

/** The scenario's rollouts in a Parquet step file (version 2): small columns first, trajectory_json only where needed. */
async function scanParquet(file: string, m: Matcher, signal?: AbortSignal): Promise<Found> {
  const found: Found = { rollouts: [], more: 0, by: { key: 0, firstMessage: 0 } };
  const { file: pf, info } = await openArtParquet(file);
  try {
    if (info.version !== 2) throw new Error("is in ART's version 1 Parquet format (no trajectory_json): its answers cannot be read");
    const hasGroupMeta = info.columns.includes('group_metadata');
    const names = ['group_index', 'trajectory_index', 'reward', 'metadata', ...(hasGroupMeta ? ['group_metadata'] : [])];
    // Rows that matched by the key (their answers are needed) and rows with no key (their first message is).
    const wanted = new Map<number, { group: number; trajectory: number; reward: number | null; by?: 'key' }>();
    for await (const [row, v] of pf.rows(names, signal)) {
      const group = index(v[0]);
      const trajectory = index(v[1]);
      if (group === null || trajectory === null) continue; // an empty group
      const byKey = keyValue(parseObject(v[3]), m.key) ?? (hasGroupMeta ? keyValue(parseObject(v[4]), m.key) : undefined);
      if (byKey !== undefined) {
        if (matches(m, byKey, () => undefined)) wanted.set(row, { group, trajectory, reward: rewardValue(v[2]), by: 'key' });
      } else wanted.set(row, { group, trajectory, reward: rewardValue(v[2]) });
    }
    if (!wanted.size) return found;
    const hits: { row: number; t: unknown; by: 'key' | 'firstMessage' }[] = [];
    for await (const [row, v] of pf.rows(['trajectory_json'], signal)) {
      const w = wanted.get(row);
      if (!w) continue;
      const t = parseObject(v[0]);
      if (t === undefined) continue;
      const by = w.by ?? matches(m, undefined, () => firstUserKey(t));
      if (by) hits.push({ row, t, by });
    }
    // In group and trajectory order (rows may be out of order).
    hits.sort((a, b) => wanted.get(a.row)!.group - wanted.get(b.row)!.group || wanted.get(a.row)!.trajectory - wanted.get(b.row)!.trajectory);
    for (const h of hits) {
      const w = wanted.get(h.row)!;
      add(found, w.group, w.trajectory, h.t, w.reward, h.by);
    }
    return found;
  } finally {
    await pf.close();
  }
}

/** The scenario's rollouts in a JSONL or JSON step file, group by group. */
async function scanGroups(file: string, m: Matcher, signal?: AbortSignal): Promise<Found> {
  const found: Found = { rollouts: [], more: 0, by: { key: 0, firstMessage: 0 } };
  for await (const g of readTrajectoryGroups(file, { signal })) {
    const value: unknown = JSON.parse(g.json);
    if (!isObject(value) || !Array.isArray(value.trajectories)) continue;
    value.trajectories.forEach((t, i) => {
      const byKey = keyValue(isObject(t) ? t.metadata : undefined, m.key) ?? keyValue(value.metadata, m.key);
      const by = matches(m, byKey, () => firstUserKey(t));
      if (by) add(found, g.index, i, t, rewardValue(isObject(t) ? t.reward : undefined), by);
    });
  }
  return found;
}

/** The distinct answers (two that differ only in case or spaces are one), as first met. */
function answerSet(rollouts: readonly ScenarioRollout[]): string[] {
  const seen = new Map<string, string>();
  for (const r of rollouts) {
    const k = normaliseText(r.answer);
    if (!seen.has(k)) seen.set(k, r.answer);
  }
  return [...seen.values()];
}

const sameSet = (a: readonly string[], b: readonly string[]) => {
  const key = (xs: readonly string[]) => xs.map(normaliseText).sort().join('\u0000');
  return a.length === b.length && key(a) === key(b);
};

/** The scenario at every step of the split that holds it. A step file that cannot be read is a step with an error. */
export async function scenarioHistory(q: ScenarioQuery): Promise<ScenarioHistory> {
  const { modelDir, split } = resolveRun(q.run, q.split);
  const key = q.key?.trim() || DEFAULT_SCENARIO_KEY;
  const scenario = q.scenario;
  if (!scenario.trim()) throw new Error('No scenario given: pass the value of the key (e.g. metadata.scenario_id) or the first user message.');
  const files: StepFile[] = await listStepFiles(modelDir, split);
  if (!files.length) throw new Error(`${path.join(modelDir, 'trajectories', split)} has no step files (<step>.parquet or <step>.jsonl).`);
  const { chosen, cut } = chooseSteps(files, { maxFiles: q.maxFiles, maxBytes: q.maxBytes });
  const m: Matcher = { key, scenario, normalised: normaliseText(scenario), seen: new Set() };
  const out: ScenarioHistory = { modelDir, split, key, scenario, steps: [], read: 0, matchedBy: { key: 0, firstMessage: 0 }, ...(cut ? { cut } : {}) };
  let previous: string[] | undefined;
  for (const f of chosen) {
    q.signal?.throwIfAborted();
    out.read++;
    let found: Found;
    try {
      found = /\.parquet$/i.test(f.path) ? await scanParquet(f.path, m, q.signal) : await scanGroups(f.path, m, q.signal);
    } catch (e) {
      if (q.signal?.aborted) throw e;
      out.steps.push({ step: f.step, file: f.path, rollouts: [], answers: [], error: e instanceof Error ? e.message : String(e) });
      continue;
    }
    if (!found.rollouts.length) continue;
    out.matchedBy.key += found.by.key;
    out.matchedBy.firstMessage += found.by.firstMessage;
    const answers = answerSet(found.rollouts);
    const step: ScenarioStep = { step: f.step, file: f.path, rollouts: found.rollouts, answers, ...(found.more ? { more: found.more } : {}) };
    if (previous && !sameSet(previous, answers)) {
      step.changed = true;
      out.firstChange ??= f.step;
    }
    previous = answers;
    out.steps.push(step);
  }
  if (!out.steps.some((s) => s.rollouts.length)) out.known = [...m.seen].slice(0, 10);
  return out;
}

const fmt = (r: number | null) => (r === null ? '—' : String(Number(r.toFixed(4))));

/** A step's rewards as a short list ("0.2, 0.25, 0.3"). */
export function rewardsText(s: ScenarioStep): string {
  return s.rollouts.map((r) => fmt(r.reward)).join(', ') + (s.more ? ` (+${s.more} more)` : '');
}

/** The mean reward of a step's listed rollouts, or null. */
export function meanReward(s: ScenarioStep): number | null {
  const rs = s.rollouts.map((r) => r.reward).filter((r): r is number => r !== null);
  return rs.length ? rs.reduce((a, b) => a + b, 0) / rs.length : null;
}

/** Trajectory `trajectory` of group `group` of a step file, or undefined when the file has no such trajectory. */
export async function readTrajectoryAt(file: string, group: number, trajectory: number, signal?: AbortSignal): Promise<{ trajectory: unknown; group: unknown } | undefined> {
  for await (const g of readTrajectoryGroups(file, { signal })) {
    if (g.index < group) continue;
    if (g.index > group) return undefined;
    const value: unknown = JSON.parse(g.json);
    const list = isObject(value) && Array.isArray(value.trajectories) ? value.trajectories : [];
    return trajectory < list.length ? { trajectory: list[trajectory], group: value } : undefined;
  }
  return undefined;
}

/** The scenario a trajectory is: its key's value (the trajectory's metadata, else its group's), else its first user message. */
export function scenarioOf(t: unknown, group: unknown, key = DEFAULT_SCENARIO_KEY): { scenario: string; by: 'key' | 'firstMessage' } | undefined {
  const byKey = keyValue(isObject(t) ? t.metadata : undefined, key) ?? keyValue(isObject(group) ? group.metadata : undefined, key);
  if (byKey !== undefined) return { scenario: byKey, by: 'key' };
  const m = messagesOf(t).find((x) => x.role === 'user');
  const text = m ? textOf(m).trim() : '';
  return text ? { scenario: text.slice(0, MAX_KEY_TEXT), by: 'firstMessage' } : undefined;
}

/** The distinct scenarios of one step file (for a pick), in file order, at most `max`. */
export async function scenariosInFile(file: string, key = DEFAULT_SCENARIO_KEY, max = 500, signal?: AbortSignal): Promise<{ scenario: string; by: 'key' | 'firstMessage'; group: number; rewards: number[] }[]> {
  const out = new Map<string, { scenario: string; by: 'key' | 'firstMessage'; group: number; rewards: number[] }>();
  for await (const g of readTrajectoryGroups(file, { signal })) {
    const value: unknown = JSON.parse(g.json);
    if (!isObject(value) || !Array.isArray(value.trajectories)) continue;
    for (const t of value.trajectories) {
      const s = scenarioOf(t, value, key);
      if (!s) continue;
      const id = s.by === 'key' ? `k:${s.scenario}` : `m:${normaliseText(s.scenario)}`;
      const had = out.get(id);
      const reward = rewardValue(isObject(t) ? t.reward : undefined);
      if (had) {
        if (reward !== null) had.rewards.push(reward);
      } else if (out.size < max) out.set(id, { ...s, group: g.index, rewards: reward === null ? [] : [reward] });
    }
  }
  return [...out.values()];
}
