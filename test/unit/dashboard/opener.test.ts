/** The flows behind Open Training Dashboard, Export CSV and Compare Runs (src/dashboard/opener.ts), over plain objects. */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import { Uri, FakeMemento, fake } from '../../fakes/vscode';
import { DashboardOpener } from '../../../src/dashboard/opener';
import type { Dashboards } from '../../../src/dashboard/manager';
import type { CompareRuns, RunSpec } from '../../../src/dashboard/compare';
import type { Connection } from '../../../src/service/connection';
import type { Prompts } from '../../../src/ui/prompts';

const script = { interactive: false } as never;

function opener(over: { dashboards?: Partial<Dashboards>; connection?: Partial<Connection>; compared?: RunSpec[][] } = {}) {
  const compare = { open: (runs: RunSpec[]) => (over.compared?.push(runs), Promise.resolve({ sources: runs.map((r) => ({ modelId: 'modelId' in r ? r.modelId : (r.file as vscode.Uri).fsPath })) })) } as unknown as CompareRuns;
  return new DashboardOpener((over.dashboards ?? {}) as Dashboards, compare, (over.connection ?? {}) as Connection, {} as Prompts, new FakeMemento() as unknown as vscode.Memento);
}

describe('dashboard/opener: the dashboard commands\' flows', () => {
  beforeEach(() => fake.reset());

  it('a scripted model without a service is refused, naming the fix; with one, the dashboard opens at the checkpoint', async () => {
    await assert.rejects(opener().openModel(script, 'm-1'), /No svc service is configured: run "svc: Set Service Base URL" first\./);
    const opened: unknown[] = [];
    const o = opener({ connection: { client: {} } as never, dashboards: { open: (id: string, focus?: string) => void opened.push([id, focus]) } as never });
    assert.equal(await o.openModel(script, 'm-1', 'c-3'), 'm-1');
    assert.deepEqual(opened, [['m-1', 'c-3']]);
  });

  it('Export CSV: a target goes to the dashboards; none needs an active dashboard', async () => {
    const exported: unknown[] = [];
    const o = opener({ dashboards: { exportCsv: (...a: unknown[]) => (exported.push(a), Promise.resolve(Uri.file('/w/x.csv'))), active: () => undefined } as never });
    assert.equal(await o.exportCsv({ modelId: 'm', path: 'x.csv' }), path.resolve('/w/x.csv'));
    assert.deepEqual(exported, [['m', 'x.csv']]);
    await assert.rejects(o.exportCsv(), /Open a training dashboard first\./);
  });

  it('Compare Runs: model ids trimmed, a run folder resolved to its history.jsonl, fewer than two refused', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-opener-'));
    fs.writeFileSync(path.join(dir, 'history.jsonl'), '{"step": 1}\n');
    const compared: RunSpec[][] = [];
    const o = opener({ compared });
    await o.compare(script, [{ modelId: ' m-1 ' }, { uri: Uri.file(dir) as never }]);
    assert.deepEqual(compared[0]!.map((r) => ('modelId' in r ? r.modelId : (r.file as vscode.Uri).fsPath)), ['m-1', path.join(dir, 'history.jsonl')]);
    await assert.rejects(o.compare(script, [{ modelId: 'm' }]), /needs at least two runs: pass \{ runs: \[\.\.\.\] \} with two or more \(got 1\)/);
    await assert.rejects(o.compare(script, [{ modelId: 'm' }, { uri: Uri.file(path.join(dir, 'nope')) as never }]), /nope: no such file\./);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
