import type { JsonObject } from './validate';

// The server's in-memory data. Tests read it directly to check what a request really stored.

/** A traced call: the start fields and end fields merged by id (an end may arrive first). */
export interface CallRecord {
  project_id: string;
  id: string;
  // Start fields (spec 2.2); absent until the start arrives.
  trace_id?: string;
  op_name?: string;
  display_name?: string;
  started_at?: string;
  parent_id?: string;
  thread_id?: string;
  turn_id?: string;
  attributes?: JsonObject;
  inputs?: JsonObject;
  otel_dump?: JsonObject;
  svc_user_id?: string;
  svc_run_id?: string;
  svc_run_step?: number;
  // End fields; absent until the end arrives.
  ended_at?: string;
  summary?: JsonObject;
  exception?: string;
  output?: unknown;
  svc_run_step_end?: number;
  /** started_at / ended_at in microseconds since the epoch, parsed once for the thread queries. */
  startedUs?: number;
  endedUs?: number;
}

export const START_KEYS = [
  'project_id', 'op_name', 'started_at', 'attributes', 'inputs', 'id', 'display_name', 'trace_id', 'parent_id',
  'thread_id', 'turn_id', 'otel_dump', 'svc_user_id', 'svc_run_id', 'svc_run_step',
] as const;
export const END_KEYS = ['project_id', 'id', 'ended_at', 'summary', 'exception', 'output', 'svc_run_step_end'] as const;

export interface FeedbackRow {
  id: string;
  project_id: string;
  svc_ref: string;
  feedback_type: string;
  /** The processed payload (reactions are enriched), as returned to the client. */
  payload: JsonObject;
  creator: string | null;
  annotation_ref: string | null;
  runnable_ref: string | null;
  call_ref: string | null;
  trigger_ref: string | null;
  svc_user_id: string;
  created_at: string;
}

export interface TrajectoryLog {
  modelId: string;
  split: string;
  /** The request body exactly as parsed. */
  body: JsonObject;
  groupCount: number;
  trajectoryCount: number;
  receivedAt: string;
}

export interface Checkpoint {
  id: string;
  step: number;
  metrics: Record<string, number>;
}

export class Store {
  /** Feedback rows in creation order. */
  readonly feedback: FeedbackRow[] = [];
  /** Lower-cased feedback id -> fingerprint of the request that created it (idempotent retries). */
  readonly feedbackRequests = new Map<string, { row: FeedbackRow; fingerprint: string }>();
  /** project_id -> call id -> call. */
  readonly calls = new Map<string, Map<string, CallRecord>>();
  /** Accepted trajectory log requests, in arrival order. */
  readonly logs: TrajectoryLog[] = [];
  /** model id -> checkpoints sorted by step. A model listed here exists, even with none. */
  readonly checkpoints = new Map<string, Checkpoint[]>();

  getCall(projectId: string, id: string): CallRecord | undefined {
    return this.calls.get(projectId)?.get(id);
  }

  /** The project's call map, created on first use. */
  projectCalls(projectId: string): Map<string, CallRecord> {
    let calls = this.calls.get(projectId);
    if (!calls) {
      calls = new Map();
      this.calls.set(projectId, calls);
    }
    return calls;
  }

  /** Declares a model (so its checkpoint list answers 200, not 404) and returns its list. */
  model(modelId: string): Checkpoint[] {
    let list = this.checkpoints.get(modelId);
    if (!list) {
      list = [];
      this.checkpoints.set(modelId, list);
    }
    return list;
  }

  clear(): void {
    this.feedback.length = 0;
    this.feedbackRequests.clear();
    this.calls.clear();
    this.logs.length = 0;
    this.checkpoints.clear();
  }
}
