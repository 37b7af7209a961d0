// Set-ups the in-host suites share: a file opened in the trajectory viewer and waited for, and the
// hooks of a describe whose tests talk to a reference server (uploads, the viewer's upload buttons).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ViewerSession } from '../../../src/viewer/session';
import type { ReferenceServer } from '../../server';
import { writeArtParquet } from '../../fixtures/art/parquet';
import { api, connect, endSuite, startServer, waitFor } from './helpers';
import { Prompts } from './prompts';

export const VIEW_TYPE = 'svc.trajectoryViewer';

/** The viewer's session of `uri` once it is open and, with `render`, once its webview drew a trajectory. */
export async function sessionOf(uri: vscode.Uri, render = true): Promise<ViewerSession> {
  const viewer = (await api()).viewer;
  let session: ViewerSession | undefined;
  await waitFor('the viewer to open', () => !!(session = viewer.sessionsFor(uri)[0]), 20_000);
  if (render) await waitFor('the webview to render a trajectory', () => session!.lastRendered?.trajectory !== undefined, 30_000);
  return session!;
}

/** Opens a file in the trajectory viewer: its session once drawn (`render`) and, with `indexed`, once the whole file is indexed. */
export async function openInViewer(file: vscode.Uri | string, options: { render?: boolean; indexed?: boolean } = {}): Promise<ViewerSession> {
  const uri = typeof file === 'string' ? vscode.Uri.file(file) : file;
  await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
  const session = await sessionOf(uri, options.render ?? true);
  if (options.indexed) await session.whenIndexed();
  return session;
}

/** Opens a file as a double click does (`vscode.open`): the viewer must be its default editor. Its session once drawn. */
export async function openByDefault(uri: vscode.Uri): Promise<ViewerSession> {
  await vscode.commands.executeCommand('vscode.open', uri);
  const session = await sessionOf(uri);
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  assert.ok(tab?.input instanceof vscode.TabInputCustom && tab.input.viewType === VIEW_TYPE, `the tab is the viewer (${tab?.label})`);
  return session;
}

/** The groups of a JSONL fixture written as an ART step file, `<dir>/trajectories/train/0001.parquet`, opened in the viewer and indexed. */
export async function openAsStepFile(jsonl: string, dir: string): Promise<ViewerSession> {
  const file = path.join(dir, 'trajectories', 'train', '0001.parquet');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const groups = fs.readFileSync(jsonl, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  await writeArtParquet(file, groups);
  const session = await openInViewer(file, { indexed: true });
  assert.strictEqual(session.index!.format, 'parquet');
  return session;
}

/**
 * "Upload this group…" of group `group` of a file under `.art/<project>/models/agent-7b/…`: the
 * model the folder names must be offered first; agent-7b and train are picked. One request sent.
 */
export async function uploadGroupOfAgent7b(s: SuiteServer, session: ViewerSession, group: number): Promise<void> {
  s.prompts.script({ pick: 'agent-7b' }, { pick: 'train' });
  const report = await session.uploadGroup(group);
  assert.strictEqual(report?.status, 'done');
  s.prompts.assertDone();
  assert.strictEqual(s.prompts.prompts()[0]!.items[0], 'agent-7b', 'the model named by the folder comes first');
  assert.strictEqual(s.server.store.logs.length, 1);
}

export interface SuiteServer {
  server: ReferenceServer;
  /** With `prompts`: a fresh one per test, disposed after it. */
  prompts: Prompts;
}

/**
 * The hooks of the describe it is called in: a reference server started and connected to before
 * the tests, its faults, logs and stats cleared before each, signed out, settings reset and closed
 * after them all. The fields are set once the hooks have run (read them inside tests).
 */
export function serverHooks(options: { prompts?: boolean } = {}): SuiteServer {
  const s = {} as SuiteServer;
  before(async () => {
    s.server = await startServer();
    await connect(s.server);
  });
  beforeEach(() => {
    s.server.faults.clear();
    s.server.store.logs.length = 0;
    s.server.stats.clear();
    if (options.prompts) s.prompts = new Prompts();
  });
  if (options.prompts) afterEach(() => s.prompts.dispose());
  after(() => endSuite(s.server));
  return s;
}
