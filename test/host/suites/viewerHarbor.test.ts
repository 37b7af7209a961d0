// ATIF (Harbor) in a real host (issue 32): a trial's agent/trajectory.json opens in the viewer by
// default, a Harbor job folder opens as one group of trials with their rewards and the subagents a
// group away, an unknown schema_version is a clear problem (never a blank viewer), and Convert to
// ART, scripted, writes a file the upload accepts. The job is written by Python's json
// (test/fixtures/harborJob.ts), in Harbor's field names.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { validateTrajectoryFile } from '../../../src/files';
import { writeHarborJob } from '../../fixtures/harborJob';
import { waitFor } from './helpers';
import { Prompts } from './prompts';
import { openByDefault, sessionOf, VIEW_TYPE } from './setups';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-viewer-harbor-'));
const job = path.join(dir, 'jobs', '2026-11-27__10-00-00');

describe('trajectory viewer: ATIF (Harbor) trajectories and jobs', function () {
  this.timeout(60_000);
  before(() => writeHarborJob(job));
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('opens a trial\'s agent/trajectory.json by default as one conversation: tool calls paired with results, reasoning, the token strip of a choice with token ids', async () => {
    const uri = vscode.Uri.file(path.join(job, 'task-a__abc', 'agent', 'trajectory.json'));
    const session = await openByDefault(uri);
    await session.whenIndexed();
    assert.strictEqual(session.harness, 'ATIF (Harbor)');
    const index = session.index!;
    assert.strictEqual(index.groups, 2, 'the trial, then its subagent');
    assert.deepStrictEqual(index.row(0).rewards, [1]);
    const report = session.lastRendered!;
    const roles = report.bubbles.map((b) => [b.role, b.trainable]);
    assert.deepStrictEqual(roles.slice(0, 5), [['system', false], ['user', false], ['assistant', true], ['tool', false], ['tool', false]]);
    assert.match(report.bubbles[2]!.text, /Let me look\./);
    // The agent step's completion_token_ids and logprobs: the turn's token strip.
    session.select(0, 0, 2, true);
    await waitFor('the strip of the agent turn', () => (session.lastRendered?.strips?.[0]?.nodes ?? 0) > 0);
    const strip = session.lastRendered!.strips![0]!;
    assert.deepStrictEqual([strip.message, strip.tokens], [2, 3]);
    assert.match(strip.summary, /^3 tokens · mean logprob -0\.2 · perplexity 1\.221/);
    // The validator of the upload finds nothing wrong in what the view shows.
    await waitFor('validation', () => !session.validating);
    assert.deepStrictEqual(session.problemsOf(0), []);
    // The subagent is one click away: its group.
    session.select(1, 0);
    await waitFor('the subagent', () => session.lastRendered?.group === 1);
    assert.match(session.lastRendered!.bubbles.map((b) => b.text).join('\n'), /found it in \/srv/);
  });

  it('opens a Harbor job folder (svc.openHarborJob) as one group of trials with their rewards', async () => {
    const uri = vscode.Uri.file(job);
    await vscode.commands.executeCommand('svc.openHarborJob', uri);
    const session = await sessionOf(uri);
    await session.whenIndexed();
    const index = session.index!;
    assert.strictEqual(index.groups, 3, 'the trials, then the subagents of two trials');
    assert.strictEqual(index.row(0).stats.count, 4);
    assert.deepStrictEqual(index.row(0).rewards, [1, 0, 0, 0.5], 'the trial that raised has no reward (shown as 0)');
  });

  it('shows an unknown schema_version as the problem of the file, naming the file and the field', async () => {
    const file = path.join(dir, 'jobs', 'bad', 'trial__x', 'agent', 'trajectory.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ schema_version: 'ATIF-v9.9', agent: { name: 'a', version: '1' }, steps: [] }));
    const uri = vscode.Uri.file(file);
    await vscode.commands.executeCommand('vscode.openWith', uri, VIEW_TYPE);
    const session = await sessionOf(uri, false);
    await session.whenIndexed();
    assert.match(session.index!.shapeError ?? '', /ATIF-v9\.9/);
    assert.ok(session.index!.shapeError!.includes(`${file}: schema_version: unknown ATIF version "ATIF-v9.9"`), session.index!.shapeError);
  });

  it('svc.convertToArt from the explorer asks for the score, the grouping and the file, writes it, and opens it in the viewer', async () => {
    const output = path.join(dir, 'picked.art.jsonl');
    const p = new Prompts();
    const w = vscode.window as unknown as Record<string, unknown>;
    const save = w.showSaveDialog;
    const saves: (string | undefined)[] = [];
    w.showSaveDialog = (o?: vscode.SaveDialogOptions) => {
      saves.push(o?.defaultUri?.fsPath);
      return Promise.resolve(vscode.Uri.file(output));
    };
    try {
      p.script({ pick: 'tests_passed', title: /the score to use as the reward/ }, { pick: 'trial', title: /how trajectories make groups/ });
      p.answer(/wrote 4 groups \(3 trajectories, reward: tests_passed\) to picked\.art\.jsonl\. Left out: .*subagent trajectories/, 'Open in Viewer');
      const report = (await vscode.commands.executeCommand('svc.convertToArt', vscode.Uri.file(job))) as { groups: number; trajectories: number; reward: string };
      // One group per trial: the trial that raised is a group with just its exception.
      assert.deepStrictEqual([report.groups, report.trajectories, report.reward], [4, 3, 'tests_passed']);
      assert.deepStrictEqual(saves, [path.join(dir, 'jobs', '2026-11-27__10-00-00.art.jsonl')], 'the file proposed beside the job');
      const session = await sessionOf(vscode.Uri.file(output));
      await session.whenIndexed();
      assert.strictEqual(session.index!.groups, 4);
      assert.strictEqual(session.harness, undefined, 'an ART file, read as such');
      p.assertDone();
    } finally {
      w.showSaveDialog = save;
      p.dispose();
    }
  });

  it('svc.convertToArt with an arguments object writes an ART JSONL the upload accepts, opening nothing', async () => {
    const ws = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const output = path.join(ws, `svc-harbor-${process.pid}.jsonl`);
    try {
      const report = (await vscode.commands.executeCommand('svc.convertToArt', { source: job, output, reward: 'tests_passed', groupBy: 'task' })) as { groups: number; trajectories: number; reward: string };
      assert.deepStrictEqual([report.groups, report.trajectories, report.reward], [2, 3, 'tests_passed']);
      const summary = await validateTrajectoryFile(output);
      assert.deepStrictEqual(summary.problems, []);
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.convertToArt', { source: job, output: path.join(dir, 'outside.jsonl') })), /inside a workspace folder/);
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.convertToArt', { source: job, output, groupBy: 'model' })), /groupBy/);
    } finally {
      fs.rmSync(output, { force: true });
    }
  });
});
