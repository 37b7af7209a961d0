import assert from 'node:assert/strict';
import {
  AuthenticationError,
  ConfigurationError,
  NetworkError,
  NotFoundError,
  ServerError,
  ValidationError,
  createServiceClient,
  type Checkpoint,
  type Trajectory,
} from '../../../src/api';
import { startConnectProxy } from '../../server/connect-proxy';
import { collect, harness, KEY, trajectory, type Harness } from './helpers';

describe('contract: models', () => {
  let h: Harness;
  afterEach(() => h?.close());

  describe('logTrajectories', () => {
    it('logs groups with Bearer auth and a path-encoded model id', async () => {
      h = await harness();
      const modelId = 'org/model v2';
      await h.client.models.logTrajectories(modelId, { split: 'train', trajectory_groups: [{ trajectories: [trajectory(1), trajectory(0)] }] });
      assert.equal(h.server.store.logs.length, 1);
      const log = h.server.store.logs[0]!;
      assert.equal(log.modelId, modelId);
      assert.equal(log.split, 'train');
      assert.equal(log.trajectoryCount, 2);
      const rec = h.server.stats.last('/v1/preview/models/')!;
      assert.equal(rec.authScheme, 'bearer');
      assert.match(rec.path, /org%2Fmodel%20v2/);
    });

    it('maps a 422 to a ValidationError with the detail items', async () => {
      h = await harness();
      // Valid for the client's schema but refused by the server: an unknown choice field type.
      const bad: Trajectory = { messages_and_choices: [{ role: 'user', content: 'x' }], reward: 1, logs: ['a'] };
      h.server.faults.add({
        path: '/v1/preview/models/',
        kind: 'status',
        status: 422,
        body: { detail: [{ loc: ['body', 'trajectory_groups', 0, 'trajectories', 0, 'reward'], msg: 'reward out of range', type: 'value_error' }] },
      });
      await assert.rejects(h.client.models.logTrajectories('m', { split: 'val', trajectory_groups: [{ trajectories: [bad] }] }), (e: unknown) => {
        assert.ok(e instanceof ValidationError);
        assert.equal(e.status, 422);
        assert.deepEqual(e.issues[0]!.loc, ['body', 'trajectory_groups', 0, 'trajectories', 0, 'reward']);
        assert.equal(e.issues[0]!.msg, 'reward out of range');
        return true;
      });
    });

    it('refuses an invalid request before sending, with every issue', async () => {
      h = await harness();
      await assert.rejects(
        h.client.models.logTrajectories('m', { split: 'train', trajectory_groups: [{ trajectories: [{ ...trajectory(), reward: 'x' as never }, { messages_and_choices: [{ role: 'robot' }] } as never] }] }),
        (e: unknown) => e instanceof ValidationError && e.source === 'client' && e.issues.length >= 2,
      );
      assert.equal(h.server.stats.count(), 0);
    });

    it('is not retried after the body reached the server (it would log twice)', async () => {
      h = await harness();
      h.server.faults.add({ path: '/v1/preview/models/', kind: 'reset-after-processing' });
      await assert.rejects(h.client.models.logTrajectories('m', { split: 'train', trajectory_groups: [{ trajectories: [trajectory()] }] }), NetworkError);
      assert.equal(h.server.stats.count('/v1/preview/models/'), 1);
      assert.equal(h.server.store.logs.length, 1, 'the server logged it once; the client did not send it again');
    });

    it('is not retried after a 503 either', async () => {
      h = await harness();
      h.server.faults.add({ path: '/v1/preview/models/', kind: 'status', status: 503 });
      await assert.rejects(h.client.models.logTrajectories('m', { split: 'train', trajectory_groups: [{ trajectories: [trajectory()] }] }), ServerError);
      assert.equal(h.server.stats.count('/v1/preview/models/'), 1);
    });

    it('is retried when the connection failed before anything was written', async () => {
      const closed = await harness();
      const port = closed.server.port;
      await closed.close();
      const events: { attempt: number; error?: string }[] = [];
      const c = createServiceClient({
        traceBaseUrl: `http://127.0.0.1:${port}`,
        credentials: async () => ({ accessToken: KEY }),
        retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
        logger: (e) => events.push(e),
        env: {},
      });
      await assert.rejects(c.models.logTrajectories('m', { split: 'train', trajectory_groups: [] }), (e: unknown) => e instanceof NetworkError && e.beforeSend);
      assert.deepEqual(events.map((e) => e.attempt), [1, 2, 3]);
      await c.close();
    });

    it('needs a Bearer token', async () => {
      h = await harness();
      const c = h.make({ credentials: async () => ({ username: 'api', password: KEY }) });
      await assert.rejects(c.models.logTrajectories('m', { split: 'train', trajectory_groups: [] }), AuthenticationError);
      const wrong = h.make({ credentials: async () => ({ accessToken: 'nope-not-the-key' }) });
      await assert.rejects(wrong.models.listCheckpoints('m'), (e: unknown) => e instanceof AuthenticationError && e.status === 401);
    });
  });

  describe('checkpoints', () => {
    it('returns one page with the envelope defaults filled', async () => {
      h = await harness();
      h.server.addCheckpoints('m', 30);
      const page = await h.client.models.listCheckpoints('m');
      assert.equal(page.data.length, 20, 'default limit is 20');
      assert.equal(page.has_more, true);
      assert.equal(page.object, 'list');
      assert.equal(page.first_id, page.data[0]!.id);
      assert.equal(page.last_id, page.data[19]!.id);
      assert.ok(page.data[0]!.step < page.data[1]!.step, 'default order is ascending');
    });

    it('fills the envelope defaults of the spec when the service leaves the optional fields out', async () => {
      h = await harness();
      const data = [{ id: '0b6f4a8e-2c1d-4e5f-9a7b-1c2d3e4f5a6b', step: 1, metrics: {} }];
      h.server.faults.add({ path: '/v1/preview/models/m/checkpoints', kind: 'status', status: 200, body: { data, has_more: false } });
      const page = await h.client.models.listCheckpoints('m');
      // structuredClone: each checkpoint's metrics are a null-prototype record (metric names are data).
      assert.deepEqual(structuredClone(page), { data, has_more: false, object: 'list', first_id: '', last_id: '' });
    });

    it('refuses a limit outside 1..100 before sending', async () => {
      h = await harness();
      await assert.rejects(h.client.models.listCheckpoints('m', { limit: 0 }), ValidationError);
      await assert.rejects(h.client.models.listCheckpoints('m', { limit: 101 }), ValidationError);
      assert.equal(h.server.stats.count(), 0);
    });

    it('refuses the model ids "." and ".." before sending, naming the id (they would move the request path)', async () => {
      h = await harness();
      for (const id of ['.', '..']) {
        // `/v1/preview/models/../checkpoints` is `/v1/preview/checkpoints` to the URL parser and the server.
        await assert.rejects(h.client.models.listCheckpoints(id), (e: unknown) => {
          assert.ok(e instanceof ValidationError, String(e));
          assert.equal(e.source, 'client');
          assert.ok(e.message.includes(`"${id}"`), e.message);
          return true;
        });
        await assert.rejects(h.client.models.logTrajectories(id, { split: 'train', trajectory_groups: [{ trajectories: [trajectory(1)] }] }), ValidationError);
        await assert.rejects(h.client.models.logGroupsJson(id, { split: 'train', groups: ['{"trajectories":[]}'] }), ValidationError);
      }
      assert.equal(h.server.stats.count(), 0, 'nothing was sent');
      // Dots inside an id are a name like any other.
      h.server.addCheckpoints('.m..', 1);
      assert.equal((await h.client.models.listCheckpoints('.m..')).data.length, 1);
    });

    it('answers NotFoundError for an unknown model', async () => {
      h = await harness();
      await assert.rejects(h.client.models.listCheckpoints('nope'), NotFoundError);
    });

    for (const order of ['asc', 'desc'] as const) {
      it(`iterates 1 000 checkpoints in ${order} order in 10+ pages with no duplicate and no gap`, async () => {
        h = await harness();
        h.server.addCheckpoints('m', 1000);
        const all: Checkpoint[] = await collect(h.client.models.checkpoints('m', { order, pageSize: 100 }));
        assert.equal(all.length, 1000);
        assert.equal(new Set(all.map((c) => c.id)).size, 1000);
        const steps = all.map((c) => c.step);
        const sorted = [...steps].sort((a, b) => (order === 'asc' ? a - b : b - a));
        assert.deepEqual(steps, sorted);
        assert.ok(h.server.stats.count('/v1/preview/models/m/checkpoints') >= 10);
      });
    }

    it('retries a 429 and a reset on reads', async () => {
      h = await harness();
      h.server.addCheckpoints('m', 5);
      h.server.faults.add([
        { path: '/v1/preview/models/m/checkpoints', kind: 'status', status: 429, retryAfter: '0' },
        { path: '/v1/preview/models/m/checkpoints', kind: 'reset-before-response' },
      ]);
      const page = await h.client.models.listCheckpoints('m');
      assert.equal(page.data.length, 5);
      assert.equal(h.server.stats.count('/v1/preview/models/m/checkpoints'), 3);
    });
  });

  describe('transport', () => {
    it('refuses credentials over http to a non-loopback host without a network request', async () => {
      const c = createServiceClient({ traceBaseUrl: 'http://svc.example.invalid', credentials: async () => ({ accessToken: KEY }), env: {} });
      await assert.rejects(c.models.listCheckpoints('m'), (e: unknown) => {
        assert.ok(e instanceof ConfigurationError);
        assert.match(e.message, /plain http to svc\.example\.invalid/);
        return true;
      });
    });

    it('uses a separate training base URL for the model endpoints', async () => {
      const main = (h = await harness());
      const other = await harness();
      other.server.addCheckpoints('m', 3);
      const c = main.make({ trainingBaseUrl: other.server.url });
      const page = await c.models.listCheckpoints('m');
      assert.equal(page.data.length, 3);
      assert.equal(main.server.stats.count(), 0);
      await other.close();
    });

    it('goes through the proxy named by HTTP_PROXY for a remote host, and around it for NO_PROXY', async () => {
      // All servers live on loopback, which never goes through a proxy: the client names a
      // remote-looking host and the proxy finds it on loopback.
      const proxy = await startConnectProxy({ resolve: () => '127.0.0.1' });
      const proxyUrl = proxy.url;
      try {
        h = await harness();
        h.server.addCheckpoints('m', 2);
        const remote = `http://svc.test:${new URL(h.server.url).port}`;
        const via = h.make({ traceBaseUrl: remote, allowInsecureHttp: true, env: { HTTP_PROXY: proxyUrl } });
        assert.equal((await via.models.listCheckpoints('m')).data.length, 2);
        assert.equal(proxy.tunnels(), 1);
        assert.deepEqual(proxy.targets(), [`svc.test:${new URL(h.server.url).port}`]);
        const around = h.make({ env: { HTTP_PROXY: proxyUrl, NO_PROXY: 'svc.test' }, traceBaseUrl: remote, allowInsecureHttp: true });
        await around.models.listCheckpoints('m').catch(() => undefined); // svc.test does not resolve without the proxy
        assert.equal(proxy.tunnels(), 1, 'NO_PROXY bypassed the proxy');
        const explicit = h.make({ env: {}, traceBaseUrl: remote, allowInsecureHttp: true, proxy: { url: proxyUrl } });
        await explicit.feedback.create({ project_id: 'a/b', svc_ref: 'svc:///a/b/call/1', feedback_type: 't', payload: {} });
        assert.equal(proxy.tunnels(), 2, 'explicit proxy settings (http.proxy) are honoured');
      } finally {
        proxy.close();
      }
    });

    it('never puts credentials into log events or error messages', async () => {
      h = await harness();
      h.server.faults.add({ path: '/v1/preview/models/', kind: 'status', status: 503, times: 2 });
      h.server.addCheckpoints('m', 1);
      await h.client.models.listCheckpoints('m');
      const wrong = h.make({ credentials: async () => ({ username: 'api', password: 'secret-pw-1234', accessToken: 'secret-tok-5678' }) });
      const errors: string[] = [];
      await wrong.models.listCheckpoints('m').catch((e: Error) => errors.push(e.message));
      await wrong.feedback.create({ project_id: 'a/b', svc_ref: 'svc:///a/b/call/1', feedback_type: 't', payload: {} }).catch((e: Error) => errors.push(e.message));
      const text = JSON.stringify(h.events) + errors.join('\n');
      for (const secret of [KEY, 'secret-pw-1234', 'secret-tok-5678', Buffer.from(`api:${KEY}`).toString('base64')]) {
        assert.ok(!text.includes(secret), `leaked ${secret.slice(0, 6)}…`);
      }
      assert.equal(errors.length, 2);
    });
  });
});
