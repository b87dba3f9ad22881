"The executor layer: ordered maps, deterministic chunked synthesis, validation and rollouts; inline, local processes and Ray give the same bytes."
import argparse, operator, os, sys
import pytest
from compoworld_nb.executor import (LocalExecutor, RayExecutor, make_executor, require_ray, where, chunk_seed, service_seed,
                                    synthesize_tasks, synthesize_targeted, validate_tasks, rollout_groups, trajectory_fingerprint,
                                    add_executor_arguments, executor_from_args, load_library)

FAST = dict(k=3, l_min=4, l_max=5, n_distractors=2)

def jsonl(tasks): return "\n".join(t.to_jsonl() for t in tasks)

def _boom(x):
    if x == 2: raise ValueError(f"item {x} is bad")
    return -x

@pytest.fixture(scope="module")
def inline():
    "Four tasks authored inline (chunks of 2), with their synthesis stats."
    st = {}
    ts, rej = synthesize_tasks(4, seed=5, chunk_size=2, stats=st, **FAST)
    return ts, rej, st

def test_local_map_keeps_order_and_raises():
    ex = LocalExecutor(1)
    assert ex.map(_boom, [3, 1, 0]) == [-3, -1, 0]
    with pytest.raises(ValueError, match="item 2 is bad"): ex.map(_boom, [1, 2])
    with pytest.raises(ValueError, match="workers=0"): LocalExecutor(0)
    with pytest.raises(ValueError, match="workers=True"): LocalExecutor(True)

def test_make_executor_and_flags():
    assert isinstance(make_executor("local"), LocalExecutor) and make_executor("local", 3).workers == 3
    with pytest.raises(ValueError, match="executor='dask'"): make_executor("dask")
    p = argparse.ArgumentParser(); add_executor_arguments(p)
    with pytest.raises(ValueError, match="--executor 'spark'"): executor_from_args(p.parse_args(["--executor", "spark"]))
    with pytest.raises(ValueError, match="needs --executor ray"): executor_from_args(p.parse_args(["--ray-address", "auto"]))
    assert executor_from_args(p.parse_args(["--workers", "2"])).workers == 2

def test_missing_ray_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)          # import ray -> ImportError, as on a machine without Ray
    with pytest.raises(ImportError, match=r"needs the 'ray' package.*compoworld_nb\[ray\]"): require_ray()
    with pytest.raises(ImportError, match="'ray'"): make_executor("ray", 2)

def test_chunk_seeds_are_fixed_values():
    assert chunk_seed(7, 0) == 1801938312 and chunk_seed(7, 1) == 633143113    # independent of executor and workers
    assert service_seed(0, "crm") != service_seed(0, "gmail") and 0 <= service_seed(0, "crm") < 2**31

def test_synthesis_chunks_and_bad_values(inline):
    ts, rej, st = inline
    assert len(ts) == 4 and len({t.id for t in ts}) == 4 and all(len(t.services) == 3 for t in ts)
    assert [c["seed"] for c in st["chunks"]][:2] == [chunk_seed(5, 0), chunk_seed(5, 1)]
    assert sum(c["admitted"] for c in st["chunks"]) == 4 and {c["pid"] for c in st["chunks"]} == {os.getpid()}
    again, rej2 = synthesize_tasks(4, seed=5, chunk_size=2, **FAST)
    assert jsonl(again) == jsonl(ts) and rej2 == rej
    assert synthesize_tasks(0, seed=5)[0] == []
    with pytest.raises(ValueError, match="chunk_size=0"): synthesize_tasks(2, chunk_size=0)
    with pytest.raises(ValueError, match="bogus"): synthesize_tasks(2, bogus=3)

def test_two_local_processes_give_the_same_bytes(inline):
    ts, rej, _ = inline
    st = {}
    with LocalExecutor(2, start_method="fork") as ex: par, rej2 = synthesize_tasks(4, seed=5, executor=ex, chunk_size=2, stats=st, **FAST)
    assert jsonl(par) == jsonl(ts) and rej2 == rej
    assert os.getpid() not in {c["pid"] for c in st["chunks"]}

