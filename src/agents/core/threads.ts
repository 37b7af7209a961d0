/** svc_list_threads: a page of a project's threads, with the total. Pure: no vscode import. */
import { callRef, type ThreadRow, type ThreadsQueryRequest } from '../../api';
import { count, cutNote, num, table } from './format';
import { readyClient, ToolProblem, type ToolHost } from './host';
import type { ListThreadsInput } from './schemas';

/** Rows counted past the page to give the total; beyond this the total is "more than". */
export const COUNT_CAP = 10_000;
export const DEFAULT_THREADS = 50;

const ms = (v: number | null | undefined) => (v === null || v === undefined || v < 0 ? 'n/a' : num(Math.round(v)));

export async function listThreads(host: ToolHost, input: ListThreadsInput, signal?: AbortSignal): Promise<string> {
  const project = input.projectId ?? host.defaultProject();
  if (!project) throw new ToolProblem('No project given and none is selected: pass projectId ("<entity>/<project>").');
  const client = await readyClient(host, 'trace');
  const limit = input.limit ?? DEFAULT_THREADS;
  const offset = input.offset ?? 0;
  const filter: NonNullable<ThreadsQueryRequest['filter']> = {};
  if (input.after) filter.after_datetime = input.after;
  if (input.before) filter.before_datetime = input.before;
  if (input.threadIds) filter.thread_ids = input.threadIds;
  const sortBy = input.sortBy ?? 'last_updated';
  const direction = input.direction ?? 'desc';
  const request: ThreadsQueryRequest = {
    project_id: project,
    sort_by: [{ field: sortBy, direction }],
    offset,
    limit: limit + COUNT_CAP,
    ...(Object.keys(filter).length ? { filter } : {}),
  };
  const rows: ThreadRow[] = [];
  let seen = 0;
  try {
    for await (const batch of client.threads.queryBatches(request, { signal })) {
      for (const row of batch) if (rows.length < limit) rows.push(row);
      seen += batch.length;
    }
  } catch (e) {
    host.reportFailure?.(e);
    throw e;
  }
  const total = seen < limit + COUNT_CAP ? offset + seen : undefined;
  const where = [`project ${project}`, `sorted by ${sortBy} ${direction}`];
  if (input.after) where.push(`turns started after ${input.after}`);
  if (input.before) where.push(`turns started before ${input.before}`);
  if (input.threadIds) where.push(`${count(input.threadIds.length)} thread ids asked for`);
  if (!rows.length) {
    return total === 0 || total === undefined ? `No threads (${where.join(', ')}).` : `No threads at offset ${count(offset)}: the query has ${count(total)} (${where.join(', ')}).`;
  }
  const turns = rows.reduce((n, r) => n + r.turn_count, 0);
  const head = `${total !== undefined ? count(total) : `At least ${count(offset + seen)}`} threads (${where.join(', ')}). Rows ${count(offset + 1)}–${count(offset + rows.length)}: ${count(turns)} turns in these rows. Durations in ms (p50/p99 of finished turns); times UTC as the service gives them.`;
  const body = table(
    ['thread', 'turns', 'p50 ms', 'p99 ms', 'start', 'last update', 'first turn ref', 'last turn ref'],
    rows.map((r) => [
      r.thread_id,
      r.turn_count,
      ms(r.p50_turn_duration_ms),
      ms(r.p99_turn_duration_ms),
      r.start_time,
      r.last_updated,
      r.first_turn_id ? callRef(project, r.first_turn_id) : '',
      r.last_turn_id ? callRef(project, r.last_turn_id) : '',
    ]),
  );
  const cut = cutNote(rows.length, offset, total, 'threads', `pass offset ${offset + rows.length} for more`);
  return [head, body, cut].filter(Boolean).join('\n\n');
}
