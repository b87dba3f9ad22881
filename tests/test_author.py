"The programmatic author over the shipped library: admitted tasks obey every rule; plans, decoys, collateral, determinism, report."
import random
import pytest
from compoworld_nb.author import (default_library, author_task, generate_tasks, assign_steps, plan_walk, count_plans, AuthoringError,
                                  StepContext, synthesis_summary, difficulty_report, register_cli, collateral_criteria)
from compoworld_nb.admission import admission_errors, names_tools, Admission
from compoworld_nb.probe import probe
from compoworld_nb.task import materialize_s0, Task, _fixture
from compoworld_nb.compose import ComposedEnv, joint_hash
from compoworld_nb.walk import check_walk, sample_services, sample_length

LIB, WORLD = default_library()
CORE = {n: LIB[n] for n in ("gmail", "slack", "calendar", "weather", "maps", "linear")}

@pytest.fixture(scope="module")
def tasks():
    stats = {}
    ts, rej = generate_tasks(6, seed=5, library=LIB, world_factory=WORLD, k=(3, 4), l_min=4, l_max=7, n_distractors=3,
                             progress=False, worlds=2, stats=stats)
    return ts, rej, stats

def test_admitted_tasks_obey_every_rule(tasks):
    ts, rej, stats = tasks
    assert len(ts) == 6 and stats["admitted"] == 6 and stats["rejected"] == sum(rej.values())
    for t in ts:
        assert admission_errors(t, LIB) == []
        assert check_walk(t.walk, t.services) == [] and len(t.walk) > len(t.services) and t.G.revisits()
        assert not set(t.services) & set(t.distractors) and all(LIB[s].steps for s in t.services)
        s0 = materialize_s0(t, LIB)
        assert not t.v.verify(s0, s0, None)                      # the empty trajectory fails
        g, obs = probe(t, LIB)
        assert all(o["ok"] for o in obs) and joint_hash(g) == t.g_hash and t.v.verify(g, s0, t.answer)
        env_tools = [f"{s}.{n}" for s in t.services + t.distractors for n in LIB[s].tools]
        assert names_tools(t.u, env_tools) == []
        edges = {(i, i + 1) for i in range(len(t.walk) - 1)}
        covered = {tuple(c["edge"]) for c in t.rubric if c.get("edge")} | {tuple(e) for c in t.rubric for e in c.get("covers", [])}
        assert edges <= covered
        assert len(t.meta["visits"]) == len(t.reference) and sorted(set(t.meta["visits"])) == list(range(len(t.walk)))
        assert t.meta["changes"]
        # collateral: every composed service where a plausible wrong write exists has an `unchanged` criterion there
        wrong = {w.service for w in Admission(t, LIB).wrong_writes()}
        assert wrong <= {c["service"] for c in t.rubric if c["kind"] == "unchanged"}
        assert any(c["kind"] == "unchanged" for c in t.rubric) or not wrong

def test_task_json_round_trip_is_byte_identical(tasks):
    for t in tasks[0]:
        assert Task.model_validate_json(t.to_jsonl()).to_jsonl() == t.to_jsonl()

def test_same_seed_same_tasks_different_seed_different():
    kw = dict(library=LIB, world_factory=WORLD, k=3, l_min=4, l_max=6, n_distractors=3, progress=False, worlds=2)
    a, ra = generate_tasks(3, 123, **kw)
    b, rb = generate_tasks(3, 123, **kw)
    c, _ = generate_tasks(3, 124, **kw)
    assert [t.to_jsonl() for t in a] == [t.to_jsonl() for t in b] and ra == rb
    assert not {t.id for t in a} & {t.id for t in c}

