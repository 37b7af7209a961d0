import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { UploadReport } from '../../../src/trajectories/report';
import type { ReferenceServer } from '../../server';
import { artRows, compactGroup, writeArtParquet, writeArtRows } from '../../fixtures/art/parquet';
import { serverHooks } from './setups';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upload-parquet-'));
const split = path.join(dir, '.art', 'weather', 'models', 'agent-001', 'trajectories', 'train');
fs.mkdirSync(split, { recursive: true });

const upload = (...args: unknown[]) => vscode.commands.executeCommand<UploadReport>('svc.uploadTrajectories', ...args);
const stored = (server: ReferenceServer) => server.store.logs.flatMap((l) => l.body.trajectory_groups as unknown[]);
const stepGroups = (step: number) => [compactGroup(step * 10), compactGroup(step * 10 + 1), compactGroup(step * 10 + 2, { trajectories: 3 })];

describe('upload trajectories: ART Parquet step files', () => {
  const s = serverHooks();

  it('uploads a version 2 step file from the explorer: the service stores group_json with its trajectory_json, group by group', async () => {
    const file = path.join(split, '0003.parquet');
    const groups = stepGroups(3);
    await writeArtParquet(file, groups);
    const uri = vscode.Uri.file(file);
    const report = await upload(uri, [uri], { modelId: 'agent-001', split: 'train' });
    assert.strictEqual(report.status, 'done');
    assert.strictEqual(report.files[0]!.step, 3);
    assert.deepStrictEqual(stored(s.server), groups);
    assert.deepStrictEqual(vscode.languages.getDiagnostics(uri).filter((d) => d.severity === vscode.DiagnosticSeverity.Error), []);
  });

  it('uploads a version 2 step file through the command with { files, modelId, split }', async () => {
    const file = path.join(split, '0004.parquet');
    const groups = stepGroups(4);
    await writeArtParquet(file, groups);
    const report = await upload({ files: [file], modelId: 'agent-001', split: 'val', maxRequestBytes: 4096 });
    assert.strictEqual(report.status, 'done');
    assert.ok(report.files[0]!.result!.totals.requests > 1, 'several requests');
    assert.deepStrictEqual(stored(s.server), groups);
    assert.ok(s.server.store.logs.every((l) => l.body.split === 'val'));
  });

  it('uploads a split folder as its step files in step order, a step in both formats once (as Parquet)', async () => {
    const folder = path.join(dir, '.art', 'weather', 'models', 'agent-002', 'trajectories', 'train');
    fs.mkdirSync(folder, { recursive: true });
    await writeArtParquet(path.join(folder, '0012.parquet'), stepGroups(12));
    await writeArtParquet(path.join(folder, '0002.parquet'), stepGroups(2));
    fs.writeFileSync(path.join(folder, '0002.jsonl'), 'not what is sent\n');
    fs.writeFileSync(path.join(folder, '0007.jsonl'), stepGroups(7).map((g) => JSON.stringify(g)).join('\n') + '\n');
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'left alone');
    const uri = vscode.Uri.file(folder);
    const report = await upload(uri, [uri], { modelId: 'agent-002', split: 'train' });
    assert.strictEqual(report.status, 'done');
    assert.deepStrictEqual(report.files.map((f) => [path.basename(f.file), f.step]), [
      ['0002.parquet', 2],
      ['0007.jsonl', 7],
      ['0012.parquet', 12],
    ]);
    assert.deepStrictEqual(stored(s.server), [...stepGroups(2), ...stepGroups(7), ...stepGroups(12)]);
  });

  it('refuses a folder outside the layout, naming it, and sends nothing', async () => {
    const uri = vscode.Uri.file(dir);
    await assert.rejects(Promise.resolve(upload(uri, [uri], { modelId: 'agent-001', split: 'train' })), /only a split folder of ART's layout/);
    assert.strictEqual(s.server.stats.count('/v1/preview/models/agent-001/log'), 0);
  });

  it('puts a Parquet file\'s problems in the Problems panel naming row and group, and sends nothing', async () => {
    const file = path.join(split, '0005.parquet');
    const rows = artRows(stepGroups(5));
    rows[1]!.group_json = '{"metadata":{"other":1}}';
    rows[4]!.trajectory_json = '[1]';
    await writeArtRows(file, rows);
    const uri = vscode.Uri.file(file);
    const report = await upload(uri, [uri], { modelId: 'agent-001', split: 'train' });
    assert.strictEqual(report.status, 'invalid');
    assert.strictEqual(s.server.stats.count('/v1/preview/models/agent-001/log'), 0);
    const messages = vscode.languages.getDiagnostics(uri).map((d) => d.message).sort();
    assert.deepStrictEqual(messages, [
      "row 1, group 0: group_json differs from row 0's: the rows of one group must carry the same group",
      'row 4, group 2: trajectory_json of trajectory 0 is not a JSON object',
    ]);
  });
});
