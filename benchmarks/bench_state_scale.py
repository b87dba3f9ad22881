"""State layer at scale: what a read, a scan, a write and the joint hash after it cost, and what a rollout keeps in memory,
as one collection grows from 1,000 to 1,000,000 records.

The state is the retail fixture (seed 0) with its `users` collection grown to N records by copies of the fixture's own
users under new ids (each copy shares its address and payment records with the original, as a fixture generator's
output would), committed the way a task's s0 is (`commit_view(cow_view(...))`) and hashed once (the warm-up every task
pays once). Then, CPU time (medians):

* `read_ms`: `get_user_details` by id (a read-only call); `scan_ms`: `find_user_id_by_email` for an address no user has
  (visits every record);
* `write_ms`: `modify_user_address` on s0 plus the joint hash of the new state (`compose.joint_hash`), which is what a
  harness step costs; `hash_after_write_ms`: the joint hash alone;
* `rollout_kb_1w` / `rollout_kb_5w`: memory each rollout keeps (tracemalloc, its final state held) after 1 and after 5
  writes to different users;
* `deepcopy_ms` / `deepcopy_kb` (N <= 100,000): the same write on `copy.deepcopy(s0)` and the from-scratch hash.

Goals (issue 19): `write_ms` <= 1 at 100k and <= 2 at 1M; `rollout_kb_1w` <= 50 at every size.
Prints one JSON line per size. Runs against any checkout (`PYTHONPATH=/work/base python benchmarks/bench_state_scale.py`).
`build_s` / `build_cpu_s`: wall and CPU seconds of growing, committing and hashing the state once (linear: about
8 CPU s per 100k records, most of it the first hash of every record, which a task's s0 pays once); `build_rss_mb`:
the process's peak RSS after it. `check_hash`: the fast joint hash of a written state equals the from-scratch
definition (`digest_form`; checked up to 100k records, where it costs under a second).
With `--group 64`, one more line: 64 scripted rollouts (6 calls each, the joint hash after every call) over one shared
100k-record s0, in 8 threads and in 2 forked processes: wall time and peak RSS.
Run: nice python benchmarks/bench_state_scale.py [--sizes 1000,10000,100000,1000000] [--reps 9] [--group 64]
"""
from __future__ import annotations
import argparse, copy, gc, json, platform, resource, statistics, time, tracemalloc
from tqdm.auto import tqdm
from compoworld_nb.core import state_hash
from compoworld_nb.compose import joint_hash
from compoworld_nb.service import commit_view, cow_view, digest_form, state_digest
import sample_services.retail as rt

ADDR = {"address1": "1 Main St", "address2": "", "city": "Springfield", "state": "IL", "country": "USA", "zip": "62701"}


def grown(n: int):
    "The retail fixture with `users` grown to `n` records, committed and hashed once."
    s = rt.service.initial_state(0)
    base = list(s.users.values())
    users = dict(s.users)
    for i in tqdm(range(max(0, n - len(users))), desc=f"grow users to {n:,}", disable=n < 100_000, leave=False):
        u = base[i % len(base)]
        uid = f"{u.user_id}_x{i}"
        users[uid] = u.model_copy(update={"user_id": uid, "id": uid, "email": f"x{i}.{u.email}", "orders": list(u.orders)})
    s = s.model_copy(update={"users": users})
    s0 = commit_view(cow_view(s))
    joint_hash({"retail": s0})
    return s0


def cpu_ms(fn, reps: int) -> float:
    "Median CPU milliseconds of `fn()`."
    out = []
    for _ in range(reps):
        t = time.process_time(); fn(); out.append((time.process_time() - t) * 1e3)
    return round(statistics.median(out), 4)


def rollout_kb(s0, uids: list, writes: int, rollouts: int) -> float:
    "KB each rollout keeps: `writes` address changes from s0, the final state held."
    gc.collect(); tracemalloc.start(); keep = []
    base = tracemalloc.get_traced_memory()[0]
    for r in range(rollouts):
        s = s0
        for w in range(writes):
            s, o = rt.service.call(s, "modify_user_address", {"user_id": uids[(r * writes + w) % len(uids)], **ADDR, "zip": f"{r:05d}"})
            assert o["ok"], o
        joint_hash({"retail": s}); keep.append(s)
    used = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    return round(used / rollouts / 1024, 1)


