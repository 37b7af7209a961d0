/**
 * Checking a key with one cheap authenticated request, before it is stored. The service has no
 * "who am I" endpoint, so the check asks for the least data an endpoint can give:
 * - trace endpoints (Basic): a threads query with `limit: 1`;
 * - model endpoints (Bearer): one checkpoint (`limit=1`) of a model.
 * Authentication comes before everything else on the service, so any answer other than 401/403
 * says the key was accepted, including a 404 for a model that does not exist or a 400/422.
 */
import { AuthenticationError, CancelledError, NotFoundError, ValidationError } from './errors';
import type { ServiceClient } from './client';

/** Asked for when nothing is configured: an id that is valid in form and owned by nobody. */
export const PROBE_PROJECT = 'svc-vscode/sign-in-check';
export const PROBE_MODEL = 'svc-vscode-sign-in-check';

export type KeyCheck =
  /** The service authenticated the request; `status` is its answer (200, or 400/404/422). */
  | { outcome: 'accepted'; status: number }
  /** 401 or 403. */
  | { outcome: 'rejected'; status: number; message: string }
  /** No answer that says either way: network failure, timeout, 5xx, 429, or a reply that is not the service's. */
  | { outcome: 'unverified'; reason: string };

export interface KeyCheckOptions {
  /** The project of the threads query; default PROBE_PROJECT. */
  projectId?: string;
  /** The model whose checkpoints are listed; default PROBE_MODEL. */
  modelId?: string;
  signal?: AbortSignal;
}

/**
 * Sends one request to the trace or the model endpoints with the client's credentials and says
 * whether the service accepted them. Never throws, except for a cancellation.
 */
export async function checkKey(client: ServiceClient, base: 'trace' | 'training', options: KeyCheckOptions = {}): Promise<KeyCheck> {
  try {
    if (base === 'trace') {
      const rows = client.threads.query({ project_id: options.projectId || PROBE_PROJECT, limit: 1 }, { signal: options.signal, maxResumes: 0 });
      for await (const row of rows) {
        void row;
        break;
      }
    } else {
      await client.models.listCheckpoints(options.modelId || PROBE_MODEL, { limit: 1 }, { signal: options.signal });
    }
    return { outcome: 'accepted', status: 200 };
  } catch (e) {
    if (e instanceof CancelledError) throw e;
    if (e instanceof AuthenticationError && e.status !== undefined) return { outcome: 'rejected', status: e.status, message: e.message };
    if ((e instanceof NotFoundError || (e instanceof ValidationError && e.source === 'server')) && e.status !== undefined) {
      return { outcome: 'accepted', status: e.status };
    }
    return { outcome: 'unverified', reason: e instanceof Error ? e.message : String(e) };
  }
}
