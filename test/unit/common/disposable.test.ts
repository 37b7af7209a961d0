import * as fs from 'node:fs';
import * as path from 'node:path';
import { LazyTree } from '../../../src/boot/standIns';
import assert from 'node:assert/strict';
import { fake, Uri } from '../../fakes/vscode';
import { Disposable } from '../../../src/common/disposable';
import { Logger } from '../../../src/common/logger';
import { LiveProblems } from '../../../src/ui/liveProblems';
import { ScenarioPanels } from '../../../src/viewer/scenarioPanel';
import { ImportManager } from '../../../src/calls/manager';
import { UploadManager } from '../../../src/trajectories/manager';
import { Connection } from '../../../src/service/connection';
import { ViewerSession } from '../../../src/viewer/session';
import { FileKindContext } from '../../../src/calls/fileKindContext';
import { WalkthroughTicks } from '../../../src/service/walkthrough';
import { TrajectoryViewerProvider } from '../../../src/viewer/provider';

class Owner extends Disposable {
  add<T extends { dispose(): unknown }>(d: T): T {
    return this._register(d);
  }
  get gone(): boolean {
    return this.isDisposed;
  }
}

const SRC = path.resolve(__dirname, '../../../src');

describe('common/disposable: the Disposable base', () => {
  beforeEach(() => fake.reset());

  it('disposes what it registered once, last registered first, past a throwing one', () => {
    const owner = new Owner();
    const order: string[] = [];
    owner.add({ dispose: () => order.push('a') });
    owner.add({
      dispose: () => {
        order.push('b');
        throw new Error('b failed');
      },
    });
    owner.add({ dispose: () => order.push('c') });
    owner.dispose();
    owner.dispose();
    assert.deepEqual(order, ['c', 'b', 'a']);
    assert.equal(owner.gone, true);
  });

  it('disposes at once what is registered after it was disposed', () => {
    const owner = new Owner();
    owner.dispose();
    let disposed = 0;
    owner.add({ dispose: () => disposed++ });
    assert.equal(disposed, 1);
  });

  it('is the base of the classes that own resources (no dispose() of their own)', () => {
    const context = { globalState: {}, workspaceState: {} } as never;
    const owners = [
      new Logger('svc-test'),
      new LiveProblems({ set() {}, delete() {}, dispose() {} } as never, () => Promise.resolve([])),
      new ScenarioPanels(Uri.file('/ext') as never, {} as never, {} as never, {} as never),
      new ImportManager({} as never, {} as never, {} as never, {} as never, () => undefined),
      new UploadManager({} as never, {} as never, {} as never, {} as never, {} as never, context),
    ];
    for (const o of owners) {
      assert.ok(o instanceof Disposable, o.constructor.name);
      assert.equal(Object.prototype.hasOwnProperty.call(Object.getPrototypeOf(o), 'dispose'), false, `${o.constructor.name} writes its own dispose()`);
      o.dispose();
      o.dispose();
    }
  });

  it('no class of src/ that extends it overrides dispose(): what it owns is registered', () => {
    for (const c of [Connection, ViewerSession, FileKindContext, WalkthroughTicks, TrajectoryViewerProvider, Logger, LiveProblems, ScenarioPanels, ImportManager, UploadManager, LazyTree]) {
      assert.ok(c.prototype instanceof Disposable, c.name);
      assert.equal(Object.prototype.hasOwnProperty.call(c.prototype, 'dispose'), false, `${c.name} writes its own dispose()`);
    }
  });

  it('no file of src/ writes a dispose() method of its own but the base (groupFile.ts: an async removal of a temp folder)', () => {
    const own: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else if (e.name.endsWith('.ts') && /^\s+dispose\(\)[^;]*\{/m.test(fs.readFileSync(full, 'utf8'))) own.push(path.relative(SRC, full));
      }
    };
    walk(SRC);
    assert.deepEqual(own, [path.join('common', 'disposable.ts')]);
  });

  it('the stand-in tree disposes its forwarding of the real provider with it', () => {
    const tree = new LazyTree<string>(() => Promise.resolve());
    let forwarded = 0;
    const real = { onDidChangeTreeData: (_l: unknown) => ({ dispose: () => forwarded++ }), getTreeItem: () => ({}), getChildren: () => [] };
    tree.attach(real as never);
    tree.dispose();
    assert.equal(forwarded, 1);
  });

  it('a manager disposes its Problems collection with it', () => {
    const uploads = new UploadManager({} as never, {} as never, {} as never, {} as never, {} as never, { globalState: {}, workspaceState: {} } as never);
    const imports = new ImportManager({} as never, {} as never, {} as never, {} as never, () => undefined);
    let disposed = 0;
    for (const d of [uploads.diagnostics, imports.diagnostics]) {
      const own = d.dispose.bind(d);
      d.dispose = () => {
        disposed++;
        own();
      };
    }
    uploads.dispose();
    imports.dispose();
    assert.equal(disposed, 2);
  });
});
