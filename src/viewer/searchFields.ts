/**
 * What a search looks at in one group, the same for the viewer's search of a file and the run
 * search: every message of every trajectory (content, reasoning, refusal, tool calls by name and
 * arguments, additional histories and exchanges too), each trajectory's metadata and logs, and the
 * group's exceptions (type, message, traceback), logs and metadata. Each text carries where it is,
 * in words the viewer shows ("exception 1 of group 3", "metadata.scenario_id of trajectory 2.1").
 * No `vscode` import.
 */
import { isObject } from '../api/json';
import { exchangeConversation, hasExchanges } from '../files/exchanges';
import { itemsOf, messageViews } from '../files/messages';
import { exceptionsOf, jsonText, type GroupValue } from '../files/model';

/** One searchable text of a group. Numbers are 0-based; -1 where the text is not in one. */
export interface SearchField {
  /** -1: the group's own (exceptions, group logs and metadata). */
  trajectory: number;
  /** -1: the main conversation; otherwise the index in additional_histories. */
  history: number;
  /** -1: not a message (metadata, logs, exceptions). */
  message: number;
  /** A message's role. */
  role?: string;
  /** A tool call's name. */
  tool?: string;
  /** content, reasoning, refusal, `tool call <name>`, `metadata.<key>`, `logs[i]`, `exception i`. */
  field: string;
  text: string;
}

/** What the filters of a run search read of a trajectory. */
export interface TrajectoryFacts {
  reward: number | undefined;
  /** Names of the tools it calls. */
  tools: string[];
}

/** The searchable texts of a group, in the order the viewer shows them. */
export function groupFields(group: GroupValue): SearchField[] {
  const out: SearchField[] = [];
  group.trajectories.forEach((t, ti) => trajectoryFields(t, ti, out));
  const raw = group.bare ? undefined : group.raw;
  exceptionsOf(raw).forEach((e, i) => out.push({ trajectory: -1, history: -1, message: -1, field: `exception ${i + 1}`, text: [`${e.type}: ${e.message}`, e.traceback].filter(Boolean).join('\n') }));
  if (isObject(raw)) objectFields(raw, -1, out);
  return out;
}

/** The searchable texts of one trajectory (appended to `out`). */
export function trajectoryFields(t: unknown, trajectory: number, out: SearchField[] = []): SearchField[] {
  const scan = (items: unknown[], history: number) => {
    for (const v of messageViews(items)) {
      const base = { trajectory, history, message: v.index, role: v.role };
      for (const p of v.parts) out.push({ ...base, field: 'content', text: p.text });
      if (v.reasoning) out.push({ ...base, field: 'reasoning', text: v.reasoning });
      if (v.refusal) out.push({ ...base, field: 'refusal', text: v.refusal });
      for (const c of v.toolCalls) out.push({ ...base, tool: c.name, field: `tool call ${c.name}`, text: `${c.name} ${c.arguments}` });
    }
  };
  scan(hasExchanges(t) ? exchangeConversation(t).items : itemsOf(t), -1);
  const histories = isObject(t) && Array.isArray(t.additional_histories) ? t.additional_histories : [];
  histories.forEach((h, i) => scan(itemsOf(h), i));
  if (isObject(t)) objectFields(t, trajectory, out);
  return out;
}

/** `metadata.<key>` and `logs[i]` of a trajectory or a group. */
function objectFields(o: Record<string, unknown>, trajectory: number, out: SearchField[]): void {
  if (isObject(o.metadata)) for (const [k, v] of Object.entries(o.metadata)) out.push({ trajectory, history: -1, message: -1, field: `metadata.${k}`, text: jsonText(v) });
  if (Array.isArray(o.logs)) o.logs.forEach((l, i) => out.push({ trajectory, history: -1, message: -1, field: `logs[${i}]`, text: jsonText(l) }));
}

/** The names of the tools a trajectory's fields call. */
export function calledTools(fields: readonly SearchField[], trajectory: number): string[] {
  const names = new Set<string>();
  for (const f of fields) if (f.trajectory === trajectory && f.tool !== undefined) names.add(f.tool);
  return [...names];
}

/**
 * Where a field is, as the viewer numbers things (1-based): "message 4 of trajectory 2.1
 * (content)", "metadata.scenario_id of trajectory 2.1", "exception 1 of group 3".
 */
export function whereOf(f: Pick<SearchField, 'trajectory' | 'history' | 'message' | 'field'>, group: number): string {
  const g = group + 1;
  if (f.trajectory < 0) return `${f.field} of group ${g}`;
  const t = `trajectory ${g}.${f.trajectory + 1}`;
  if (f.message < 0) return `${f.field} of ${t}`;
  return `message ${f.message + 1} of ${f.history >= 0 ? `history ${f.history + 1} of ` : ''}${t} (${f.field})`;
}

/** A short piece of `text` around a match at `at`, on one line. */
export function snippet(text: string, at: number, length: number, radius = 60): string {
  const start = Math.max(0, at - radius);
  const end = Math.min(text.length, at + length + radius);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}
