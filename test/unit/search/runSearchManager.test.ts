import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import { InputError } from '../../../src/api/errors';
import { RunSearchManager } from '../../../src/search/manager';
import { SearchCache } from '../../../src/search/searchCache';
import type { WorkspaceRuns } from '../../../src/ui/runPick';
import type { TrajectoryViewerProvider, ViewerPlace } from '../../../src/viewer/provider';
import { group, GROUPS, SEARCH_RUN_MODEL, TRAJECTORIES } from '../../fixtures/art/searchRun';
import { ScriptedPrompts } from '../../fakes/prompts';
import { fake } from '../../fakes/vscode';
import { useTempDir } from '../files/helpers';

const STEPS = [1, 2, 3];

// Search Run's flows (the commands are thin over them) on a small run: the JSONL steps of the run search's fixture (test/fixtures/art/searchRun.ts).
describe('search/RunSearchManager: a scripted search and the cache', () => {
  const dir = useTempDir();
  let model = '';
  let opened: { file: string; place: ViewerPlace | undefined }[];
  let diskUse: (string | undefined)[];
  let manager: RunSearchManager;
  let prompts: ScriptedPrompts;
  before(() => {
    model = join(dir(), SEARCH_RUN_MODEL);
    const train = join(model, 'trajectories', 'train');
    mkdirSync(train, { recursive: true });
    for (const step of STEPS) writeFileSync(join(train, `000${step}.jsonl`), Array.from({ length: GROUPS }, (_, g) => JSON.stringify(group(step, g))).join('\n') + '\n');
    writeFileSync(join(model, 'history.jsonl'), STEPS.map((s) => JSON.stringify({ step: s })).join('\n') + '\n');
  });
  beforeEach(() => {
    fake.reset();
    opened = [];
    diskUse = [];
    const viewer = { openAt: (uri: vscode.Uri, place?: ViewerPlace) => Promise.resolve(void opened.push({ file: uri.fsPath, place })) } as unknown as TrajectoryViewerProvider;
    const cache = new SearchCache();
    const useDisk = cache.useDisk.bind(cache);
    cache.useDisk = (folder, budget) => {
      diskUse.push(folder);
      useDisk(folder, budget);
    };
    prompts = new ScriptedPrompts();
    manager = new RunSearchManager(viewer, {} as WorkspaceRuns, cache, join(dir(), 'search-cache'), prompts);
  });

  it('returns every hit of a run, in step order, and opens none unless asked', async () => {
    const r = await manager.search({ run: model, query: 'lagos' });
    // Per trajectory of group 2: the question, the tool call's arguments, the answer, metadata.scenario_id.
    assert.equal(r.hits.length, STEPS.length * TRAJECTORIES * 4);
    assert.deepEqual([...new Set(r.hits.map((h) => h.step))], STEPS);
    assert.ok(r.hits.every((h) => h.group === 1));
    assert.deepEqual(r.problems, []);
    assert.equal(r.truncated, false);
    assert.equal(r.summary.filesSearched, STEPS.length);
    assert.deepEqual(opened, []);
  });

  it('stops at the limit and says the hits were cut', async () => {
    const r = await manager.search({ files: [join(model, 'trajectories', 'train', '0002.jsonl')], query: 'quito', limit: 5 });
    assert.equal(r.hits.length, 5);
    assert.equal(r.truncated, true);
  });

  it('opens the viewer at the hit asked for, and refuses a hit that is not there', async () => {
    const r = await manager.search({ run: join(model, 'history.jsonl'), query: 'degrees in quito', steps: { from: 3 }, open: 2 });
    const hit = r.hits[2]!;
    assert.equal(r.hits.length, TRAJECTORIES);
    assert.deepEqual(opened, [{ file: hit.file, place: { group: 2, trajectory: 2, message: hit.message } }]);
    await assert.rejects(manager.search({ run: model, query: 'degrees in quito', open: 99 }), (e: unknown) => e instanceof InputError && e.place.field === 'open' && e.message === `svc.searchRun: no hit 99 to open (${STEPS.length * TRAJECTORIES} found).`);
  });

  it('gives the cache its disk folder while svc.search.cacheSizeGiB is above 0, and says what Clear Search Cache cleared only to a user', async () => {
    const following = manager.followCacheSetting();
    fake.setSettings({ 'svc.search.cacheSizeGiB': 0 });
    following.dispose();
    fake.setSettings({ 'svc.search.cacheSizeGiB': 1 });
    assert.deepEqual(diskUse, [join(dir(), 'search-cache'), undefined]);
    assert.deepEqual(await manager.clearCache({ interactive: false }), { files: 0, bytes: 0 });
    assert.deepEqual(prompts.messages(), []);
    await manager.clearCache({ interactive: true });
    assert.deepEqual(prompts.messages('information'), ['svc: Cleared the search cache: 0 step files, 0.0 MiB.']);
  });
});
