"""Scale-out of task synthesis: verified tasks per second with 1 and 2 local worker processes (and 2 Ray workers when Ray
is installed), measured side by side in one run on this machine.

All executors are started first and warmed up with a small synthesis of another seed (workers start, import the
package and build the service library: `startup_s`). Then, for each repeat r, every executor times
`synthesize_tasks(n, seed + r, executor, chunk_size)` -- the chunked, seed-per-chunk synthesis of
`compoworld_nb.executor` (programmatic author + every admission rule) -- in an order rotated per repeat, so slow
phases of a shared machine hit every executor alike. Per executor: the best and the median wall-clock rate. The task
files of all executors are compared byte for byte for every repeat (`identical`). On a machine whose cores are shared
with other work the 2-worker speed-up is bounded by the cores actually free: `machine_parallel_speedup_start/_end`
measure that bound (two processes spinning a fixed loop vs one process doing both; 2.0 = two free cores), beside
`cpus` and `load_avg`.

Prints one JSON line. Run: python benchmarks/bench_scale.py [--n 16] [--repeats 2] [--chunk-size 2] [--seed 0] [--k 3] [--no-ray]
"""
from __future__ import annotations
import argparse, json, os, platform, statistics, time
from concurrent.futures import ProcessPoolExecutor
from compoworld_nb.executor import LocalExecutor, RayExecutor, synthesize_tasks

def _spin(n: int) -> float:
    x = 0
    for i in range(n): x += i * i
    return float(x)

def parallel_capacity(n: int = 4_000_000) -> float:
    "How much faster two processes finish two fixed pure-Python loops than one process does right now (2.0 = two free cores)."
    t0 = time.perf_counter(); _spin(n); _spin(n); one = time.perf_counter() - t0
    with ProcessPoolExecutor(2) as ex:
        list(ex.map(_spin, [10, 10]))
        t0 = time.perf_counter(); list(ex.map(_spin, [n, n])); two = time.perf_counter() - t0
    return round(one / two, 2)

def main(n: int = 16, seed: int = 0, chunk_size: int = 2, k: int = 3, repeats: int = 2, ray: bool = True) -> dict:
    author = dict(k=k, l_min=k + 1, l_max=k + 2, n_distractors=2)
    out = {"benchmark": "scale", "n": n, "repeats": repeats, "chunk_size": chunk_size, "k": k, "seed": seed, "cpus": os.cpu_count(),
           "load_avg_start": round(os.getloadavg()[0], 2), "python": platform.python_version()}
    out["machine_parallel_speedup_start"] = parallel_capacity()
    exs = {"local_1": LocalExecutor(1), "local_2": LocalExecutor(2)}
    if ray:
        try:
            import ray as _ray
            exs["ray_2"] = RayExecutor(workers=2); out["ray_version"] = _ray.__version__
        except ImportError as e: out["ray_2"] = None; out["ray_skipped"] = str(e)
    try:
        for name, ex in exs.items():
            t0 = time.perf_counter()
            synthesize_tasks(2 * chunk_size, seed + 1_000_003, ex, chunk_size, **author)   # warm-up: start workers, load the library
            out[name] = {"workers": ex.workers, "startup_s": round(time.perf_counter() - t0, 2), "rates": []}
        files: dict[int, set] = {}
        names = list(exs)
        for r in range(repeats):
            for name in names[r % len(names):] + names[: r % len(names)]:
                t0 = time.perf_counter()
                tasks, _ = synthesize_tasks(n, seed + r, exs[name], chunk_size, **author)
                dt = time.perf_counter() - t0
                out[name]["rates"].append(round(len(tasks) / dt, 3)); out[name]["tasks"] = len(tasks)
                files.setdefault(r, set()).add("\n".join(t.to_jsonl() for t in tasks))
    finally:
        for ex in exs.values(): ex.close()
    for name in exs:
        rates = out[name]["rates"]
        out[name].update(tasks_per_s=max(rates), median_tasks_per_s=round(statistics.median(rates), 3))
    out["speedup_local_2"] = round(out["local_2"]["tasks_per_s"] / out["local_1"]["tasks_per_s"], 2)
    if "ray_2" in exs: out["speedup_ray_2"] = round(out["ray_2"]["tasks_per_s"] / out["local_1"]["tasks_per_s"], 2)
    out["identical"] = all(len(v) == 1 for v in files.values())
    out["load_avg_end"] = round(os.getloadavg()[0], 2)
    out["machine_parallel_speedup_end"] = parallel_capacity()
    return out

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chunk-size", type=int, default=2)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--no-ray", action="store_true")
    a = ap.parse_args()
    print(json.dumps(main(a.n, a.seed, a.chunk_size, a.k, a.repeats, not a.no_ray), sort_keys=True))
