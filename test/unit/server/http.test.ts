import assert from 'node:assert/strict';
import { startReferenceServer } from '../../server';
import { API_KEY, BASIC, BEARER, getJson, postJson, PROJECT, USER_ID, useServer } from './helpers';

describe('reference server: HTTP plumbing', () => {
  const server = useServer({ maxBodyBytes: 64 * 1024 });

  describe('routing', () => {
    it('answers 404 {"reason":"Not found"} for an unknown trace path', async () => {
      for (const path of ['/nope', '/feedback/create/', '/threads']) {
        const res = await postJson(server(), path, {});
        assert.equal(res.status, 404, path);
        assert.deepEqual(res.body, { reason: 'Not found' });
      }
    });

    it('answers 404 in the model endpoints\' {"detail"} shape under /v1/', async () => {
      const res = await getJson(server(), '/v1/preview/models/m/unknown');
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: 'Not Found' });
      assert.equal((await getJson(server(), '/v1/preview/models/%E0%A4%A/checkpoints')).status, 404);
    });

    it('answers 405 with Allow for a wrong method', async () => {
      const get = await getJson(server(), '/feedback/create', BASIC);
      assert.equal(get.status, 405);
      assert.equal(get.headers.get('allow'), 'POST');
      assert.equal(typeof get.body.reason, 'string');
      const post = await postJson(server(), '/v1/preview/models/m/checkpoints', {}, BEARER);
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET');
      assert.equal(typeof post.body.detail, 'string');
    });

    it('does not serve /__admin unless the admin option is set', async () => {
      assert.equal((await getJson(server(), '/__admin/stats', null)).status, 404);
    });
  });

  describe('request bodies', () => {
    it('answers 400 on trace endpoints for a body not sent as application/json', async () => {
      const res = await postJson(server(), '/call/upsert_batch', '{"batch":[]}', BASIC, { 'content-type': 'text/plain' });
      assert.equal(res.status, 400);
      assert.match(res.body.reason, /Content-Type must be application\/json/);
    });

    it('accepts application/json with a charset parameter', async () => {
      const res = await postJson(server(), '/call/upsert_batch', '{"batch":[]}', BASIC, { 'content-type': 'application/json; charset=utf-8' });
      assert.equal(res.status, 200);
    });

    it('answers 400 for invalid JSON, an empty body and a non-object body', async () => {
      for (const body of ['{"batch": [', '', '[]', '"batch"']) {
        const res = await postJson(server(), '/call/upsert_batch', body, BASIC);
        assert.equal(res.status, 400, body);
        assert.equal(typeof res.body.reason, 'string');
      }
    });

    it('answers 413 {"reason":"Request too large"} over maxBodyBytes and stores nothing', async () => {
      const big = { batch: [], padding: 'x'.repeat(70 * 1024) };
      const res = await postJson(server(), '/call/upsert_batch', big, BASIC);
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, { reason: 'Request too large' });
      assert.equal(res.headers.get('connection'), 'close');
    });

    it('answers 413 to a chunked upload without Content-Length, without reading it all', async () => {
      const chunk = new Uint8Array(16 * 1024).fill(0x20);
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 4 * 1024 * 1024) return controller.close();
          sent += chunk.length;
          controller.enqueue(chunk);
        },
      });
      const res = await fetch(`${server().url}/call/upsert_batch`, {
        method: 'POST',
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      assert.equal(res.status, 413);
      assert.deepEqual(await res.json(), { reason: 'Request too large' });
      assert.ok(server().stats.last()!.bodyBytes < 4 * 1024 * 1024);
    });

    it('answers 413 {"detail"} on the model endpoints', async () => {
      const res = await postJson(server(), '/v1/preview/models/m/log', { split: 'x'.repeat(70 * 1024), trajectory_groups: [] }, BEARER);
      assert.equal(res.status, 413);
      assert.deepEqual(res.body, { detail: 'Request too large' });
    });
  });

  it('answers 500 {"reason":"Internal server error"} when a handler throws unexpectedly', async () => {
    const store = server().store;
    const original = store.projectCalls.bind(store);
    const originalError = console.error;
    store.projectCalls = () => {
      throw new Error('disk on fire');
    };
    console.error = () => undefined;
    try {
      const res = await postJson(server(), '/call/upsert_batch', {
        batch: [{ mode: 'end', req: { end: { project_id: PROJECT, id: 'a', ended_at: '2026-01-01T00:00:00Z', summary: {} } } }],
      });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { reason: 'Internal server error' });
    } finally {
      store.projectCalls = original;
      console.error = originalError;
    }
  });

  it('records every request in stats with method, path, status and body size', async () => {
    await postJson(server(), '/call/upsert_batch', { batch: [] });
    await getJson(server(), '/v1/preview/models/m/checkpoints?limit=5');
    assert.deepEqual(
      server().stats.requests.map(({ method, path, query, status, bodyBytes, completed }) => ({ method, path, query, status, bodyBytes, completed })),
      [
        { method: 'POST', path: '/call/upsert_batch', query: '', status: 200, bodyBytes: 12, completed: true },
        { method: 'GET', path: '/v1/preview/models/m/checkpoints', query: 'limit=5', status: 404, bodyBytes: 0, completed: true },
      ],
    );
    assert.equal(server().stats.count('/v1/'), 1);
    assert.equal(server().stats.count(/upsert/, 'POST'), 1);
  });
});

describe('reference server: lifecycle', () => {
  it('listens on an ephemeral port, reports its url and closes with open keep-alive connections', async () => {
    const s = await startReferenceServer({ apiKeys: [{ key: API_KEY, userId: USER_ID }] });
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(s.url, `http://127.0.0.1:${s.port}`);
    assert.equal(s.apiKey, API_KEY);
    assert.equal((await postJson(s, '/call/upsert_batch', { batch: [] })).status, 200);
    const started = Date.now();
    await s.close();
    assert.ok(Date.now() - started < 1000);
  });
});
