"""Harness throughput: meta-tool steps per second with the scripted policy, and the harness's share of the time.

Episodes of authored tasks run through `harness.run_episode` with a scripted policy that, like an agent that explores,
first calls `list_services`, then `list_tools` and `describe_tool` before the first use of each service and tool, then
the task's reference calls (with seeded perturbations: dropped steps, corrupted arguments, extra reads), then answers.
So every step goes through the four meta-tools, the Arguments contract, the copy-on-write transition, the joint-state
hash recorded after every step, and the rubric scoring at the end.

The time spent inside the services' tool functions is measured by wrapping them; everything else in the episode is the
harness (dispatch, argument checks, views and commits, hashing, trajectory records, policy, scoring). Prints one JSON
line: `steps_per_second`, `harness_share` (of episode wall time) and its parts.

Run: python benchmarks/bench_harness.py [--episodes 200] [--tasks 4]
"""
from __future__ import annotations
import argparse, functools, json, platform, time
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.task import materialize_s0
import compoworld_nb.harness as H

TIMERS = {"tool": 0.0, "hash": 0.0, "score": 0.0}


def timed(key, fn):
    @functools.wraps(fn)
    def w(*a, **kw):
        t0 = time.perf_counter()
        try: return fn(*a, **kw)
        finally: TIMERS[key] += time.perf_counter() - t0
    return w


class ExploringScripted(H.ScriptedPolicy):
    "The scripted reference (with perturbations) preceded by discovery: list_services, then list_tools / describe_tool on first use."
    def reset(self, task, seed):
        super().reset(task, seed)
        plan, seen_s, seen_t = [{"meta": "list_services", "args": {}}], set(), set()
        for c in self.plan:
            tool = c.get("tool")
            if tool:
                svc = tool.split(".")[0]
                if svc not in seen_s: seen_s.add(svc); plan.append({"meta": "list_tools", "args": {"service": svc}})
                if tool not in seen_t: seen_t.add(tool); plan.append({"meta": "describe_tool", "args": {"tool": tool}})
            plan.append(c)
        self.plan = plan

    def act(self, messages):
        if self.i < len(self.plan) and "meta" in self.plan[self.i]:
            c = self.plan[self.i]; self.i += 1
            return {"role": "assistant", "content": "", "tool_calls": [H._tc(self.i, c["meta"], c["args"])]}
        return super().act(messages)


def main(episodes: int = 200, n_tasks: int = 4, seed: int = 0) -> dict:
    library, world = default_library()
    tasks, _ = generate_tasks(n_tasks, seed=seed, library=library, world_factory=world, k=(3, 5), l_min=4, l_max=12,
                              n_distractors=2, progress=False, max_attempts=40 * n_tasks)
    s0s = {t.id: materialize_s0(t, library) for t in tasks}
    for svc in library.values():                                    # time spent inside the tools themselves
        for t in svc.tools.values(): t.fn = timed("tool", t.fn)
    H.joint_hash = timed("hash", H.joint_hash)                      # the per-step joint-state hash (TaskEnvironment._step)
    H.TaskEnvironment._criteria = timed("score", H.TaskEnvironment._criteria)  # the rubric at the end of the episode
    for t in tasks: H.run_episode(t, ExploringScripted(0.3), library, seed=0, s0=s0s[t.id])  # warm caches (as a group would)
    for k in TIMERS: TIMERS[k] = 0.0

    steps, t0 = 0, time.perf_counter()
    for i in range(episodes):
        t = tasks[i % len(tasks)]
        tr = H.run_episode(t, ExploringScripted(0.3), library, seed=i, max_steps=60, s0=s0s[t.id])
        steps += len(tr.steps)
    wall = time.perf_counter() - t0
    harness = wall - TIMERS["tool"]
    names = {}
    for tr_task in tasks: names.update({s: 1 for s in tr_task.services + tr_task.distractors})
    return {"bench": "bench_harness", "episodes": episodes, "tasks": len(tasks), "steps": steps,
            "steps_per_second": round(steps / wall, 1), "seconds": round(wall, 3), "ms_per_step": round(1e3 * wall / steps, 3),
            "harness_share": round(harness / wall, 3), "tool_share": round(TIMERS["tool"] / wall, 3),
            "hash_share": round(TIMERS["hash"] / wall, 3), "scoring_share": round(TIMERS["score"] / wall, 3),
            "other_harness_share": round((harness - TIMERS["hash"] - TIMERS["score"]) / wall, 3),
            "services_per_env": round(sum(len(t.services) + len(t.distractors) for t in tasks) / len(tasks), 1),
            "python": platform.python_version()}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=200)
    ap.add_argument("--tasks", type=int, default=4)
    a = ap.parse_args()
    print(json.dumps(main(a.episodes, a.tasks)))
