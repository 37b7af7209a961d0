// svc_summarize_trajectories on ATIF (issue 32 item 2): a Harbor job folder (written by Python's
// json, test/fixtures/harborJob.ts) summarized per trial (scores, steps, tool calls, tokens, cost,
// exceptions) and per task, then as the ART groups Convert to ART writes; a subagent file named
// outside the read roots is not read.
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findTool, runTool } from '../../../src/agents/core/tools';
import { readHost } from '../agents/readHost';
import { writeHarborJob } from '../../fixtures/harborJob';

describe('agents: svc_summarize_trajectories reads ATIF (Harbor) trajectories and job folders', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-atif-summary-'));
  const root = path.join(dir, 'ws');
  const job = path.join(root, 'jobs', 'job-1');
  const host = readHost([root], root);
  before(() => writeHarborJob(job));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const tool = findTool('svc_summarize_trajectories')!;

  it('summarizes a job folder per trial and per task, then as ART groups', async () => {
    const r = await runTool(host, tool, { file: job });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /ATIF \(Harbor\) job folder, 4 trials of 2 tasks\. Scores \(verifier_result\.rewards in each trial's result\.json\): reward, tests_passed; "reward" is the reward below\./);
    assert.match(r.text, /Failures: 1 trial raised \(task-b__ghi: AgentTimeoutError\); 0 without a result\.json\./);
    // trial, task, reward, tests_passed, steps, tool calls, prompt tokens, completion tokens, cost, exception, subagents
    assert.match(r.text, /\| task-a__abc \| task-a \| 1 \| 3 \| 6 \| 3 \| 300 \| 9 \| 0\.003 \| {2}\| 1 \|/);
    assert.match(r.text, /\| task-b__ghi \| task-b \| {2}\| {2}\| 2 \| 0 \| 300 \| 9 \| 0\.003 \| AgentTimeoutError \| 0 \|/);
    assert.match(r.text, /\| task-a \| 2 \| 0\.5 \| 0 \| 1 \| 0 \|/);
    assert.match(r.text, /as ART groups \(one per task, reward "reward"\): JSONL, [^,]+, 2 groups, 3 trajectories\./);
    assert.match(r.text, /Validation: no problems/);
  });

  it('reads a lone trajectory.json with its trial\'s result.json', async () => {
    const r = await runTool(host, tool, { file: path.join(job, 'task-b__jkl', 'agent', 'trajectory.json') });
    assert.strictEqual(r.isError, false, r.text);
    assert.match(r.text, /ATIF \(Harbor\) trajectory file, 1 trial of 1 task\./);
  });

  it('does not read a subagent file outside the read roots, and quotes nothing of it', async () => {
    const secret = path.join(dir, 'secret.json');
    fs.writeFileSync(secret, 'not json: TOPSECRET');
    const trial = path.join(root, 'jobs', 'job-2', 't__1');
    fs.mkdirSync(path.join(trial, 'agent'), { recursive: true });
    fs.writeFileSync(
      path.join(trial, 'agent', 'trajectory.json'),
      JSON.stringify({ schema_version: 'ATIF-v1.7', agent: { name: 'a', version: '1' }, steps: [{ step_id: 1, source: 'agent', message: 'x', tool_calls: [{ tool_call_id: 'c', function_name: 'f', arguments: {} }], observation: { results: [{ source_call_id: 'c', subagent_trajectory_ref: [{ trajectory_id: 's', trajectory_path: secret }] }] } }] }),
    );
    const r = await runTool(host, tool, { file: path.join(root, 'jobs', 'job-2') });
    assert.strictEqual(r.isError, true, r.text);
    assert.match(r.text, /secret\.json: is outside the folders that may be read: not read/);
    assert.doesNotMatch(r.text, /TOPSECRET/);
  });
});
