import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ImportReport } from '../../../src/calls/manager';
import type { ReferenceServer } from '../../server';
import { callLines as callLinesOf } from '../../fixtures/calls/lines';
import { api, connect, endSuite, PROJECT, startServer, waitFor } from './helpers';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-import-'));

const callLines = (thread: string, turns: number) => callLinesOf(PROJECT, thread, turns);

describe('import calls', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    await connect(server);
  });
  after(async () => {
    // Hide the Threads view again: later suites count the requests a visible view would make.
    await vscode.commands.executeCommand('workbench.view.explorer');
    await endSuite(server);
  });

  it('imports batch items and bare start/end lines; the new threads appear in the view', async () => {
    const a = await api();
    // The Threads view is on screen, as when a user imports with it open.
    await vscode.commands.executeCommand('svc.threads.focus');
    await vscode.commands.executeCommand('svc.threads.refresh');
    assert.strictEqual(a.threads.rows.length, 0);
    const file = path.join(dir, 'calls.jsonl');
    fs.writeFileSync(file, [...callLines('imported-1', 3), '', ...callLines('imported-2', 2)].join('\r\n'));
    const uri = vscode.Uri.file(file);
    const report = await vscode.commands.executeCommand<ImportReport>('svc.importCalls', uri, [uri], { itemsPerBatch: 4 });
    assert.strictEqual(report.status, 'done');
    assert.deepStrictEqual([report.files[0]!.starts, report.files[0]!.ends], [5, 5]);
    assert.ok(server.stats.count('/call/upsert_batch') >= 3, 'sent in several batches');
    assert.strictEqual(server.store.calls.get(PROJECT)!.size, 5);
    await waitFor('the threads view to show the imported threads', () => a.threads.rows.length === 2);
    assert.deepStrictEqual(a.threads.rows.map((r) => r.thread_id).sort(), ['imported-1', 'imported-2']);
    assert.strictEqual(a.threads.rows.find((r) => r.thread_id === 'imported-1')!.turn_count, 3);
  });

  it('is safe to run twice: upserts by id create nothing new', async () => {
    const file = path.join(dir, 'calls.jsonl');
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand<ImportReport>('svc.importCalls', uri, [uri]);
    assert.strictEqual(server.store.calls.get(PROJECT)!.size, 5);
  });

  it('refuses a file that is not on disk (a virtual workspace\'s), naming it, and imports nothing', async () => {
    const virtual = vscode.Uri.from({ scheme: 'vscode-vfs', authority: 'github', path: '/org/repo/calls.jsonl' });
    server.stats.clear();
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.importCalls', { files: [virtual] })), /svc\.importCalls: vscode-vfs:\/\/github\/org\/repo\/calls\.jsonl is not a file on this machine's disk/);
    assert.strictEqual(server.stats.count('/call/upsert_batch'), 0);
  });

  it('reports bad lines at their line with nothing imported', async () => {
    const file = path.join(dir, 'bad-calls.jsonl');
    const good = callLines('x', 1);
    fs.writeFileSync(file, [good[0], '{"mode":"finish","req":{}}', '{not json', good[1]].join('\n'));
    const uri = vscode.Uri.file(file);
    server.stats.clear();
    const report = await vscode.commands.executeCommand<ImportReport>('svc.importCalls', uri, [uri]);
    assert.strictEqual(report.status, 'invalid');
    assert.strictEqual(server.stats.count('/call/upsert_batch'), 0);
    const lines = vscode.languages.getDiagnostics(uri).map((d) => d.range.start.line + 1);
    assert.deepStrictEqual([...new Set(lines)].sort(), [2, 3]);
  });
});

describe('import calls: starts without ids', () => {
  let server: ReferenceServer;
  before(async () => {
    server = await startServer();
    await connect(server);
  });
  after(async () => {
    await endSuite(server);
  });

  it('derives stable ids, so importing the same file twice stores each call once', async () => {
    const file = path.join(dir, 'no-ids.jsonl');
    const lines = [0, 1, 2].map((i) =>
      JSON.stringify({ start: { project_id: PROJECT, op_name: 'adhoc', started_at: `2026-11-20T10:0${i}:00Z`, attributes: {}, inputs: { i } } }),
    );
    fs.writeFileSync(file, lines.join('\n'));
    const uri = vscode.Uri.file(file);
    const first = await vscode.commands.executeCommand<ImportReport>('svc.importCalls', uri, [uri]);
    assert.strictEqual(first.status, 'done');
    assert.strictEqual(server.store.calls.get(PROJECT)!.size, 3);
    await vscode.commands.executeCommand<ImportReport>('svc.importCalls', uri, [uri]);
    assert.strictEqual(server.store.calls.get(PROJECT)!.size, 3, 'no duplicates');
    const warnings = vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Warning);
    assert.strictEqual(warnings.length, 3, 'each id-less start is pointed out');
  });

  it('counts what was stored before a failure and names the file and lines', async () => {
    const file = path.join(dir, 'fails.jsonl');
    fs.writeFileSync(file, [...callLines('f-1', 2), ...callLines('f-2', 2)].join('\n'));
    const uri = vscode.Uri.file(file);
    // The 2nd request fails for good (500 is not retried): the 1st request's calls are counted.
    let n = 0;
    const timer = setInterval(() => {
      if (server.stats.count('/call/upsert_batch') >= 1 && n++ === 0) server.faults.add({ path: '/call/upsert_batch', kind: 'status', status: 500 });
    }, 1);
    server.faults.add({ path: '/call/upsert_batch', kind: 'delay', ms: 100 });
    const report = await vscode.commands.executeCommand<ImportReport>('svc.importCalls', uri, [uri], { itemsPerBatch: 4 });
    clearInterval(timer);
    assert.strictEqual(report.status, 'failed');
    assert.deepStrictEqual([report.files[0]!.starts, report.files[0]!.ends], [2, 2]);
    assert.match(report.error!, /fails\.jsonl, a request with lines 5–8: .*500/);
  });
});
