import assert from 'node:assert/strict';
import { getJson, postJson, useServer } from './helpers';

describe('reference server: /__admin routes (reference server only)', () => {
  const server = useServer({ admin: true });
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server().url}/__admin/${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('creates checkpoints for a model with POST /__admin/checkpoints', async () => {
    const res = await admin('POST', 'checkpoints', { modelId: 'm', count: 3 });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((c: { step: number }) => c.step), [10, 20, 30]);
    const list = await getJson(server(), '/v1/preview/models/m/checkpoints');
    assert.equal(list.body.data.length, 3);
  });

  it('gives new checkpoints the metrics asked for, or carries on the model\'s metric names', async () => {
    await admin('POST', 'checkpoints', { modelId: 'run', count: 1, metrics: { 'val/reward': 0.83, 'loss/train': 0.4 } });
    const fixed = await admin('POST', 'checkpoints', { modelId: 'run', count: 2, metrics: { 'val/reward': 0.9 } });
    assert.deepEqual(fixed.body.data.map((c: { metrics: object }) => c.metrics), [{ 'val/reward': 0.9 }, { 'val/reward': 0.9 }]);
    const carried = await admin('POST', 'checkpoints', { modelId: 'run', count: 1 });
    assert.deepEqual(Object.keys(carried.body.data[0].metrics), ['val/reward']);
    assert.ok(Math.abs(carried.body.data[0].metrics['val/reward'] - 0.9) < 0.02);
    const bad = await admin('POST', 'checkpoints', { modelId: 'run', count: 1, metrics: { x: 'high' } });
    assert.equal(bad.status, 400);
    assert.match(bad.body.reason, /metrics/);
  });

  it('queues faults (pathRegex for a RegExp path), lists and clears them', async () => {
    const queued = await admin('POST', 'faults', [{ kind: 'status', status: 503, pathRegex: '^/call/' }, { kind: 'delay', ms: 1 }]);
    assert.deepEqual(queued.body, { queued: 2 });
    const pending = await admin('GET', 'faults');
    assert.equal(new RegExp(pending.body.pending[0].fault.pathRegex).source, new RegExp('^/call/').source);
    assert.equal((await postJson(server(), '/call/upsert_batch', { batch: [] })).status, 503);
    await admin('DELETE', 'faults');
    assert.deepEqual((await admin('GET', 'faults')).body, { pending: [] });
  });

  it('answers 400 for a malformed fault', async () => {
    const res = await admin('POST', 'faults', { kind: 'explode' });
    assert.equal(res.status, 400);
    assert.match(res.body.reason, /unknown kind/);
  });

  it('reports stats of service requests only, and resets everything', async () => {
    await postJson(server(), '/call/upsert_batch', { batch: [] });
    await admin('POST', 'checkpoints', { modelId: 'm', count: 1 });
    const stats = await admin('GET', 'stats');
    assert.deepEqual(stats.body.requests.map((r: { path: string }) => r.path), ['/call/upsert_batch']);
    await admin('POST', 'reset');
    assert.deepEqual((await admin('GET', 'stats')).body, { requests: [] });
    assert.equal(server().store.checkpoints.size, 0);
  });

  it('answers 404 for an unknown admin route', async () => {
    assert.equal((await admin('GET', 'nothing')).status, 404);
  });
});
