/**
 * Version 1 of the public API (its contract: api/svc.d.ts, which ships in the VSIX): plain reads
 * over src/api with the user's configuration, and uploads through Upload Trajectories' scripted
 * path. What other extensions get holds no Connection, client, credentials or headers: only these
 * functions, and failures become plain Errors carrying the redacted message and nothing else.
 * Nothing here prompts: an approval the key still needs is a rejection, as for a scripted command.
 */
import * as vscode from 'vscode';
import { z } from 'zod';
import { callRef, THREAD_SORT_FIELDS, type Checkpoint as ServiceCheckpoint, type ThreadRow, type ThreadsQueryRequest } from '../api';
import type { ToolHost } from '../agents/core/host';
import { findTool, runTool } from '../agents/core/tools';
import type { ErrorPresenter } from '../common/errors';
import type { Connection } from '../service/connection';
import type { UploadFinished } from '../trajectories/report';
import type { UploadManager } from '../trajectories/manager';
import type { Checkpoint, CheckpointPage, CheckpointsFound, SvcApi, Thread, ThreadPage, UploadStatus, UploadSummary } from '../../api/svc';
import { dict } from '../api/dict';

/** The calls of the API; the boot bundle adds the version and the events (src/boot/main.ts). */
export type SvcApiCalls = Pick<SvcApi, 'listThreads' | 'listCheckpoints' | 'summarizeRun' | 'summarizeTrajectories' | 'uploadTrajectories'>;

const ListThreadsOptions = z.strictObject({
  projectId: z.string().min(1).optional(),
  sortBy: z.enum(THREAD_SORT_FIELDS).optional(),
  direction: z.enum(['asc', 'desc']).optional(),
  after: z.string().min(1).optional(),
  before: z.string().min(1).optional(),
  threadIds: z.array(z.string().min(1)).min(1).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
  offset: z.number().int().min(0).optional(),
});

const ListCheckpointsOptions = z.strictObject({
  modelId: z.string().min(1),
  order: z.enum(['asc', 'desc']).optional(),
  limit: z.number().int().min(1).max(100).optional(),
  after: z.string().min(1).optional(),
});

const UploadTrajectoriesOptions = z.strictObject({
  files: z.array(z.union([z.string().min(1), z.custom<vscode.Uri>((v) => v instanceof vscode.Uri, 'must be a path or a file Uri')])).min(1),
  modelId: z.string().min(1),
  split: z.string().min(1),
  allowRepeat: z.boolean().optional(),
});

