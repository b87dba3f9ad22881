"Scenario tasks (issue 20): admitted, goal-level, conditions both ways, sets and exclusions checked, no reward for guessing."
import random
import pytest
from compoworld_nb.author import default_library, default_scenarios, scenario_task, generate_tasks, AuthoringError
from compoworld_nb.scenario import sentences, step_like, bind_roles, SCENARIOS
from compoworld_nb.admission import Admission, admission_errors, ADMISSION_RULES

LIB, WORLD = default_library()
SCS = default_scenarios()

def _tasks(seeds, names=None):
    scs = {n: SCS[n] for n in names} if names else SCS
    out = []
    for s in seeds:
        try: out.append(scenario_task(LIB, s, scs, 5, 7, 12, 5, WORLD, world_seed=s % 8))
        except AuthoringError: pass
    return out

WEATHER = _tasks(range(12), ["community_meetup", "volunteer_day", "hackathon"])
LISTS = _tasks(range(12), ["hiring_loop", "invoice_chasing", "release_notes"])

def test_library_has_40_scenarios_over_two_shapes_all_castable():
    assert len(SCS) >= 40 and {sc.shape.name for sc in SCS.values()} == {"weather_event", "list_followup"}
    for sc in SCS.values():
        cast = bind_roles(sc.shape, LIB, random.Random(0))
        assert cast is not None and len(set(cast.values())) == sc.shape.k == 5

def test_scenario_tasks_pass_every_admission_rule():
    assert len(WEATHER) == 12 and len(LISTS) == 12
    for t in WEATHER + LISTS: assert admission_errors(t, LIB) == [], t.meta["scenario"]
    assert {"condition_decided_by_data", "no_reward_for_guessing"} <= set(ADMISSION_RULES)

def test_instruction_is_goal_level():
    for t in WEATHER + LISTS:
        ss = sentences(t.u)
        assert len(ss) <= 0.72 * len(t.walk) and not any(step_like(s) for s in ss), t.u
        assert not any(svc in t.u.lower() for svc in ("gmail", "notion", "linear", "trello")), t.u   # services named as a person would

def test_weather_condition_takes_both_branches_and_the_rubric_checks_the_one_taken():
    outcomes = {t.meta["conditions"][0]["outcome"] for t in WEATHER}
    assert outcomes == {True, False}
    for t in WEATHER:
        k = t.meta["conditions"][0]
        crit = {c["id"]: c for c in t.rubric}
        loc = crit[k["against"][0]]
        assert (loc["kind"], loc["field"]) == (("state", "location") if k["outcome"] else ("unchanged", "location"))

def test_the_other_branch_fails_the_rubric():
    "Moving the event although the forecast is dry (or keeping it although wet) fails the branch criterion on g."
    t = next(t for t in WEATHER if not t.meta["conditions"][0]["outcome"])
    a = Admission(t, LIB)
    from compoworld_nb.probe import env_call
    m = next(m for m in t.meta["mistakes"] if m["tool"] == "calendar.update-event")
    moved, o = env_call(a.env, a.run.g, m["tool"], m["arguments"])
    assert o["ok"]
    cid = t.meta["conditions"][0]["against"][0]
    c = next(c for c in a.rubric.criteria if c.id == cid)
    assert a.b(c, a.run.g) == 1 and a.b(c, moved) == 0

def test_sets_exclusions_and_counts():
    for t in LISTS:
        st = t.meta["sets"][0]
        assert len(st["members"]) >= 1 and st["excluded"] and not set(st["members"]) & set(st["excluded"])
        count = [c for c in t.rubric if c["op"] == "count_eq"]
        assert len(count) == 1 and count[0]["value"] == len(st["members"])
        assert any(c["kind"] == "unchanged" and c["service"] == "gmail" and c["where"].get("to.0") in st["excluded"] for c in t.rubric)

def test_no_reward_for_guessing_refuses_a_rubric_without_the_absent_half():
    "Dropping the `excludes` criteria lets a write naming every candidate pass: the rule refuses the task."
    t = next(t for t in WEATHER if t.meta.get("candidates"))
    assert ADMISSION_RULES["no_reward_for_guessing"](Admission(t, LIB)) == []
    thin = t.model_copy(update={"rubric": [c for c in t.rubric if c["op"] != "excludes"]})
    errs = ADMISSION_RULES["no_reward_for_guessing"](Admission(thin, LIB))
    assert errs and all("candidate" in e for e in errs)

def test_condition_rule_refuses_a_branch_the_data_does_not_decide():
    t = WEATHER[0]
    k = dict(t.meta["conditions"][0]); k["outcome"] = not k["outcome"]
    bad = t.model_copy(update={"meta": {**t.meta, "conditions": [k]}})
    errs = ADMISSION_RULES["condition_decided_by_data"](Admission(bad, LIB))
    assert len(errs) == 1 and "branch" in errs[0]

def test_difficulty_in_meta():
    for t in WEATHER + LISTS:
        m = t.meta
        assert (m["K"], m["author"]) == (5, "scenario") and 7 <= m["L"] <= 12
        assert m["n_conditions"] == len(m["conditions"]) >= 1 and m["set_sizes"] == [len(s["members"]) for s in m["sets"]]

def test_generate_tasks_mixes_scenarios_with_a_small_share_of_token_chain():
    ts, rej = generate_tasks(8, 3, LIB, WORLD, progress=False, chain_share=0.25)
    kinds = [t.meta["scenario"] for t in ts]
    assert len(ts) == 8 and len(set(kinds)) >= 4
    ts2, _ = generate_tasks(4, 3, LIB, WORLD, progress=False, scenarios=None)
    assert {t.meta["scenario"] for t in ts2} == {"token_chain"}
    with pytest.raises(ValueError, match="chain_share"): generate_tasks(1, 0, LIB, WORLD, chain_share=1.5)
    with pytest.raises(ValueError, match="scenarios"): generate_tasks(1, 0, LIB, WORLD, scenarios="bogus")

def test_same_seed_same_task_bytes():
    a, b = _tasks([5]), _tasks([5])
    assert a and a[0].to_jsonl() == b[0].to_jsonl()

def test_tasks_report_by_scenario_and_difficulty(tmp_path):
    from compoworld_nb.author import difficulty_report
    ts = WEATHER[:3] + LISTS[:3]
    rep = difficulty_report(ts, tmp_path / "r.png", LIB)
    assert sum(rep["by_scenario"].values()) == 6 and set(rep["by_scenario"]) <= set(SCS)
    assert rep["by_conditions"] == {1: 6} and sum(rep["by_set_size"].values()) == 6 and min(rep["by_set_size"]) >= 1
    assert (tmp_path / "r.png").stat().st_size > 5000
