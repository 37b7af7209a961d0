import { applyEnd, applyStart, validateEnd, validateStart } from './calls';
import type { CallRecord, Store } from './store';
import { Checker, issuesToReason, parseDateTimeUs, usToIso } from './validate';

// Seeding calls without going through HTTP: for tests and the fixture loader.

/** A call as tests and fixtures write it: start and end fields together, most of them optional. */
export type SeedCall = Omit<CallRecord, 'project_id' | 'startedUs' | 'endedUs'>;

/**
 * Stores calls as if a client had sent their start (when started_at is given) and end (when
 * ended_at is given). Omitted required fields get defaults (trace_id = id, op_name "op", empty
 * attributes/inputs/summary); everything else goes through the endpoint's own validation.
 */
export function addCalls(store: Store, projectId: string, calls: readonly SeedCall[]): void {
  calls.forEach((call, i) => {
    const c = new Checker();
    const { ended_at, summary, exception, output, svc_run_step_end, ...start } = call;
    if (start.started_at !== undefined) {
      const s = validateStart(
        c,
        { trace_id: call.id, op_name: 'op', attributes: {}, inputs: {}, ...start, project_id: projectId },
        [i],
      );
      if (s) applyStart(store, s.start, s.startedUs);
    }
    if (ended_at !== undefined) {
      const end: Record<string, unknown> = { project_id: projectId, id: call.id, ended_at, summary: summary ?? {} };
      if (exception !== undefined) end.exception = exception;
      if ('output' in call) end.output = output;
      if (svc_run_step_end !== undefined) end.svc_run_step_end = svc_run_step_end;
      const e = validateEnd(c, end, [i]);
      if (e) applyEnd(store, e.end, e.endedUs);
    }
    if (!c.ok) throw new TypeError(`invalid seed call for ${projectId}: ${issuesToReason(c.issues)}`);
  });
}

export interface SeedThreadsOptions {
  /** Turns per thread, all finished; default 1. */
  turnsPerThread?: number;
  /** Start of the first turn of thread 0; default 2026-01-01T00:00:00Z. */
  start?: string;
  /** Time between the starts of consecutive threads; default 1000 ms. */
  spacingMs?: number;
  /** Duration of every turn; default 500 ms. */
  turnDurationMs?: number;
  /** Thread ids are the prefix plus a zero-padded index; default "thread-". */
  threadIdPrefix?: string;
}

/**
 * Fast synthetic threads for big-stream tests (100 000 threads take well under a second):
 * thread i starts at start + i * spacing, so the default order (last_updated desc) is by
 * decreasing index. Bypasses validation on purpose.
 */
export function seedThreads(store: Store, projectId: string, n: number, opts: SeedThreadsOptions = {}): void {
  const turns = opts.turnsPerThread ?? 1;
  const spacingUs = (opts.spacingMs ?? 1000) * 1000;
  const durationUs = (opts.turnDurationMs ?? 500) * 1000;
  const prefix = opts.threadIdPrefix ?? 'thread-';
  const startUs = parseDateTimeUs(opts.start ?? '2026-01-01T00:00:00Z');
  if (startUs === undefined) throw new TypeError(`invalid start ${opts.start}`);
  const width = String(Math.max(0, n - 1)).length;
  const calls = store.projectCalls(projectId);
  for (let i = 0; i < n; i++) {
    const threadId = prefix + String(i).padStart(width, '0');
    for (let j = 0; j < turns; j++) {
      const id = `${threadId}-turn-${j}`;
      const started = startUs + i * spacingUs + j * (durationUs + 1000);
      const ended = started + durationUs;
      calls.set(id, {
        project_id: projectId,
        id,
        trace_id: id,
        op_name: 'chat_turn',
        started_at: usToIso(started),
        attributes: {},
        inputs: {},
        thread_id: threadId,
        turn_id: id,
        ended_at: usToIso(ended),
        summary: {},
        startedUs: started,
        endedUs: ended,
      });
    }
  }
}