def test_plans_are_exact_and_uniform():
    lib = {n: LIB[n] for n in ("maps", "weather")}
    with pytest.raises(AuthoringError) as e: author_task(lib, 0, k=2, l_min=3, l_max=3, n_distractors=0, world_factory=WORLD)
    assert e.value.rule == "no_feasible_walk" and count_plans(lib, ["maps", "weather"], 3) == 0
    C = ["gmail", "slack", "linear"]
    assert count_plans(LIB, C, 5) > count_plans(LIB, C, 4) > 0
    seen = set()
    for i in range(200):
        walk, plan = plan_walk(LIB, C, 5, random.Random(i))
        assert check_walk(walk, C) == [] and "key" in plan[0][0].needs
        assert all(k in nxt.needs for (_, k), (nxt, _) in zip(plan, plan[1:]))      # each visit consumes what the previous revealed
        assert plan[-1][0].writes or any(s.writes for s, _ in plan)
        seen.add(tuple(walk))
    assert len(seen) > 10
    steps = assign_steps(LIB, ["gmail", "slack", "gmail"], random.Random(0))
    assert [s.service for s, _ in steps] == ["gmail", "slack", "gmail"] and steps[-1][0].writes

def test_feasibility_over_the_core_library_and_the_full_one():
    def share(lib, n=300):
        rng, bad = random.Random(0), 0
        for _ in range(n):
            C, _ = sample_services(lib, 5, rng, None, 0)
            bad += count_plans(lib, C, sample_length(rng, 5, 7, 12)) == 0
        return bad / n
    assert share(CORE) == 0.0          # the weather.alerts step opens weather without maps
    assert share(LIB) < 0.25           # C holding two services that can only end a walk (e.g. retail and maps) has no plan

def test_decoys_make_guessing_unsafe():
    t = author_task(CORE, 22, k=3, l_min=5, l_max=6, n_distractors=1, world_factory=WORLD, world_seed=3)
    assert t.meta["decoys"] >= 1 and admission_errors(t, CORE) == []
    plain = author_task(CORE, 22, k=3, l_min=5, l_max=6, n_distractors=1, world_factory=WORLD, world_seed=3, decoys=False)
    n_planted = lambda x: sum(len(r) for cols in x.s0["overrides"].values() for r in cols.values())
    assert n_planted(t) > n_planted(plain)

@pytest.mark.parametrize("service, planted", [
    ("filesystem", [("directories", "/home/andrea.brown/briefs", "added"), ("files", "/home/andrea.brown/briefs/topaz-494.md", "added")]),
    ("github", [("issues", "gouldfoster/api-gateway#518", "added")]),
    ("memory", [("entities", "topaz-494", "added")]),
    ("sqlite", [("rows", "projects:31", "added")]),
    ("gmail", [("messages", "msg_p1", "added")])])
def test_decoy_counts_every_planted_record_kind(service, planted):
    "A decoy that plants a file, an issue, a memory entity or a sqlite row counts, not only one keyed by `plant_id` (gmail's)."
    from compoworld_nb.author import _planted_changes
    step = next(s for s in LIB[service].steps if s.name == "read")
    ctx = StepContext(ComposedEnv([LIB[service]]), {service: _fixture(LIB[service], 7)}, random.Random(0), WORLD(7), 7)
    ctx.service, before = service, ctx.s0[service]
    assert (ctx.decoy(step, "key", "falcon-417", None), _planted_changes(before, ctx.s0[service]), ctx.reference) == (True, planted, [])

def test_file_decoy_counts_in_meta():
    "Seed 1's filesystem read plants a decoy brief beside the real one: meta.decoys says so."
    t = author_task(LIB, 1, k=2, l_min=3, l_max=3, n_distractors=1, world_factory=WORLD)
    assert sorted(t.s0["overrides"]["filesystem"]["files"]) == ["/home/jennifer.perez/briefs/fjord-767.md", "/home/jennifer.perez/briefs/quill-560.md"]
    assert (t.meta["decoys"], t.id) == (1, "tfbfd689a51")

def test_collateral_criteria_fail_on_the_mistakes_they_come_from(tasks):
    for t in tasks[0][:3]:
        a = Admission(t, LIB)
        for c in a.collateral:
            assert a.b(c, a.run.g) == 1 and any(a.b(c, w.final) == 0 for w in a.wrong_writes() if w.service == c.service)