def one(n: int, reps: int) -> dict:
    t0, c0 = time.perf_counter(), time.process_time()
    s0 = grown(n)
    build_s, build_cpu = time.perf_counter() - t0, time.process_time() - c0
    uids = list(s0.users)[:: max(1, n // 64)][:64]
    h0 = joint_hash({"retail": s0})
    out = {"bench": "bench_state_scale", "records": len(s0.users), "build_s": round(build_s, 1), "build_cpu_s": round(build_cpu, 1),
           "build_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}
    out["read_ms"] = cpu_ms(lambda: rt.service.call(s0, "get_user_details", {"user_id": uids[3]}), reps)
    out["scan_ms"] = cpu_ms(lambda: rt.service.call(s0, "find_user_id_by_email", {"email": "nobody@nowhere.test"}), max(3, reps // 3))
    k = iter(range(10 ** 9))
    def write():
        s, o = rt.service.call(s0, "modify_user_address", {"user_id": uids[next(k) % len(uids)], **ADDR}); assert o["ok"], o
        joint_hash({"retail": s}); return s
    out["write_ms"] = cpu_ms(write, reps)
    s1 = write()
    def rehash():   # the joint hash of a state written once, not yet hashed (a fresh one each time)
        s, _ = rt.service.call(s0, "modify_user_address", {"user_id": uids[next(k) % len(uids)], **ADDR})
        t = time.process_time(); joint_hash({"retail": s}); return (time.process_time() - t) * 1e3
    out["hash_after_write_ms"] = round(statistics.median(rehash() for _ in range(reps)), 4)
    if n <= 100_000:
        assert state_digest(s1) == state_hash(digest_form(s1)), "fast hash != definition"
    out["check_hash"] = n <= 100_000
    rollouts = 16 if n <= 100_000 else 8
    out["rollout_kb_1w"] = rollout_kb(s0, uids, 1, rollouts)
    out["rollout_kb_5w"] = rollout_kb(s0, uids, 5, rollouts)
    if n <= 100_000:
        def deep():
            s = copy.deepcopy(s0); s.users[uids[0]].address = rt.Address(**ADDR); return state_hash(digest_form(s))
        out["deepcopy_ms"] = cpu_ms(deep, 3 if n <= 10_000 else 1)
        gc.collect(); tracemalloc.start(); b = tracemalloc.get_traced_memory()[0]; keep = copy.deepcopy(s0)
        out["deepcopy_kb"] = round((tracemalloc.get_traced_memory()[0] - b) / 1024, 1); tracemalloc.stop(); del keep
    assert joint_hash({"retail": s0}) == h0, "s0 changed"
    out["goal_write_ms"] = 1.0 if n <= 100_000 else 2.0
    out["meets_write_goal"] = out["write_ms"] <= out["goal_write_ms"]
    out["meets_memory_goal"] = out["rollout_kb_1w"] <= 50
    out["python"] = platform.python_version()
    return out


def _rollout(s0, r: int, uids: list) -> str:
    "One scripted rollout (6 calls, the joint hash after each, as the harness records it); returns the final joint hash."
    u = uids[r % len(uids)]; s = s0
    script = [("find_user_id_by_email", {"email": s0.users[u].email}), ("get_user_details", {"user_id": u}),
              ("modify_user_address", {"user_id": u, **ADDR, "zip": f"{r:05d}"}), ("get_user_details", {"user_id": u}),
              ("find_user_id_by_name_zip", {"first_name": "Nobody", "last_name": "Here", "zip": "00000"}),
              ("modify_user_address", {"user_id": uids[(r + 1) % len(uids)], **ADDR, "zip": f"{r + 1:05d}"})]
    for tool, args in script:
        s, o = rt.service.call(s, tool, args); assert o["ok"] or tool == "find_user_id_by_name_zip", (tool, o)   # that scan finds no one
        h = joint_hash({"retail": s})
    return h


def group(n: int, rollouts: int, threads: int, processes: int) -> dict:
    "Wall time and peak RSS of `rollouts` scripted rollouts over one shared n-record s0, in threads and in forked processes."
    import resource
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
    import multiprocessing as mp
    s0 = grown(n); uids = list(s0.users)[:: max(1, n // 64)][:64]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out = {"bench": "bench_state_scale_group", "records": len(s0.users), "rollouts": rollouts, "rss_s0_mb": round(rss0, 1)}
    global _S0, _UIDS
    _S0, _UIDS = s0, uids
    t = time.perf_counter()
    with ThreadPoolExecutor(threads) as ex: hs = list(ex.map(lambda r: _rollout(s0, r, uids), range(rollouts)))
    out.update(threads=threads, threads_wall_s=round(time.perf_counter() - t, 2),
               threads_peak_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1))
    t = time.perf_counter()
    with ProcessPoolExecutor(processes, mp_context=mp.get_context("fork")) as ex: hp = list(ex.map(_proc_rollout, range(rollouts)))
    out.update(processes=processes, processes_wall_s=round(time.perf_counter() - t, 2),
               processes_peak_child_rss_mb=round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1))
    out["same_hashes"] = hs == hp and len(set(hs)) == rollouts
    return out

_S0 = _UIDS = None
def _proc_rollout(r: int) -> str: return _rollout(_S0, r, _UIDS)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000,1000000")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--group", type=int, default=0, help="also run a rollout group of this many over a --group-records state")
    ap.add_argument("--group-records", type=int, default=100_000)
    ap.add_argument("--threads", type=int, default=8); ap.add_argument("--processes", type=int, default=2)
    a = ap.parse_args()
    for n in (int(x) for x in a.sizes.split(",") if x):
        print(json.dumps(one(n, a.reps)), flush=True)
    if a.group: print(json.dumps(group(a.group_records, a.group, a.threads, a.processes)), flush=True)
