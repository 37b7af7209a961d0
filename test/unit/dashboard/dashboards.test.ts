import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { InputError } from '../../../src/api';
import { ErrorPresenter } from '../../../src/common/errors';
import { Dashboards, type NewCheckpoints } from '../../../src/dashboard/manager';
import { CheckpointSync } from '../../../src/dashboard/sync';
import { connect, turn, type Service } from '../../fakes/service';
import { fake, Uri } from '../../fakes/vscode';

const MODEL = 'agent-7b';
const CHECKPOINTS = /^\/v1\/preview\/models\/[^/]+\/checkpoints$/;

// The training dashboards' manager against the reference service in plain Node: the panels are
// fake webview panels (the in-host and UI suites cover the page itself).
describe('Dashboards (plain Node, reference service)', () => {
  let svc: Service;
  let dashboards: Dashboards;

  beforeEach(async () => {
    svc = await connect({ 'svc.checkpoints.pollSeconds': 0 });
    // reward rises to step 30, then falls: the star is at step 30.
    svc.server.addCheckpoints(MODEL, 5, { metrics: (step) => ({ 'val/reward': step <= 30 ? step : 60 - step }) });
    const context = { extensionUri: Uri.file('/ext'), globalState: svc.globalState, workspaceState: svc.workspaceState } as unknown as vscode.ExtensionContext;
    dashboards = new Dashboards(svc.connection, new ErrorPresenter(svc.log, svc.prompts), svc.prompts, svc.log, context);
  });
  afterEach(async () => {
    dashboards.dispose();
    await svc.close();
  });

  /** Runs a poll of a model's open dashboard now. */
  const poll = async (modelId = MODEL) => {
    const sync = dashboards.panel(modelId)!.sync;
    assert.ok(sync instanceof CheckpointSync);
    await sync.sync();
  };
  const loaded = async (modelId = MODEL) => {
    const sync = dashboards.panel(modelId)!.sync;
    while (!sync.loaded) await turn();
  };

  it('opens one panel per model, loads every checkpoint, and stars the best once all are in', async () => {
    const panel = dashboards.open(MODEL);
    assert.equal(dashboards.open(MODEL), panel, 'a second open shows the same panel');
    assert.equal(fake.panels.length, 1);
    await loaded();
    assert.deepEqual(dashboards.best(MODEL) && [dashboards.best(MODEL)!.step, dashboards.best(MODEL)!.metric], [30, 'val/reward']);
  });

  it('selects the checkpoint of a step, and names a step the model does not have', async () => {
    const id = await dashboards.openAtStep(MODEL, 40);
    assert.equal(id, svc.server.store.checkpoints.get(MODEL)!.find((c) => c.step === 40)!.id);
    await assert.rejects(dashboards.openAtStep(MODEL, 45), (e: unknown) => e instanceof InputError && /no checkpoint at step 45/.test(e.message));
  });

  it("rejects openAtStep with the load's own error when the model cannot be loaded", async () => {
    svc.server.faults.add({ kind: 'status', status: 404, path: CHECKPOINTS, body: { detail: 'Model not found' } });
    await assert.rejects(dashboards.openAtStep('missing', 10), /could not be loaded/);
  });

  it('tells about checkpoints a poll found, counts them as new until looked at', async () => {
    dashboards.open(MODEL);
    await loaded();
    const found: NewCheckpoints[] = [];
    dashboards.onDidFindCheckpoints((e) => found.push(e));
    const added = svc.server.addCheckpoints(MODEL, 2);
    await poll();
    assert.deepEqual(found.map((f) => [f.modelId, f.checkpoints.map((c) => c.id)]), [[MODEL, added.map((c) => c.id)]]);
    assert.equal(dashboards.newCount, 2);
    dashboards.clearNew(MODEL);
    assert.equal(dashboards.newCount, 0);
  });

  it('makes no request while its panel is hidden, and drops the stars when the user signs out', async () => {
    dashboards.open(MODEL);
    const panel = fake.panels[0];
    await loaded();
    panel.setVisible(false);
    const before = svc.server.stats.count(CHECKPOINTS);
    svc.server.addCheckpoints(MODEL, 1);
    await poll();
    assert.equal(svc.server.stats.count(CHECKPOINTS), before);
    await svc.signOut();
    assert.equal(dashboards.best(MODEL), undefined);
  });
});
