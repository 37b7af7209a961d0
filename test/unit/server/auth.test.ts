import assert from 'node:assert/strict';
import { API_KEY, basic, BASIC, BEARER, getJson, postJson, PROJECT, useServer } from './helpers';

const threadsQuery = { project_id: PROJECT };

describe('reference server: authentication', () => {
  const server = useServer({
    basicUsers: [{ username: 'alice', password: 'pa:ss', userId: 'alice-id' }],
    bearerTokens: [{ token: 'only-bearer', userId: 'bearer-id' }],
  });
  beforeEach(() => server().addCheckpoints('m', 1));

  describe('trace endpoints (HTTP Basic only)', () => {
    const cases: [string, string | null, number][] = [
      ['an API key as api:<key>', BASIC, 200],
      ['a configured Basic user (password containing ":")', basic('alice', 'pa:ss'), 200],
      ['the scheme name in lower case (RFC 7235: case-insensitive)', BASIC.replace('Basic', 'basic'), 200],
      ['no Authorization header', null, 401],
      ['the API key as a Bearer token', BEARER, 401],
      ['the API key under another username', basic('someone', API_KEY), 401],
      ['a wrong password', basic('api', 'nope'), 401],
      ['a Bearer-only token as Basic password', basic('api', 'only-bearer'), 401],
      ['base64 without its padding', `Basic ${Buffer.from(`api:${API_KEY}`).toString('base64').replace(/=+$/, '')}`, 401],
      ['malformed base64', 'Basic !!!notbase64!!!', 401],
      ['base64 without a colon', `Basic ${Buffer.from(API_KEY).toString('base64')}`, 401],
      ['two spaces after the scheme', BASIC.replace(' ', '  '), 401],
      ['an unknown scheme', `Token ${API_KEY}`, 401],
    ];
    for (const [what, header, status] of cases) {
      it(`answers ${status} to ${what}`, async () => {
        const res = await postJson(server(), '/threads/stream_query', threadsQuery, header);
        assert.equal(res.status, status);
        if (status === 401) {
          assert.equal(typeof res.body.reason, 'string');
          assert.match(res.headers.get('www-authenticate') ?? '', /^Basic/);
        }
      });
    }

    it('never echoes the credentials in a 401', async () => {
      const res = await postJson(server(), '/feedback/create', {}, basic('api', 'secret-in-header'));
      assert.equal(res.status, 401);
      assert.doesNotMatch(JSON.stringify(res.body), /secret-in-header|c2VjcmV0/);
    });

    it('fills svc_user_id from the credentials that were used', async () => {
      const res = await postJson(
        server(),
        '/feedback/create',
        { project_id: PROJECT, svc_ref: `svc:///${PROJECT}/call/c1`, feedback_type: 'label', payload: {} },
        basic('alice', 'pa:ss'),
      );
      assert.equal(res.status, 200);
      assert.equal(res.body.svc_user_id, 'alice-id');
    });
  });

  describe('model endpoints (Bearer only)', () => {
    const cases: [string, string | null, number][] = [
      ['an API key as Bearer', BEARER, 200],
      ['a configured bearer token', 'Bearer only-bearer', 200],
      ['no Authorization header', null, 401],
      ['the API key as HTTP Basic', BASIC, 401],
      ['an unknown token', 'Bearer not-a-key', 401],
      ['a Bearer header without a token', 'Bearer ', 401],
      ['a token followed by junk', `Bearer ${API_KEY} extra`, 401],
    ];
    for (const [what, header, status] of cases) {
      it(`answers ${status} to ${what}`, async () => {
        const res = await getJson(server(), '/v1/preview/models/m/checkpoints', header);
        assert.equal(res.status, status);
        if (status === 401) {
          assert.equal(typeof res.body.detail, 'string');
          assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
          assert.doesNotMatch(JSON.stringify(res.body), new RegExp(API_KEY));
        }
      });
    }

    it('checks credentials before validating the body', async () => {
      const res = await postJson(server(), '/v1/preview/models/m/log', { nonsense: true }, null);
      assert.equal(res.status, 401);
    });
  });

  it('records the scheme used, never the secret, in stats', async () => {
    await postJson(server(), '/threads/stream_query', threadsQuery, BASIC);
    await getJson(server(), '/v1/preview/models/m/checkpoints', BEARER);
    await getJson(server(), '/v1/preview/models/m/checkpoints', null);
    assert.deepEqual(
      server().stats.requests.map((r) => r.authScheme),
      ['basic', 'bearer', 'none'],
    );
    assert.doesNotMatch(JSON.stringify(server().stats.requests), new RegExp(API_KEY));
  });
});
