import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from './body';
import type { Fault, Faults } from './faults';
import type { Checkpoint } from './store';
import type { Stats } from './stats';
import { isObject } from './validate';

// /__admin routes: control of a reference server running in another process (the demo, host
// tests). They exist ONLY in this reference server, never in production, are enabled only by the
// `admin` option, and use none of the service's authentication schemes.
//
//   GET    /__admin/stats        {requests: RequestRecord[]}
//   GET    /__admin/faults       {pending: [{fault, remaining}]}
//   POST   /__admin/faults       a fault or an array of faults; `pathRegex` (string) stands in
//                                for a RegExp `path`, which JSON cannot carry
//   DELETE /__admin/faults       clears the queued faults
//   POST   /__admin/reset        same as server.reset()
//   POST   /__admin/checkpoints  {modelId, count, stepSize?, metrics?} -> {data: Checkpoint[]}; metrics
//                                (name -> number) for every new checkpoint, default: see addCheckpoints

export interface AdminTarget {
  stats: Stats;
  faults: Faults;
  reset(): void;
  addCheckpoints(modelId: string, n: number, opts?: { stepSize?: number; metrics?: (step: number) => Record<string, number> }): Checkpoint[];
}

export function createAdminHandler(target: AdminTarget, maxBodyBytes: number) {
  return async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const route = `${req.method} ${path}`;
    let body: unknown;
    try {
      const raw = await readBody(req, maxBodyBytes, 'trace', () => undefined);
      body = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
    } catch {
      send(400, { reason: 'Admin request body must be JSON' });
      return;
    }
    try {
      switch (route) {
        case 'GET /__admin/stats':
          return send(200, { requests: target.stats.requests });
        case 'GET /__admin/faults':
          return send(200, { pending: target.faults.pending().map(({ fault, remaining }) => ({ fault: jsonFault(fault), remaining })) });
        case 'POST /__admin/faults': {
          const faults = (Array.isArray(body) ? body : [body]).map(toFault);
          target.faults.add(faults);
          return send(200, { queued: faults.length });
        }
        case 'DELETE /__admin/faults':
          target.faults.clear();
          return send(200, { status: 'ok' });
        case 'POST /__admin/reset':
          target.reset();
          return send(200, { status: 'ok' });
        case 'POST /__admin/checkpoints': {
          if (!isObject(body) || typeof body.modelId !== 'string' || typeof body.count !== 'number') {
            return send(400, { reason: 'Expected {"modelId": string, "count": integer, "stepSize"?: integer, "metrics"?: object}' });
          }
          const stepSize = typeof body.stepSize === 'number' ? body.stepSize : undefined;
          const { metrics } = body;
          if (metrics !== undefined && (!isObject(metrics) || !Object.values(metrics).every((v) => typeof v === 'number' && Number.isFinite(v)))) {
            return send(400, { reason: '"metrics" must map metric names to numbers' });
          }
          const fixed = metrics as Record<string, number> | undefined;
          return send(200, { data: target.addCheckpoints(body.modelId, body.count, { stepSize, metrics: fixed && (() => ({ ...fixed })) }) });
        }
        default:
          return send(404, { reason: 'Not found' });
      }
    } catch (e) {
      send(400, { reason: e instanceof Error ? e.message : String(e) });
    }
  };
}

function toFault(raw: unknown): Fault {
  if (!isObject(raw)) throw new TypeError('a fault must be an object');
  const { pathRegex, ...rest } = raw;
  if (pathRegex === undefined) return rest as unknown as Fault;
  if (typeof pathRegex !== 'string') throw new TypeError('pathRegex must be a string');
  return { ...rest, path: new RegExp(pathRegex) } as unknown as Fault;
}

function jsonFault(f: Fault): unknown {
  return f.path instanceof RegExp ? { ...f, path: undefined, pathRegex: f.path.source } : f;
}
