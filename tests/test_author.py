"The programmatic author and admission over the shipped library."
import pytest
from compoworld_nb.author import default_library, author_task, generate_tasks, assign_steps
from compoworld_nb.task import admission_errors, probe, materialize_s0, names_tools, Task
from compoworld_nb.compose import joint_hash
from compoworld_nb.walk import check_walk

LIB, WORLD = default_library()

@pytest.fixture(scope="module")
def tasks():
    ts, rej = generate_tasks(6, seed=5, library=LIB, world_factory=WORLD, k=(3, 4), l_min=4, l_max=7, n_distractors=3, progress=False)
    return ts

def test_admitted_tasks_obey_every_rule(tasks):
    assert len(tasks) == 6
    for t in tasks:
        assert admission_errors(t, LIB) == []
        assert check_walk(t.walk, t.services) == [] and len(t.walk) > len(t.services)
        assert not set(t.services) & set(t.distractors)
        s0 = materialize_s0(t, LIB)
        assert not t.v.verify(s0, s0, None)                      # the empty trajectory fails
        g, obs = probe(t, LIB)
        assert all(o["ok"] for o in obs) and joint_hash(g) == t.g_hash and t.v.verify(g, s0, t.answer)
        env_tools = [f"{s}.{n}" for s in t.services + t.distractors for n in LIB[s].tools]
        assert names_tools(t.u, env_tools) == []
        edges = {(i, i + 1) for i in range(len(t.walk) - 1)}
        covered = {tuple(c["edge"]) for c in t.rubric if c.get("edge")} | {tuple(e) for c in t.rubric for e in c.get("covers", [])}
        assert edges <= covered

def test_task_json_round_trip_is_byte_identical(tasks):
    for t in tasks:
        assert Task.model_validate_json(t.to_jsonl()).to_jsonl() == t.to_jsonl()

def test_same_seed_same_tasks_different_seed_different():
    kw = dict(library=LIB, world_factory=WORLD, k=3, l_min=4, l_max=6, n_distractors=3, progress=False)
    a, ra = generate_tasks(3, 123, **kw)
    b, rb = generate_tasks(3, 123, **kw)
    c, _ = generate_tasks(3, 124, **kw)
    assert [t.to_jsonl() for t in a] == [t.to_jsonl() for t in b] and ra == rb
    assert not {t.id for t in a} & {t.id for t in c}

def test_infeasible_walks_are_named():
    from compoworld_nb.author import AuthoringError
    # weather needs coordinates, which only maps reveals, and nothing in {maps, weather} can start from a key
    lib = {n: LIB[n] for n in ("maps", "weather")}
    with pytest.raises(AuthoringError) as e: author_task(lib, 0, k=2, l_min=3, l_max=3, n_distractors=0, world_factory=WORLD)
    assert e.value.rule == "no_feasible_walk"

def test_broken_tasks_are_rejected_with_their_rule(tasks):
    t = tasks[0]
    no_ref = t.model_copy(update={"reference": []})
    errs = admission_errors(no_ref, LIB)
    assert any(e.startswith("probe_reaches_g") for e in errs) and any(e.startswith("goal_criteria_need_reference") for e in errs)
    leaky = t.model_copy(update={"u": t.u + " Use " + t.reference[0]["tool"] + " first."})
    assert any(e.startswith("instruction_names_no_tools") for e in admission_errors(leaky, LIB))
    trivially = t.model_copy(update={"rubric": [c for c in t.rubric if c["kind"] == "unchanged"]})
    errs = admission_errors(trivially, LIB)
    assert any(e.startswith("verifier_rejects_s0") for e in errs) and any(e.startswith("criterion_per_edge") for e in errs)

def test_bad_k_and_l():
    with pytest.raises(ValueError, match="K=9"): generate_tasks(1, 0, LIB, WORLD, k=9)
    with pytest.raises(ValueError, match="L=4-4"): generate_tasks(1, 0, LIB, WORLD, k=4, l_min=4, l_max=4)
