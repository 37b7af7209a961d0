// Issue 31: the palette's run pick. "svc: Search Run…", "svc: Follow Scenario Across Steps…", the
// run commands (Open Dashboard, Open Step) and "svc: Open Training Dashboard" run from the palette
// (no argument): with several runs in the workspace a pick lists each run the command can use, once,
// and picking one proceeds with that run; with none, a message says what a run is and how to get
// one (an Open Folder… button), and no pick or dialog opens. The runs are written by Python's json
// (test/fixtures/art/run.ts, JSONL steps) into the workspace folder.
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { ScenarioHistory } from '../../../src/viewer/scenario';
import { scenarioId, writeArtRun } from '../../fixtures/art/run';
import { api, resetSettings, waitFor } from './helpers';
import { Prompts } from './prompts';

describe('The palette\'s run pick (issue 31)', function () {
  this.timeout(120_000);
  const ws = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const art = path.join(ws, '.art');
  const modelDir = (m: string) => path.join(art, 'pick', 'models', m);
  let prompts: Prompts;

  before(async () => {
    // No service: the training dashboard's palette command then works on the workspace's runs.
    await resetSettings();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(art, { recursive: true, force: true });
    await (await api()).runs.refresh();
  });
  beforeEach(() => (prompts = new Prompts()));
  afterEach(async () => {
    prompts.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
  after(async () => {
    fs.rmSync(art, { recursive: true, force: true });
    await (await api()).runs.refresh();
  });

  /** The message a palette command shows when it fails (shown without being awaited). */
  const messageOf = async (cmd: string) => {
    await waitFor(`${cmd}'s message`, () => prompts.messages().length > 0);
    return prompts.messages()[0]!;
  };

  for (const cmd of ['svc.searchRun', 'svc.followScenario', 'svc.runs.openDashboard', 'svc.runs.openStep', 'svc.dashboard.open']) {
    it(`${cmd} from the palette in a workspace without a run: says what a run is and how to get one; no pick, no dialog`, async () => {
      assert.deepStrictEqual((await api()).runs.runs, []);
      assert.strictEqual(await vscode.commands.executeCommand(cmd), undefined);
      const m = await messageOf(cmd);
      assert.deepStrictEqual(prompts.prompts(), [], 'no pick and no dialog');
      assert.match(m.title, /No ART run .*in the workspace folders/);
      assert.match(m.title, /\.art\/<project>\/models\/<model>\//, 'what a run is');
      assert.match(m.title, /Open the folder that holds the \.art folder/, 'how to get one');
      assert.ok(m.items.includes('Open Folder…'), `an Open Folder… button: ${m.items.join(' | ')}`);
      prompts.assertDone();
    });
  }

  describe('with several runs', () => {
    before(async () => {
      for (const m of ['agent-a', 'agent-b']) await writeArtRun(ws, { project: 'pick', model: m, splits: { train: 3 }, jsonlSteps: [1, 2, 3] });
      // A run with a history only (no step files): its dashboard opens, it has nothing to search.
      fs.mkdirSync(modelDir('agent-c'), { recursive: true });
      execFileSync('python3', ['-c', 'import json, sys\nwith open(sys.argv[1], "w") as f:\n    for s in (1, 2):\n        f.write(json.dumps({"step": s, "train/reward": s / 2}) + "\\n")', path.join(modelDir('agent-c'), 'history.jsonl')]);
      const a = await api();
      await a.runs.refresh();
      assert.deepStrictEqual(a.runs.runs.map((r) => r.model).sort(), ['agent-a', 'agent-b', 'agent-c']);
    });

    const pickOf = () => prompts.prompts()[0]!;

    it('Search Run lists each run with step files once; the one picked is searched', async () => {
      prompts.script({ pick: 'agent-b', title: /Search Run/ }, { cancel: true, title: /^svc: Search Run agent-b \(3 step files\)/ });
      assert.strictEqual(await vscode.commands.executeCommand('svc.searchRun'), undefined);
      assert.deepStrictEqual(pickOf().items, ['agent-a', 'agent-b']);
      assert.deepStrictEqual(pickOf().descriptions, ['pick · Qwen/Qwen2.5-7B-Instruct', 'pick · Qwen/Qwen2.5-7B-Instruct']);
      prompts.assertDone();
    });

    it('Follow Scenario (no step file open) picks the run, then a scenario of its latest step, and follows it in that run', async () => {
      prompts.script({ pick: 'agent-b', title: /Follow Scenario/ }, { pick: scenarioId(2), title: /Follow which scenario of 0003\.jsonl/ });
      const h = await vscode.commands.executeCommand<ScenarioHistory>('svc.followScenario');
      assert.ok(h, 'the scenario followed');
      assert.strictEqual(h.modelDir, modelDir('agent-b'));
      assert.strictEqual(h.scenario, scenarioId(2));
      assert.deepStrictEqual(h.steps.map((s) => s.step), [1, 2, 3]);
      assert.deepStrictEqual(pickOf().items, ['agent-a', 'agent-b']);
      prompts.assertDone();
    });

    it('Open Dashboard lists each run with a history.jsonl; the one picked opens', async () => {
      prompts.script({ pick: 'agent-c' });
      const key = await vscode.commands.executeCommand<string>('svc.runs.openDashboard');
      assert.deepStrictEqual(pickOf().items, ['agent-a', 'agent-b', 'agent-c']);
      assert.ok((await api()).dashboards.panel(key), `the dashboard ${key}`);
      assert.ok(key.includes(path.join('agent-c', 'history.jsonl')), key);
      prompts.assertDone();
    });

    it('Open Training Dashboard without a service lists the runs with a history.jsonl; the one picked opens', async () => {
      prompts.script({ pick: 'agent-a' });
      const key = await vscode.commands.executeCommand<string>('svc.dashboard.open');
      assert.deepStrictEqual(pickOf().items, ['agent-a', 'agent-b', 'agent-c']);
      assert.ok(key?.includes(path.join('agent-a', 'history.jsonl')), String(key));
      prompts.assertDone();
    });

    it('Open Step lists each run with step files, then its steps; the one picked opens', async () => {
      prompts.script({ pick: 'agent-a' }, { pick: 'step 2' });
      const file = await vscode.commands.executeCommand<string>('svc.runs.openStep');
      assert.deepStrictEqual(pickOf().items, ['agent-a', 'agent-b']);
      assert.strictEqual(file, path.join(modelDir('agent-a'), 'trajectories', 'train', '0002.jsonl'));
      prompts.assertDone();
    });

    it('a run without step files only: Search Run says so, naming the runs it found', async () => {
      for (const m of ['agent-a', 'agent-b']) fs.rmSync(modelDir(m), { recursive: true, force: true });
      await (await api()).runs.refresh();
      assert.strictEqual(await vscode.commands.executeCommand('svc.searchRun'), undefined);
      const m = await messageOf('svc.searchRun');
      assert.deepStrictEqual(prompts.prompts(), []);
      assert.match(m.title, /No ART run with step files in the workspace folders \(its run has none\)/);
    });
  });
});
