import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ThreadNode } from '../../../src/threads/provider';
import { threadTooltip } from '../../../src/threads/provider';
import type { ReferenceServer } from '../../server';
import { api, configure, connect, endSuite, PROJECT, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

const threadIds = (nodes: ThreadNode[]) => nodes.filter((n) => n.kind === 'thread').map((n) => (n as { row: { thread_id: string } }).row.thread_id);

describe('threads view', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    // 120 threads, thread-000 oldest; default order (last_updated desc) starts at thread-119.
    server.seedThreads(PROJECT, 120, { start: '2026-11-01T00:00:00Z', spacingMs: 60_000 });
    server.seedThreads('acme/other', 3, { threadIdPrefix: 'other-' });
    await connect(server, { 'threads.pageSize': 50 });
  });
  beforeEach(() => server.faults.clear());
  after(async () => {
    await endSuite(server);
  });

  it('loads the first page from the view and offers "Load more"', async () => {
    const a = await api();
    a.threads.reset();
    server.stats.clear();
    const nodes = await a.threadsProvider.getChildren();
    assert.strictEqual(threadIds(nodes).length, 50);
    assert.strictEqual(threadIds(nodes)[0], 'thread-119');
    assert.strictEqual(nodes.at(-1)!.kind, 'more');
    const body = server.stats.last('/threads/stream_query')!;
    assert.strictEqual(body.status, 200);
    const item = a.threadsProvider.getTreeItem(nodes[0]!);
    assert.strictEqual(item.label, 'thread-119');
    assert.match(String(item.description), /^(\d{4}-\d{2}-\d{2}|.* ago|just now) · 1 turn · p50 500 ms$/);
    assert.strictEqual(item.id, `thread:${PROJECT}:thread-119`);
    assert.strictEqual(item.contextValue, 'svc.thread');
  });

  it('loads more pages by offset, and a double click loads a page once', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    server.stats.clear();
    await Promise.all([vscode.commands.executeCommand('svc.threads.loadMore'), vscode.commands.executeCommand('svc.threads.loadMore')]);
    assert.strictEqual(server.stats.count('/threads/stream_query'), 1);
    assert.strictEqual(a.threads.rows.length, 100);
    await vscode.commands.executeCommand('svc.threads.loadMore');
    assert.strictEqual(a.threads.rows.length, 120);
    assert.strictEqual(a.threads.hasMore, false);
    const ids = threadIds(a.threadsProvider.nodes());
    assert.strictEqual(new Set(ids).size, 120);
    assert.strictEqual(a.threadsProvider.nodes().at(-1)!.kind, 'thread', 'no "Load more" after the last page');
  });

  it('sorts by any of the six fields in both directions', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'thread_id', direction: 'asc' });
    await waitFor('sort applied', () => a.threads.sort.field === 'thread_id');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.deepStrictEqual(threadIds(a.threadsProvider.nodes()).slice(0, 3), ['thread-000', 'thread-001', 'thread-002']);
    assert.match(a.threadsProvider['view']!.description ?? '', /thread id ↑/);
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'start_time', direction: 'desc' });
    await waitFor('sort applied', () => a.threads.sort.field === 'start_time');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(threadIds(a.threadsProvider.nodes())[0], 'thread-119');
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.threads.sortBy', { field: 'cost' })), /Unknown sort field/);
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'last_updated', direction: 'desc' });
  });

  it('filters by relative time, range and thread ids, and clears the filter', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.filter', { threadIds: ['thread-007', 'thread-042'] });
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.deepStrictEqual(threadIds(a.threadsProvider.nodes()).sort(), ['thread-007', 'thread-042']);
    assert.match(a.threadsProvider['view']!.description ?? '', /filter: 2 thread ids/);

    await vscode.commands.executeCommand('svc.threads.filter', { after: '2026-11-01T01:55:00Z' });
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.deepStrictEqual(threadIds(a.threadsProvider.nodes()).sort(), ['thread-116', 'thread-117', 'thread-118', 'thread-119']);

    // The seeded data is older than a day: the relative preset leaves nothing, and says why.
    await vscode.commands.executeCommand('svc.threads.filter', { preset: 'day' });
    await vscode.commands.executeCommand('svc.threads.refresh');
    const empty = a.threadsProvider.nodes();
    assert.strictEqual(empty.length, 1);
    assert.strictEqual(empty[0]!.kind, 'empty');
    assert.match((empty[0] as { message: string }).message, /No threads match the filter \(last 24 hours\)/);
    const sent = server.stats.last('/threads/stream_query')!;
    assert.strictEqual(sent.status, 200);

    await vscode.commands.executeCommand('svc.threads.clearFilter');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 50);
    assert.doesNotMatch(a.threadsProvider['view']!.description ?? '', /filter/);
  });

  it('shows an error item with a retry that works when nothing was loaded', async () => {
    const a = await api();
    a.threads.reset();
    server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 500 });
    await vscode.commands.executeCommand('svc.threads.refresh');
    const nodes = a.threadsProvider.nodes();
    assert.strictEqual(nodes.length, 1);
    assert.strictEqual(nodes[0]!.kind, 'error');
    const item = a.threadsProvider.getTreeItem(nodes[0]!);
    assert.strictEqual(item.label, 'Could not load threads');
    assert.strictEqual(item.command!.command, 'svc.threads.refresh');
    assert.match(String(item.description), /500/);
    await vscode.commands.executeCommand(item.command!.command);
    assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 50);
  });

  it('a failed refresh keeps the loaded rows, with a message row above them; the next refresh replaces them', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    await vscode.commands.executeCommand('svc.threads.loadMore');
    const before = threadIds(a.threadsProvider.nodes());
    assert.strictEqual(before.length, 100);
    server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 500, times: 1 });
    await vscode.commands.executeCommand('svc.threads.refresh');
    const nodes = a.threadsProvider.nodes();
    assert.strictEqual(nodes[0]!.kind, 'error', 'the message row is on top');
    assert.deepStrictEqual(threadIds(nodes), before, 'every row loaded before is still there, in order');
    const item = a.threadsProvider.getTreeItem(nodes[0]!);
    assert.strictEqual(item.label, 'Could not refresh threads');
    assert.match(String(item.description), /500.* · showing the 100 threads loaded before$/);
    assert.strictEqual(item.command!.command, 'svc.threads.refresh', 'clicking the message retries');
    // The rows stay usable: their commands work while the message shows.
    await vscode.commands.executeCommand('svc.threads.copyId', nodes[1]);
    assert.strictEqual(await vscode.env.clipboard.readText(), before[0]);
    // A refresh that works replaces them with the first page, and the message goes.
    await vscode.commands.executeCommand(item.command!.command);
    const after = a.threadsProvider.nodes();
    assert.strictEqual(after[0]!.kind, 'thread');
    assert.strictEqual(threadIds(after).length, 50);
    assert.ok(!after.some((n) => n.kind === 'error'));
  });

  it('while a refresh loads, the rows on show stay until the new page arrives', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    server.faults.add({ path: '/threads/stream_query', kind: 'delay', ms: 1500, times: 1 });
    const refreshing = vscode.commands.executeCommand('svc.threads.refresh');
    await waitFor('loading', () => a.threads.isLoading);
    assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 50, 'no blank view while it loads');
    // The view gets its rows at once (with working commands), not after the load.
    const t0 = Date.now();
    const during = await a.threadsProvider.getChildren();
    assert.ok(Date.now() - t0 < 1000, `answered after ${Date.now() - t0} ms`);
    assert.strictEqual(threadIds(during).length, 50);
    assert.ok(a.threads.isLoading, 'still loading');
    await refreshing;
    assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 50);
  });

  it('a failed "Load more" keeps the rows: the message on top, "Load more" at the end to try again', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 500, times: 1 });
    await vscode.commands.executeCommand('svc.threads.loadMore');
    const nodes = a.threadsProvider.nodes();
    assert.strictEqual(nodes[0]!.kind, 'error');
    assert.strictEqual(threadIds(nodes).length, 50);
    assert.strictEqual(nodes.at(-1)!.kind, 'more');
    const item = a.threadsProvider.getTreeItem(nodes[0]!);
    assert.strictEqual(item.label, 'Could not load more threads');
    assert.strictEqual(item.command!.command, 'svc.threads.loadMore');
    await vscode.commands.executeCommand('svc.threads.loadMore');
    assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 100);
    assert.ok(!a.threadsProvider.nodes().some((n) => n.kind === 'error'));
  });

  it('retries transient failures on its own', async () => {
    const a = await api();
    server.faults.add({ path: '/threads/stream_query', kind: 'status', status: 503, retryAfter: '0', times: 2 });
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 50);
  });

  it('refresh cancels the request in flight and keeps only the new answer', async () => {
    const a = await api();
    server.stats.clear();
    server.faults.add({ path: '/threads/stream_query', kind: 'delay', ms: 3000 });
    const slow = vscode.commands.executeCommand('svc.threads.refresh');
    await waitFor('the slow request', () => server.stats.count('/threads/stream_query') === 1);
    await vscode.commands.executeCommand('svc.threads.refresh');
    await slow;
    assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 50);
    await waitFor('the first request to be dropped', () => server.stats.requests[0]!.completed === false && server.stats.requests[0]!.status === 0, 5000);
  });

  it('switching project clears the cache: no duplicate ids, the other project shows', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    await vscode.commands.executeCommand('svc.selectProject', { projectId: 'acme/other' });
    await waitFor('project switched', () => a.threads.project === 'acme/other');
    const nodes = await a.threadsProvider.getChildren();
    assert.deepStrictEqual(threadIds(nodes), ['other-2', 'other-1', 'other-0']);
    assert.strictEqual(a.threadsProvider.getTreeItem(nodes[0]!).id, 'thread:acme/other:other-2');
    await vscode.commands.executeCommand('svc.selectProject', { projectId: PROJECT });
    await waitFor('project back', () => a.threads.project === PROJECT);
    const back = await a.threadsProvider.getChildren();
    assert.strictEqual(threadIds(back)[0], 'thread-119');
    const recent = a.globalState.get<string[]>('svc.recentProjects')!;
    assert.deepStrictEqual(recent.slice(0, 2), [PROJECT, 'acme/other']);
  });

  it('refuses a malformed project id: a scripted call rejects with a readable error and changes nothing', async () => {
    const a = await api();
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.selectProject', { projectId: 'no-slash' })), /"no-slash" is not a project id of the form <entity>\/<project>/);
    assert.strictEqual(a.threads.project, PROJECT);
  });

  it('copies the thread id and the first and last turn call refs', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes()[0]!;
    await vscode.commands.executeCommand('svc.threads.copyId', node);
    assert.strictEqual(await vscode.env.clipboard.readText(), 'thread-119');
    await vscode.commands.executeCommand('svc.threads.copyFirstTurnRef', node);
    assert.strictEqual(await vscode.env.clipboard.readText(), `svc:///${PROJECT}/call/thread-119-turn-0`);
    await vscode.commands.executeCommand('svc.threads.copyLastTurnRef', { threadId: 'thread-118' });
    assert.strictEqual(await vscode.env.clipboard.readText(), `svc:///${PROJECT}/call/thread-118-turn-0`);
  });

  it('takes a row only from the view: an object a script shapes like a row is refused, not read as one', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    await vscode.env.clipboard.writeText('before');
    const forged = { kind: 'thread', project: 'evil/elsewhere', row: { ...a.threadsProvider.nodes().map((n) => (n.kind === 'thread' ? n.row : undefined))[0]!, thread_id: 'forged', first_turn_id: 'forged-turn' } };
    for (const command of ['svc.threads.copyId', 'svc.threads.copyFirstTurnRef', 'svc.threads.openDetails', 'svc.threads.openJson']) {
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand(command, forged)), /select a thread in the Threads view first/, command);
    }
    assert.strictEqual(await vscode.env.clipboard.readText(), 'before');
  });

  it('opens read-only JSON under the svc-thread scheme ("Open JSON")', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const uri = await vscode.commands.executeCommand<string>('svc.threads.openJson', a.threadsProvider.nodes()[0]);
    assert.match(uri, /^svc-thread:/);
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri)!;
    assert.strictEqual(doc.languageId, 'json');
    const json = JSON.parse(doc.getText());
    assert.strictEqual(json.thread_id, 'thread-119');
    assert.strictEqual(json.turn_count, 1);
    assert.strictEqual(json.first_turn_ref, `svc:///${PROJECT}/call/thread-119-turn-0`);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('opens a thread\'s details as a formatted view with its turns and their actions', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes()[1]!;
    await vscode.commands.executeCommand('svc.threads.openDetails', node);
    await waitFor('the details panel', () => a.threadDetailsPanel.current?.threadId === 'thread-118');
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    await waitFor('a tab titled with the thread', () => tabs().some((t) => t.label === 'Thread thread-118'));
    const tab = tabs().find((t) => t.label === 'Thread thread-118')!;
    assert.ok(tab.input instanceof vscode.TabInputWebview, 'a formatted view (webview), not a JSON document');
    const shown = a.threadDetailsPanel.lastPosted;
    assert.ok(shown && shown.type === 'show');
    assert.strictEqual(shown.thread.threadId, 'thread-118');
    assert.strictEqual(shown.thread.project, PROJECT);
    assert.deepStrictEqual(
      shown.thread.turns.map((t) => [t.label, t.ref]),
      [['First and last turn', `svc:///${PROJECT}/call/thread-118-turn-0`]],
      'a one-turn thread lists its turn once',
    );
    // The buttons: copy a ref, copy the id, open the JSON; anything outside the protocol is dropped.
    await a.threadDetailsPanel.handleMessage({ type: 'copy', target: 'first' });
    assert.strictEqual(await vscode.env.clipboard.readText(), `svc:///${PROJECT}/call/thread-118-turn-0`);
    await a.threadDetailsPanel.handleMessage({ type: 'copy', target: 'threadId' });
    assert.strictEqual(await vscode.env.clipboard.readText(), 'thread-118');
    await a.threadDetailsPanel.handleMessage({ type: 'copy', target: '../../etc/passwd' });
    await a.threadDetailsPanel.handleMessage({ type: 'runCommand', command: 'svc.signOut' });
    assert.strictEqual(await vscode.env.clipboard.readText(), 'thread-118', 'messages outside the protocol do nothing');
    assert.strictEqual(a.connection.state, 'signedIn');
    await a.threadDetailsPanel.handleMessage({ type: 'openJson' });
    await waitFor('the JSON document', () => vscode.window.activeTextEditor?.document.uri.scheme === 'svc-thread');
    assert.strictEqual(JSON.parse(vscode.window.activeTextEditor!.document.getText()).thread_id, 'thread-118');
    // Attach Feedback runs the interactive flow for that turn's ref (here: cancelled at the kind).
    const p = new Prompts().script({ cancel: true, title: `svc: Feedback for svc:///${PROJECT}/call/thread-118-turn-0` });
    try {
      await a.threadDetailsPanel.handleMessage({ type: 'attachFeedback', turn: 'first' });
      p.assertDone();
    } finally {
      p.dispose();
    }
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    assert.strictEqual(a.threadDetailsPanel.current, undefined, 'closed with the editors');
  });

  it('opens the details of a clicked node even while the view reloads', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    const node = a.threadsProvider.nodes()[0]!;
    // The click arrives after a reset dropped the loaded rows (a refresh or a settings event).
    a.threads.reset();
    assert.strictEqual(a.threads.rows.length, 0);
    const p = new Prompts();
    try {
      await vscode.commands.executeCommand('svc.threads.openDetails', node);
      assert.deepStrictEqual(p.messages(), [], 'the node carries its row; no "select a thread" warning');
    } finally {
      p.dispose();
    }
    assert.strictEqual(a.threadDetailsPanel.current?.threadId, 'thread-119');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await a.threads.ensureLoaded();
  });

  it('keeps the sort in workspaceState, and reloads once per sort change, not once per configuration event', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.refresh');
    server.stats.clear();
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'turn_count', direction: 'desc' });
    await waitFor('sort applied', () => a.threads.sort.field === 'turn_count');
    await a.threads.ensureLoaded();
    assert.deepStrictEqual(a.workspaceState.get('svc.threads.sort'), { field: 'turn_count', direction: 'desc' }, 'view state, not a setting');
    const rows = a.threads.rows.length;
    // A configuration event that leaves the effective value as it is (like a settings-file watcher
    // echo) changes nothing: here the user's page size of 50 removed, leaving the default 50.
    const svc = vscode.workspace.getConfiguration('svc');
    assert.strictEqual(svc.inspect('threads.pageSize')?.globalValue, 50);
    let events = 0;
    const sub = vscode.workspace.onDidChangeConfiguration((e) => (events += e.affectsConfiguration('svc.threads.pageSize') ? 1 : 0));
    await svc.update('threads.pageSize', undefined, vscode.ConfigurationTarget.Global);
    await svc.update('threads.pageSize', 50, vscode.ConfigurationTarget.Global);
    await new Promise((r) => setTimeout(r, 300));
    sub.dispose();
    assert.ok(events >= 1, `the host fired ${events} configuration events`);
    assert.strictEqual(a.threads.rows.length, rows, 'the loaded rows were kept');
    assert.strictEqual(server.stats.count('/threads/stream_query'), 1, 'one load for one sort change');
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'last_updated', direction: 'desc' });
    await waitFor('sort restored', () => a.threads.sort.field === 'last_updated');
  });

  it('builds an untrusted tooltip with every field, n/a for null and -1', () => {
    const md = threadTooltip({
      thread_id: 't[1](command:x)',
      turn_count: 3,
      start_time: '2026-11-20T10:00:00Z',
      last_updated: '2026-11-20T11:00:00Z',
      first_turn_id: null,
      last_turn_id: 'b',
      p50_turn_duration_ms: -1,
      p99_turn_duration_ms: null,
      cost_usd: 0.5,
    });
    assert.strictEqual(md.isTrusted, false);
    assert.ok(!md.supportHtml);
    assert.match(md.value, /p50 turn duration \| n\/a/);
    assert.match(md.value, /p99 turn duration \| n\/a/);
    assert.match(md.value, /First turn \| n\/a/);
    assert.match(md.value, /cost\\_usd \| 0\\.5/);
    assert.ok(!md.value.includes('[1](command:x)'), 'server text cannot become a link');
  });

  it('tells why it is empty when the project has no threads', async () => {
    const a = await api();
    await configure({ project: 'acme/empty' });
    await waitFor('project', () => a.threads.project === 'acme/empty');
    const nodes = await a.threadsProvider.getChildren();
    assert.strictEqual(nodes[0]!.kind, 'empty');
    assert.match((nodes[0] as { message: string }).message, /No threads in acme\/empty yet/);
    await configure({ project: PROJECT });
  });
  describe('view-title commands with a focused row (VS Code passes the row to them)', () => {
    const focused = async () => {
      const a = await api();
      await vscode.commands.executeCommand('svc.threads.refresh');
      return a.threadsProvider.nodes().find((n) => n.kind === 'thread')!;
    };
    // What VS Code passes a view-title command: the focused node, and the selected nodes.
    const asTitleButton = (command: string, node: ThreadNode) => Promise.resolve(vscode.commands.executeCommand(command, node, [node]));

    it('Filter opens the filter picker, as without a focused row', async () => {
      const node = await focused();
      const p = new Prompts().script({ pick: 'Last 30 days', title: 'svc: Filter threads' });
      try {
        await asTitleButton('svc.threads.filter', node);
        p.assertDone();
        assert.deepStrictEqual(p.messages('error'), []);
      } finally {
        p.dispose();
      }
      const a = await api();
      assert.deepStrictEqual(a.threads.filter, { kind: 'relative', preset: 'month' });
      await asTitleButton('svc.threads.clearFilter', node);
      assert.strictEqual(a.threads.filter, undefined, 'Clear Filter clears it with a focused row too');
    });

    it('Sort opens the sort picker, the current order first and marked', async () => {
      const node = await focused();
      const a = await api();
      const p = new Prompts().script({ cancel: true, title: 'svc: Sort threads by' });
      try {
        await asTitleButton('svc.threads.sortBy', node);
        p.assertDone();
      } finally {
        p.dispose();
      }
      const items = p.prompts()[0]!.items;
      assert.strictEqual(items[0], '$(check) last update ↓ descending', 'the current order, first and marked');
      assert.strictEqual(items.filter((i) => i.includes('$(check)')).length, 1);
      assert.strictEqual(items.length, 12, 'every field in both directions, once');
      assert.strictEqual(a.threads.sort.field, 'last_updated', 'cancelling changes nothing');
    });

    it('Refresh reloads the whole view and Select Project opens the project picker', async () => {
      const node = await focused();
      const a = await api();
      server.stats.clear();
      await asTitleButton('svc.threads.refresh', node);
      assert.strictEqual(server.stats.count('/threads/stream_query'), 1);
      assert.strictEqual(threadIds(a.threadsProvider.nodes()).length, 50);
      const p = new Prompts().script({ cancel: true, title: 'svc: Select a project' });
      try {
        await asTitleButton('svc.selectProject', node);
        p.assertDone();
        assert.deepStrictEqual(p.messages('error'), []);
      } finally {
        p.dispose();
      }
      assert.strictEqual(a.threads.project, PROJECT);
    });

    it('an arguments object is still checked, and a wrong one is refused without a prompt', async () => {
      const p = new Prompts();
      try {
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.threads.filter', { after: '2026-11-01', bogus: 1 })), /unknown argument "bogus"/);
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.threads.filter', 'day')), /takes an object argument/);
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.threads.sortBy', { direction: 'asc' })), /A sort field is needed/);
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.threads.filter', { after: '2026-02-30' })), /after "2026-02-30".*2026-11-15/);
        await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.selectProject', { project: 'acme/x' })), /needs \{ projectId \}/);
        assert.deepStrictEqual(p.prompts(), [], 'no prompt for a scripted call');
      } finally {
        p.dispose();
      }
    });
  });

  it('the date filter takes a plain date as local midnight', async () => {
    const a = await api();
    await vscode.commands.executeCommand('svc.threads.filter', { after: '2026-11-01' });
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.deepStrictEqual(a.threads['queryFilter'], { after_datetime: new Date(2026, 10, 1).toISOString() }, 'the query says local midnight');
    assert.match(a.threadsProvider['view']!.description ?? '', /filter: after 2026-11-01 ·/);
    await vscode.commands.executeCommand('svc.threads.clearFilter');
  });

  it('rows show the value of the field they are sorted by', async () => {
    const a = await api();
    const description = () => String(a.threadsProvider.getTreeItem(a.threadsProvider.nodes().find((n) => n.kind === 'thread')!).description);
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.match(description(), /^(\d{4}-\d{2}-\d{2}|.* ago|just now) · 1 turn · p50 500 ms$/);
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'p99_turn_duration_ms', direction: 'desc' });
    await waitFor('sorted by p99', () => a.threads.sort.field === 'p99_turn_duration_ms');
    await a.threads.ensureLoaded();
    assert.match(description(), /^p99 \S+ (ms|s) · /);
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'start_time', direction: 'asc' });
    await waitFor('sorted by start', () => a.threads.sort.field === 'start_time');
    await a.threads.ensureLoaded();
    assert.match(description(), /^started (\d{4}-\d{2}-\d{2}|.* ago|just now) · /);
    await vscode.commands.executeCommand('svc.threads.sortBy', { field: 'last_updated', direction: 'desc' });
    await waitFor('sort restored', () => a.threads.sort.field === 'last_updated');
  });
});
