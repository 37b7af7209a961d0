import * as assert from 'node:assert/strict';
import { ErrorPresenter } from '../../../src/common/errors';
import { CheckpointSync, type SyncAppend } from '../../../src/dashboard/sync';
import { connect, turn, type Service } from '../../fakes/service';

const MODEL = 'agent-7b';
const CHECKPOINTS = /^\/v1\/preview\/models\/[^/]+\/checkpoints$/;

// A training dashboard's checkpoint sync against the reference service in plain Node. Polling is
// off (svc.checkpoints.pollSeconds 0): each test runs the polls itself.
describe('CheckpointSync (plain Node, reference service)', () => {
  let svc: Service;
  let sync: CheckpointSync;
  let appends: SyncAppend[];

  beforeEach(async () => {
    svc = await connect({ 'svc.checkpoints.pollSeconds': 0 });
    svc.server.addCheckpoints(MODEL, 250);
    sync = new CheckpointSync(MODEL, svc.connection, new ErrorPresenter(svc.log, svc.prompts), svc.log);
    appends = [];
    sync.onDidAppend((a) => appends.push(a));
  });
  afterEach(async () => {
    sync.dispose();
    await svc.close();
  });

  it('makes no request while hidden, then follows the cursor to the end in pages of 100', async () => {
    await sync.sync();
    assert.equal(svc.server.stats.count(CHECKPOINTS), 0, 'a hidden dashboard asks nothing');
    sync.setActive(true);
    await sync.sync();
    assert.equal(sync.series.length, 250);
    assert.equal(sync.loaded, true);
    assert.deepEqual(appends.map((a) => [a.page.length, a.done, a.fresh]), [[100, false, false], [100, false, false], [50, true, false]]);
    assert.equal(svc.server.stats.count(CHECKPOINTS), 3);
  });

  it('polls for what comes after the last id seen, and says which checkpoints are new', async () => {
    sync.setActive(true);
    await sync.sync();
    const found = svc.server.addCheckpoints(MODEL, 2);
    await sync.sync();
    assert.equal(sync.series.length, 252);
    const last = appends.at(-1)!;
    assert.equal(last.fresh, true);
    assert.deepEqual(last.addedIds, found.map((c) => c.id));
    assert.equal(new URLSearchParams(svc.server.stats.last(CHECKPOINTS)!.query).get('after'), appends[2].page.at(-1)!.id);
  });

  it('aborts the request in flight when hidden, and resumes from the cursor when shown again', async () => {
    sync.setActive(true);
    await sync.sync();
    const lastSeen = appends.at(-1)!.page.at(-1)!.id;
    const found = svc.server.addCheckpoints(MODEL, 2);
    svc.server.faults.add({ kind: 'stall', path: CHECKPOINTS });
    const stalled = sync.sync();
    while (svc.server.stats.count(CHECKPOINTS) < 4) await turn();
    sync.setActive(false);
    assert.equal(sync.busy, false, 'hiding ends the run');
    assert.equal(sync.series.length, 250, 'the stalled page never arrived');
    await stalled;
    sync.setActive(true);
    await sync.sync();
    assert.equal(sync.series.length, 252);
    assert.deepEqual(appends.at(-1)!.addedIds, found.map((c) => c.id));
    assert.equal(new URLSearchParams(svc.server.stats.last(CHECKPOINTS)!.query).get('after'), lastSeen);
  });

  it('shows a service error in its status, and the next run clears it', async () => {
    svc.server.faults.add({ kind: 'status', status: 404, path: CHECKPOINTS, body: { detail: 'Model not found' } });
    sync.setActive(true);
    await sync.sync();
    assert.match(sync.status().error ?? '', /404|not found/i);
    assert.equal(sync.status().loading, true);
    await sync.sync();
    assert.equal(sync.status().error, undefined);
    assert.equal(sync.series.length, 250);
  });

  it('starts over (and says so) when the user signs out and in again', async () => {
    sync.setActive(true);
    await sync.sync();
    let cleared = 0;
    sync.onDidClear(() => cleared++);
    await svc.signOut();
    await turn();
    assert.ok(cleared >= 1);
    assert.equal(sync.series.length, 0);
    await svc.signIn();
    await turn();
    await sync.sync();
    assert.equal(sync.series.length, 250);
  });
});
