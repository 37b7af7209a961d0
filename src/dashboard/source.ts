import type * as vscode from 'vscode';
import type { SyncStatus } from './shared/protocol';
import type { CheckpointSeries, Columns } from './shared/series';

/** Rows that arrived, as columns. */
export interface SourceAppend {
  columns: Columns;
  /** Found after the first complete load (a poll, or lines appended to the file). */
  fresh: boolean;
  /** Nothing more is coming right now: draw at once. */
  done: boolean;
}

/**
 * What a dashboard panel draws from: the service's checkpoints of a model (CheckpointSync) or a
 * run's history.jsonl (HistorySync). State and events only.
 */
export interface DashboardSource extends vscode.Disposable {
  /** The panel's key: a model id, or `file:` and the history file's path. */
  readonly modelId: string;
  /** What the panel's title and heading say, when not the model id. */
  readonly title?: string;
  /** The history file shown, as the user knows it (relative to the workspace), for a file dashboard. */
  readonly file?: string;
  readonly series: CheckpointSeries;
  readonly busy: boolean;
  readonly loaded: boolean;
  readonly onDidAppend: vscode.Event<SourceAppend>;
  readonly onDidClear: vscode.Event<void>;
  readonly onDidChangeStatus: vscode.Event<void>;
  status(): SyncStatus;
  /** Visible dashboards keep current; hidden ones do nothing. */
  setActive(active: boolean): void;
  /** Forgets everything and loads again (the Refresh button). */
  restart(): void;
}
