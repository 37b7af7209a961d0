import { randomUUID } from 'node:crypto';
import type { HttpClient } from './http';
import { FeedbackCreateRequest, FeedbackCreateResponse } from './schemas';
import { checkRequest, parseResponse } from './validate';

export interface CallOptions {
  signal?: AbortSignal;
}

/** POST /feedback/create. */
export class FeedbackApi {
  constructor(private readonly http: HttpClient) {}

  /**
   * Creates a feedback row. An `id` is generated when absent so that a retried request cannot
   * create a second row; the returned row's `id` is the one to show.
   */
  async create(input: FeedbackCreateRequest, options: CallOptions = {}): Promise<FeedbackCreateResponse> {
    // Validated, then sent as given: zod's output copy would drop a "__proto__" payload key.
    const req = { ...input, id: input.id ?? randomUUID() };
    checkRequest(FeedbackCreateRequest, req, 'feedback');
    const { value, info, status } = await this.http.json({
      method: 'POST',
      base: 'trace',
      path: '/feedback/create',
      auth: 'basic',
      json: req,
      retry: 'idempotent',
      signal: options.signal,
    });
    return parseResponse(FeedbackCreateResponse, value, info, status);
  }
}
