import assert from 'node:assert/strict';
import { startReferenceServer, type ReferenceServer } from '../../server';
import { API_KEY, BASIC, postJson, PROJECT, USER_ID, useServer } from './helpers';

const startItem = (id: string) => ({
  mode: 'start',
  req: { start: { project_id: PROJECT, id, trace_id: id, op_name: 'op', started_at: '2026-11-01T10:00:00Z', attributes: {}, inputs: {} } },
});

/** POSTs a threads query and reads the raw body until it ends or breaks. */
async function readStream(server: ReferenceServer, signal?: AbortSignal): Promise<{ text: string; error?: unknown }> {
  const res = await fetch(`${server.url}/threads/stream_query`, {
    method: 'POST',
    headers: { authorization: BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: PROJECT, sort_by: [{ field: 'thread_id', direction: 'asc' }] }),
    signal,
  });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

describe('reference server: fault injection', () => {
  const server = useServer();
  const upsert = (id: string) => postJson(server(), '/call/upsert_batch', { batch: [startItem(id)] });

  describe('status', () => {
    it('answers the status with Retry-After without processing, for `times` matching requests', async () => {
      server().faults.add({ kind: 'status', status: 429, retryAfter: '1', path: '/call/', times: 2 });
      const first = await upsert('a');
      assert.equal(first.status, 429);
      assert.equal(first.headers.get('retry-after'), '1');
      assert.equal(typeof first.body.reason, 'string');
      assert.equal((await upsert('b')).status, 429);
      assert.equal((await upsert('c')).status, 200);
      assert.deepEqual([...server().store.calls.get(PROJECT)!.keys()], ['c']);
      assert.deepEqual(server().stats.requests.map((r) => [r.status, r.fault]), [[429, 'status'], [429, 'status'], [200, undefined]]);
    });

    it('only hits requests matching path (prefix or RegExp) and method', async () => {
      server().faults.add([
        { kind: 'status', status: 503, path: /^\/v1\// },
        { kind: 'status', status: 502, path: '/call/', method: 'GET' },
      ]);
      assert.equal((await upsert('a')).status, 200);
      assert.equal(server().faults.pending().length, 2);
    });

    it('sends a custom body, and the model endpoints\' {"detail"} shape by default', async () => {
      server().faults.add([{ kind: 'status', status: 504, body: { reason: 'upstream timeout', error_code: 'X' } }, { kind: 'status', status: 500 }]);
      assert.deepEqual((await upsert('a')).body, { reason: 'upstream timeout', error_code: 'X' });
      const res = await fetch(`${server().url}/v1/preview/models/m/checkpoints`);
      assert.equal(res.status, 500);
      assert.deepEqual(await res.json(), { detail: 'Internal server error' });
    });
  });

  it('delay: waits, then processes normally', async () => {
    server().faults.add({ kind: 'delay', ms: 100 });
    const started = Date.now();
    const res = await upsert('a');
    assert.ok(Date.now() - started >= 95);
    assert.equal(res.status, 200);
    assert.ok(server().store.getCall(PROJECT, 'a'));
  });

  it('delay: a client that gives up during the wait is dropped unprocessed', async () => {
    server().faults.add({ kind: 'delay', ms: 100 });
    await assert.rejects(
      fetch(`${server().url}/call/upsert_batch`, {
        method: 'POST',
        headers: { authorization: BASIC, 'content-type': 'application/json' },
        body: JSON.stringify({ batch: [startItem('a')] }),
        signal: AbortSignal.timeout(20),
      }),
    );
    await new Promise((r) => setTimeout(r, 130));
    assert.equal(server().store.calls.size, 0);
    assert.equal(server().stats.last()!.completed, false);
  });

  it('reset-before-response: the request fails and nothing is stored', async () => {
    server().faults.add({ kind: 'reset-before-response' });
    await assert.rejects(upsert('a'));
    assert.equal(server().store.calls.size, 0);
    const [record] = server().stats.requests;
    assert.equal(record!.fault, 'reset-before-response');
    assert.equal(record!.status, 0);
    assert.ok(record!.bodyBytes > 0);
  });

  it('reset-after-processing: the request fails but the data is stored', async () => {
    server().faults.add({ kind: 'reset-after-processing' });
    await assert.rejects(upsert('a'));
    assert.ok(server().store.getCall(PROJECT, 'a'));
    assert.equal((await upsert('a')).status, 200, 'the retry is answered normally');
  });

  describe('stream faults', () => {
    beforeEach(() => {
      server().addCalls(
        PROJECT,
        ['t0', 't1', 't2', 't3'].map((t) => ({ id: t, thread_id: t, turn_id: t, started_at: '2026-11-01T10:00:00Z', ended_at: '2026-11-01T10:00:01Z' })),
      );
    });
    const lines = (text: string) => text.split('\n');

    it('reset-mid-stream: sends afterRows rows, then the connection breaks', async () => {
      server().faults.add({ kind: 'reset-mid-stream', afterRows: 2 });
      const { text, error } = await readStream(server());
      assert.ok(error, 'the body read fails');
      assert.deepEqual(lines(text).slice(0, 2).map((l) => JSON.parse(l).thread_id), ['t0', 't1']);
      assert.equal(lines(text)[2], '');
    });

    it('truncate-jsonl: sends afterRows rows and half of the next, then ends normally', async () => {
      server().faults.add({ kind: 'truncate-jsonl', afterRows: 1 });
      const { text, error } = await readStream(server());
      assert.equal(error, undefined);
      const [first, partial, ...rest] = lines(text);
      assert.equal(JSON.parse(first!).thread_id, 't0');
      assert.ok(partial!.startsWith('{"thread_id":"t1"'));
      assert.throws(() => JSON.parse(partial!));
      assert.deepEqual(rest, []);
    });

    it('malformed-line: replaces row atRow with a line that is not JSON', async () => {
      server().faults.add({ kind: 'malformed-line', atRow: 1 });
      const { text } = await readStream(server());
      const all = lines(text).filter((l) => l !== '');
      assert.equal(all.length, 4);
      assert.throws(() => JSON.parse(all[1]!));
      assert.deepEqual([all[0], all[2], all[3]].map((l) => JSON.parse(l!).thread_id), ['t0', 't2', 't3']);
    });

    it('are not consumed by requests to other endpoints', async () => {
      server().faults.add({ kind: 'malformed-line', atRow: 0 });
      assert.equal((await upsert('a')).status, 200);
      assert.equal(server().faults.pending().length, 1);
    });

    it('stall: sends the headers and afterBytes of the body, then nothing until the client gives up', async () => {
      server().faults.add({ kind: 'stall', afterBytes: 10 });
      const { text, error } = await readStream(server(), AbortSignal.timeout(100));
      assert.ok(error, 'the read is aborted by the client');
      assert.equal(text, '{"thread_i');
    });
  });

  it('stall on a JSON endpoint: headers arrive, the body never completes', async () => {
    server().faults.add({ kind: 'stall' });
    const controller = new AbortController();
    const res = await fetch(`${server().url}/call/upsert_batch`, {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({ batch: [] }),
      signal: controller.signal,
    });
    assert.equal(res.status, 200);
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(res.text());
  });

  it('close() ends stalled responses instead of waiting for them', async () => {
    const s = await startReferenceServer({ apiKeys: [{ key: API_KEY, userId: USER_ID }] });
    s.faults.add({ kind: 'stall' });
    const res = await fetch(`${s.url}/call/upsert_batch`, {
      method: 'POST',
      headers: { authorization: BASIC, 'content-type': 'application/json' },
      body: JSON.stringify({ batch: [] }),
    });
    const body = res.text().then(
      () => 'completed',
      () => 'broken',
    );
    await s.close();
    assert.equal(await body, 'broken');
  }).timeout(2000);

  it('applies queued faults in order, one per request, then serves normally', async () => {
    server().faults.add([
      { kind: 'status', status: 503 },
      { kind: 'status', status: 502 },
    ]);
    assert.equal((await upsert('a')).status, 503);
    assert.equal((await upsert('a')).status, 502);
    assert.equal((await upsert('a')).status, 200);
  });

  it('rejects a malformed fault when it is added', () => {
    assert.throws(() => server().faults.add({ kind: 'delay', ms: -1 }), /ms must be/);
    assert.throws(() => server().faults.add({ kind: 'status', status: 42 }), /status/);
  });
});
