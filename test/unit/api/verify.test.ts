import assert from 'node:assert/strict';
import { checkKey, PROBE_MODEL, PROBE_PROJECT } from '../../../src/api';
import { harness, KEY, PROJECT, type Harness } from '../contract/helpers';

describe('api/verify: checking a key with one cheap request', () => {
  let h: Harness;
  afterEach(() => h?.close());

  const withKey = (key: string) => h.make({ credentials: async () => ({ username: 'api', password: key, accessToken: key }), retry: { maxAttempts: 1 } });

  it('accepts a key the service authenticates: one threads query (limit 1), one checkpoint (limit 1)', async () => {
    h = await harness();
    h.server.seedThreads(PROJECT, 3);
    h.server.addCheckpoints('m', 5);
    assert.deepEqual(await checkKey(withKey(KEY), 'trace', { projectId: PROJECT }), { outcome: 'accepted', status: 200 });
    assert.deepEqual(await checkKey(withKey(KEY), 'training', { modelId: 'm' }), { outcome: 'accepted', status: 200 });
    assert.equal(h.server.stats.count(), 2, 'one request per check');
    assert.equal(h.server.stats.last('/threads/stream_query')!.authScheme, 'basic');
    assert.equal(h.server.stats.last('/v1/preview/models/m/checkpoints')!.query, 'limit=1');
  });

  it('counts a 404 for a model nobody has as accepted: the service checked the key first', async () => {
    h = await harness();
    assert.deepEqual(await checkKey(withKey(KEY), 'training'), { outcome: 'accepted', status: 404 });
    assert.equal(h.server.stats.last()!.path, `/v1/preview/models/${PROBE_MODEL}/checkpoints`);
    assert.deepEqual(await checkKey(withKey(KEY), 'trace'), { outcome: 'accepted', status: 200 });
    assert.ok(PROBE_PROJECT.includes('/'));
  });

  it('rejects a key answered with 401 or 403, on either endpoint family', async () => {
    h = await harness();
    for (const base of ['trace', 'training'] as const) {
      const c = await checkKey(withKey('wrong-key-123'), base);
      assert.equal(c.outcome, 'rejected');
      assert.equal((c as { status: number }).status, 401);
    }
    h.server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 403 });
    assert.equal((await checkKey(withKey(KEY), 'trace')).outcome, 'rejected');
  });

  it('says "unverified" when the service cannot be reached or fails', async () => {
    h = await harness();
    h.server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 503 });
    const failed = await checkKey(withKey(KEY), 'trace');
    assert.equal(failed.outcome, 'unverified');
    const client = withKey(KEY);
    await h.server.close();
    const down = await checkKey(client, 'training');
    assert.equal(down.outcome, 'unverified');
    assert.match((down as { reason: string }).reason, /connection refused/);
  });
});
