// svc_scenario_history (issue 31, item 7): a scenario of a run across its steps, as the MCP server runs
// it (EnvHost: the read roots are its --root folders). The run is test/fixtures/art/run.ts; the
// expected rewards and answers come from the fixture's rules.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTool, runTool } from '../../../src/agents/core/tools';
import { EnvHost } from '../../../src/agents/mcp/host';
import { answerAt, changeStep, rewardOf, scenarioId, writeArtRun, type WrittenRun } from '../../fixtures/art/run';

describe('agents: svc_scenario_history', function () {
  this.timeout(120_000);
  let dir: string;
  let run: WrittenRun;
  const tool = findTool('svc_scenario_history')!;
  const host = (roots?: string[]) => new EnvHost({ env: {}, cwd: dir, userAgent: 't', ...(roots ? { roots } : {}) });
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scenario-tool-'));
    run = await writeArtRun(dir, { splits: { train: 40, val: 20 }, jsonlSteps: [1, 2] });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('gives per step the rewards and final answers of the scenario, and the first step where the answer changed', async () => {
    const r = await runTool(host(), tool, { run: path.relative(dir, run.modelDir), scenario: scenarioId(1) });
    assert.equal(r.isError, false, r.text);
    const k = 1;
    const c = changeStep(k);
    assert.match(r.text, new RegExp(`120 rollouts at 40 of 40 step files read \\(steps 1–40\\); 120 matched by the key, 0 by the first user message`));
    assert.ok(r.text.includes(`The answer first changed at step ${c} (from step ${c - 1}): before "${answerAt(k, c - 1)}"; after "${answerAt(k, c)}".`), r.text);
    const row = (step: number) => r.text.split('\n').find((l) => l.startsWith(`| ${step} |`));
    const rewards = [0, 1, 2].map((t) => rewardOf('train', k, 7, t));
    const mean = rewards.reduce((a, b) => a + b, 0) / 3;
    assert.equal(row(7), `| 7 | 3 | ${rewards.join(', ')} | ${Number(mean.toPrecision(4))} | ${answerAt(k, 7)} | ${7 === c ? 'yes' : ''} |`);
    assert.match(row(c)!, /\| yes \|$/);
    assert.equal(r.text.split('\n').filter((l) => / yes \|$/.test(l)).length, 1);
  });

  it('takes another key and the split; an unknown scenario lists those it saw', async () => {
    const r = await runTool(host(), tool, { run: run.history, scenario: 'task-0', key: 'task', split: 'val' });
    assert.match(r.text, /split "val"/);
    assert.match(r.text, /60 rollouts at 20 of 20 step files read/);
    const none = await runTool(host(), tool, { run: run.modelDir, scenario: 'no-such-scenario' });
    assert.equal(none.isError, false);
    assert.match(none.text, /was found in none of the 40 step files read\.\nScenarios seen there .*"scenario-00"/);
  });

  it('refuses a run outside the read roots by name, and a bad input by field', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-scenario-root-'));
    try {
      const r = await runTool(host([other]), tool, { run: run.modelDir, scenario: scenarioId(0) });
      assert.equal(r.isError, true);
      assert.match(r.text, /is outside the folders this server reads .*: not read/);
      const bad = await runTool(host(), tool, { run: run.modelDir });
      assert.equal(bad.isError, true);
      assert.match(bad.text, /- scenario: required/);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('cuts a long history to 60 steps around the first change and says so', async () => {
    const long = fs.mkdtempSync(path.join(dir, 'long-'));
    const big = await writeArtRun(long, { splits: { train: 75 }, scenarios: 2, groupSize: 1 });
    const r = await runTool(host(), tool, { run: big.modelDir, scenario: scenarioId(1) });
    const rows = r.text.split('\n').filter((l) => /^\| \d+ \|/.test(l));
    assert.equal(rows.length, 60);
    assert.match(r.text, /Showing 60 of 75 steps \(the first ten, five either side of the first change, then the newest\)/);
    assert.ok(rows.some((l) => l.startsWith(`| ${changeStep(1)} |`)));
    assert.ok(rows.at(-1)!.startsWith('| 75 |'));
  });
});
