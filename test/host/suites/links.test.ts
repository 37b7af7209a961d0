// Deep links, through the URI handler the extension registered at activation (its handleUri, as
// the test entry hands it out: code-server does not route an openExternal of a vscode:// URI back
// to the window, so the handler is called the way VS Code calls it), and Copy Link.
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { CheckpointNode } from '../../../src/checkpoints/provider';
import type { DashboardPanel, RenderedMessage } from '../../../src/dashboard/panel';
import type { ThreadNode } from '../../../src/threads/provider';
import type { ReferenceServer } from '../../server';
import { api, boot, connect, endSuite, EXTENSION_ID, PROJECT, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

const MODEL = 'm-linked';
const STRANGER = 'm-stranger';
const OTHER_PROJECT = 'acme/other';

const open = async (link: string) => (await boot()).handleUri(vscode.Uri.parse(link));
const link = (path: string) => `${vscode.env.uriScheme}://${EXTENSION_ID}${path}`;
/** Every svc.* setting as VS Code resolves it: a link must leave them all as they were. */
const settings = () => JSON.stringify(['baseUrl', 'trainingBaseUrl', 'project', 'models'].map((k) => vscode.workspace.getConfiguration('svc').inspect(k)));

async function rendered(panel: DashboardPanel, what: string, predicate: (r: RenderedMessage) => boolean): Promise<RenderedMessage> {
  await waitFor(`the dashboard webview to draw ${what}`, () => !!panel.lastRendered && predicate(panel.lastRendered), 20_000);
  return panel.lastRendered!;
}

describe('deep links', () => {
  let server: ReferenceServer;
  let prompts: Prompts;
  before(async () => {
    server = await startServer();
    server.seedThreads(PROJECT, 5, { start: '2026-11-01T00:00:00Z', spacingMs: 60_000 });
    server.seedThreads(OTHER_PROJECT, 3, { threadIdPrefix: 'other-' });
    server.addCheckpoints(MODEL, 10, { stepSize: 10 });
    server.addCheckpoints(STRANGER, 3, { stepSize: 5 });
    await connect(server, { models: [MODEL] });
  });
  beforeEach(() => {
    prompts = new Prompts();
    server.stats.clear();
  });
  afterEach(async () => {
    prompts.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(async () => {
    await endSuite(server);
  });

  it('activates on a link (onUri) and contributes Copy Link to thread, model and checkpoint rows, hidden from the palette', () => {
    const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as { activationEvents: string[]; contributes: { menus: Record<string, { command: string; when: string }[]> } };
    assert.ok(pkg.activationEvents.includes('onUri'));
    const menu = pkg.contributes.menus['view/item/context']!;
    assert.ok(menu.some((m) => m.command === 'svc.threads.copyLink' && /viewItem == svc\.thread\b/.test(m.when)));
    assert.ok(menu.some((m) => m.command === 'svc.checkpoints.copyLink' && m.when.includes('svc\\.(model|checkpoint)')));
    const hidden = pkg.contributes.menus.commandPalette!.filter((m) => m.when === 'false').map((m) => m.command);
    assert.ok(hidden.includes('svc.threads.copyLink') && hidden.includes('svc.checkpoints.copyLink'));
  });

  it('opens the details of a thread of the selected project without asking, reading that one thread only', async () => {
    const a = await api();
    const before = settings();
    assert.strictEqual(await open(link(`/thread?project=${encodeURIComponent(PROJECT)}&id=thread-3`)), 'opened');
    assert.deepStrictEqual(a.threadDetailsPanel.current, { project: PROJECT, threadId: 'thread-3' });
    assert.strictEqual(a.threadDetailsPanel.lastPosted?.type === 'show' && a.threadDetailsPanel.lastPosted.thread.threadId, 'thread-3');
    assert.deepStrictEqual(prompts.modals(), []);
    assert.deepStrictEqual(prompts.messages('error'), []);
    assert.deepStrictEqual(server.stats.requests.map((r) => `${r.method} ${r.path}`), ['POST /threads/stream_query']);
    assert.strictEqual(settings(), before, 'a link changes no setting');
  });

  it('asks before opening a thread of another project, naming the project and the host; declined, nothing is read or opened', async () => {
    const a = await api();
    prompts.answer(/of project "acme\/other"/, () => undefined);
    assert.strictEqual(await open(link(`/thread?project=${encodeURIComponent(OTHER_PROJECT)}&id=other-1`)), 'declined');
    const [modal] = prompts.modals();
    assert.ok(modal, 'a modal question');
    assert.strictEqual(modal.title, `Open thread "other-1" of project "${OTHER_PROJECT}" on ${new URL(server.url).host}?`);
    assert.match(modal.detail!, new RegExp(`selected one \\("${PROJECT}"\\)`));
    assert.deepStrictEqual(modal.items, ['Open Thread']);
    assert.strictEqual(a.threadDetailsPanel.current, undefined);
    assert.strictEqual(server.stats.count(), 0, 'nothing was read');
  });

  it('opens a thread of another project once the user agrees, and the Threads view keeps its project', async () => {
    const a = await api();
    const before = settings();
    prompts.answer(/of project "acme\/other"/, 'Open Thread');
    assert.strictEqual(await open(link(`/thread?project=${encodeURIComponent(OTHER_PROJECT)}&id=other-2`)), 'opened');
    assert.deepStrictEqual(a.threadDetailsPanel.current, { project: OTHER_PROJECT, threadId: 'other-2' });
    assert.strictEqual(a.connection.config.project, PROJECT);
    assert.strictEqual(settings(), before);
  });

  it('says so when the project has no such thread', async () => {
    assert.strictEqual(await open(link(`/thread?project=${encodeURIComponent(PROJECT)}&id=nope`)), 'refused');
    const [error] = prompts.messages('error');
    assert.match(error!.title, /Opening a link: Project "acme\/chatbot" has no thread "nope" that this key can see/);
  });

  it('reveals a model of the Checkpoints view and opens its dashboard', async () => {
    const a = await api();
    assert.strictEqual(await open(link(`/model?id=${MODEL}`)), 'opened');
    const panel = a.dashboards.panel(MODEL);
    assert.ok(panel, 'the dashboard of the model');
    await waitFor('the model selected in the Checkpoints view', () => (a.checkpointsView.selection[0] as CheckpointNode | undefined)?.modelId === MODEL);
    assert.strictEqual(a.checkpointsView.visible, true);
    assert.deepStrictEqual(prompts.modals(), []);
  });

  it('opens the dashboard with the checkpoint of the step selected', async () => {
    const a = await api();
    const target = server.store.checkpoints.get(MODEL)!.find((c) => c.step === 70)!;
    assert.strictEqual(await open(link(`/checkpoint?model=${MODEL}&step=70`)), 'opened');
    const panel = a.dashboards.panel(MODEL)!;
    await rendered(panel, 'step 70 selected', (r) => r.selected.length === 1 && r.selected[0] === target.id);
    assert.deepStrictEqual(prompts.messages('error'), []);
  });

  it('asks before opening a model the Checkpoints view does not list, naming it and the host; declined, nothing is read', async () => {
    const a = await api();
    prompts.answer(/m-stranger/, () => undefined);
    assert.strictEqual(await open(link(`/model?id=${STRANGER}`)), 'declined');
    const [modal] = prompts.modals();
    assert.strictEqual(modal!.title, `Open the training dashboard of model "${STRANGER}" on ${new URL(server.url).host}?`);
    assert.match(modal!.detail!, /does not list/);
    assert.strictEqual(a.dashboards.panel(STRANGER), undefined);
    assert.strictEqual(server.stats.count(), 0);
  });

  it('opens an unlisted model once the user agrees, without adding it to svc.models', async () => {
    const a = await api();
    const before = settings();
    prompts.answer(/m-stranger/, 'Open Dashboard');
    assert.strictEqual(await open(link(`/checkpoint?model=${STRANGER}&step=10`)), 'opened');
    const target = server.store.checkpoints.get(STRANGER)!.find((c) => c.step === 10)!;
    await rendered(a.dashboards.panel(STRANGER)!, 'step 10 selected', (r) => r.selected[0] === target.id);
    assert.deepStrictEqual(a.connection.config.models, [MODEL]);
    assert.strictEqual(settings(), before);
  });

  it('names the step a model does not have', async () => {
    assert.strictEqual(await open(link(`/checkpoint?model=${MODEL}&step=75`)), 'refused');
    assert.match(prompts.messages('error')[0]!.title, /Model "m-linked" has no checkpoint at step 75 \(10 checkpoints loaded\)/);
  });

  it('refuses bad links with an error naming the fault, and reads nothing', async () => {
    const cases: [string, RegExp][] = [
      ['/thread?id=thread-1', /no "project" parameter/],
      ['/thread?project=acme%2Fchatbot', /no "id" parameter/],
      ['/thread?project=chatbot&id=t', /project "chatbot" is not of the form entity\/project/],
      ['/model', /no "id" parameter/],
      ['/checkpoint?model=m-linked&step=-3', /step "-3" is not a whole number/],
      ['/checkpoint?model=m-linked&step=ten', /step "ten" is not a whole number/],
      ['/settings?baseUrl=http://evil.test', /"\/settings" is none of \/thread, \/model or \/checkpoint/],
    ];
    for (const [path, reason] of cases) {
      assert.strictEqual(await open(link(path)), 'refused', path);
      const error = prompts.messages('error').at(-1)!;
      assert.match(error.title, /^Opening a link: This link cannot be opened: /, path);
      assert.match(error.title, reason, path);
    }
    assert.strictEqual(prompts.messages('error').length, cases.length);
    assert.strictEqual(server.stats.count(), 0);
    assert.deepStrictEqual(prompts.modals(), []);
  });

  it('copies links from a thread row, the thread details, a model and a checkpoint, in the scheme of this editor, and they open what they name', async () => {
    const a = await api();
    await a.threads.whenSettled();
    const row = (await a.threadsProvider.getChildren()).find((n): n is Extract<ThreadNode, { kind: 'thread' }> => n.kind === 'thread' && n.row.thread_id === 'thread-2');
    assert.ok(row, 'the row of thread-2 in the Threads view');
    const fromRow = await vscode.commands.executeCommand<string>('svc.threads.copyLink', row);
    assert.strictEqual(fromRow, `${vscode.env.uriScheme}://svc.svc-vscode/thread?project=acme%2Fchatbot&id=thread-2`);
    assert.strictEqual(await vscode.env.clipboard.readText(), fromRow);
    assert.strictEqual(await vscode.commands.executeCommand('svc.threads.copyLink', { threadId: 'thread-2' }), fromRow, 'scripted, the selected project');
    assert.strictEqual(await vscode.commands.executeCommand('svc.threads.copyLink', { project: OTHER_PROJECT, threadId: 'other-1' }), link('/thread?project=acme%2Fother&id=other-1'));

    // The details panel's Copy Link button.
    await open(fromRow);
    await vscode.env.clipboard.writeText('');
    await a.threadDetailsPanel.handleMessage({ type: 'copy', target: 'link' });
    assert.strictEqual(await vscode.env.clipboard.readText(), fromRow);

    const modelNode = a.checkpointsProvider.modelNode(MODEL);
    const checkpoint = (await a.checkpointsProvider.getChildren(modelNode)).find((n) => n.kind === 'checkpoint' && n.checkpoint.step === 40)!;
    assert.strictEqual(await vscode.commands.executeCommand('svc.checkpoints.copyLink', modelNode), link(`/model?id=${MODEL}`));
    const toStep = await vscode.commands.executeCommand<string>('svc.checkpoints.copyLink', checkpoint);
    assert.strictEqual(toStep, link(`/checkpoint?model=${MODEL}&step=40`));
    assert.strictEqual(await vscode.commands.executeCommand('svc.checkpoints.copyLink', { modelId: MODEL, step: 40 }), toStep);
    assert.strictEqual(await open(toStep), 'opened');
    const id = (checkpoint as { checkpoint: { id: string } }).checkpoint.id;
    await rendered(a.dashboards.panel(MODEL)!, 'step 40 selected', (r) => r.selected[0] === id);

    // Scripted calls never prompt: they reject with what is wrong.
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.threads.copyLink', { threadId: 'a&b' })), /id "a&b" holds "&"/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.checkpoints.copyLink', { modelId: MODEL, step: 1.5 })), /"step" must be a whole number/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.checkpoints.copyLink', { step: 3 })), /takes a model or checkpoint row, or \{ modelId, step\? \}/);
    prompts.assertDone();
  });
});
