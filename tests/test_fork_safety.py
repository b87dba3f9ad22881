"""Issue 21: process groups are fork-safe. A thread of the parent holds every module-level lock of the library and the
services while a process group starts (as a training monitor, a widget callback or a second rollout group would);
the forked workers neither hang nor differ from threads."""
import multiprocessing as mp, sys, threading
import pytest
import sample_services
from compoworld_nb.core import module_locks
from compoworld_nb.executor import synthesize_targeted, trajectory_fingerprint
from compoworld_nb.policies import ScriptedPolicy
from compoworld_nb.harness import rollout_group
import compoworld_nb.author, compoworld_nb.rubric, compoworld_nb.admission, compoworld_nb.harness   # their module locks load

LIB = sample_services.load_library()
FAST = dict(k=3, l_min=4, l_max=5, n_distractors=2)
QUERY = {"query": "SELECT count(*) AS n FROM orders"}


class HoldAll:
    "Holds every lock `module_locks` finds, each in its own thread, until the block ends."
    def __enter__(self):
        self.locks = module_locks()
        self.stop, self.threads = threading.Event(), []
        for _, _, lock in self.locks:
            held = threading.Event()
            def hold(lock=lock, held=held):
                with lock: held.set(); self.stop.wait()
            t = threading.Thread(target=hold, daemon=True); t.start(); self.threads.append(t)
            held.wait()
        return self
    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads: t.join(60)


def _child(q):
    got = []
    for mname, name, _ in module_locks():
        obj = sys.modules[mname]
        lock = obj.__dict__[name] if "[" not in name else obj.__dict__[name.split("[")[0]][eval(name.split("[", 1)[1][:-1])]
        ok = lock.acquire(timeout=20); got.append((mname, name, ok))
        if ok: lock.release()
    sq = LIB["sqlite"]
    q.put((got, sq.call(sq.initial_state(0), "read_query", QUERY)[1]))


def test_every_module_lock_is_fresh_in_a_forked_child():
    names = {(m, n) for m, n, _ in module_locks()}
    assert ("sample_services.sqlite", "_LOCK") in names and ("compoworld_nb.rubric", "_SCORERS_LOCK") in names
    want = LIB["sqlite"].call(LIB["sqlite"].initial_state(0), "read_query", QUERY)[1]
    with HoldAll():
        ctx = mp.get_context("fork")
        q = ctx.Queue(); p = ctx.Process(target=_child, args=(q,)); p.start()
        got, obs = q.get(timeout=300)        # a bound no slow machine reaches: a hang is the failure
        p.join(60)
    assert [x for x in got if not x[2]] == [] and len(got) == len(names)
    assert obs == want and obs["ok"]


def test_a_process_group_started_while_every_lock_is_held_equals_threads():
    task = synthesize_targeted(["sqlite"], 1, seed=3, **FAST)["sqlite"][0]
    threads = rollout_group(task, lambda: ScriptedPolicy(0.3), LIB, n=4, seed=1, workers=2)
    out = {}
    with HoldAll():
        t = threading.Thread(target=lambda: out.setdefault("r", rollout_group(task, lambda: ScriptedPolicy(0.3), LIB, n=4, seed=1, processes=2)))
        t.start(); t.join(600)
        assert not t.is_alive(), "the forked workers hung on a lock held in the parent"
    assert len(out["r"]) == 4 and [trajectory_fingerprint(x) for x in out["r"]] == [trajectory_fingerprint(x) for x in threads]   # latencies aside
    assert [t.criteria for t in out["r"]] == [t.criteria for t in threads]
