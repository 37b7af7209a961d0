import assert from 'node:assert/strict';
import { AuthenticationError, RateLimitedError, ServerError, ValidationError } from '../../../src/api';
import { harness, KEY, PROJECT, USER, type Harness } from './helpers';

const base = {
  project_id: PROJECT,
  svc_ref: `svc:///${PROJECT}/call/c-1`,
  feedback_type: 'svc.note.1',
  payload: { note: 'looks right' },
};

describe('contract: feedback.create', () => {
  let h: Harness;
  beforeEach(async () => (h = await harness()));
  afterEach(() => h.close());

  it('creates a row with a client-generated UUID id and the server-filled user id', async () => {
    const res = await h.client.feedback.create(base);
    assert.match(res.id, /^[0-9a-f-]{36}$/);
    assert.equal(res.svc_user_id, USER);
    assert.deepEqual(res.payload, { note: 'looks right' });
    assert.equal(h.server.store.feedback.length, 1);
    assert.equal(h.server.store.feedback[0]!.id, res.id);
    assert.equal(h.server.stats.last('/feedback/create')!.authScheme, 'basic');
  });

  it('sends every optional field of the spec', async () => {
    const res = await h.client.feedback.create({
      ...base,
      feedback_type: 'svc.annotation.score',
      payload: { score: 3 },
      id: '0b0e7a4e-3f7d-4c59-9d55-4f1e8c2a9b10',
      creator: 'alice',
      annotation_ref: `svc:///${PROJECT}/object/rubric:abc`,
      runnable_ref: `svc:///${PROJECT}/op/judge:def`,
      call_ref: `svc:///${PROJECT}/call/c-1`,
      trigger_ref: `svc:///${PROJECT}/object/trigger:123`,
    });
    assert.equal(res.id, '0b0e7a4e-3f7d-4c59-9d55-4f1e8c2a9b10');
    const row = h.server.store.feedback[0]!;
    assert.equal(row.creator, 'alice');
    assert.equal(row.runnable_ref, `svc:///${PROJECT}/op/judge:def`);
  });

  it('returns the processed reaction payload from the server', async () => {
    const res = await h.client.feedback.create({ ...base, feedback_type: 'svc.reaction.1', payload: { emoji: '👍' } });
    assert.equal(res.payload.emoji, '👍');
    assert.ok(Object.keys(res.payload).length > 1, 'the server enriches reactions');
  });

  it('refuses svc_user_id and a ref of another project before sending', async () => {
    await assert.rejects(h.client.feedback.create({ ...base, svc_user_id: 'me' } as never), (e: unknown) => {
      assert.ok(e instanceof ValidationError && e.source === 'client');
      assert.match(e.message, /svc_user_id/);
      return true;
    });
    await assert.rejects(h.client.feedback.create({ ...base, svc_ref: 'svc:///other/proj/call/x' }), /other\/proj.*acme\/chatbot/);
    assert.equal(h.server.stats.count(), 0);
  });

  it('surfaces a 400 reason from the server as a ValidationError', async () => {
    await assert.rejects(h.client.feedback.create({ ...base, payload: { note: 'x'.repeat(2000) } }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.equal(e.status, 400);
      assert.ok(e.serverMessage && e.serverMessage.length > 0);
      return true;
    });
  });

  it('retries 503 and 429 with the same id and creates exactly one row', async () => {
    h.server.faults.add([
      { path: '/feedback/create', kind: 'status', status: 503 },
      { path: '/feedback/create', kind: 'status', status: 429, retryAfter: '0' },
    ]);
    const res = await h.client.feedback.create(base);
    assert.equal(h.server.stats.count('/feedback/create'), 3);
    assert.equal(h.server.store.feedback.length, 1);
    assert.equal(h.server.store.feedback[0]!.id, res.id);
  });

  it('retries after a reset that happened after the row was stored, without a duplicate', async () => {
    h.server.faults.add({ path: '/feedback/create', kind: 'reset-after-processing' });
    const res = await h.client.feedback.create(base);
    assert.equal(h.server.stats.count('/feedback/create'), 2);
    assert.equal(h.server.store.feedback.length, 1);
    assert.equal(res.id, h.server.store.feedback[0]!.id);
  });

  it('waits as long as Retry-After asks', async () => {
    h.server.faults.add({ path: '/feedback/create', kind: 'status', status: 429, retryAfter: '1' });
    const t0 = Date.now();
    await h.client.feedback.create(base);
    assert.ok(Date.now() - t0 >= 950, `retried after ${Date.now() - t0} ms`);
  });

  it('gives up with RateLimitedError when Retry-After is longer than the longest wait', async () => {
    h.server.faults.add({ path: '/feedback/create', kind: 'status', status: 429, retryAfter: '120' });
    await assert.rejects(h.client.feedback.create(base), (e: unknown) => {
      assert.ok(e instanceof RateLimitedError);
      assert.equal(e.retryAfterMs, 120_000);
      assert.match(e.message, /try again in 120 s/i);
      return true;
    });
    assert.equal(h.server.stats.count('/feedback/create'), 1);
  });

  it('does not retry a 500', async () => {
    h.server.faults.add({ path: '/feedback/create', kind: 'status', status: 500, times: 5 });
    await assert.rejects(h.client.feedback.create(base), ServerError);
    assert.equal(h.server.stats.count('/feedback/create'), 1);
  });

  it('stops after maxAttempts of 503', async () => {
    h.server.faults.add({ path: '/feedback/create', kind: 'status', status: 503, times: 10 });
    await assert.rejects(h.client.feedback.create(base), (e: unknown) => e instanceof ServerError && e.status === 503);
    assert.equal(h.server.stats.count('/feedback/create'), 4);
    assert.equal(h.server.store.feedback.length, 0);
  });

  it('answers a wrong key with AuthenticationError and never echoes the key', async () => {
    const wrong = 'wrong-key-that-must-not-leak-42';
    const c = h.make({ credentials: async () => ({ username: 'api', password: wrong, accessToken: wrong }) });
    await assert.rejects(c.feedback.create(base), (e: unknown) => {
      assert.ok(e instanceof AuthenticationError);
      assert.equal(e.status, 401);
      assert.ok(!e.message.includes(wrong) && !e.message.includes(KEY));
      return true;
    });
    assert.ok(!JSON.stringify(h.events).includes(wrong));
  });

  it('refuses to send without Basic credentials', async () => {
    const c = h.make({ credentials: async () => ({ accessToken: KEY }) });
    await assert.rejects(c.feedback.create(base), /Not signed in/);
    assert.equal(h.server.stats.count(), 0);
  });
});
