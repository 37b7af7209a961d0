import * as assert from 'node:assert/strict';
import { InputError } from '../../../src/api';
import { RECENT_MODELS } from '../../../src/common/pick';
import { CheckpointsManager } from '../../../src/checkpoints/manager';
import { CheckpointsModel } from '../../../src/checkpoints/model';
import { connect, type Service } from '../../fakes/service';
import { fake } from '../../fakes/vscode';

const scripted = { interactive: false };
const CHECKPOINTS = /^\/v1\/preview\/models\/[^/]+\/checkpoints$/;

// Add and Remove Model's flows (the commands are thin over them) against the reference service.
describe('CheckpointsManager (plain Node, reference service)', () => {
  let svc: Service;
  let model: CheckpointsModel;
  let manager: CheckpointsManager;

  beforeEach(async () => {
    svc = await connect({ 'svc.models': ['m-known'] });
    svc.server.addCheckpoints('m-known', 1);
    svc.server.addCheckpoints('m-new', 2);
    model = new CheckpointsModel(svc.connection, svc.log, svc.workspaceState);
    manager = new CheckpointsManager(model, svc.connection, svc.globalState, svc.prompts);
  });
  afterEach(async () => {
    model.dispose();
    await svc.close();
  });

  it('adds a model the service knows after one checkpoints request, in user settings when scripted, and remembers it', async () => {
    await manager.addModel(scripted, 'm-new');
    assert.deepEqual(fake.user.get('svc.models'), ['m-known', 'm-new']);
    assert.deepEqual(svc.globalState.get(RECENT_MODELS), ['m-new']);
    const asked = svc.server.stats.filter(CHECKPOINTS).filter((r) => r.path.includes('m-new'));
    assert.equal(asked.length >= 1, true);
    assert.equal(new URLSearchParams(asked[0]!.query).get('limit'), '1');
  });

  it('refuses a model the service does not know (404), naming it and the host, writes nothing and forgets it', async () => {
    await svc.globalState.update(RECENT_MODELS, ['m-nope', 'm-known']);
    await assert.rejects(manager.addModel(scripted, 'm-nope'), (e: unknown) => e instanceof InputError && e.place.field === 'modelId' && /127\.0\.0\.1:\d+ has no model "m-nope" \(404\): check the id; it was not added\./.test(e.message));
    assert.deepEqual(fake.user.get('svc.models'), ['m-known']);
    assert.deepEqual(svc.globalState.get(RECENT_MODELS), ['m-known']);
  });

  it('refuses the workspace scope without a workspace, and removes a model; an unknown one leaves the recent models too', async () => {
    await assert.rejects(manager.addModel(scripted, 'm-new', 'workspace'), /No workspace is open, so svc\.models can only go to your user settings/);
    assert.equal(fake.workspaceSettings.has('svc.models'), false);
    await svc.globalState.update(RECENT_MODELS, ['m-gone', 'm-new']);
    await manager.removeModel(scripted, 'm-gone', { unknownModel: true });
    assert.deepEqual(svc.globalState.get(RECENT_MODELS), ['m-new']);
    await manager.removeModel(scripted, 'm-known');
    assert.deepEqual(fake.user.get('svc.models'), []);
  });
});