def test_plants_may_only_add_records():
    env = ComposedEnv([LIB["gmail"]])
    fx = {"gmail": _fixture(LIB["gmail"], 3)}
    ctx = StepContext(env, fx, random.Random(0), WORLD(3), 3)
    mid = next(iter(fx["gmail"].messages))
    def overwrite(s): s.messages[mid] = s.messages[mid].model_copy(update={"subject": "changed"})
    with pytest.raises(AuthoringError) as e: ctx.plant("gmail", overwrite)
    assert e.value.rule == "plant_overwrites" and fx["gmail"].messages[mid].subject != "changed"
    ctx.plant("gmail", lambda s: s.messages.__setitem__("msg_p9", s.messages[mid].model_copy(update={"id": "msg_p9"})))
    assert "msg_p9" in ctx.s0["gmail"].messages and "msg_p9" not in fx["gmail"].messages

def test_summary_report_and_cli_helper(tasks, tmp_path):
    ts, rej, _ = tasks
    s = synthesis_summary(ts, {"no_feasible_walk": 2, "edge_information_flow": 1})
    assert s == {"admitted": 6, "rejected": 3, "rejected_by_rule": {"edge_information_flow": 1, "no_feasible_walk": 2}}
    rep = difficulty_report(ts, tmp_path / "difficulty.png")
    assert rep["n"] == 6 and sum(rep["by_k"].values()) == 6 and set(rep["by_k"]) <= {3, 4}
    assert sum(rep["by_l"].values()) == 6 and rep["by_domain"] and (tmp_path / "difficulty.png").stat().st_size > 5000
    import argparse
    p = argparse.ArgumentParser(); sub = p.add_subparsers(dest="cmd"); register_cli(sub)
    (tmp_path / "t.jsonl").write_text("".join(t.to_jsonl() + "\n" for t in ts))
    a = p.parse_args(["tasks-report", "--tasks", str(tmp_path / "t.jsonl"), "--out", str(tmp_path / "r.png")])
    out = a.func(a)
    assert out["n"] == 6 and out["path"] == str(tmp_path / "r.png")

def test_bad_k_and_l():
    with pytest.raises(ValueError, match="K=19"): generate_tasks(1, 0, LIB, WORLD, k=19)
    with pytest.raises(ValueError, match="L range 4-4 must allow L > K=4"): generate_tasks(1, 0, LIB, WORLD, k=4, l_min=4, l_max=4)

def test_defaults_come_from_settings_and_runs_are_byte_identical_across_processes(tmp_path):
    for seed in range(20):                                                   # K, L range and distractors from settings.ini
        try: t = author_task(LIB, seed, world_factory=WORLD, world_seed=11); break
        except AuthoringError: continue
    assert t.meta["K"] == len(t.services) == 5 and 7 <= t.meta["L"] <= 12 and len(t.distractors) == 5
    import os, subprocess, sys
    code = ("import sys; from compoworld_nb.author import default_library, generate_tasks; lib, w = default_library(); "
            "ts, rej = generate_tasks(2, 9, lib, w, k=3, l_min=4, l_max=5, n_distractors=2, progress=False, worlds=1); "
            "sys.stdout.write(''.join(t.to_jsonl() + '\\n' for t in ts))")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONHASHSEED": h}).stdout for h in ("1", "2")]
    assert outs[0] and outs[0] == outs[1]


def test_gc_paced_raises_the_young_threshold_and_always_restores_it():
    import gc, threading
    from compoworld_nb.author import gc_paced
    old = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with gc_paced(5000):
            assert gc.get_threshold() == (5000, 10, 10)
            with gc_paced(9000): assert gc.get_threshold() == (5000, 10, 10)   # nested: the outer setting holds
            assert gc.get_threshold() == (5000, 10, 10)
        assert gc.get_threshold() == (700, 10, 10)
        try:
            with gc_paced(3000): raise KeyError("boom")
        except KeyError: pass
        assert gc.get_threshold() == (700, 10, 10)
        inside, go = threading.Event(), threading.Event()
        def other():
            with gc_paced(4000): inside.set(); go.wait()
        t = threading.Thread(target=other, daemon=True); t.start(); inside.wait()
        with gc_paced(8000): pass                              # ends first: the other thread's block still runs
        assert gc.get_threshold() == (4000, 10, 10)
        go.set(); t.join()
        assert gc.get_threshold() == (700, 10, 10)             # restored by the last block to end
        gc.set_threshold(50_000, 10, 10)
        with gc_paced(1000): assert gc.get_threshold() == (50_000, 10, 10)   # never lowered
    finally:
        gc.set_threshold(*old)
