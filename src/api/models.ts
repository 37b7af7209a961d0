import { ProtocolError, ValidationError } from './errors';
import type { HttpClient } from './http';
import { readCapped } from './httpErrors';
import {
  CheckpointList,
  ListCheckpointsQuery,
  ModelId,
  TrajectoryLogRequest,
  type Checkpoint,
  type CheckpointOrder,
} from './schemas';
import { checkRequest, parseResponse } from './validate';
import { isObject } from './json';
import { z } from 'zod';
import { dict } from './dict';

export interface CallOptions {
  signal?: AbortSignal;
}

export interface LogOptions extends CallOptions {
  /** On a new connection (HttpRequest.fresh): the caller held the event loop since its last request. */
  fresh?: boolean;
}

/** The parts of a log request that `logGroupsJson` frames around the groups. */
const LogFraming = z.object({
  split: TrajectoryLogRequest.shape.split,
  members: z.record(
    z.string(),
    z.string().refine((t) => {
      try {
        JSON.parse(t);
        return true;
      } catch {
        return false;
      }
    }, 'must be a JSON text'),
  ),
});

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
    return this.sendLog(path, undefined, options, input);
  }

  /**
   * POST /v1/preview/models/{model_id}/log with groups given as their JSON texts, so the service
   * receives a file's bytes unchanged (no re-serialization: numbers, key order and fields the
   * client does not know all arrive as written). Each text must be a group that passed
   * `TrajectoryGroup` — the uploader's validation pass over the file is that check, so it is not
   * repeated here; what is checked is the framing (`split`, extra members, one object per text).
   * `members` are other top-level members as JSON texts (e.g. `model_id`). Never retried once sent.
   */
  async logGroupsJson(
    modelId: string,
    request: { split: string; groups: readonly string[]; members?: Readonly<Record<string, string>> },
    options: LogOptions = {},
  ): Promise<unknown> {
    const path = modelPath(modelId, 'log');
    checkRequest(LogFraming, { split: request.split, members: request.members ?? dict() }, 'trajectory log request');
    const parts = ['{'];
    for (const [key, json] of Object.entries(request.members ?? dict<string>())) {
      if (key === 'split' || key === 'trajectory_groups') continue;
      parts.push(JSON.stringify(key), ':', json, ',');
    }
    parts.push('"split":', JSON.stringify(request.split), ',"trajectory_groups":[');
    const head = parts.join('');
    const texts = request.groups.map((g, i) => {
      const t = g.trim();
      if (!t.startsWith('{') || !t.endsWith('}')) {
        throw new ValidationError(`Invalid trajectory log request: trajectory_groups[${i}] is not a JSON object`, {
          issues: [{ loc: ['body', 'trajectory_groups', i], msg: 'expected a JSON object', type: 'dict_type' }],
          source: 'client',
        });
      }
      return t;
    });
    // Encoded straight into the body: no joined copy of the texts (8 MiB a request) on the heap.
    let size = Buffer.byteLength(head) + Math.max(0, texts.length - 1) + 2;
    for (const t of texts) size += Buffer.byteLength(t);
    const body = Buffer.allocUnsafe(size);
    let at = body.write(head, 0);
    texts.forEach((t, i) => {
      if (i > 0) at = body.writeUInt8(0x2c, at);
      at += body.write(t, at);
    });
    body.write(']}', at);
    return this.sendLog(path, body, options);
  }

  private async sendLog(path: string, body: Uint8Array | undefined, options: LogOptions, json?: unknown): Promise<unknown> {
    const res = await this.http.stream({
      method: 'POST',
      base: 'training',
      path,
      auth: 'bearer',
      json,
      body,
      retry: 'unsent-only',
      signal: options.signal,
      fresh: options.fresh,
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
    // A well-formed page is taken as it is (defaults filled); the schema names the field otherwise.
    const page = isCheckpointList(value) ? withDefaults(value) : parseResponse(CheckpointList, value, info, status);
    // Metric names are data: each checkpoint's metrics become a null-prototype record, so a metric
    // "__proto__", "constructor" or "toString" is a key like any other wherever it goes.
    for (const c of page.data) c.metrics = dict(c.metrics);
    return page;
  }

  /** Iterates every checkpoint of a model, following `after = last_id` while `has_more`. */
  async *checkpoints(
    modelId: string,
    options: { order?: CheckpointOrder; pageSize?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<Checkpoint> {
    for await (const page of this.checkpointPages(modelId, options)) yield* page;
  }

  /** The same as `checkpoints`, a page at a time: one async step per page, not per checkpoint. */
  async *checkpointPages(
    modelId: string,
    options: { order?: CheckpointOrder; pageSize?: number; signal?: AbortSignal } = {},
  ): AsyncGenerator<Checkpoint[]> {
    let after: string | undefined;
    const seen = new Set<string>();
    for (;;) {
      const page = await this.listCheckpoints(modelId, { after, limit: options.pageSize, order: options.order }, options);
      yield page.data;
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

const isOptString = (v: unknown) => v === undefined || typeof v === 'string';

/** Exactly the rules of the `CheckpointList` schema, as a cheap yes/no (test/unit/api/checkpointList.test.ts keeps them equal). */
type RawCheckpointList = Pick<CheckpointList, 'data' | 'has_more'> & { object?: string; first_id?: string; last_id?: string };

export function isCheckpointList(v: unknown): v is RawCheckpointList {
  if (!isObject(v) || typeof v.has_more !== 'boolean' || !isOptString(v.object) || !isOptString(v.first_id) || !isOptString(v.last_id) || !Array.isArray(v.data)) return false;
  return v.data.every((c) => isObject(c) && typeof c.id === 'string' && typeof c.step === 'number' && Number.isSafeInteger(c.step) && isObject(c.metrics));
}

function withDefaults(v: RawCheckpointList): CheckpointList {
  return { ...v, object: v.object ?? 'list', first_id: v.first_id ?? '', last_id: v.last_id ?? '' };
}
