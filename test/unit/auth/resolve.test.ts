import assert from 'node:assert/strict';
import { findKey, approvalId, type KeySources, type StoredCredentials } from '../../../src/auth/resolve';
import { parseNetrc } from '../../../src/auth/netrc';

const A = 'https://trace.example.com';
const B = 'https://models.example.net';

function sources(options: { stored?: Record<string, string>; env?: NodeJS.ProcessEnv; netrc?: string } = {}): KeySources {
  return {
    stored: async (origin) => {
      const key = options.stored?.[origin];
      return key ? ({ username: 'api', password: key, accessToken: key, source: 'secretStorage' } as StoredCredentials & { source: 'secretStorage' }) : undefined;
    },
    env: options.env ?? {},
    netrc: () => (options.netrc === undefined ? undefined : { entries: parseNetrc(options.netrc), file: '/home/u/.netrc' }),
  };
}

describe('auth/resolve: which key goes to which origin', () => {
  it('uses the key stored for an origin for that origin only', async () => {
    const s = sources({ stored: { [A]: 'key-a', [B]: 'key-b' } });
    assert.equal((await findKey(s, A, 'trace'))!.credentials.password, 'key-a');
    const forB = (await findKey(s, B, 'training', A))!;
    assert.equal(forB.credentials.accessToken, 'key-b');
    assert.deepEqual(forB.approvals, []);
    assert.equal(await findKey(sources({ stored: { [A]: 'key-a' } }), B, 'trace'), undefined, 'a trace origin never borrows');
  });

  it('offers the trace origin\'s key to another training origin only with a "borrowKey" approval', async () => {
    const found = (await findKey(sources({ stored: { [A]: 'key-a' } }), B, 'training', A))!;
    assert.equal(found.credentials.accessToken, 'key-a');
    assert.equal(found.borrowedFrom, A);
    assert.deepEqual(found.approvals, [{ kind: 'borrowKey', from: A, to: B }]);
    assert.equal(approvalId(found.approvals[0]!), `borrow ${A} ${B}`);
    // The same origin for both: no question.
    assert.deepEqual((await findKey(sources({ stored: { [A]: 'key-a' } }), A, 'training', A))!.approvals, []);
  });

  it('uses environment keys for any configured origin without asking (workspace origins are approved by the Connection)', async () => {
    const env = { SVC_API_KEY: 'env-key' };
    for (const [origin, role] of [[A, 'trace'], [B, 'training']] as const) {
      const found = (await findKey(sources({ env }), origin, role, A))!;
      assert.equal(found.source, 'environment');
      assert.deepEqual(found.approvals, []);
    }
    const split = (await findKey(sources({ env: { SVC_USERNAME: 'u', SVC_PASSWORD: 'pw', SVC_ACCESS_TOKEN: 'tok' } }), A, 'trace'))!;
    assert.deepEqual(split.credentials, { username: 'u', password: 'pw', accessToken: 'tok' });
  });

  it('uses a netrc entry only for its exact machine', async () => {
    const netrc = 'machine trace.example.com login user password netrc-a\n';
    const found = (await findKey(sources({ netrc }), A, 'trace'))!;
    assert.equal(found.source, 'netrc');
    assert.equal(found.credentials.password, 'netrc-a');
    assert.equal(found.credentials.username, 'api', 'the netrc login is not the Basic user');
    // models.example.net has no entry: the trace host's entry is borrowed, with approval.
    const borrowed = (await findKey(sources({ netrc }), B, 'training', A))!;
    assert.deepEqual(borrowed.approvals, [{ kind: 'borrowKey', from: A, to: B }]);
    assert.equal(await findKey(sources({ netrc }), 'https://elsewhere.example.org', 'trace'), undefined);
  });

  it('uses the netrc "default" entry only with a "netrcDefault" approval for that origin', async () => {
    const netrc = 'machine other.example login x password other\ndefault login api password fallback\n';
    const found = (await findKey(sources({ netrc }), A, 'trace'))!;
    assert.equal(found.source, 'netrcDefault');
    assert.equal(found.credentials.password, 'fallback');
    assert.deepEqual(found.approvals, [{ kind: 'netrcDefault', origin: A, file: '/home/u/.netrc' }]);
    // For the training origin too: the default entry, approved per origin (not borrowed from A).
    const training = (await findKey(sources({ netrc }), B, 'training', A))!;
    assert.deepEqual(training.approvals, [{ kind: 'netrcDefault', origin: B, file: '/home/u/.netrc' }]);
  });

  it('prefers, in order: stored, environment, netrc exact, borrowed, netrc default', async () => {
    const netrc = `machine ${new URL(B).hostname} password netrc-b\ndefault password fallback\n`;
    const all = { stored: { [A]: 'key-a', [B]: 'key-b' }, env: { SVC_API_KEY: 'env' }, netrc };
    assert.equal((await findKey(sources(all), B, 'training', A))!.credentials.accessToken, 'key-b');
    assert.equal((await findKey(sources({ ...all, stored: { [A]: 'key-a' } }), B, 'training', A))!.credentials.accessToken, 'env');
    assert.equal((await findKey(sources({ stored: { [A]: 'key-a' }, netrc }), B, 'training', A))!.credentials.accessToken, 'netrc-b');
    assert.equal((await findKey(sources({ stored: { [A]: 'key-a' }, netrc: 'default password fallback\n' }), B, 'training', A))!.borrowedFrom, A);
    assert.equal(await findKey(sources({}), A, 'trace'), undefined);
  });
});
