import * as assert from 'node:assert/strict';
import { ThreadsModel, SORT_KEY } from '../../../src/threads/model';
import { connect, PROJECT, turn, type Service } from '../../fakes/service';
import { fake } from '../../fakes/vscode';

// The Threads view's model against the reference service in plain Node (the in-host suites cover
// the tree on top of it).
describe('ThreadsModel (plain Node, reference service)', () => {
  let svc: Service;
  let model: ThreadsModel;

  beforeEach(async () => {
    svc = await connect({ 'svc.threads.pageSize': 3 });
    svc.server.seedThreads(PROJECT, 7);
    model = new ThreadsModel(svc.connection, svc.log, svc.workspaceState, svc.contextKeys);
  });
  afterEach(async () => {
    model.dispose();
    await svc.close();
  });

  const ids = () => model.rows.map((r) => r.thread_id);

  it('loads a page of svc.threads.pageSize rows, says another exists, and appends the next on Load more', async () => {
    await model.whenSettled();
    assert.equal(model.status, 'loaded');
    assert.deepEqual(ids(), ['thread-6', 'thread-5', 'thread-4']);
    assert.equal(model.hasMore, true);
    await model.loadMore();
    await model.loadMore();
    assert.deepEqual(ids(), ['thread-6', 'thread-5', 'thread-4', 'thread-3', 'thread-2', 'thread-1', 'thread-0']);
    assert.equal(model.hasMore, false, 'the last page has no Load more');
  });

  it('loads a page once when Load more is clicked twice while it loads', async () => {
    await model.whenSettled();
    svc.server.stats.clear();
    const a = model.loadMore();
    const b = model.loadMore();
    assert.equal(a, b);
    await a;
    assert.equal(svc.server.stats.count('/threads/stream_query'), 1);
    assert.equal(new Set(ids()).size, 6);
  });

  it('keeps row ids unique when offset paging repeats a row (data changed between pages)', async () => {
    await model.whenSettled();
    // A newer thread pushes every row down by one: the next page starts with a row already shown.
    svc.server.seedThreads(PROJECT, 1, { start: '2027-01-01T00:00:00Z', threadIdPrefix: 'newer-' });
    await model.loadMore();
    assert.deepEqual(ids(), ['thread-6', 'thread-5', 'thread-4', 'thread-3', 'thread-2']);
  });

  it('sorts by the chosen field, keeps the sort in workspaceState and reloads from the first page', async () => {
    await model.whenSettled();
    await model.setSort({ field: 'thread_id', direction: 'asc' });
    assert.deepEqual(svc.workspaceState.get(SORT_KEY), { field: 'thread_id', direction: 'asc' });
    assert.equal(model.status, 'idle', 'the old rows answered another question');
    await model.whenSettled();
    assert.deepEqual(ids(), ['thread-0', 'thread-1', 'thread-2']);
    const again = new ThreadsModel(svc.connection, svc.log, svc.workspaceState, svc.contextKeys);
    assert.deepEqual(again.sort, { field: 'thread_id', direction: 'asc' }, 'a new window reads the sort back');
    again.dispose();
  });

  it('filters by thread ids, sets the filterActive context key, and clears the filter', async () => {
    await model.setFilter({ kind: 'ids', threadIds: ['thread-1', 'thread-5'] });
    await model.whenSettled();
    assert.deepEqual(ids().sort(), ['thread-1', 'thread-5']);
    await turn();
    assert.equal(svc.contextKeys.get('svc.threads.filterActive'), true);
    await model.setFilter(undefined);
    await model.whenSettled();
    assert.equal(model.rows.length, 3);
    await turn();
    assert.equal(svc.contextKeys.get('svc.threads.filterActive'), false);
  });

  it('drops a page that arrives after sign-out, and says signed out instead of loading', async () => {
    svc.server.faults.add({ kind: 'delay', ms: 300, path: '/threads/stream_query' });
    const load = model.loadMore();
    assert.equal(model.status, 'loading');
    while (svc.server.stats.count('/threads/stream_query') === 0) await turn();
    await svc.signOut();
    await load;
    await turn();
    assert.equal(model.status, 'signedOut');
    assert.deepEqual(ids(), [], 'no row of the cancelled load is shown');
    await model.whenSettled();
    await model.loadMore();
    assert.equal(svc.server.stats.count('/threads/stream_query'), 1, 'nothing is loaded while signed out');
  });

  it('aborts the request in flight on reset, so a late page of an old query is never mixed in', async () => {
    svc.server.faults.add({ kind: 'stall', path: '/threads/stream_query' });
    const load = model.loadMore();
    await new Promise((r) => setTimeout(r, 50));
    model.reset();
    await load;
    assert.equal(model.status, 'idle');
    assert.deepEqual(ids(), []);
    await model.whenSettled();
    assert.deepEqual(ids(), ['thread-6', 'thread-5', 'thread-4']);
  });

  it('reports a service error with its project, and a refresh after it loads again', async () => {
    const failures: { project: string; error: unknown }[] = [];
    model.onDidFail((f) => failures.push(f));
    svc.server.faults.add({ kind: 'status', status: 404, path: '/threads/stream_query', body: { detail: 'Project not found' } });
    await model.whenSettled();
    assert.equal(model.status, 'error');
    assert.equal(model.errorDuring, 'refresh');
    assert.equal(failures.length, 1);
    assert.equal(failures[0].project, PROJECT);
    assert.ok(fake.logLines.some((l) => l.startsWith('error: Loading threads of acme/chatbot failed')));
    await model.refresh();
    assert.equal(model.status, 'loaded');
    assert.equal(model.rows.length, 3);
  });

  it('keeps the rows on show when a refresh fails, and when Load more fails says so as a failure of "more"', async () => {
    await model.whenSettled();
    svc.server.faults.add({ kind: 'malformed-line', atRow: 0, path: '/threads/stream_query' });
    await model.refresh();
    assert.equal(model.status, 'error');
    assert.equal(model.errorDuring, 'refresh');
    assert.deepEqual(ids(), ['thread-6', 'thread-5', 'thread-4'], 'a failed refresh keeps what was shown');
    await model.refresh();
    svc.server.faults.add({ kind: 'malformed-line', atRow: 1, path: '/threads/stream_query' });
    await model.loadMore();
    assert.equal(model.errorDuring, 'more');
    assert.equal(model.rows.length, 3);
  });

  it('marks a working sign-in failed when the service refuses the key (401), once', async () => {
    const changes: unknown[] = [];
    svc.connection.onDidChange((c) => c.authFailed && changes.push(c.authFailed.prompt));
    svc.server.faults.add({ kind: 'status', status: 401, path: '/threads/stream_query', times: 2 });
    await model.whenSettled();
    assert.equal(svc.connection.state, 'authFailed');
    await model.refresh();
    assert.deepEqual(changes, [true], 'the second refusal finds the state failed and fires nothing');
  });

  it('drops what is loaded when the project setting changes, and loads the new project', async () => {
    await model.whenSettled();
    svc.server.seedThreads('acme/other', 2, { threadIdPrefix: 'other-' });
    fake.setSettings({ 'svc.project': 'acme/other' });
    assert.equal(model.status, 'idle');
    await model.whenSettled();
    assert.deepEqual(ids(), ['other-1', 'other-0']);
    assert.equal(model.hasMore, false);
  });

  it('says unconfigured without a service URL and noProject without a project, without a request', async () => {
    fake.setSettings({ 'svc.project': '' });
    await model.whenSettled();
    assert.equal(model.status, 'noProject');
    fake.setSettings({ 'svc.baseUrl': undefined });
    await model.whenSettled();
    assert.equal(model.status, 'unconfigured');
    assert.equal(svc.server.stats.count('/threads/stream_query'), 0);
  });
});
