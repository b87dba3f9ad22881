"""Scoring speed: 10 rubric criteria against 10,000 real final joint states of K=5 tasks, plus every reward of every group.

The final states are real: each is what a perturbed scripted rollout (`ScriptedPolicy(perturb=0.3)`, a different seed per
rollout: dropped steps, corrupted arguments, extra reads) leaves behind when its calls run through the composed
environment from the task's shared s0. Building them is not timed. The timed part is `harness.score_finals` (the (N, M)
pass matrix, 10 criteria per task: the task's own, padded with
extra `unchanged` and `count_eq` checks when the author wrote fewer) followed, for every group of N=8 rollouts, by
every registered reward, GRPO advantages, p, w and alpha (`rewards.batch_rewards`, all groups of a task in one call;
checked against `reward_table` / `group_rewards`). A sample of rows is checked
against `Rubric.score` (the one-state-at-a-time scorer), whose speed is reported as the baseline.

Prints one JSON line: `seconds_10k_x10` (goal < 1).
Run: python benchmarks/bench_scoring.py [--states 10000] [--tasks 4]
"""
from __future__ import annotations
import argparse, json, platform, time
import numpy as np
from compoworld_nb.author import default_library, generate_tasks
from compoworld_nb.task import materialize_s0, task_env
from compoworld_nb.rubric import Rubric
from compoworld_nb.policies import ScriptedPolicy
from compoworld_nb.harness import score_finals
from compoworld_nb import rewards as R


def final_states(task, library, n: int, seed0: int = 0):
    "n final joint states of perturbed scripted rollouts of `task`, all from one shared s0, and the reference answer or None."
    env, s0 = task_env(task, library), materialize_s0(task, library)
    finals, answers = [], []
    for i in range(n):
        p = ScriptedPolicy(0.3); p.reset(task, seed0 + i)
        js = s0
        for c in p.plan:
            if "tool" in c: js, _ = env.call(js, c["tool"], c["arguments"])
        finals.append(js); answers.append(task.answer if i % 2 == 0 else None)
    return s0, finals, answers


def ten_criteria(task, library, m: int, seed: int = 0) -> Rubric:
    "The task's own criteria, padded to `m` with extra checks of the same kinds the author writes: `unchanged` on a record of a service in C, and a `count_eq` on a collection as it is in the goal state g."
    import random
    from compoworld_nb.probe import probe
    rows = [dict(c) for c in task.rubric[:m]]
    rng, (g, _) = random.Random(seed), probe(task, library)
    i = 0
    while len(rows) < m:
        svc = task.services[i % len(task.services)]; st = g[svc]
        col = type(st).collection_names()[(i // len(task.services)) % len(type(st).collection_names())]
        if i % 2 == 0:
            rid = rng.choice(sorted(getattr(st, col)))
            rows.append({"id": f"pad{i}", "kind": "unchanged", "service": svc, "collection": col, "where": {"id": rid}, "field": None})
        else:
            rows.append({"id": f"pad{i}", "kind": "state", "service": svc, "collection": col, "op": "count_eq", "value": len(getattr(st, col))})
        i += 1
    return Rubric.load(rows)


def main(n_states: int = 10_000, n_tasks: int = 4, m: int = 10, group: int = 8, seed: int = 0) -> dict:
    library, world = default_library()
    t0 = time.perf_counter()
    tasks, _ = generate_tasks(n_tasks, seed=seed, library=library, world_factory=world, k=5, l_min=7, l_max=12,
                              n_distractors=1, progress=False, max_attempts=40 * n_tasks)
    assert tasks, "no K=5 task admitted"
    per = -(-n_states // len(tasks))
    data = []
    for t in tasks:
        rub = ten_criteria(t, library, m)
        data.append((t, rub, *final_states(t, library, per)))
    total = sum(len(f) for *_, f, _ in data)
    build_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    mats, n_groups = [], 0
    for t, rub, s0, finals, answers in data:
        b = score_finals(rub, finals, s0, answers)
        g = len(b) // group
        out = R.batch_rewards(b[:g * group].reshape(g, group, m), "completion_focused", lam=0.01, delta=1e-6)
        n_groups += g
        mats.append(b)
    seconds = time.perf_counter() - t0
    for b in mats[:1]:                                   # the batched rewards equal the per-group ones
        one, tab = R.group_rewards(b[:group], lam=0.01, delta=1e-6), R.reward_table(b[:group], lam=0.01)
        ref = R.batch_rewards(b[:group][None], lam=0.01, delta=1e-6)
        assert np.allclose(ref["advantages"][0], one["advantages"], atol=1e-12)
        assert all(np.allclose(ref["rewards"][n][0], tab[n], atol=1e-12) for n in tab)

    # correctness and the baseline: Rubric.score, one state at a time, on a sample of every task's states
    sample, t0 = 0, time.perf_counter()
    for (t, rub, s0, finals, answers), b in zip(data, mats):
        idx = np.linspace(0, len(finals) - 1, 60).astype(int)
        for i in idx:
            assert rub.score(finals[i], s0, answers[i]) == b[i].tolist(), (t.id, i)
        sample += len(idx)
    base_per_state = (time.perf_counter() - t0) / sample
    pass_rates = [float(b.mean()) for b in mats]
    return {"bench": "bench_scoring", "states": total, "criteria": m, "tasks": len(tasks), "K": 5, "groups": n_groups,
            "group_size": group, "seconds_10k_x10": round(seconds * 10_000 / total, 3), "seconds_measured": round(seconds, 3),
            "goal_seconds": 1.0, "meets_goal": seconds * 10_000 / total < 1.0,
            "baseline_rubric_score_seconds_10k_x10": round(base_per_state * 10_000, 2),
            "speedup_vs_rubric_score": round(base_per_state * total / seconds, 1), "checked_rows": sample,
            "own_criteria_per_task": [min(len(t.rubric), m) for t, *_ in data], "mean_pass_rate": round(float(np.mean(pass_rates)), 3),
            "build_seconds_untimed": round(build_s, 1), "python": platform.python_version()}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--states", type=int, default=10_000)
    ap.add_argument("--tasks", type=int, default=4)
    a = ap.parse_args()
    print(json.dumps(main(a.states, a.tasks)))