def test_targeted_tasks_include_their_service():
    by = synthesize_targeted(["crm", "weather"], 1, seed=3, **FAST)
    assert list(by) == ["crm", "weather"] and all(len(v) == 1 and s in v[0].services for s, v in by.items())
    with pytest.raises(ValueError, match="include='nope'"): synthesize_targeted(["nope"], 1, **FAST)
    with pytest.raises(ValueError, match="n_per_service=0"): synthesize_targeted(["crm"], 0)

def test_validation_flags_a_broken_task(inline):
    ts = inline[0]
    bad = ts[0].model_copy(update={"g_hash": "0" * 16})
    errs = validate_tasks([bad, ts[1]], chunk_size=1)
    assert errs[1] == [] and sorted(e.split(":")[0] for e in errs[0]) == ["consistent_counts", "probe_reaches_g"]

def test_rollout_groups_seeds_and_fingerprint(inline):
    ts = inline[0]
    g = rollout_groups(ts[:2], "scripted", n=2, seed=4, max_steps=24)
    assert [[t.seed for t in x] for x in g] == [[4, 5], [4, 5]] and all(t.success for x in g for t in x)
    t = g[0][0]
    slower = t.model_copy(update={"steps": [s.model_copy(update={"latency": 9.0}) for s in t.steps]})
    assert trajectory_fingerprint(slower) == trajectory_fingerprint(t)
    assert trajectory_fingerprint(t.model_copy(update={"final_answer": "x"})) != trajectory_fingerprint(t)
    with pytest.raises(ValueError, match="'greedy'"): rollout_groups(ts[:1], "greedy")
    with pytest.raises(ValueError, match="n=0"): rollout_groups(ts[:1], "scripted", n=0)

def test_library_spec_errors():
    assert "gmail" in load_library()[0]
    with pytest.raises(ValueError, match="no_such_mod:f"): load_library("no_such_mod:f")

# ---------------------------------------------------------------- Ray (one shared local instance, 2 CPUs)

@pytest.fixture(scope="module")
def ray_ex():
    pytest.importorskip("ray", reason="Ray is not installed (optional extra: pip install 'compoworld_nb[ray]'); Ray executor tests skipped")
    ex = RayExecutor(workers=2)
    yield ex
    ex.close()

def test_ray_synthesis_is_byte_identical_and_runs_in_ray_workers(ray_ex, inline):
    import ray
    ts, rej, _ = inline
    st = {}
    out, rej2 = synthesize_tasks(4, seed=5, executor=ray_ex, chunk_size=2, stats=st, **FAST)
    assert jsonl(out) == jsonl(ts) and rej2 == rej
    driver = ray.get_runtime_context().get_worker_id()
    assert st["executor"] == "ray" and st["workers"] == 2
    for c in st["chunks"]:
        assert c["pid"] != os.getpid()                                     # not the driver process
        assert c["ray_task_id"] is not None and c["ray_worker_id"] not in (None, driver)   # Ray's runtime context in a worker
    assert ray_ex.map(operator.neg, [5, 6, 7]) == [-5, -6, -7]         # (functions Ray workers can import)
    with pytest.raises(ValueError, match="invalid literal"): ray_ex.map(int, ["3", "x"])

def test_ray_validation_and_rollouts_match_inline(ray_ex, inline):
    ts = inline[0]
    assert validate_tasks(ts, ray_ex, chunk_size=2) == validate_tasks(ts) == [[]] * 4
    spec = "scripted:perturb=0.5"
    on_ray = rollout_groups(ts, spec, n=2, seed=1, executor=ray_ex, max_steps=24)
    here = rollout_groups(ts, spec, n=2, seed=1, max_steps=24)
    assert [trajectory_fingerprint(t) for g in on_ray for t in g] == [trajectory_fingerprint(t) for g in here for t in g]
