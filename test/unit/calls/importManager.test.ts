import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AuthenticationError, InputError } from '../../../src/api';
import { ImportManager } from '../../../src/calls/manager';
import { ErrorPresenter } from '../../../src/common/errors';
import { connect, PROJECT, turn, type Service } from '../../fakes/service';
import { fake, Uri } from '../../fakes/vscode';
import { callLines as callLinesOf } from '../../fixtures/calls/lines';

const UPSERT = '/call/upsert_batch';
const scripted = { interactive: false };
const user = { interactive: true };

const callLines = (thread: string, turns: number) => callLinesOf(PROJECT, thread, turns);

// Import Calls' flow against the reference service in plain Node (the in-host suite covers the
// explorer, the Problems panel and the Threads view around it).
describe('ImportManager (plain Node, reference service)', () => {
  let svc: Service;
  let imports: ImportManager;
  let dir: string;
  let afterImport: number;
  let shown: { project: string; threadIds: string[] }[];

  beforeEach(async () => {
    svc = await connect();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-import-unit-'));
    afterImport = 0;
    shown = [];
    imports = new ImportManager(svc.connection, new ErrorPresenter(svc.log, svc.prompts), svc.prompts, svc.log, () => afterImport++, async (project, threadIds) => void shown.push({ project, threadIds }));
  });
  afterEach(async () => {
    imports.dispose();
    await svc.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, lines: string[]) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines.join('\n'));
    return file;
  };

  it('sends the calls in batches, drops the loaded threads and offers to show the threads it wrote', async () => {
    const file = write('calls.jsonl', [...callLines('imported-1', 3), ...callLines('imported-2', 2)]);
    svc.prompts.answers.push('Show 2 Threads');
    const report = await imports.import(scripted, { files: [file], itemsPerBatch: 4 });
    assert.equal(report.status, 'done');
    assert.deepEqual([report.files[0].starts, report.files[0].ends], [5, 5]);
    assert.deepEqual(report.threadIds, ['imported-1', 'imported-2']);
    assert.equal(svc.server.stats.count(UPSERT), 3);
    assert.equal(svc.server.store.calls.get(PROJECT)!.size, 5);
    assert.equal(afterImport, 1);
    await turn();
    assert.match(svc.prompts.messages('information')[0], /imported 10 call records \(5 started, 5 ended\) from 1 file/);
    assert.deepEqual(shown, [{ project: PROJECT, threadIds: ['imported-1', 'imported-2'] }]);
  });

  it('refuses a scripted call without files at once, naming the argument, without a dialog', async () => {
    await assert.rejects(imports.import(scripted, {}), (e: unknown) => e instanceof InputError && e.place.field === 'files' && /svc\.importCalls: no files/.test(e.message));
    assert.equal(svc.prompts.openDialogs, 0);
  });

  it('refuses a scripted call whose batch sizes are not positive integers, naming the option, sending nothing', async () => {
    const file = write('calls.jsonl', callLines('bad-options', 1));
    await assert.rejects(imports.import(scripted, { files: [file], itemsPerBatch: 0 }), (e: unknown) => e instanceof InputError && e.place.field === 'itemsPerBatch' && /^svc\.importCalls: "itemsPerBatch" must be at least 1\.$/.test(e.message));
    await assert.rejects(imports.import(scripted, { files: [file], maxBatchBytes: '10 MiB' }), (e: unknown) => e instanceof InputError && e.place.field === 'maxBatchBytes' && /"maxBatchBytes" must be a number/.test(e.message));
    assert.equal(svc.server.stats.count(), 0);
  });

  it('asks a user for the files, and does nothing when the dialog is closed', async () => {
    const report = await imports.import(user);
    assert.equal(svc.prompts.openDialogs, 1);
    assert.equal(report.status, 'aborted');
    assert.equal(svc.server.stats.count(UPSERT), 0);
  });

  it('refuses a file that is not on disk, for a user as for a script: the presenter speaks', async () => {
    const remote = Uri.parse('vscode-vfs://github/acme/repo/calls.jsonl');
    for (const how of [user, scripted]) {
      await assert.rejects(imports.import(how, remote, [remote]), (e: unknown) => e instanceof InputError && /is not a file on this machine's disk/.test(e.message));
    }
    assert.equal(svc.prompts.shown.length, 0, 'the manager shows nothing itself');
  });

  it('refuses when signed out with the same error for a user and a script, sending nothing', async () => {
    const file = write('calls.jsonl', callLines('t', 1));
    await svc.signOut();
    for (const how of [user, scripted]) {
      await assert.rejects(imports.import(how, { files: [file] }), (e: unknown) => e instanceof AuthenticationError && /^svc\.importCalls: not signed in to 127\.0\.0\.1:\d+: run "svc: Sign In" first\.$/.test(e.message));
    }
    assert.equal(svc.server.stats.count(UPSERT), 0);
  });

  it('puts a bad line in the Problems panel at its line and imports nothing', async () => {
    const file = write('bad.jsonl', [...callLines('t', 1), '{"mode": "start", "req": {}}']);
    const report = await imports.import(scripted, { files: [file] });
    assert.equal(report.status, 'invalid');
    const entries = fake.diagnostics.get('svc-calls')!.get(Uri.file(file))!;
    assert.ok(entries.some((d) => d.range.start.line === 2));
    assert.equal(svc.server.stats.count(UPSERT), 0);
    assert.match(svc.prompts.messages('error')[0], /problems in bad\.jsonl; nothing was imported/);
  });

  it('counts what was stored before a service error, names the lines, and offers Import Again', async () => {
    const file = write('calls.jsonl', callLines('t', 4));
    svc.server.faults.add([{ kind: 'delay', ms: 0, path: UPSERT }, { kind: 'status', status: 400, path: UPSERT, body: { detail: 'bad batch' } }]);
    const report = await imports.import(scripted, { files: [file], itemsPerBatch: 4 });
    assert.equal(report.status, 'failed');
    assert.equal(report.files[0].items, 4);
    assert.match(report.error!, /calls\.jsonl, a request with lines 5–8/);
    assert.equal(afterImport, 1, 'what was stored shows');
    await turn();
    const failure = svc.prompts.shown.find((m) => /import failed/.test(m.message))!;
    assert.ok(failure.items.includes('Import Again'));
  });

  it('stops when the user presses Cancel, and says how much was imported', async () => {
    const file = write('calls.jsonl', callLines('t', 4));
    svc.server.faults.add({ kind: 'delay', ms: 500, path: UPSERT, times: 4 });
    const running = imports.import(scripted, { files: [file], itemsPerBatch: 2 });
    while (svc.server.stats.count(UPSERT) === 0) await turn();
    svc.prompts.cancelProgress();
    const report = await running;
    assert.equal(report.status, 'cancelled');
    await turn();
    assert.ok(svc.prompts.messages().some((m) => /import cancelled/.test(m)));
  });
});
