import * as assert from 'node:assert/strict';
import { AuthenticationError } from '../../../src/api';
import type { ConnectionChange } from '../../../src/service/connection';
import { connect, PROJECT, turn, type Service } from '../../fakes/service';
import { fake } from '../../fakes/vscode';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

// The Connection with the real credential stores and key approvals, over the fake host settings.
describe('Connection (plain Node, reference service)', () => {
  let svc: Service;
  let changes: ConnectionChange[];

  beforeEach(async () => {
    svc = await connect();
    svc.server.seedThreads(PROJECT, 2);
    changes = [];
    svc.connection.onDidChange((c) => changes.push(c));
  });
  afterEach(() => svc.close());

  const query = () => collect(svc.connection.client!.threads.query({ project_id: PROJECT, limit: 5 }));

  it('is signed in with a stored key, sets the welcome views context keys, and its client sends the key', async () => {
    assert.equal(svc.connection.state, 'signedIn');
    assert.equal(svc.connection.source, 'secretStorage');
    await turn();
    assert.equal(svc.contextKeys.get('svc.signedIn'), true);
    assert.equal(svc.contextKeys.get('svc.hasBaseUrl'), true);
    assert.equal(svc.contextKeys.get('svc.hasProject'), true);
    assert.equal((await query()).length, 2);
    assert.equal(svc.server.stats.last('/threads/stream_query')!.authScheme, 'basic');
  });

  it('says signed out after sign-out, and its requests are refused', async () => {
    await svc.signOut();
    assert.equal(svc.connection.state, 'signedOut');
    assert.equal(svc.contextKeys.get('svc.signedIn'), false);
    assert.ok(changes.some((c) => c.data), 'cached data must be dropped');
    await assert.rejects(query(), AuthenticationError);
  });

  it('builds a new client when svc.baseUrl changes, and only fires a data change for another project', async () => {
    const before = svc.connection.client;
    fake.setSettings({ 'svc.project': 'acme/other' });
    assert.equal(svc.connection.client, before, 'a project is not a connection setting');
    assert.equal(changes.at(-1)!.data, true);
    fake.setSettings({ 'svc.threads.pageSize': 7 });
    assert.equal(changes.at(-1)!.data, false);
    assert.equal(changes.at(-1)!.config!.after.threadsPageSize, 7);
    fake.setSettings({ 'svc.baseUrl': svc.server.url + '/' });
    assert.notEqual(svc.connection.client, before);
  });

  it('has no client and says why for a URL it cannot use', () => {
    fake.setSettings({ 'svc.baseUrl': 'ftp://example.com' });
    assert.equal(svc.connection.client, undefined);
    assert.ok(svc.connection.clientError);
    assert.ok(fake.logLines.some((l) => l.startsWith('error: svc.baseUrl is not usable')));
  });

  it('marks a working sign-in failed on a 401 once, and ignores a refusal made before sending', () => {
    svc.connection.reportFailure(new AuthenticationError('no key for the model endpoints'));
    assert.equal(svc.connection.state, 'signedIn');
    const refused = new AuthenticationError('Unauthorized', { status: 401 });
    svc.connection.reportFailure(refused, { prompt: false });
    svc.connection.reportFailure(refused);
    assert.equal(svc.connection.state, 'authFailed');
    assert.deepEqual(changes.filter((c) => c.authFailed).map((c) => c.authFailed!.prompt), [false]);
  });

  it('holds the key back from a URL the workspace set until the user allows it, asking only for a user action', async () => {
    fake.workspaceSettings.set('svc.baseUrl', svc.server.url);
    fake.setSettings({ 'svc.baseUrl': undefined });
    await svc.connection.refreshAuth();
    svc.server.stats.clear();
    await assert.rejects(query(), /allow|approv/i);
    assert.equal(svc.prompts.shown.length, 0, 'a request on its way never asks');
    assert.equal(svc.server.stats.count('/threads/stream_query'), 0, 'nothing was sent');
    svc.prompts.answers.push('Allow');
    await svc.connection.prepare('trace');
    assert.equal(svc.prompts.shown.length, 1);
    assert.equal(svc.prompts.shown[0].modal, true);
    assert.equal((await query()).length, 2);
    assert.equal(svc.connection.approvalStatus('trace'), 'approved');
  });
});
