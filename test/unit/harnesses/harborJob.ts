// A Harbor job folder written the way Harbor writes one, by Python's json from plain dicts whose
// field names are taken from Harbor's pydantic models (harbor/models/trajectories/*.py: Trajectory,
// Agent, Step, ToolCall, Observation, ObservationResult, SubagentTrajectoryRef, Metrics,
// FinalMetrics, ContentPart; harbor/models/trial/result.py: TrialResult with verifier_result.rewards
// and exception_info), never by our reader. Layout: <job>/<trial>/agent/trajectory.json beside
// <trial>/result.json; one trial continues in a second file (continued_trajectory_ref, its first
// steps copied context), one has an embedded subagent, one a subagent in its own file, one raised.
import { execFileSync } from 'node:child_process';

export const HARBOR_JOB_PY = String.raw`
import json, os, sys
job = sys.argv[1]
V = "ATIF-v1.7"
def write(p, v):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        json.dump(v, f, indent=2)
agent = {"name": "terminus-2", "version": "2.0.0", "model_name": "hosted_vllm/policy",
         "tool_definitions": [{"type": "function", "function": {"name": "bash", "description": "Run a command", "parameters": {"type": "object", "properties": {"cmd": {"type": "string"}}}}}]}
def sys_step(i): return {"step_id": i, "timestamp": "2026-11-27T10:00:00Z", "source": "system", "message": "You are a terminal agent."}
def user_step(i, text): return {"step_id": i, "timestamp": "2026-11-27T10:00:01Z", "source": "user", "message": text}
def agent_step(i, text, calls, results, tokens=True, copied=None):
    s = {"step_id": i, "timestamp": "2026-11-27T10:00:02Z", "source": "agent", "model_name": "hosted_vllm/policy",
         "message": text, "reasoning_content": "think %d" % i,
         "tool_calls": [{"tool_call_id": c, "function_name": "bash", "arguments": {"cmd": "ls %s" % c}} for c in calls],
         "observation": {"results": [{"source_call_id": c, "content": "out of %s" % c} for c in results]},
         "metrics": {"prompt_tokens": 100 + i, "completion_tokens": 3, "cached_tokens": 10, "cost_usd": 0.001}}
    if tokens:
        s["metrics"].update({"prompt_token_ids": [1, 2, i], "completion_token_ids": [7, 8, 9], "logprobs": [-0.1, -0.2, -0.3]})
    if copied is not None:
        s["is_copied_context"] = copied
    if not calls:
        del s["tool_calls"]
        del s["observation"]
    return s
def final(n): return {"total_prompt_tokens": 300, "total_completion_tokens": 9, "total_cached_tokens": 30, "total_cost_usd": 0.003, "total_steps": n}
def result(task, trial, rewards=None, exc=None):
    r = {"id": "00000000-0000-0000-0000-000000000000", "task_name": task, "trial_name": trial, "trial_uri": "file://" + os.path.join(job, trial),
         "agent_info": {"name": "terminus-2", "version": "2.0.0"}, "agent_result": {"n_input_tokens": 300, "n_cache_tokens": 30, "n_output_tokens": 9, "cost_usd": 0.003},
         "verifier_result": {"rewards": rewards} if rewards is not None else None, "exception_info": exc,
         "started_at": "2026-11-27T10:00:00Z", "finished_at": "2026-11-27T10:05:00Z"}
    write(os.path.join(job, trial, "result.json"), r)

# Trial 1: task-a, reward 1, an embedded subagent, continued in a second file.
child = {"schema_version": V, "trajectory_id": "traj_child_1", "agent": {"name": "searcher", "version": "1.0"},
         "steps": [user_step(1, "find the file"), agent_step(2, "found it in /srv", [], [], tokens=False)],
         "final_metrics": {"total_steps": 2}}
t1 = {"schema_version": V, "session_id": "s1", "trajectory_id": "traj_1", "agent": agent,
      "steps": [sys_step(1), user_step(2, "Fix the build of task a."),
                agent_step(3, "Let me look.", ["call_1", "call_2"], ["call_2", "call_1"]),
                {"step_id": 4, "source": "agent", "message": "Delegating.", "llm_call_count": 0,
                 "tool_calls": [{"tool_call_id": "call_3", "function_name": "delegate", "arguments": {"q": "find"}}],
                 "observation": {"results": [{"source_call_id": "call_3", "content": "subagent finished", "subagent_trajectory_ref": [{"trajectory_id": "traj_child_1", "session_id": "s1"}]}]}}],
      "final_metrics": final(4), "continued_trajectory_ref": "trajectory.cont-1.json", "subagent_trajectories": [child]}
write(os.path.join(job, "task-a__abc", "agent", "trajectory.json"), t1)
cont = {"schema_version": V, "session_id": "s1", "trajectory_id": "traj_1_cont", "agent": agent,
        "steps": [dict(sys_step(1), is_copied_context=True), dict(user_step(2, "Fix the build of task a."), is_copied_context=True),
                  agent_step(3, "Summary so far; continuing.", [], []),
                  agent_step(4, "Done: the build passes.", [], [])],
        "final_metrics": final(6)}
write(os.path.join(job, "task-a__abc", "agent", "trajectory.cont-1.json"), cont)
result("task-a", "task-a__abc", {"reward": 1.0, "tests_passed": 3})

# Trial 2: task-a, reward 0, a subagent in its own file, a message as content parts.
sub = {"schema_version": V, "session_id": "s2-sub", "trajectory_id": "traj_sub_2", "agent": {"name": "reader", "version": "1.0"},
       "steps": [user_step(1, "read README"), agent_step(2, "It says hello.", [], [], tokens=False)]}
write(os.path.join(job, "task-a__def", "agent", "subagent-1.json"), sub)
t2 = {"schema_version": V, "session_id": "s2", "agent": agent,
      "steps": [user_step(1, "Fix the build of task a."),
                {"step_id": 2, "source": "agent", "message": [{"type": "text", "text": "Looking at the screenshot."}, {"type": "image", "source": {"media_type": "image/png", "path": "images/shot.png"}}],
                 "tool_calls": [{"tool_call_id": "c1", "function_name": "read", "arguments": {}}],
                 "observation": {"results": [{"source_call_id": "c1", "content": "read done", "subagent_trajectory_ref": [{"trajectory_id": "traj_sub_2", "trajectory_path": "subagent-1.json"}]}]}}],
      "final_metrics": final(2)}
write(os.path.join(job, "task-a__def", "agent", "trajectory.json"), t2)
result("task-a", "task-a__def", {"reward": 0.0, "tests_passed": 0})

# Trial 3: task-b raised before the verifier ran.
t3 = {"schema_version": V, "session_id": "s3", "agent": agent, "steps": [user_step(1, "Task b."), agent_step(2, "Trying.", [], [])]}
write(os.path.join(job, "task-b__ghi", "agent", "trajectory.json"), t3)
result("task-b", "task-b__ghi", None, {"exception_type": "AgentTimeoutError", "exception_message": "Agent timed out after 600s", "exception_traceback": "Traceback ...", "occurred_at": "2026-11-27T10:04:00Z"})

# Trial 4: task-b, reward 0.5, an observation without a tool call (a terminal agent's screen).
t4 = {"schema_version": V, "session_id": "s4", "agent": agent,
      "steps": [user_step(1, "Task b."), {"step_id": 2, "source": "agent", "message": "Reading the screen.", "observation": {"results": [{"content": "$ ls\nREADME"}]}}]}
write(os.path.join(job, "task-b__jkl", "agent", "trajectory.json"), t4)
result("task-b", "task-b__jkl", {"reward": 0.5, "tests_passed": 1})
write(os.path.join(job, "result.json"), {"id": "job", "n_total_trials": 4})
write(os.path.join(job, "config.json"), {"job_name": os.path.basename(job)})
`;

/** Writes the job folder at `dir` (created). */
export function writeHarborJob(dir: string): void {
  execFileSync('python3', ['-c', HARBOR_JOB_PY, dir]);
}
