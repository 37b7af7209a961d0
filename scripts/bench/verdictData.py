"""Writes a large ART step file as JSONL for `npm run bench` (the verdict pass), with Python's json
(an independent writer: not svc's code). One TrajectoryGroup per line, as ART's
model_dump(mode="json") gives it, in the shapes the verdicts read (src/files/verdicts.ts):

- groups of 8 legacy trajectories (system, user, one assistant Choice) whose choices carry vLLM's
  prompt_token_ids and token_ids and OpenAI logprobs.content, one entry per token with its text,
  logprob and 2 top alternatives; 100 to 400 tokens a choice;
- in each such group two members at the group's mean reward (zero advantage);
- one group in 10 without reward variance, one in 20 with a member whose choice has no logprobs,
  one in 10 of exchanges (ART 2026: token_ids, compact_logprobs, compact_top_logprobs), one in 50
  with a rollout that raised (an exception).

    python3 scripts/bench/verdictData.py OUT.jsonl MIB [SEED]

Writes OUT.jsonl.tmp and renames it when at least MIB MiB are written.
"""
import json
import os
import random
import sys

out, mib = sys.argv[1], float(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 30)
WORDS = [w for w in (
    "the of and to in is that for it as with was on be by this are or from at an which have not "
    "answer step first then so we can use value total sum number each two three four five result "
    "therefore check equation x y z solve compute because since given let find since thus hence"
).split()]
SYSTEM = {"role": "system", "content": "You are a careful assistant. Think step by step, then answer."}


def rid():
    return "".join(rng.choice("0123456789abcdef") for _ in range(24))


def tokens(n):
    ids = [rng.randrange(151_000) for _ in range(n)]
    words = [(" " if i else "") + rng.choice(WORDS) for i in range(n)]
    lps = [-rng.expovariate(3.0) for _ in range(n)]
    return ids, words, lps


def choice(n, form="content"):
    ids, words, lps = tokens(n)
    c = {"finish_reason": "stop", "index": 0, "logprobs": None,
         "message": {"content": "".join(words), "refusal": None, "role": "assistant", "annotations": None,
                     "audio": None, "function_call": None, "tool_calls": None}}
    if form == "content":
        c["logprobs"] = {"content": [
            {"token": w, "bytes": None, "logprob": lp,
             "top_logprobs": [{"token": w, "bytes": None, "logprob": lp},
                              {"token": " " + rng.choice(WORDS), "bytes": None, "logprob": lp - rng.expovariate(1.0)}]}
            for w, lp in zip(words, lps)], "refusal": None}
    elif form == "compact":
        c["compact_logprobs"] = lps
        c["compact_top_logprobs"] = {"token_ids": [[t, rng.randrange(151_000)] for t in ids],
                                     "logprobs": [[lp, lp - rng.expovariate(1.0)] for lp in lps]}
        c["logprobs_mode"] = "processed_logprobs"
    if form != "none":
        c["prompt_token_ids"] = [rng.randrange(151_000) for _ in range(rng.randrange(40, 120))]
        c["token_ids"] = ids
    return c


def trajectory(reward, items):
    return {"messages_and_choices": items, "tools": None, "additional_histories": [], "reward": reward,
            "initial_policy_version": None, "final_policy_version": None, "metrics": {"tokens": 0}, "auto_metrics": {},
            "metadata": {"id": rid()}, "logs": []}


def question():
    return {"role": "user", "content": "Question " + rid() + ": " + " ".join(rng.choice(WORDS) for _ in range(rng.randrange(30, 90)))}


def exchange(reward, c):
    response = {"id": "chatcmpl-" + rid(), "object": "chat.completion", "created": 0, "model": "policy", "choices": [c],
                "usage": {"prompt_tokens": len(c.get("prompt_token_ids", [])), "completion_tokens": len(c.get("token_ids", [])), "total_tokens": 0}}
    response["prompt_token_ids"] = c.pop("prompt_token_ids")
    x = {"request": {"model": "policy", "messages": [SYSTEM, question()]}, "response": response, "model": "policy",
         "start_time": "2026-11-27T08:00:00Z", "end_time": "2026-11-27T08:00:01Z"}
    t = trajectory(reward, [])
    del t["messages_and_choices"]
    t["exchanges"] = {"chat_completions": [x]}
    return t


EXCEPTION = {"type": "TimeoutError", "message": "the judge timed out", "traceback": "Traceback (most recent call last):\n  ...\nTimeoutError: the judge timed out\n"}


def group(g):
    n = 8
    if g % 10 == 3:
        rewards = [0.5] * n
    else:
        # Six varied rewards and two at their mean: those two have zero advantage.
        six = [rng.randrange(0, 5) / 4 for _ in range(6)]
        if len(set(six)) == 1:
            six[0] = 1.0 - six[0] if six[0] != 0.5 else 1.0
        m = sum(six) / 6
        rewards = six + [m, m]
    ts = []
    for i, r in enumerate(rewards):
        length = rng.randrange(100, 400)
        if g % 10 == 7:
            ts.append(exchange(r, choice(length, "compact")))
        else:
            form = "none" if (g % 20 == 5 and i == 0) else "content"
            ts.append(trajectory(r, [SYSTEM, question(), choice(length, form)]))
    grp = {"trajectories": ts, "exceptions": [EXCEPTION] if g % 50 == 11 else [], "metadata": {"step": 30, "group": g}, "metrics": {}, "logs": []}
    return grp


target = mib * 1024 * 1024
written = 0
g = 0
with open(out + ".tmp", "w", encoding="utf-8") as f:
    while written < target:
        line = json.dumps(group(g), ensure_ascii=False, separators=(",", ":")) + "\n"
        f.write(line)
        written += len(line.encode("utf-8"))
        g += 1
os.replace(out + ".tmp", out)
print(json.dumps({"groups": g, "bytes": written}))
