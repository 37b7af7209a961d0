// ATIF (Harbor) read into ART's shape (src/harnesses/atif.ts) and converted to an ART trajectory
// JSONL the upload accepts (src/harnesses/convert.ts). Fixtures: a Harbor job written by Python's
// json (harborJob.ts), and hostile files (unknown version, wrong field type, deep nesting, too
// large, a continuation loop).
import * as assert from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ATIF_LIMITS, readTrial, readTrials } from '../../../src/harnesses/atif';
import { atifToArtGroups, atifViewerGroups, convertToArt, readConverted } from '../../../src/harnesses/convert';
import { validateTrajectoryFile } from '../../../src/files';
import { writeHarborJob } from '../../fixtures/harborJob';

type Obj = Record<string, any>;

describe('harnesses: ATIF (Harbor) trajectories', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-atif-'));
  const job = path.join(dir, '2026-11-27__10-00-00');
  before(() => writeHarborJob(job));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const trialFile = (name: string) => path.join(job, name, 'agent', 'trajectory.json');

  it('reads a trial as one conversation: tool calls paired with their results, reasoning, token ids as a trainable choice, per-step metrics', async () => {
    const t = await readTrial(trialFile('task-a__abc'));
    const items = t.trajectory.messages_and_choices as Obj[];
    assert.deepStrictEqual(items.slice(0, 2).map((m) => [m.role, m.content]), [['system', 'You are a terminal agent.'], ['user', 'Fix the build of task a.']]);
    const choice = items[2]!;
    assert.strictEqual(choice.finish_reason, 'tool_calls');
    assert.deepStrictEqual(choice.token_ids, [7, 8, 9]);
    assert.deepStrictEqual(choice.prompt_token_ids, [1, 2, 3]);
    assert.deepStrictEqual(choice.compact_logprobs, [-0.1, -0.2, -0.3]);
    assert.strictEqual(choice.message.reasoning_content, 'think 3');
    assert.deepStrictEqual(choice.message.tool_calls.map((c: Obj) => [c.id, c.function.name, c.function.arguments]), [['call_1', 'bash', '{"cmd":"ls call_1"}'], ['call_2', 'bash', '{"cmd":"ls call_2"}']]);
    assert.deepStrictEqual({ ...choice.atif_metrics }, { prompt_tokens: 103, completion_tokens: 3, cached_tokens: 10, cost_usd: 0.001 });
    // Results come in the file's order, each paired by source_call_id.
    assert.deepStrictEqual(items.slice(3, 5).map((m) => [m.role, m.tool_call_id, m.content]), [['tool', 'call_2', 'out of call_2'], ['tool', 'call_1', 'out of call_1']]);
    assert.deepStrictEqual({ ...t.rewards }, { reward: 1, tests_passed: 3 });
    assert.strictEqual(t.task, 'task-a');
    assert.strictEqual((t.trajectory.metrics as Obj)['verifier/reward'], 1);
    assert.strictEqual((t.trajectory.metrics as Obj).total_steps, 6, 'final_metrics of the last file of the chain');
  });

  it('joins a continued trajectory once (its copied context is not repeated) and finds embedded and file subagents', async () => {
    const t = await readTrial(trialFile('task-a__abc'));
    const items = t.trajectory.messages_and_choices as Obj[];
    const texts = items.map((m) => (m.message ?? m).content);
    assert.strictEqual(texts.filter((x) => x === 'Fix the build of task a.').length, 1);
    assert.deepStrictEqual(texts.slice(-2), ['Summary so far; continuing.', 'Done: the build passes.']);
    assert.strictEqual((t.trajectory.metadata as Obj).atif_continuations, 1);
    assert.deepStrictEqual(t.subagents.map((s) => s.id), ['traj_child_1']);
    const delegated = items.find((m) => m.tool_call_id === 'call_3')!;
    assert.match(delegated.content, /subagent finished\n\[subagent trajectory traj_child_1 \(searcher\)/);
    const t2 = await readTrial(trialFile('task-a__def'));
    assert.deepStrictEqual(t2.subagents.map((s) => [s.id, (s.trajectory.messages_and_choices as Obj[]).length]), [['traj_sub_2', 2]]);
    // Content parts: the image is a reference to its file, never loaded.
    const parts = (t2.trajectory.messages_and_choices as Obj[])[1]!.content as Obj[];
    assert.deepStrictEqual(parts.map((p) => p.text), ['Looking at the screenshot.', '[image: images/shot.png, image/png]']);
  });

  it('reads a job folder: every trial, an observation without a tool call as the screen the agent read', async () => {
    const trials = await readTrials(job, { isDir: true });
    assert.deepStrictEqual(trials.map((t) => t.name), ['task-a__abc', 'task-a__def', 'task-b__ghi', 'task-b__jkl']);
    const screen = (trials[3]!.trajectory.messages_and_choices as Obj[]).at(-1)!;
    assert.deepStrictEqual([screen.role, screen.content, screen.atif_observation], ['user', '$ ls\nREADME', true]);
    const groups = (await atifViewerGroups(job, true)) as Obj[];
    assert.strictEqual(groups.length, 3, 'the trials, then the subagents of two trials');
    assert.deepStrictEqual(groups[0]!.trajectories.map((t: Obj) => t.reward), [1, 0, undefined, 0.5]);
    assert.deepStrictEqual(groups.slice(1).map((g) => g.metadata.subagents_of), ['task-a__abc', 'task-a__def']);
  });

  it('converts a job to ART groups per task, the reward a score the user picks; a trial that raised is the group\'s exception', async () => {
    const r = await atifToArtGroups(job, {});
    assert.deepStrictEqual(r.scores, ['reward', 'tests_passed']);
    const groups = r.groups as Obj[];
    assert.deepStrictEqual(groups.map((g) => [g.metadata.task_name, g.trajectories.map((t: Obj) => t.reward), (g.exceptions ?? []).length]), [['task-a', [1, 0], 0], ['task-b', [0.5], 1]]);
    assert.match(groups[1]!.exceptions[0].message, /task-b__ghi: Agent timed out/);
    assert.ok(r.lost.some((l) => /subagent trajectories/.test(l)), r.lost.join('; '));
    const byTests = await atifToArtGroups(job, { reward: 'tests_passed', groupBy: 'job' });
    assert.deepStrictEqual((byTests.groups as Obj[]).map((g) => g.trajectories.map((t: Obj) => t.reward)), [[3, 0, 1]]);
    await assert.rejects(atifToArtGroups(job, { reward: 'nope' }), /no trial has the score "nope"; the trials have reward, tests_passed/);
    await assert.rejects(atifToArtGroups(job, { groupBy: 'model' }), /groupBy "model" is not one of task, trial, job/);
  });

  it('writes an ART JSONL file the upload\'s validator accepts without a problem', async () => {
    const output = path.join(dir, 'converted.jsonl');
    const report = await convertToArt({ source: job, output });
    assert.deepStrictEqual([report.format, report.groups, report.trajectories, report.reward], ['ATIF (Harbor)', 2, 3, 'reward']);
    const summary = await validateTrajectoryFile(output);
    assert.deepStrictEqual(summary.problems, []);
    assert.strictEqual(summary.trajectories, 3);
    assert.strictEqual((await readConverted(output)).length, 2);
    // One trial's file converts too (its result.json beside the agent folder gives the reward).
    const one = await convertToArt({ source: trialFile('task-a__abc'), output: path.join(dir, 'one.jsonl') });
    assert.deepStrictEqual([one.groups, one.trajectories], [1, 1]);
    await assert.rejects(convertToArt({ source: path.join(job, 'config.json'), output: path.join(dir, 'x.jsonl') }), /is not a trajectory file of a known harness/);
  });

  describe('hostile and broken files', () => {
    const write = (name: string, v: unknown) => {
      const f = path.join(dir, 'bad', name);
      fs.mkdirSync(path.dirname(f), { recursive: true });
      fs.writeFileSync(f, typeof v === 'string' ? v : JSON.stringify(v));
      return f;
    };
    const minimal = (over: Obj = {}) => ({ schema_version: 'ATIF-v1.7', agent: { name: 'a', version: '1' }, steps: [{ step_id: 1, source: 'user', message: 'hi' }], ...over });

    it('an unknown schema_version is an error naming the file and the field', async () => {
      const f = write('v9.json', minimal({ schema_version: 'ATIF-v9.0' }));
      await assert.rejects(readTrial(f), (e: Error) => e.message === `${f}: schema_version: unknown ATIF version "ATIF-v9.0"; this reader knows ATIF-v1.0 to ATIF-v1.8`);
      const sub = write('subv.json', minimal({ subagent_trajectories: [minimal({ schema_version: 'v2', trajectory_id: 'x' })] }));
      await assert.rejects(readTrial(sub), /subagent_trajectories\[0\]\.schema_version: unknown ATIF version "v2"/);
    });

    it('a field of the wrong type names the step and field', async () => {
      const f = write('source.json', minimal({ steps: [{ step_id: 1, source: 'robot', message: 'x' }] }));
      await assert.rejects(readTrial(f), (e: Error) => e.message.startsWith(`${f}: steps[0].source: `));
      const g = write('call.json', minimal({ steps: [{ step_id: 1, source: 'agent', message: 'x', tool_calls: [{ tool_call_id: 'a', function_name: 5 }] }] }));
      await assert.rejects(readTrial(g), (e: Error) => e.message.startsWith(`${g}: steps[0].tool_calls[0].function_name: `));
    });

    it('deep nesting, a file over the size cap and a continuation loop are refused, not parsed or followed', async () => {
      const deep = write('deep.json', `{"schema_version":"ATIF-v1.7","agent":{"name":"a","version":"1"},"steps":[],"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
      await assert.rejects(readTrial(deep), /nested deeper than 512 levels/);
      const saved = ATIF_LIMITS.fileBytes;
      ATIF_LIMITS.fileBytes = 1024;
      try {
        const big = write('big.json', minimal({ notes: 'x'.repeat(4096) }));
        await assert.rejects(readTrial(big), /larger than 1 KiB: not read/);
      } finally {
        ATIF_LIMITS.fileBytes = saved;
      }
      const loop = write('loop.json', minimal({ continued_trajectory_ref: 'loop.json' }));
      await assert.rejects(readTrial(loop), /continued_trajectory_ref: continues in loop\.json, which the chain already read \(a loop\)/);
      const url = write('url.json', minimal({ continued_trajectory_ref: 'https://example.com/t.json' }));
      await assert.rejects(readTrial(url), /is not a file on this machine/);
    });

    it('a lone trajectory without a result.json has no score to convert with, and says so', async () => {
      const f = write('lone.json', minimal());
      await assert.rejects(convertToArt({ source: f, output: path.join(dir, 'lone.jsonl') }), /no score to use as the reward: no trial has a result\.json with verifier_result\.rewards/);
      assert.ok(!fs.existsSync(path.join(dir, 'lone.jsonl')));
    });
  });
});
