"""Verified task synthesis throughput: programmatic author + every admission rule, K=5, L 7-12, one core.

`generate_tasks` authors tasks (plan -> steps with decoys -> probe -> collateral criteria) and admits each only if it
passes every rule in `compoworld_nb.admission.ADMISSION_RULES`; a task counts as verified when admitted. The process is
pinned to one CPU and single-threaded; the rate uses the process's CPU seconds (what one core spends, whatever else the
machine runs) and the wall-clock rate is printed beside it. The worlds' fixtures are built before the clock starts
(`warmup_s`: each fixture, its fact index, its field index (`task._field_index`, which wrong-record checks extend by
the planted records) and its digest -- the per-record digests every s0 and g hash of that world reuses): tasks share a few worlds, as `generate_tasks(worlds=...)` does, so these are paid once per world.

Prints one JSON line: `verified_tasks_per_s` (goal >= 50), `wall_tasks_per_s`, admitted/attempts, the rejections
counted by first broken rule (`rejected_by_rule`) and by every broken rule (`broken_rules`), and the CPU share spent
inside the services' own tools (`tool_cpu_share`, per service in `tool_cpu_s_by_service`).

Run: python benchmarks/bench_synthesis.py [--n 200] [--seed 0] [--library full|core] [--worlds 8]
"""
from __future__ import annotations
import argparse, collections, gc, json, os, platform, time
from compoworld_nb import service as _service
from compoworld_nb.author import default_library, generate_tasks, _world_seeds
from compoworld_nb.admission import ADMISSION_RULES
from compoworld_nb.wrong_writes import _field_index, collections_of
from compoworld_nb.task import _fixture, state_hash_cached
from compoworld_nb.facts import state_facts

CORE = ("gmail", "slack", "calendar", "weather", "maps", "linear")

def main(n: int = 200, seed: int = 0, library: str = "full", worlds: int = 8, k: int = 5, l_min: int = 7, l_max: int = 12,
         distractors: int = 5) -> dict:
    if hasattr(os, "sched_setaffinity"):
        try: os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
        except OSError: pass
    lib, world = default_library()
    if library == "core": lib = {s: lib[s] for s in CORE}
    t0 = time.perf_counter()
    for ws in _world_seeds(seed, worlds):                     # fixtures, their fact and field indexes and digests, once per world
        world(ws)
        for svc in lib.values():
            fx = _fixture(svc, ws)
            state_facts(fx); state_hash_cached(fx)
            for col in collections_of(type(fx)): _field_index(getattr(fx, col))
    warm = time.perf_counter() - t0
    gc.collect(); gc.freeze()        # the worlds are long-lived: keep the collector from re-scanning them while tasks are made
    tool_s, orig = collections.Counter(), _service.Service.call
    def timed(self, state, tool, args=None):
        a = time.process_time()
        try: return orig(self, state, tool, args)
        finally: tool_s[self.name] += time.process_time() - a
    _service.Service.call = timed
    stats = {}
    c0, w0 = time.process_time(), time.perf_counter()
    try:
        tasks, rej = generate_tasks(n, seed, lib, world, k=k, l_min=l_min, l_max=l_max, n_distractors=distractors,
                                    progress=False, worlds=worlds, max_attempts=20 * n, stats=stats)
    finally: _service.Service.call = orig
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return {"bench": "synthesis", "library": library, "n_services": len(lib), "K": k, "L": [l_min, l_max], "distractors": distractors,
            "worlds": worlds, "seed": seed, "attempts": stats["attempts"], "admitted": len(tasks),
            "verified_tasks_per_s": round(len(tasks) / cpu, 2), "wall_tasks_per_s": round(len(tasks) / wall, 2), "goal": 50,
            "meets_goal": len(tasks) / cpu >= 50, "cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "warmup_s": round(warm, 3),
            "rules": len(ADMISSION_RULES), "rejected_by_rule": dict(sorted(rej.items())), "broken_rules": dict(sorted(stats["broken_rules"].items())),
            "tool_cpu_share": round(sum(tool_s.values()) / cpu, 3),
            "tool_cpu_s_by_service": {s: round(v, 3) for s, v in tool_s.most_common()},
            "python": platform.python_version(), "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None}

if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200); p.add_argument("--seed", type=int, default=0)
    p.add_argument("--library", choices=["full", "core"], default="full"); p.add_argument("--worlds", type=int, default=8)
    a = p.parse_args()
    print(json.dumps(main(a.n, a.seed, a.library, a.worlds)))
