import { randomUUID } from 'node:crypto';
import { familyError, unprocessable } from './errors';
import type { Checkpoint, Store } from './store';
import { Checker } from './validate';

// GET /v1/preview/models/{model_id}/checkpoints (spec 2.5, 4.5 and 8), plus the reference
// server's own way to create checkpoints (production creates them in training runs).

export interface CheckpointPage {
  object: 'list';
  data: Checkpoint[];
  first_id: string;
  last_id: string;
  has_more: boolean;
}

const QUERY_KEYS = ['after', 'limit', 'order'];

/** One page after the `after` cursor, ordered by step; 422 for bad query values, 404 for no model. */
export function listCheckpoints(store: Store, modelId: string, query: URLSearchParams): CheckpointPage {
  // Query values are checked before the model is looked up, as FastAPI does.
  const c = new Checker();
  for (const key of new Set(query.keys())) {
    if (!QUERY_KEYS.includes(key)) c.fail([key], 'extra_forbidden', 'Extra inputs are not permitted');
    else if (query.getAll(key).length > 1) c.fail([key], 'value_error', 'Expected a single value');
  }
  const limit = parseLimit(c, query.get('limit'));
  const order = query.has('order') ? c.literal(query.get('order'), ['order'], ['asc', 'desc'] as const) : 'asc';
  if (!c.ok) throw unprocessable(c.issues, 'query');

  const list = store.checkpoints.get(modelId);
  if (!list) throw familyError('model', 404, 'Model not found');
  const ordered = order === 'desc' ? [...list].reverse() : list;
  let start = 0;
  const after = query.get('after');
  if (after !== null) {
    const i = ordered.findIndex((cp) => cp.id === after);
    if (i < 0) throw unprocessable([{ path: ['after'], type: 'value_error', msg: 'Unknown checkpoint id for this model' }], 'query');
    start = i + 1;
  }
  const data = ordered.slice(start, start + limit!).map((cp) => ({ id: cp.id, step: cp.step, metrics: { ...cp.metrics } }));
  return {
    object: 'list',
    data,
    first_id: data[0]?.id ?? '',
    last_id: data[data.length - 1]?.id ?? '',
    has_more: start + data.length < ordered.length,
  };
}

function parseLimit(c: Checker, raw: string | null): number | undefined {
  if (raw === null) return 20;
  if (!/^-?\d+$/.test(raw)) return c.fail(['limit'], 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer');
  const n = Number(raw);
  if (n < 1) return c.fail(['limit'], 'greater_than_equal', 'Input should be greater than or equal to 1');
  if (n > 100) return c.fail(['limit'], 'less_than_equal', 'Input should be less than or equal to 100');
  return n;
}

export interface CheckpointOptions {
  /** Step of the first new checkpoint; default: the model's last step + stepSize (or stepSize). */
  startStep?: number;
  /** Distance between steps; default 10. */
  stepSize?: number;
  /**
   * Metrics of a checkpoint; default: the model's last checkpoint's metrics carried on with a
   * small deterministic wobble (so a live run keeps its metric names), or for a model without
   * checkpoints a smooth learning curve of loss, reward and accuracy.
   */
  metrics?: (step: number) => Record<string, number>;
  /** Id generator; default random UUIDs. */
  id?: () => string;
}

/** Appends `n` checkpoints with increasing steps to a model (creating it) and returns them. */
export function addCheckpoints(store: Store, modelId: string, n: number, opts: CheckpointOptions = {}): Checkpoint[] {
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError('n must be a non-negative integer');
  const list = store.model(modelId);
  const stepSize = opts.stepSize ?? 10;
  const last = list[list.length - 1];
  let step = opts.startStep ?? (last ? last.step + stepSize : stepSize);
  const created: Checkpoint[] = [];
  const metrics = opts.metrics ?? (last && Object.keys(last.metrics).length ? continued(last.metrics) : defaultMetrics);
  for (let i = 0; i < n; i++, step += stepSize) {
    created.push({ id: (opts.id ?? randomUUID)(), step, metrics: metrics(step) });
  }
  list.push(...created);
  list.sort((a, b) => a.step - b.step || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return created;
}

function continued(last: Record<string, number>): (step: number) => Record<string, number> {
  return (step) => Object.fromEntries(Object.entries(last).map(([k, v]) => [k, Math.round(v * (1 + 0.02 * Math.sin(step)) * 1e6) / 1e6]));
}

function defaultMetrics(step: number): Record<string, number> {
  const round = (x: number) => Math.round(x * 1e4) / 1e4;
  return {
    loss: round(0.35 + 2.1 * Math.exp(-step / 400)),
    reward: round(1 - 0.9 * Math.exp(-step / 500)),
    accuracy: round(0.95 - 0.6 * Math.exp(-step / 300)),
  };
}
