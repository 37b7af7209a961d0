import { ProtocolError } from './errors';
import { readCapped, type HttpClient } from './http';
import {
  CheckpointList,
  ListCheckpointsQuery,
  ModelId,
  TrajectoryLogRequest,
  type Checkpoint,
  type CheckpointOrder,
} from './schemas';
import { checkRequest, parseResponse } from './validate';
import type { z } from 'zod';

export interface CallOptions {
  signal?: AbortSignal;
}

function modelPath(modelId: string, suffix: string): string {
  checkRequest(ModelId, modelId, 'model id');
  return `/v1/preview/models/${encodeURIComponent(modelId)}/${suffix}`;
}

/** The model endpoints under /v1/preview/ (Bearer auth). */
export class ModelsApi {
  constructor(private readonly http: HttpClient) {}

  /**
   * POST /v1/preview/models/{model_id}/log. Never retried once the body may have reached the
   * server (it would log twice); only a connection that failed before sending is retried.
   * Returns the response body, whose shape the service does not promise.
   */
  async logTrajectories(
    modelId: string,
    input: z.input<typeof TrajectoryLogRequest>,
    options: CallOptions = {},
  ): Promise<unknown> {
    const path = modelPath(modelId, 'log');
    // Validated, then sent as given: zod's output copy would drop "__proto__" record keys.
    checkRequest(TrajectoryLogRequest, input, 'trajectory log request');
    const res = await this.http.stream({
      method: 'POST',
      base: 'training',
      path,
      auth: 'bearer',
      json: input,
      retry: 'unsent-only',
      signal: options.signal,
    });
    // A 2xx status line means the service stored the trajectories; the body (shape not promised)
    // is a courtesy, so losing it must not make a logged request look failed or uncertain.
    try {
      const text = await readCapped(res.body, 1024 * 1024, res.info);
      return text.trim() ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }

  /** GET /v1/preview/models/{model_id}/checkpoints: one page, with the envelope's defaults filled. */
  async listCheckpoints(
    modelId: string,
    query: ListCheckpointsQuery = {},
    options: CallOptions = {},
  ): Promise<CheckpointList> {
    const path = modelPath(modelId, 'checkpoints');
    const q = checkRequest(ListCheckpointsQuery, query, 'checkpoints query');
    const { value, info, status } = await this.http.json({
      method: 'GET',
      base: 'training',
      path,
      query: { after: q.after, limit: q.limit, order: q.order },
      auth: 'bearer',
      retry: 'idempotent',
      signal: options.signal,
    });
    return parseResponse(CheckpointList, value, info, status);
  }

  /** Iterates every checkpoint of a model, following `after = last_id` while `has_more`. */
  async *checkpoints(
    modelId: string,
    options: { order?: CheckpointOrder; pageSize?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<Checkpoint> {
    let after: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.listCheckpoints(modelId, { after, limit: options.pageSize, order: options.order }, options);
      yield* page.data;
      if (!page.has_more) return;
      const next = page.last_id || page.data.at(-1)?.id;
      // A server that repeats a cursor would make us loop forever.
      if (!next || seen.has(next)) {
        throw new ProtocolError(`The checkpoints of "${modelId}" say has_more but give no new cursor.`, {
          fieldPath: 'last_id',
        });
      }
      seen.add(next);
      after = next;
    }
  }
}