/** The options, checked; a readable rejection naming the field otherwise. */
function parse<T>(schema: z.ZodType<T>, value: unknown, call: string): T {
  const r = schema.safeParse(value ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  throw new Error(`svc ${call}: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
}

export interface PublicApiDeps {
  connection: Connection;
  /** What the agents' tools run against: the API's summaries are their texts. */
  tools: ToolHost;
  errors: Pick<ErrorPresenter, 'describe'>;
  uploads: Pick<UploadManager, 'upload'>;
}

export function createPublicApi({ connection, tools, errors, uploads }: PublicApiDeps): SvcApiCalls {
  /** A read tool's text; its error text (already redacted, naming the fix) becomes the rejection. */
  const tool = async (call: string, name: string, options: unknown): Promise<string> => {
    // Another extension's call: it reads files itself anyway, so a path outside the workspace is no
    // escalation; no prompt opens for a scripted call.
    const r = await runTool(tools, findTool(name)!, options ?? {}, undefined, { allowOutside: () => true });
    if (r.isError) throw new Error(`svc ${call}: ${r.text}`);
    return r.text;
  };
  /** Runs `fn`, turning any failure into a plain Error with the redacted message only. */
  const guard = async <T>(call: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      // Redacted whichever way it came (a tool's text, or the presenter's words): a server may echo a key.
      throw new Error(tools.redact(e instanceof Error && e.message.startsWith(`svc ${call}:`) ? e.message : `svc ${call}: ${errors.describe(e)}`));
    }
  };
  const client = (base: 'trace' | 'training') => {
    const c = connection.client;
    if (!c) throw new Error('no svc service is configured: run "svc: Set Service Base URL".');
    if (base === 'trace' && connection.state === 'signedOut') throw new Error('not signed in: run "svc: Sign In".');
    return c;
  };
  return {
    listThreads: (options) =>
      guard('listThreads', async () => {
        const o = parse(ListThreadsOptions, options, 'listThreads');
        const projectId = o.projectId ?? connection.config.project;
        if (!projectId) throw new Error('svc listThreads: no project is selected; pass { projectId }.');
        const limit = o.limit ?? 50;
        const filter: ThreadsQueryRequest['filter'] = {};
        if (o.after) filter.after_datetime = o.after;
        if (o.before) filter.before_datetime = o.before;
        if (o.threadIds) filter.thread_ids = o.threadIds;
        const rows: ThreadRow[] = [];
        // One extra row tells whether another page exists.
        for await (const row of client('trace').threads.query({
          project_id: projectId,
          filter: Object.keys(filter).length ? filter : undefined,
          sort_by: [{ field: o.sortBy ?? 'last_updated', direction: o.direction ?? 'desc' }],
          limit: limit + 1,
          offset: o.offset ?? 0,
        })) {
          rows.push(row);
        }
        return { projectId, threads: rows.slice(0, limit).map((r) => toThread(projectId, r)), hasMore: rows.length > limit } satisfies ThreadPage;
      }),
    listCheckpoints: (options) =>
      guard('listCheckpoints', async () => {
        const o = parse(ListCheckpointsOptions, options, 'listCheckpoints');
        const page = await client('training').models.listCheckpoints(o.modelId, { after: o.after, limit: o.limit ?? 100, order: o.order ?? 'asc' });
        return { modelId: o.modelId, checkpoints: page.data.map(toCheckpoint), hasMore: page.has_more, lastId: page.has_more ? page.last_id || page.data.at(-1)?.id || '' : '' } satisfies CheckpointPage;
      }),
    summarizeRun: (options) => guard('summarizeRun', () => tool('summarizeRun', 'svc_summarize_run', options)),
    summarizeTrajectories: (options) => guard('summarizeTrajectories', () => tool('summarizeTrajectories', 'svc_summarize_trajectories', options)),
    uploadTrajectories: (options) =>
      guard('uploadTrajectories', async () => {
        const o = parse(UploadTrajectoriesOptions, options, 'uploadTrajectories');
        const report = await uploads.upload({ interactive: false }, { files: o.files, modelId: o.modelId, split: o.split, allowRepeat: o.allowRepeat });
        return toUploadSummary({ modelId: o.modelId, split: o.split, report }, (e) => errors.describe(e));
      }),
  };
}

function toThread(projectId: string, r: ThreadRow): Thread {
  const num = (v: number | null | undefined) => (typeof v === 'number' && v >= 0 ? v : null);
  return {
    threadId: r.thread_id,
    turnCount: r.turn_count,
    startTime: r.start_time,
    lastUpdated: r.last_updated,
    p50TurnDurationMs: num(r.p50_turn_duration_ms),
    p99TurnDurationMs: num(r.p99_turn_duration_ms),
    firstTurnRef: r.first_turn_id ? callRef(projectId, r.first_turn_id) : null,
    lastTurnRef: r.last_turn_id ? callRef(projectId, r.last_turn_id) : null,
  };
}

export function toCheckpoint(c: ServiceCheckpoint): Checkpoint {
  return { id: c.id, step: c.step, metrics: dict(c.metrics) };
}

export function toCheckpointsFound(e: { modelId: string; checkpoints: ServiceCheckpoint[] }): CheckpointsFound {
  return { modelId: e.modelId, checkpoints: e.checkpoints.map(toCheckpoint) };
}

/** An upload's report as the API tells it: counts and messages, no error objects. */
export function toUploadSummary({ modelId, split, report }: UploadFinished, describe: (error: unknown) => string): UploadSummary {
  return {
    status: report.status,
    modelId,
    split,
    files: report.files.map((f) => {
      const outcome = f.result?.outcome;
      const status: UploadStatus = f.problems !== undefined ? 'invalid' : (outcome?.status ?? 'aborted');
      return {
        file: f.file,
        ...(f.step !== undefined ? { step: f.step } : {}),
        status,
        groupsSent: f.result?.totals.groupsSent ?? 0,
        trajectoriesSent: f.result?.totals.trajectoriesSent ?? 0,
        bytesSent: f.result?.totals.bytesSent ?? 0,
        ...(f.problems !== undefined ? { problems: f.problems } : {}),
        ...(outcome?.status === 'failed' ? { error: describe(outcome.error) } : {}),
      };
    }),
  };
}
