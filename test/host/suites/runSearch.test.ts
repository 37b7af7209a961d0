// "svc: Search Run…" in a real host, on the search run of test/fixtures/art/searchRun.ts (JSONL
// steps, and Parquet steps written by DuckDB): the scripted call's hits, a hit opened in the
// trajectory viewer, the QuickPick as a user types, and the viewer's own search of exceptions.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { SearchRunResult } from '../../../src/search/manager';
import type { ViewerSession } from '../../../src/viewer/session';
import { TRAIN_STEPS, TRAJECTORIES, VAL_STEPS, writeSearchRun } from '../../fixtures/art/searchRun';
import { api, waitFor } from './helpers';
import { Prompts } from './prompts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-run-search-'));

async function sessionOf(file: string): Promise<ViewerSession> {
  const viewer = (await api()).viewer;
  let session: ViewerSession | undefined;
  await waitFor(`the viewer of ${path.basename(file)}`, () => !!(session = viewer.sessionsFor(vscode.Uri.file(file))[0]), 20_000);
  return session!;
}

describe('search across a run (svc.searchRun)', function () {
  this.timeout(90_000);
  let model = '';
  let prompts: Prompts;
  before(async () => {
    model = await writeSearchRun(dir);
  });
  beforeEach(() => {
    prompts = new Prompts();
  });
  afterEach(async () => {
    prompts.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('returns the hits of a scripted call, grouped by step, group and trajectory, without a prompt', async () => {
    const r = (await vscode.commands.executeCommand<SearchRunResult>('svc.searchRun', { run: model, query: 'timeout' }))!;
    assert.deepStrictEqual(r.hits.map((h) => [h.split, h.step, h.group, h.trajectory, h.where]), [['train', 6, 2, -1, 'exception 1 of group 3']]);
    assert.strictEqual(r.summary.files, TRAIN_STEPS.length + VAL_STEPS.length);
    const quito = (await vscode.commands.executeCommand<SearchRunResult>('svc.searchRun', { run: path.join(model, 'history.jsonl'), query: 'degrees in quito', split: 'train', steps: { from: 2, to: 4 } }))!;
    assert.deepStrictEqual(quito.hits.map((h) => `${h.step}:${h.group}.${h.trajectory}`), [2, 3, 4].flatMap((s) => Array.from({ length: TRAJECTORIES }, (_, t) => `${s}:2.${t}`)));
    prompts.assertDone();
  });

  it('opens the trajectory viewer at a hit: its group, trajectory and message', async () => {
    const r = (await vscode.commands.executeCommand<SearchRunResult>('svc.searchRun', { run: model, query: 'degrees in quito', split: 'train', steps: { from: 5, to: 5 }, open: 2 }))!;
    const hit = r.hits[2]!;
    assert.deepStrictEqual([hit.step, hit.group, hit.trajectory, hit.message], [5, 2, 2, 4]);
    const session = await sessionOf(hit.file);
    await waitFor('group 3, trajectory 3 on screen', () => session.lastRendered?.group === 2 && session.lastRendered.trajectory === 2, 30_000);
    assert.match(session.lastRendered!.bubbles.find((b) => b.index === 4)!.text, /At step 5 it is 15 degrees in Quito/);
    prompts.assertDone();
  });

  it('keeps the searchable texts in the extension\'s storage too, and svc: Clear Search Cache empties both caches', async () => {
    const n = TRAIN_STEPS.length + VAL_STEPS.length;
    await vscode.commands.executeCommand('svc.clearSearchCache', {});
    const first = (await vscode.commands.executeCommand<SearchRunResult>('svc.searchRun', { run: model, query: 'paris' }))!;
    assert.deepStrictEqual([first.summary.cached, first.summary.filesSearched], [0, n]);
    const cleared = (await vscode.commands.executeCommand<{ files: number; bytes: number }>('svc.clearSearchCache', {}))!;
    assert.strictEqual(cleared.files, n, 'one disk entry per step file');
    assert.ok(cleared.bytes > 0);
    const after = (await vscode.commands.executeCommand<SearchRunResult>('svc.searchRun', { run: model, query: 'paris' }))!;
    assert.deepStrictEqual([after.summary.cached, after.hits], [0, first.hits]);
    const again = (await vscode.commands.executeCommand<SearchRunResult>('svc.searchRun', { run: model, query: 'paris' }))!;
    assert.strictEqual(again.summary.cached, n);
    assert.strictEqual((await vscode.commands.executeCommand<{ files: number }>('svc.clearSearchCache', {}))!.files, n);
    prompts.assertDone();
  });

  it('refuses bad arguments by name and opens nothing', async () => {
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.searchRun', { run: model })), /"query" must be a non-empty string/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.searchRun', { run: model, query: '(a+)+', regex: true })), /is refused: a quantified group holds a quantifier/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.searchRun', { run: model, query: 'x', steps: '5-40' })), /"steps" must be \{ from\?: number, to\?: number \}/);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.searchRun', { run: model, query: 'paris', open: 999 })), /no hit 999 to open/);
    prompts.assertDone();
    assert.strictEqual(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, 0, 'no editor opened');
  });

  it('searches as the user types in the QuickPick (filters as words), and Enter opens the first hit', async () => {
    prompts.script({ type: 'quito step:7 role:assistant', title: /^svc: Search Run agent \(60 step files\)/ });
    const hit = await vscode.commands.executeCommand<{ file: string; step: number; group: number; trajectory: number; message: number }>('svc.searchRun', vscode.Uri.file(model));
    prompts.assertDone();
    assert.ok(hit, 'a hit was opened');
    assert.deepStrictEqual([path.basename(hit.file), hit.step, hit.group, hit.trajectory, hit.message], ['0007.parquet', 7, 2, 0, 2]);
    const session = await sessionOf(hit.file);
    await waitFor('group 3, trajectory 1 on screen', () => session.lastRendered?.group === 2 && session.lastRendered.trajectory === 0, 30_000);
  });

  it("the viewer's own search finds a group's TimeoutError and says where it is", async () => {
    const step6 = path.join(model, 'trajectories', 'train', '0006.parquet');
    await vscode.commands.executeCommand('svc.openTrajectoryViewer', { file: step6, group: 0 });
    const session = await sessionOf(step6);
    const hits = await session.search('timeout');
    assert.deepStrictEqual(hits.map((h) => [h.group, h.trajectory, h.where]), [[2, -1, 'exception 1 of group 3']]);
    assert.deepStrictEqual((await session.search('weather-lagos')).map((h) => h.where), [1, 2, 3, 4].map((t) => `metadata.scenario_id of trajectory 2.${t}`));
  });
});
