import * as assert from 'node:assert/strict';
import { Checkpoint } from '../../../src/api';
import { CheckpointsModel, ORDER_KEY } from '../../../src/checkpoints/model';
import { connect, turn, type Service } from '../../fakes/service';
import { fake } from '../../fakes/vscode';

const MODEL = 'agent-7b';
const CHECKPOINTS = /^\/v1\/preview\/models\/[^/]+\/checkpoints$/;

// The Checkpoints view's model against the reference service in plain Node.
describe('CheckpointsModel (plain Node, reference service)', () => {
  let svc: Service;
  let model: CheckpointsModel;

  beforeEach(async () => {
    svc = await connect({ 'svc.models': [MODEL, 'agent-1b'], 'svc.checkpoints.pageSize': 2 });
    svc.server.addCheckpoints(MODEL, 5);
    svc.server.addCheckpoints('agent-1b', 1);
    model = new CheckpointsModel(svc.connection, svc.log, svc.workspaceState);
  });
  afterEach(async () => {
    model.dispose();
    await svc.close();
  });

  /** Checkpoints the service just stored, as a dashboard's poll reads them. */
  const added = (n: number) => svc.server.addCheckpoints(MODEL, n).map((c) => Checkpoint.parse(c));
  const steps = (id = MODEL) => model.state(id).items.map((c) => c.step);

  it('pages newest first by cursor (after = the last id shown) until the service has no more', async () => {
    await model.whenSettled(MODEL);
    assert.deepEqual(steps(), [50, 40]);
    assert.equal(model.state(MODEL).hasMore, true);
    await model.loadMore(MODEL);
    await model.loadMore(MODEL);
    assert.deepEqual(steps(), [50, 40, 30, 20, 10]);
    assert.equal(model.state(MODEL).hasMore, false);
    const queries = svc.server.stats.filter(CHECKPOINTS).map((r) => new URLSearchParams(r.query).get('after'));
    assert.deepEqual(queries.slice(1), [model.state(MODEL).items[1].id, model.state(MODEL).items[3].id]);
  });

  it('orders oldest first when asked, keeps the order in workspaceState and reloads every model', async () => {
    await model.whenSettled(MODEL);
    await model.whenSettled('agent-1b');
    await model.setOrder('asc');
    assert.equal(svc.workspaceState.get(ORDER_KEY), 'asc');
    assert.equal(model.state('agent-1b').loaded, false, 'every model reloads');
    await model.whenSettled(MODEL);
    assert.deepEqual(steps(), [10, 20]);
  });

  it('puts checkpoints a dashboard found on top of a loaded newest-first list, once each', async () => {
    await model.whenSettled(MODEL);
    const found = added(2);
    model.addFound(MODEL, found);
    model.addFound(MODEL, found);
    assert.deepEqual(steps(), [70, 60, 50, 40]);
  });

  it('leaves an oldest-first list alone when its end is not loaded (its last page will have them)', async () => {
    await model.setOrder('asc');
    await model.whenSettled(MODEL);
    model.addFound(MODEL, added(1));
    assert.deepEqual(steps(), [10, 20]);
  });

  it('fails one model alone: an unknown model holds its error, the others load', async () => {
    fake.setSettings({ 'svc.models': ['missing-model', MODEL] });
    await model.whenSettled('missing-model');
    await model.whenSettled(MODEL);
    assert.ok(model.state('missing-model').error, 'the 404 is kept for the tree to show');
    assert.deepEqual(steps(), [50, 40]);
    assert.ok(fake.logLines.some((l) => l.startsWith('error: Loading checkpoints of missing-model failed')));
    svc.server.addCheckpoints('missing-model', 1);
    model.reset('missing-model');
    await model.whenSettled('missing-model');
    assert.equal(model.state('missing-model').error, undefined);
    assert.deepEqual(steps('missing-model'), [10]);
  });

  it('drops a page that arrives after sign-out, and loads nothing while signed out', async () => {
    svc.server.faults.add({ kind: 'delay', ms: 300, path: CHECKPOINTS });
    const load = model.loadMore(MODEL);
    while (svc.server.stats.count(CHECKPOINTS) === 0) await turn();
    await svc.signOut();
    await load;
    assert.equal(model.ready, false);
    assert.deepEqual(steps(), []);
    await model.whenSettled(MODEL);
    assert.equal(svc.server.stats.count(CHECKPOINTS), 1);
  });

  it('shows a model Add Model found empty as loaded without asking the service', async () => {
    model.knownEmpty('new-model');
    fake.setSettings({ 'svc.models': [MODEL, 'new-model'] });
    await model.whenSettled('new-model');
    assert.equal(model.state('new-model').loaded, true);
    assert.equal(svc.server.stats.count(/new-model/), 0);
  });

  it('reloads on another page size, and only re-renders on another metric', async () => {
    await model.whenSettled(MODEL);
    const changes: (string | undefined)[] = [];
    model.onDidChange((id) => changes.push(id));
    fake.setSettings({ 'svc.checkpoints.metric': 'val/loss' });
    assert.deepEqual(steps(), [50, 40], 'the loaded pages stay');
    assert.deepEqual(changes, [undefined]);
    fake.setSettings({ 'svc.checkpoints.pageSize': 3 });
    await model.whenSettled(MODEL);
    assert.deepEqual(steps(), [50, 40, 30]);
  });
});
