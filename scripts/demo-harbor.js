// A small Harbor job for the demo workspace: `harbor/jobs/<job>/<trial>/agent/trajectory.json`
// (ATIF-v1.7) beside each trial's result.json (the verifier's rewards), as Harbor writes them.
// Two tasks, two trials each: tool calls and their results, reasoning, token ids and logprobs on the
// agent's turns, one embedded subagent, one trial that raised. Opens in the Trajectory Viewer
// (the job folder: svc: Open Harbor Job in Trajectory Viewer) and converts with svc: Convert to ART
// Trajectories…
//
//   const { writeHarborDemo } = require('./demo-harbor');
//   const job = writeHarborDemo(dir); // the job folder, relative to dir
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const JOB = path.join('harbor', 'jobs', '2026-11-27__09-30-00');
const AGENT = {
  name: 'terminus-2',
  version: '2.0.0',
  model_name: 'hosted_vllm/agent-7b',
  tool_definitions: [{ type: 'function', function: { name: 'bash', description: 'Run a shell command in the task container', parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } } }],
};

function write(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + '\n');
}

let tokenBase = 1000;
/** An agent step with the server's token ids and logprobs (what ART needs to train on it). */
function agentStep(id, text, reasoning, calls, results) {
  const n = 4 + (id % 3);
  const completion = Array.from({ length: n }, (_, i) => tokenBase + i);
  tokenBase += n;
  const step = {
    step_id: id,
    timestamp: `2026-11-27T09:3${id}:00Z`,
    source: 'agent',
    model_name: 'hosted_vllm/agent-7b',
    message: text,
    reasoning_content: reasoning,
    metrics: { prompt_tokens: 180 + 40 * id, completion_tokens: n, cached_tokens: 120, cost_usd: 0.0004 * id, prompt_token_ids: [1, 2, 3, id], completion_token_ids: completion, logprobs: completion.map((_, i) => -0.05 - 0.1 * ((i * 7 + id) % 5)) },
  };
  if (calls.length) {
    step.tool_calls = calls.map(([cid, cmd]) => ({ tool_call_id: cid, function_name: 'bash', arguments: { cmd } }));
    step.observation = { results: results.map(([cid, content]) => ({ source_call_id: cid, content })) };
  }
  return step;
}

function trial(dir, name, task, steps, rewards, exception, extra = {}) {
  const n = steps.filter((s) => s.source === 'agent').length;
  write(path.join(dir, name, 'agent', 'trajectory.json'), {
    schema_version: 'ATIF-v1.7',
    session_id: `${name}-session`,
    trajectory_id: name,
    agent: AGENT,
    steps,
    final_metrics: { total_prompt_tokens: 600 * n, total_completion_tokens: 5 * n, total_cached_tokens: 120 * n, total_cost_usd: 0.001 * n, total_steps: steps.length },
    ...extra,
  });
  write(path.join(dir, name, 'result.json'), {
    task_name: task,
    trial_name: name,
    agent_info: { name: AGENT.name, version: AGENT.version },
    agent_result: { n_input_tokens: 600 * n, n_cache_tokens: 120 * n, n_output_tokens: 5 * n, cost_usd: 0.001 * n },
    verifier_result: rewards ? { rewards } : null,
    exception_info: exception ?? null,
    started_at: '2026-11-27T09:30:00Z',
    finished_at: '2026-11-27T09:36:00Z',
  });
}

const user = (id, text) => ({ step_id: id, timestamp: '2026-11-27T09:30:00Z', source: 'user', message: text });
const system = { step_id: 1, timestamp: '2026-11-27T09:30:00Z', source: 'system', message: 'You are an agent in a Linux container. Use the bash tool; say DONE when the task is complete.' };

/** Writes the job under `dir`; returns its folder relative to `dir`. */
function writeHarborDemo(dir) {
  const job = path.join(dir, JOB);
  const fix = 'The build of /app fails: make it pass `make test`.';
  trial(job, 'fix-build__a1B2c3', 'fix-build', [
    { ...system },
    user(2, fix),
    agentStep(3, 'Let me run the tests first.', 'Start from the failing command.', [['call_1', 'cd /app && make test 2>&1 | tail -5'], ['call_2', 'cat /app/Makefile']], [['call_2', 'test:\n\tpython -m pytest -q'], ['call_1', 'ModuleNotFoundError: No module named yaml']]),
    agentStep(4, 'A dependency is missing; installing it.', 'pyyaml is imported as yaml.', [['call_3', 'pip install pyyaml && make test']], [['call_3', '12 passed in 0.84s']]),
    agentStep(5, 'DONE: `make test` passes (12 tests).', 'Verified.', [], []),
  ], { reward: 1, tests_passed: 12 });
  trial(job, 'fix-build__d4E5f6', 'fix-build', [
    { ...system },
    user(2, fix),
    agentStep(3, 'I will ask a helper to look for the error.', 'Delegate the search.', [['call_1', 'delegate: find why make test fails']], [['call_1', 'The helper found a syntax error in app/config.py (it was not the cause).']]),
    agentStep(4, 'Fixed the syntax. DONE.', 'Assume that was it.', [], []),
  ], { reward: 0, tests_passed: 3 }, null, {
    subagent_trajectories: [{ schema_version: 'ATIF-v1.7', trajectory_id: 'helper-1', agent: { name: 'searcher', version: '1.0' }, steps: [user(1, 'Find why make test fails in /app.'), { step_id: 2, source: 'agent', message: 'app/config.py line 3 has a syntax error.' }] }],
  });
  // The subagent is referenced from the delegating call's result.
  const file = path.join(job, 'fix-build__d4E5f6', 'agent', 'trajectory.json');
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  doc.steps[2].observation.results[0].subagent_trajectory_ref = [{ trajectory_id: 'helper-1' }];
  write(file, doc);
  const count = 'How many lines of /data/log.txt contain ERROR? Write the number to /out/answer.txt.';
  trial(job, 'count-errors__g7H8i9', 'count-errors', [
    { ...system },
    user(2, count),
    agentStep(3, 'Counting.', 'grep -c counts matching lines.', [['call_1', 'grep -c ERROR /data/log.txt > /out/answer.txt; cat /out/answer.txt']], [['call_1', '17']]),
    agentStep(4, 'DONE: 17 lines.', 'Written.', [], []),
  ], { reward: 1, tests_passed: 1 });
  trial(job, 'count-errors__j0K1l2', 'count-errors', [
    { ...system },
    user(2, count),
    agentStep(3, 'Reading the whole log first.', 'It may be large.', [['call_1', 'cat /data/log.txt']], [['call_1', '[… 40,000 lines …]']]),
  ], null, { exception_type: 'AgentTimeoutError', exception_message: 'Agent execution timed out after 600.0 seconds', exception_traceback: 'Traceback (most recent call last): …', occurred_at: '2026-11-27T09:40:00Z' });
  return JOB;
}

module.exports = { writeHarborDemo, HARBOR_DEMO_JOB: JOB };
