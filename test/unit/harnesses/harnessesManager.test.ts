import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InputError } from '../../../src/api/errors';
import { Logger } from '../../../src/common/logger';
import { HarnessesManager } from '../../../src/harnesses/manager';
import { TRAJECTORY_VIEWER } from '../../../src/common/ids';
import { writeHarborJob } from '../../fixtures/harborJob';
import { ScriptedPrompts } from '../../fakes/prompts';
import { fake, Uri, workspace } from '../../fakes/vscode';

// Convert to ART's scripted flow and Open Harbor Job (the commands are thin over them), on a Harbor job folder written by Python's json.
describe('harnesses/HarnessesManager: a scripted conversion and Open Harbor Job', () => {
  let root = '';
  let manager: HarnessesManager;
  let prompts: ScriptedPrompts;
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), 'svc-harnesses-'));
    writeHarborJob(path.join(root, 'job'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));
  beforeEach(() => {
    fake.reset();
    workspace.workspaceFolders = [{ uri: Uri.file(root), name: 'w', index: 0 }];
    prompts = new ScriptedPrompts();
    manager = new HarnessesManager(new Logger('svc-test'), prompts);
  });
  afterEach(() => {
    workspace.workspaceFolders = undefined;
  });

  it('converts a job folder named in the workspace to a file in it, and logs what it wrote', async () => {
    const report = await manager.convert({ source: 'job', output: 'job.art.jsonl' });
    assert.deepEqual([report.format, report.groups, report.trajectories, report.reward], ['ATIF (Harbor)', 2, 3, 'reward']);
    assert.equal(report.output, path.join(root, 'job.art.jsonl'));
    assert.ok(existsSync(report.output));
    assert.ok(fake.logLines.some((l) => l.includes(`svc.convertToArt: wrote ${report.output} (2 groups, 3 trajectories)`)), fake.logLines.join('\n'));
    assert.deepEqual(prompts.messages(), [], 'a scripted conversion shows nothing');
  });

  it('refuses to write outside the workspace, naming the field', async () => {
    await assert.rejects(manager.convert({ source: 'job', output: path.join(path.dirname(root), 'elsewhere.jsonl') }), (e: unknown) => e instanceof InputError && e.place.field === 'output');
    assert.ok(!existsSync(path.join(path.dirname(root), 'elsewhere.jsonl')));
  });

  it('opens a job folder in the trajectory viewer; a scripted call with no folder is refused, not asked', async () => {
    await manager.openJob({ interactive: false }, 'job');
    const opened = fake.executed.filter((c) => c.command === 'vscode.openWith');
    assert.deepEqual(opened.map((c) => [(c.args[0] as Uri).fsPath, c.args[1]]), [[path.join(root, 'job'), TRAJECTORY_VIEWER]]);
    await assert.rejects(manager.openJob({ interactive: false }, undefined), (e: unknown) => e instanceof InputError && e.place.field === 'folder' && /svc\.openHarborJob: no folder given \(expected \{folder\}\)/.test(e.message));
    assert.equal(prompts.openDialogs, 0);
  });
});
