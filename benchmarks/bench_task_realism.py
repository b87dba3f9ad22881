"""How much the authored tasks look like real cross-service work (issue 20): one JSON line over N tasks at the defaults.

    python benchmarks/bench_task_realism.py [--n 200] [--seed 0]
    cd /work/base && PYTHONPATH=/work/base python /work/main/benchmarks/bench_task_realism.py   # the same figures for older code

Keys (goal in brackets): sentences_per_step (sentences of u per walk step, <= 0.6), step_like_share (share of sentences that
read like a step: "Find …", "Open …", "In the X, …", <= 0.4), goal_or_output_per_task (>= 3), output_share (tasks with an
`output` criterion, >= 0.3), multi_service_goal_share (tasks whose goal criteria touch >= 2 services, >= 0.5),
conditional_share (>= 0.5), set_share (a set-valued requirement of >= 2 members, >= 0.3), empty_uniform (mean uniform reward of
the empty trajectory, <= 0.25), token_chain_share (<= 0.1), distinct_scenarios, distinct_shapes (workflow shapes used, goal >= 8; tasks_by_shape), tasks_by_k / tasks_by_l and scenario_tasks_by_k_l ("KxL": count, the
scenario tasks only: difficulty spread, no goal), tasks_per_s (verified tasks per second on one
core — CPU seconds of this process, authoring + admission; keep >= 20; `wall_tasks_per_s` beside it), visit_orders_by_shape (distinct orders of each shape's beats, `meta['beat_order']`:
1 for a play that is one straight line). As in bench_synthesis, the
worlds' fixtures (and their fact, field and digest indexes) are built before the clock starts and reported as `warmup_s`: tasks
share a few worlds (`generate_tasks(worlds=8)`), so these are paid once per world, not per task. Not a test: the figures are
printed, never asserted.
"""
from __future__ import annotations
import argparse, json, os, re, sys, time
from collections import Counter

os.environ.setdefault("OMP_NUM_THREADS", "1")

try:                                                    # the definitions the scenario layer uses
    from compoworld_nb.scenario import sentences, step_like
except ImportError:                                     # older code (no scenario layer): the same reading, for a before figure
    _OPEN = ("find", "open", "read", "check", "look up", "search", "go to", "get", "then", "next", "finally", "in the", "on the", "use")
    def sentences(text): return [s for s in re.split(r"(?<=[.?!])\s+(?=[A-Z“\"'(])", text.strip()) if s]
    def step_like(s):
        s = s.strip().lower().lstrip("“\"'(")
        return any(s.startswith(o + " ") or s.startswith(o + ",") for o in _OPEN)

from compoworld_nb.author import default_library, difficulty_table, generate_tasks
try: from compoworld_nb.admission import Admission
except ImportError: from compoworld_nb.task import Admission          # older code (one task module), for a before figure

def warm_worlds(library, world, seed: int, worlds: int = 8) -> float:
    "Build each world's fixtures and their indexes once (what every task of that world reuses); seconds spent."
    from compoworld_nb.author import _world_seeds
    import importlib
    def find(name):                                     # where the name lives now (facts, wrong_writes) or lived (task)
        for m in ("compoworld_nb.task", "compoworld_nb.facts", "compoworld_nb.wrong_writes"):
            try: return getattr(importlib.import_module(m), name)
            except (ImportError, AttributeError): pass
        return None
    _fixture, state_hash_cached, state_facts, collections_of, _field_index = map(find, ("_fixture", "state_hash_cached", "state_facts", "collections_of", "_field_index"))
    t0 = time.perf_counter()
    for ws in _world_seeds(seed, worlds):
        world(ws)
        for svc in library.values():
            fx = _fixture(svc, ws)
            state_facts(fx); state_hash_cached(fx)
            if _field_index is not None:
                for col in collections_of(type(fx)): _field_index(getattr(fx, col))
    return time.perf_counter() - t0


def realism(tasks, library) -> dict:
    "The issue-20 figures of a task set (see the module docstring)."
    n = len(tasks) or 1
    sent = [(sentences(t.u), len(t.walk)) for t in tasks]
    all_s = [s for ss, _ in sent for s in ss]
    goals = [[c for c in t.rubric if c["kind"] in ("state", "output")] for t in tasks]
    empty = []
    for t in tasks:
        a = Admission(t, library)
        b = [a.b(c, a.s0, None) for c in a.rubric.criteria]
        empty.append(sum(b) / len(b))
    scen = [t.meta.get("scenario", "token_chain") for t in tasks]
    tab = difficulty_table(tasks)
    return {
        "n": len(tasks),
        "sentences_per_step": round(sum(len(ss) / L for ss, L in sent) / n, 3),
        "step_like_share": round(sum(map(step_like, all_s)) / max(1, len(all_s)), 3),
        "goal_or_output_per_task": round(sum(map(len, goals)) / n, 2),
        "output_share": round(sum(any(c["kind"] == "output" for c in g) for g in goals) / n, 3),
        "multi_service_goal_share": round(sum(len({c.get("service") for c in g if c["kind"] == "state"}) >= 2 for g in goals) / n, 3),
        "conditional_share": round(sum(bool(t.meta.get("conditions")) for t in tasks) / n, 3),
        "set_share": round(sum(any(len(s.get("members", [])) >= 2 for s in t.meta.get("sets", [])) for t in tasks) / n, 3),
        "empty_uniform": round(sum(empty) / n, 3),
        "token_chain_share": round(sum(s == "token_chain" for s in scen) / n, 3),
        "distinct_scenarios": len(set(scen)),
        "distinct_shapes": len({t.meta.get("shape") for t in tasks if t.meta.get("scenario", "token_chain") != "token_chain"}),
        "tasks_by_shape": dict(sorted(Counter(t.meta.get("shape", "token_chain") for t in tasks).items())),
        # distinct orders of a shape's beats (`meta['beat_order']`; a play without beats has one order, whatever its cast and wrap-ups)
        "visit_orders_by_shape": {sh: len({tuple(t.meta.get("beat_order") or ()) for t in tasks if t.meta.get("shape") == sh})
                                  for sh in sorted({t.meta["shape"] for t in tasks if t.meta.get("shape")})},
        "tasks_by_k": {str(k): v for k, v in tab["by_k"].items()},       # the counts of tasks-report (`difficulty_table`), JSON keys
        "tasks_by_l": {str(k): v for k, v in tab["by_l"].items()},
        "scenario_tasks_by_k_l": difficulty_table([t for t, s in zip(tasks, scen) if s != "token_chain"])["by_k_l"],
    }


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    library, world = default_library()
    stats: dict = {}
    if hasattr(os, "sched_setaffinity"):                # one core, as bench_synthesis measures it
        try: os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        except OSError: pass
    warm = warm_worlds(library, world, a.seed)
    t0, c0 = time.perf_counter(), time.process_time()
    tasks, rejected = generate_tasks(a.n, a.seed, library, world, progress=False, stats=stats)
    secs, cpu = time.perf_counter() - t0, time.process_time() - c0
    out = {**realism(tasks, library), "tasks_per_s": round(len(tasks) / cpu, 2), "wall_tasks_per_s": round(len(tasks) / secs, 2), "warmup_s": round(warm, 2),
           "rejected": sum(rejected.values()),
           "rejected_by_rule": dict(sorted(rejected.items()))}
    print(json.dumps(out, sort_keys=True))
    return out


if __name__ == "__main__":
    main()
