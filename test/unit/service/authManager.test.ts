import * as assert from 'node:assert/strict';
import { AuthenticationError, InputError } from '../../../src/api';
import { KeyApprovals } from '../../../src/auth/approvals';
import { AuthManager } from '../../../src/service/authManager';
import { connect, KEY, type Service } from '../../fakes/service';
import { fake } from '../../fakes/vscode';

const scripted = { interactive: false };
const WRONG = 'wrong-key-0123456789abcdef0123456789abcdef';

// Sign in and out, the service URL and the key approvals (the commands are thin over them) against the reference service.
describe('AuthManager (plain Node, reference service)', () => {
  let svc: Service;
  let manager: AuthManager;
  let origin: string;

  beforeEach(async () => {
    svc = await connect();
    origin = new URL(svc.server.url).origin;
    manager = new AuthManager(svc.connection, svc.credentials, new KeyApprovals(svc.globalState, svc.prompts), svc.prompts);
  });
  afterEach(() => svc.close());

  it('signs out: the stored key is cleared and the connection is signed out', async () => {
    assert.equal(svc.connection.state, 'signedIn');
    await manager.signOut();
    assert.equal(await svc.credentials.stored(origin), undefined);
    assert.notEqual(svc.connection.state, 'signedIn');
    assert.deepEqual(svc.prompts.messages('information'), ['svc: signed out.']);
  });

  it('signs in with a scripted key the service accepts, and stores it', async () => {
    await svc.signOut();
    assert.equal(await manager.signIn(scripted, { apiKey: KEY }), true);
    assert.equal((await svc.credentials.stored(origin))?.password, KEY);
    assert.equal(svc.connection.state, 'signedIn');
    assert.deepEqual(svc.prompts.messages('information'), [`svc: signed in to ${origin}: the service accepted the key.`]);
  });

  it('stores nothing when the service rejects the key, and never echoes it', async () => {
    await svc.signOut();
    await assert.rejects(manager.signIn(scripted, { apiKey: WRONG }), (e: unknown) => e instanceof AuthenticationError && /rejected the key \(401\)\. Nothing was stored\.$/.test(e.message) && !e.message.includes(WRONG));
    assert.equal(await svc.credentials.stored(origin), undefined);
    assert.ok(svc.prompts.messages().every((m) => !m.includes(WRONG)));
  });

  it('writes the service URL without its trailing slash, and refuses a URL with credentials', async () => {
    assert.equal(await manager.setBaseUrl({ baseUrl: 'https://svc.example.com/' }), true);
    assert.equal(fake.user.get('svc.baseUrl'), 'https://svc.example.com');
    await assert.rejects(manager.setBaseUrl({ baseUrl: 'https://u:p@svc.example.com' }), (e: unknown) => e instanceof InputError && e.place.field === 'baseUrl' && /Do not put credentials in the URL/.test(e.message));
    await assert.rejects(manager.setBaseUrl({ scope: 'user' }), /svc\.setBaseUrl needs \{ baseUrl \}/);
  });

  it('Review Key Use refuses a scripted call: it only asks questions', async () => {
    await assert.rejects(manager.reviewKeyUse(scripted), /Review Key Use asks questions; run it from the palette/);
  });
});
