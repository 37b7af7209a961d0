/**
 * The viewer page's state, in one place: what the user chose (`state`, kept across hiding the tab
 * by the webview's own state store) and what the page holds from the extension (`page`).
 */
import { DEFAULT_THRESHOLD } from '../tokenStats';
import type { FromWebview, GroupDetail, GroupRow, SearchHit, ToWebview, TrajectorySummary, TrajectoryView } from '../protocol';

// acquireVsCodeApi may be called once per page: this module is the page's one handle.
declare function acquireVsCodeApi(): { postMessage(m: unknown): void; getState(): unknown; setState(s: unknown): void };
const vscode = acquireVsCodeApi();

interface State {
  group: number;
  trajectory: number;
  sort: string;
  dir: 'asc' | 'desc';
  min?: number;
  max?: number;
  query: string;
  groupScroll: number;
  convScroll: number;
  /** The "will not train" filter: only groups and trajectories ART does not fully train on. */
  untrained?: boolean;
  /** The Logprobs panel is open. */
  logprobs?: boolean;
  /** The token strips' threshold: a token under this probability is unlikely. */
  threshold: number;
}
const saved = (vscode.getState() ?? {}) as Partial<State>;
export const state: State = { group: 0, trajectory: -1, sort: 'index', dir: 'asc', query: '', groupScroll: 0, convScroll: 0, threshold: DEFAULT_THRESHOLD, ...saved };
export const save = () => vscode.setState(state);
export const send = (m: FromWebview) => vscode.postMessage(m);

export const page = {
  /** When the page's script started (set by main.ts), for the bench. */
  scriptStart: 0,
  version: -1,
  progress: undefined as Extract<ToWebview, { type: 'progress' }> | undefined,
  rows: new Map<number, GroupRow>(),
  requested: new Set<number>(),
  detail: undefined as GroupDetail | undefined,
  visible: [] as TrajectorySummary[],
  view: undefined as TrajectoryView | undefined,
  hits: [] as SearchHit[],
  hitAt: -1,
  /** A search hit in a group's own field (`exception 2`, `logs[0]`, `metadata.k`): opened once the group is shown. */
  pendingGroupField: undefined as { group: number; field: string } | undefined,
  /** A message to scroll to once its trajectory is shown. */
  pendingMessage: undefined as { message: number; history: number; query?: string; tokens?: boolean } | undefined,
  /** The conversation's scroll is restored once, for the trajectory the tab showed before it was hidden. */
  restoreScroll: (saved.convScroll && saved.trajectory !== undefined && saved.trajectory >= 0 ? { group: state.group, trajectory: state.trajectory, top: saved.convScroll } : undefined) as
    | { group: number; trajectory: number; top: number }
    | undefined,
  /** Enter ran a new search: the first hit is shown as soon as it arrives. */
  goToFirstHit: false,
  /** An ART Parquet step file: rows where text files have lines, and no text to reveal. */
  parquet: false,
  /** An Inspect AI log: a group is a sample (its row names the sample's id). */
  samples: false,
  /** With the "will not train" filter on: the groups listed (as the extension answered), else every group. */
  groupOrder: undefined as number[] | undefined,
};
export const place = (r: GroupRow) => {
  if (page.samples) return `sample ${r.line}`;
  const unit = page.parquet ? 'row' : 'line';
  return r.line === r.endLine ? `${unit} ${r.line}` : `${unit}s ${r.line}–${r.endLine}`;
};
