/**
 * The public API of "svc for VS Code" (extension id `svc.svc-vscode`), for other extensions.
 *
 * Copy this file into your extension (it ships in the VSIX as `api/svc.d.ts`), add
 * `"extensionDependencies": ["svc.svc-vscode"]` to your package.json, and:
 *
 * ```ts
 * import type { SvcExtension } from './svc';
 * const ext = vscode.extensions.getExtension<SvcExtension>('svc.svc-vscode');
 * const svc = (await ext!.activate()).getApi(1);
 * const page = await svc.listCheckpoints({ modelId: 'agent-7b', order: 'desc', limit: 10 });
 * ```
 *
 * Versioned: `getApi(1)` keeps this shape for as long as version 1 is offered; a change that
 * would break a caller comes as `getApi(2)`. The API uses the user's own configuration (service
 * URLs, project, sign-in) and the same approvals as the extension's commands: a key goes nowhere a
 * command could not send it, and nothing here opens a prompt (a call that would need one rejects
 * with a readable message naming the command that fixes it). No key, header or credential is
 * reachable through this object; failures are plain `Error`s with a message and nothing else.
 */
import type { Event, Uri } from 'vscode';

/** What `activate()` of `svc.svc-vscode` returns. */
export interface SvcExtension {
  /** The API of `version`. Throws for a version this release does not offer. */
  getApi(version: 1): SvcApi;
}

/** Version 1 of the API. */
export interface SvcApi {
  readonly version: 1;

  /**
   * Threads of a project (default: the selected one), one page of rows, as the Threads view
   * loads them. Rejects when not signed in, or with the service's refusal.
   */
  listThreads(options?: ListThreadsOptions): Promise<ThreadPage>;

  /** One page of a model's checkpoints (a model id of the model endpoints, e.g. `agent-7b`). */
  listCheckpoints(options: ListCheckpointsOptions): Promise<CheckpointPage>;

  /**
   * A run's health in plain words and numbers, the text the `svc_summarize_run` tool gives an agent:
   * reward trend over the last steps, best and latest step, reward standard deviation and exception
   * rate over time, metrics that vanished or went non-finite. From a model's checkpoints
   * (`{ modelId }`) or a run's history.jsonl as OpenPipe ART writes it (`{ historyFile }`, a path).
   */
  summarizeRun(options: { modelId: string } | { historyFile: string }): Promise<string>;

  /**
   * Per group of a trajectory file (JSON, JSONL or ART's Parquet step file; a path): count, reward
   * mean, std, min and max, a zero-variance flag, exceptions, tokens and time where the file has
   * them, and validation problems with their line and column (or row and group). The text the
   * `svc_summarize_trajectories` tool gives an agent.
   */
  summarizeTrajectories(options: { file: string }): Promise<string>;

  /**
   * Validates trajectory files (JSON, JSONL or ART's Parquet step files; a path or a `file:` Uri each) and, when every one
   * is valid, uploads their groups to a model's split: Upload Trajectories run with these
   * arguments, with its progress notification and its report. Nothing is sent unless every file
   * is valid. Resolves with the outcome; rejects for bad arguments or when not signed in.
   */
  uploadTrajectories(options: UploadTrajectoriesOptions): Promise<UploadSummary>;

  /** Fires when any upload finished (from a command, a menu, this API or a tool), whatever its outcome. */
  readonly onDidFinishUpload: Event<UploadSummary>;

  /** Fires when an open training dashboard's poll found new checkpoints of a model. */
  readonly onDidFindCheckpoints: Event<CheckpointsFound>;
}

export type ThreadSortField = 'thread_id' | 'turn_count' | 'start_time' | 'last_updated' | 'p50_turn_duration_ms' | 'p99_turn_duration_ms';

export interface ListThreadsOptions {
  /** `entity/project`; default the project selected in the extension (svc.project). */
  projectId?: string;
  /** Default `last_updated`. */
  sortBy?: ThreadSortField;
  /** Default `desc`. */
  direction?: 'asc' | 'desc';
  /** Threads with calls started after / before this ISO 8601 date-time. */
  after?: string;
  before?: string;
  /** Only these threads. */
  threadIds?: string[];
  /** Rows per page, 1–1000; default 50. */
  limit?: number;
  /** Rows to skip; default 0. */
  offset?: number;
}

export interface Thread {
  threadId: string;
  turnCount: number;
  /** ISO 8601 date-times, as the service sent them. */
  startTime: string;
  lastUpdated: string;
  /** Median and 99th percentile turn duration, ms; null when the service did not compute them. */
  p50TurnDurationMs: number | null;
  p99TurnDurationMs: number | null;
  /** `svc:///<project>/call/<id>` refs of the first and last turns, when the service named them. */
  firstTurnRef: string | null;
  lastTurnRef: string | null;
}

export interface ThreadPage {
  projectId: string;
  threads: Thread[];
  /** Whether more rows follow: ask again with `offset + threads.length`. */
  hasMore: boolean;
}

export interface ListCheckpointsOptions {
  modelId: string;
  /** By step: `asc` (default, oldest first) or `desc`. */
  order?: 'asc' | 'desc';
  /** 1–100; default 100. */
  limit?: number;
  /** The `lastId` of the page before, for the next page. */
  after?: string;
}

export interface Checkpoint {
  id: string;
  step: number;
  /** As the service sent them: mostly numbers, sometimes null or other JSON. */
  metrics: Record<string, unknown>;
}

export interface CheckpointPage {
  modelId: string;
  checkpoints: Checkpoint[];
  hasMore: boolean;
  /** Pass as `after` for the next page (empty when there is none). */
  lastId: string;
}

export interface CheckpointsFound {
  modelId: string;
  checkpoints: Checkpoint[];
}

export interface UploadTrajectoriesOptions {
  /** Absolute paths or `file:` Uris of JSON / JSONL trajectory files. */
  files: (string | Uri)[];
  modelId: string;
  /** The split the groups are logged to, e.g. `train` or `val`. */
  split: string;
  /**
   * Send a file whose content this editor already uploaded to the same model and split. Without it
   * such an upload is refused (nothing is sent) with an error saying when it was sent.
   */
  allowRepeat?: boolean;
}

export type UploadStatus = 'done' | 'failed' | 'cancelled' | 'invalid' | 'aborted';

export interface UploadFileSummary {
  /** The file's path. */
  file: string;
  /** The training step, for a step file of the official client's layout (`…/<split>/<step>.jsonl`). */
  step?: number;
  status: UploadStatus;
  groupsSent: number;
  trajectoriesSent: number;
  bytesSent: number;
  /** Validation problems found (nothing was sent). */
  problems?: number;
  /** Why the upload of this file failed. */
  error?: string;
}

export interface UploadSummary {
  /** `done`: everything was logged; `invalid`: a file had problems and nothing was sent. */
  status: UploadStatus;
  /** Empty when the upload stopped before choosing (status `aborted` or `invalid`). */
  modelId: string;
  split: string;
  files: UploadFileSummary[];
}
