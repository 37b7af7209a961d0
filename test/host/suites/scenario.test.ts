// "svc: Follow Scenario Across Steps…" in a real host (issue 31, item 4): a run written by DuckDB and
// Python's json (test/fixtures/art/run.ts), the scenario's table in its webview, scripted calls that
// never prompt, the palette's pick of a scenario from the active step file, and two rollouts of
// different step files side by side in the diff editor.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ScenarioHistory } from '../../../src/viewer/scenario';
import { answerAt, changeStep, questionOf, rewardOf, scenarioId, writeArtRun, type WrittenRun } from '../../fixtures/art/run';
import { api, waitFor } from './helpers';
import { Prompts } from './prompts';

const scenarioTabs = () =>
  vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && /svc\.scenario/.test(t.input.viewType));

describe('Follow Scenario Across Steps', function () {
  this.timeout(90_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scenario-host-'));
  let run: WrittenRun;
  before(async () => {
    run = await writeArtRun(dir, { splits: { train: 12, val: 4 }, jsonlSteps: [2] });
  });
  afterEach(() => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('scripted { run, scenario }: the table of every step, the first change marked, in a webview; no prompt', async () => {
    const prompts = new Prompts();
    const drawn = new Promise<Record<string, unknown>>((resolve) => {
      api().then(
        (a) => {
          const sub = a.scenarios.onDidRender((r) => (sub.dispose(), resolve(r)));
        },
        () => undefined,
      );
    });
    try {
      const h = await vscode.commands.executeCommand<ScenarioHistory>('svc.followScenario', { run: run.modelDir, scenario: scenarioId(1) });
      assert.deepStrictEqual(
        h.steps.map((s) => s.step),
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
      assert.deepStrictEqual(
        h.steps[5]!.rollouts.map((r) => r.reward),
        [0, 1, 2].map((t) => rewardOf('train', 1, 6, t)),
      );
      assert.strictEqual(h.firstChange, changeStep(1));
      assert.strictEqual(h.steps.at(-1)!.rollouts[0]!.answer, answerAt(1, 12));
      await waitFor('the scenario tab', () => scenarioTabs().length === 1, 20_000);
      assert.match(scenarioTabs()[0]!.label, /^Scenario scenario-01 · train/);
      const r = await drawn;
      assert.deepStrictEqual(r, { type: 'rendered', rows: 36, changed: [changeStep(1)], compare: false }, 'one row per rollout, the first change marked');
      assert.deepStrictEqual(prompts.prompts(), []);
    } finally {
      prompts.dispose();
    }
  });

  it("scripted { file, group, trajectory }: follows that trajectory's scenario (a group without the key: its first user message)", async () => {
    const file = run.files.val![1]!.path;
    const h = await vscode.commands.executeCommand<ScenarioHistory>('svc.followScenario', { file, group: 5, trajectory: 0 });
    assert.strictEqual(h.split, 'val');
    assert.strictEqual(h.steps.length, 4);
    assert.strictEqual(h.matchedBy.firstMessage, 12, 'scenario 5 has no metadata: matched by its first user message');
    assert.strictEqual(h.scenario.trim().toLowerCase().replace(/\s+/g, ' '), questionOf(5).toLowerCase());
  });

  it('a scripted call without a scenario rejects naming the field, and opens nothing', async () => {
    const prompts = new Prompts();
    try {
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.followScenario', { run: run.modelDir })), /"scenario" must be a non-empty string/);
      await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.followScenario', { file: run.files.train![0]!.path, group: 99, trajectory: 0 })), /has no trajectory 0 in group 99/);
      assert.deepStrictEqual(prompts.prompts(), []);
      assert.strictEqual(scenarioTabs().length, 0);
    } finally {
      prompts.dispose();
    }
  });

  it('from the palette on an open step file: picks the scenario from that file', async () => {
    const file = vscode.Uri.file(run.files.train![3]!.path);
    await vscode.commands.executeCommand('vscode.openWith', file, 'default');
    const prompts = new Prompts().script({ pick: scenarioId(2), title: /Follow which scenario of 0004\.parquet/ });
    try {
      const h = await vscode.commands.executeCommand<ScenarioHistory>('svc.followScenario');
      assert.strictEqual(h.scenario, scenarioId(2));
      assert.strictEqual(h.steps.length, 12);
      const pick = prompts.prompts().find((p) => p.kind === 'quickPick')!;
      assert.strictEqual(pick.items.length, 6, 'one item per scenario of the file');
    } finally {
      prompts.dispose();
    }
  });

  it("the viewer of a step file offers Follow scenario across steps on a trajectory; a file outside a run does not", async () => {
    const file = vscode.Uri.file(run.files.train![4]!.path);
    await vscode.commands.executeCommand('vscode.openWith', file, 'svc.trajectoryViewer');
    const viewer = (await api()).viewer;
    await waitFor('the viewer to render a trajectory', () => viewer.sessionsFor(file)[0]?.lastRendered?.trajectory !== undefined, 30_000);
    const session = viewer.sessionsFor(file)[0]!;
    assert.strictEqual(session.lastRendered!.followScenario, true);
    const h = (await session.followScenario(3, 1)) as ScenarioHistory;
    assert.strictEqual(h.scenario, scenarioId(3));
    assert.strictEqual(h.steps.length, 12);
    await waitFor('the scenario tab', () => scenarioTabs().length === 1, 20_000);

    const loose = path.join(dir, 'loose.jsonl');
    fs.copyFileSync(run.files.train![1]!.path, loose);
    const uri = vscode.Uri.file(loose);
    await vscode.commands.executeCommand('vscode.openWith', uri, 'svc.trajectoryViewer');
    await waitFor('the viewer to render a trajectory', () => viewer.sessionsFor(uri)[0]?.lastRendered?.trajectory !== undefined, 30_000);
    assert.strictEqual(viewer.sessionsFor(uri)[0]!.lastRendered!.followScenario, false);
  });

  it('compares two rollouts of different step files as transcripts in the diff editor', async () => {
    const left = run.files.train![0]!.path;
    const right = run.files.train![11]!.path;
    await vscode.commands.executeCommand('svc.compareTrajectories', { left: { file: left, group: 0, trajectory: 0 }, right: { file: right, group: 0, trajectory: 0 } });
    await waitFor('a diff tab', () => vscode.window.tabGroups.activeTabGroup.activeTab?.input instanceof vscode.TabInputTextDiff);
    const input = vscode.window.tabGroups.activeTabGroup.activeTab!.input as vscode.TabInputTextDiff;
    const a = (await vscode.workspace.openTextDocument(input.original)).getText();
    const b = (await vscode.workspace.openTextDocument(input.modified)).getText();
    assert.match(a, /^# 0001\.parquet · group 1 · trajectory 1/);
    assert.ok(a.includes(answerAt(0, 1)), a);
    assert.ok(b.includes(answerAt(0, 12)), b);
    await assert.rejects(Promise.resolve(vscode.commands.executeCommand('svc.compareTrajectories', { left: { file: left, group: 0 } })), /"left.trajectory" must be an integer/);
  });
});
