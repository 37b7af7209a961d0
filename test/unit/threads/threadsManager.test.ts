import * as assert from 'node:assert/strict';
import { InputError } from '../../../src/api';
import { RECENT_PROJECTS } from '../../../src/common/pick';
import { ThreadsManager } from '../../../src/threads/manager';
import { ThreadsModel } from '../../../src/threads/model';
import type { ThreadDetailsPanel } from '../../../src/threads/detailsPanel';
import type { ThreadDetailsProvider } from '../../../src/threads/details';
import { connect, PROJECT, type Service } from '../../fakes/service';
import { fake } from '../../fakes/vscode';

// Select Project's and the view's flows (the commands are thin over them) against the reference service.
describe('ThreadsManager (plain Node, reference service)', () => {
  let svc: Service;
  let model: ThreadsModel;
  let manager: ThreadsManager;

  beforeEach(async () => {
    svc = await connect();
    svc.server.seedThreads(PROJECT, 3);
    model = new ThreadsModel(svc.connection, svc.log, svc.workspaceState, svc.contextKeys);
    manager = new ThreadsManager(model, {} as ThreadDetailsProvider, {} as ThreadDetailsPanel, svc.connection, svc.globalState);
  });
  afterEach(async () => {
    model.dispose();
    await svc.close();
  });

  it('selects a project where asked and remembers the one it leaves, so the picker offers the way back', async () => {
    let asked = 0;
    const chosen = await manager.selectProject('acme/other', () => {
      asked++;
      return Promise.resolve('user' as const);
    });
    assert.equal(chosen, 'acme/other');
    assert.equal(asked, 1);
    assert.equal(fake.user.get('svc.project'), 'acme/other');
    assert.deepEqual(svc.globalState.get(RECENT_PROJECTS), ['acme/other', PROJECT]);
    assert.deepEqual(manager.knownProjects(), ['acme/other', PROJECT]);
  });

  it('refuses what is not a project id before asking where to save, and writes nothing', async () => {
    let asked = 0;
    await assert.rejects(
      manager.selectProject('no-slash', () => {
        asked++;
        return Promise.resolve('user' as const);
      }),
      (e: unknown) => e instanceof InputError && e.place.field === 'projectId' && /"no-slash" is not a project id of the form <entity>\/<project>/.test(e.message),
    );
    assert.equal(asked, 0);
    assert.equal(fake.user.get('svc.project'), PROJECT);
  });

  it('writes nothing when no scope is chosen', async () => {
    assert.equal(await manager.selectProject('acme/other', () => Promise.resolve(undefined)), undefined);
    assert.equal(fake.user.get('svc.project'), PROJECT);
  });

  it("refuses to show an import's threads of another project, offering to switch to it", async () => {
    await assert.rejects(manager.showImported('acme/other', ['t-1']), (e: unknown) => e instanceof InputError && e.fix?.command === 'svc.selectProject' && /The calls went to acme\/other, but the Threads view shows/.test(e.message));
  });

  it('sorts again only when the order changes', async () => {
    await model.whenSettled();
    svc.server.stats.clear();
    await manager.sortBy(model.sort);
    assert.equal(svc.server.stats.count(), 0, 'the same order: no reload');
  });
});
