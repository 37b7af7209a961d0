import assert from 'node:assert/strict';
import { createServiceClient, PayloadTooLargeError, ValidationError, type CallBatchItem } from '../../../src/api';
import { harness, PROJECT, type Harness } from './helpers';

function start(id: string, extra: Record<string, unknown> = {}): CallBatchItem {
  return {
    mode: 'start',
    req: { start: { project_id: PROJECT, op_name: 'chat', started_at: '2026-11-20T10:00:00Z', attributes: {}, inputs: { q: 'hi' }, id, trace_id: `tr-${id}`, ...extra } },
  } as CallBatchItem;
}
function end(id: string): CallBatchItem {
  return { mode: 'end', req: { end: { project_id: PROJECT, id, ended_at: '2026-11-20T10:00:02Z', summary: {} } } };
}

describe('contract: calls.upsertBatch', () => {
  let h: Harness;
  afterEach(() => h.close());

  it('returns results aligned with the items and stores every field', async () => {
    h = await harness();
    const res = await h.client.calls.upsertBatch([
      start('c1', { thread_id: 't1', turn_id: 'c1', display_name: 'Turn 1', svc_run_id: 'r', svc_run_step: 3, otel_dump: { a: 1 }, parent_id: 'p' }),
      end('c1'),
    ]);
    assert.deepEqual(res[0], { id: 'c1', trace_id: 'tr-c1' });
    assert.deepEqual(res[1], {});
    const call = h.server.store.getCall(PROJECT, 'c1')!;
    assert.equal(call.thread_id, 't1');
    assert.equal(call.svc_run_step, 3);
    assert.equal(call.ended_at, '2026-11-20T10:00:02Z');
  });

  it('fills a missing start id and trace_id with UUIDs', async () => {
    h = await harness();
    const item = start('x');
    delete (item as { req: { start: { id?: string; trace_id?: string } } }).req.start.id;
    delete (item as { req: { start: { id?: string; trace_id?: string } } }).req.start.trace_id;
    const [res] = await h.client.calls.upsertBatch([item]);
    assert.match((res as { id: string }).id, /^[0-9a-f-]{36}$/);
    assert.match((res as { trace_id: string }).trace_id, /^[0-9a-f-]{36}$/);
  });

  it('splits a batch over the byte budget into several requests, keeping order', async () => {
    h = await harness();
    const items = Array.from({ length: 50 }, (_, i) => start(`c${i}`, { inputs: { text: 'x'.repeat(1000) } }));
    const res = await h.client.calls.upsertBatch(items, { maxBatchBytes: 8 * 1024 });
    assert.equal(res.length, 50);
    res.forEach((r, i) => assert.equal((r as { id: string }).id, `c${i}`));
    const requests = h.server.stats.count('/call/upsert_batch');
    assert.ok(requests >= 7, `${requests} requests`);
    assert.ok(h.server.stats.filter('/call/upsert_batch').every((r) => r.bodyBytes <= 8 * 1024));
    assert.equal(h.server.store.calls.get(PROJECT)!.size, 50);
  });

  it('encodes the next request while one is in flight, and never sends two at once', async () => {
    h = await harness();
    const items = Array.from({ length: 3000 }, (_, i) => start(`c${i}`));
    // Every batch waits 100 ms at the service.
    h.server.faults.add({ path: '/call/upsert_batch', kind: 'delay', ms: 100, times: 100 });
    let inFlight = 0;
    let maxInFlight = 0;
    let encodedWhileInFlight = 0;
    // A probe in each item's inputs, serialized with it (non-enumerable: the checks never see it).
    for (const item of items) {
      const inputs = (item as { req: { start: { inputs: object } } }).req.start.inputs;
      Object.defineProperty(inputs, 'toJSON', { value: () => (inFlight > 0 && encodedWhileInFlight++, { q: 'hi' }), enumerable: false });
    }
    const calls = h.client.calls as unknown as { send: (...args: unknown[]) => Promise<unknown> };
    const send = calls.send.bind(calls);
    calls.send = async (...args: unknown[]) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      try {
        return await send(...args);
      } finally {
        inFlight--;
      }
    };
    const res = await h.client.calls.upsertBatch(items, { maxBatchBytes: 64 * 1024 });
    assert.equal(res.length, items.length);
    assert.ok(h.server.stats.count('/call/upsert_batch') >= 5, 'several requests');
    assert.equal(maxInFlight, 1, 'one request at a time');
    assert.ok(encodedWhileInFlight > items.length / 2, `only ${encodedWhileInFlight} of ${items.length} items were encoded while a request was in flight`);
    assert.deepEqual(h.server.store.getCall(PROJECT, 'c2999')?.inputs, { q: 'hi' });
  });

  it('splits in half and retries after a 413, storing each call once', async () => {
    h = await harness({ maxBodyBytes: 20 * 1024 });
    const items = Array.from({ length: 40 }, (_, i) => start(`c${i}`, { inputs: { text: 'y'.repeat(1500) } }));
    const res = await h.client.calls.upsertBatch(items);
    assert.equal(res.length, 40);
    res.forEach((r, i) => assert.equal((r as { id: string }).id, `c${i}`));
    const statuses = h.server.stats.filter('/call/upsert_batch').map((r) => r.status);
    assert.ok(statuses.includes(413), 'at least one 413 happened');
    assert.equal(h.server.store.calls.get(PROJECT)!.size, 40);
  });

  it('reports a single item larger than the server accepts', async () => {
    h = await harness({ maxBodyBytes: 4 * 1024 });
    await assert.rejects(h.client.calls.upsertBatch([start('big', { inputs: { text: 'z'.repeat(10_000) } })]), (e: unknown) => {
      assert.ok(e instanceof PayloadTooLargeError);
      assert.match(e.message, /item 0/);
      return true;
    });
  });

  it('retries a reset batch without duplicating calls (upserts are idempotent)', async () => {
    h = await harness();
    h.server.faults.add({ path: '/call/upsert_batch', kind: 'reset-after-processing' });
    const res = await h.client.calls.upsertBatch([start('a'), start('b')]);
    assert.equal(res.length, 2);
    assert.equal(h.server.stats.count('/call/upsert_batch'), 2);
    assert.equal(h.server.store.calls.get(PROJECT)!.size, 2);
  });

  it('refuses an invalid item before sending, naming its index', async () => {
    h = await harness();
    await assert.rejects(h.client.calls.upsertBatch([start('a'), { mode: 'finish', req: {} } as never]), (e: unknown) => {
      assert.ok(e instanceof ValidationError && e.source === 'client');
      assert.deepEqual(e.issues[0]!.loc.slice(0, 2), ['body', 1]);
      return true;
    });
    assert.equal(h.server.stats.count(), 0);
  });

  it('surfaces CALLS_COMPLETE_MODE_REQUIRED as it is', async () => {
    h = await harness({ projectsRequiringCompleteMode: [PROJECT] });
    await assert.rejects(h.client.calls.upsertBatch([start('a')]), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.errorCode, 'CALLS_COMPLETE_MODE_REQUIRED');
      assert.ok(e.serverMessage);
      return true;
    });
  });
});

describe('contract: a connection lost while the response body is read', () => {
  it('is retried for an idempotent request; for the log endpoint the 200 status line already means logged', async () => {
    const http = await import('node:http');
    let hits = 0;
    // Sends the headers and half a body, then drops the connection, twice; then answers.
    const srv = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits++;
        if (hits <= 2) {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
          res.write('{"res":[');
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(req.url?.startsWith('/v1/') ? '{"ok":true}' : '{"res":[{"id":"a","trace_id":"t"}]}');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(srv.address() as import('node:net').AddressInfo).port}`;
    const client = createServiceClient({ traceBaseUrl: url, credentials: async () => ({ username: 'api', password: 'k', accessToken: 'k' }), retry: { baseDelayMs: 1, maxDelayMs: 5 }, env: {} });
    try {
      const res = await client.calls.upsertBatch([start('a')]);
      assert.deepEqual(res, [{ id: 'a', trace_id: 't' }]);
      assert.equal(hits, 3);
      hits = 0;
      // The 200 status line says the service stored it: the cut body does not make it a failure.
      assert.equal(await client.models.logTrajectories('m', { split: 'train', trajectory_groups: [] }), undefined);
      assert.equal(hits, 1, 'the log request is not sent again');
    } finally {
      await client.close();
      srv.close();
      srv.closeAllConnections();
    }
  });
});
