"Scenario tasks (issue 20): admitted, goal-level, conditions both ways, sets and exclusions checked, no reward for guessing."
import random, re
import pytest
from compoworld_nb.author import default_library, default_scenarios, scenario_task, generate_tasks, AuthoringError
from compoworld_nb.scenario import sentences, step_like, bind_roles, SCENARIOS
from compoworld_nb.admission import Admission, admission_errors, ADMISSION_RULES

LIB, WORLD = default_library()
SCS = default_scenarios()
K5 = {n: sc for n, sc in SCS.items() if 5 in sc.shape.ks}     # the K=2 shapes (the demo's recipe) are tested in test_k2_scenarios

def _tasks(seeds, names=None):
    scs = {n: SCS[n] for n in names} if names else SCS
    out = []
    for s in seeds:
        try: out.append(scenario_task(LIB, s, scs, 5, 7, 12, 5, WORLD, world_seed=s % 8))
        except AuthoringError: pass
    return out

WEATHER = _tasks(range(12), ["community_meetup", "volunteer_day", "hackathon"])
LISTS = _tasks(range(12), ["hiring_loop", "invoice_chasing", "release_notes"])

SHAPES = {"weather_event", "list_followup", "order_problem", "db_restock", "zone_meeting", "incident_followup", "crm_handover"}

def test_library_has_40_scenarios_over_seven_shapes_all_castable():
    assert len(K5) >= 40 and {sc.shape.name for sc in K5.values()} == SHAPES
    per = {sh: sum(sc.shape.name == sh for sc in K5.values()) for sh in SHAPES}
    assert min(per.values()) >= 6, per
    for sc in K5.values():
        cast = bind_roles(sc.shape, LIB, random.Random(0))
        assert cast is not None and len(set(cast.values())) == sc.shape.k == 5

def test_a_cites_role_is_never_cast_to_a_service_whose_write_gives_no_reference():
    "The case log of an order problem must give a reference the thread reply cites: memory and filesystem (no_reference) are never cast."
    sh = SCS["order_problem_chat"].shape
    logs = {bind_roles(sh, LIB, random.Random(s))["log"] for s in range(40)}
    assert logs and not logs & {"memory", "filesystem"} and len(logs) >= 3

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

def _shape_tasks(shape, seeds):
    return _tasks(seeds, [n for n, sc in SCS.items() if sc.shape.name == shape])

ORDERS, RESTOCK, ZONES, INCIDENTS, HANDOVERS = (_shape_tasks(sh, range(10)) for sh in ("order_problem", "db_restock", "zone_meeting", "incident_followup", "crm_handover"))

def test_new_shapes_are_admitted_and_goal_level():
    assert len(ORDERS) >= 9 and len(RESTOCK) >= 7 and len(ZONES) >= 9 and len(INCIDENTS) >= 9 and len(HANDOVERS) >= 9
    for t in ORDERS + RESTOCK + ZONES + INCIDENTS + HANDOVERS:
        assert admission_errors(t, LIB) == [], t.meta["scenario"]
        assert t.meta["K"] == 5 and 7 <= t.meta["L"] <= 9 and t.meta["revisits"] == t.meta["L"] - 5 and t.meta["shape"] == SCS[t.meta["scenario"]].shape.name
        wraps = [c for c in t.rubric if c["description"].startswith(("the wrap-up in ", "a further reply in the request's thread links ", "a further note on "))]
        assert len(wraps) == t.meta["L"] - 7          # each visit past the shape's seven is a wrap-up with its own goal criterion
        assert not any(step_like(s) for s in sentences(t.u)), t.u
        goal = [c for c in t.rubric if c["kind"] in ("state", "output")]
        assert len(goal) >= 5 and len({c.get("service") for c in goal if c["kind"] == "state"}) >= 3

def test_each_new_shape_takes_both_branches_of_its_condition_across_seeds():
    "order: delivered -> return (else cancel); restock: below the level -> restocked, the nearest above untouched; approval by count; zones: the first slot suits all or not; incident: SEV1 by reports."
    def outcomes(ts, prefix): return {k["outcome"] for t in ts for k in t.meta["conditions"] if k["name"].startswith(prefix)}
    assert outcomes(ORDERS, "order_") == {True, False}
    assert outcomes(RESTOCK, "restock_") == {True, False} and outcomes(RESTOCK, "needs_approval") == {True, False}
    assert outcomes(ZONES, "first_slot") == {True, False}
    assert outcomes(INCIDENTS, "sev1") == {True, False}
    assert outcomes(HANDOVERS, "deal_") == {True, False}

def test_order_problem_rubric_checks_each_order_by_its_status():
    for t in ORDERS:
        crit = {c["id"]: c for c in t.rubric}
        for k in t.meta["conditions"]:
            c = crit[k["against"][0]]
            assert (c["service"], c["field"], c["value"]) == ("retail", "status", "return requested" if k["outcome"] else "cancelled")
        keep = t.meta["sets"][0]["excluded"][0]
        assert any(c["kind"] == "unchanged" and c["where"] == {"order_id": keep} for c in t.rubric)
        assert any(m["criterion"] and m["tool"].startswith("retail.") for m in t.meta["mistakes"])

def test_restock_leaves_the_product_at_the_level_alone_and_a_restock_of_it_fails():
    from compoworld_nb.admission import Admission
    from compoworld_nb.probe import env_call
    t = RESTOCK[0]
    a = Admission(t, LIB)
    m = next(m for m in t.meta["mistakes"] if m["tool"] == "sqlite.write_query")
    js, o = env_call(a.env, a.run.g, m["tool"], m["arguments"])
    c = next(c for c in a.rubric.criteria if c.id == m["criterion"])
    assert o["ok"] and a.b(c, a.run.g) == 1 and a.b(c, js) == 0

def test_zone_meeting_emails_each_attendee_their_own_local_time():
    for t in ZONES:
        mails = [c for c in t.rubric if c["service"] == "gmail" and c["op"] == "contains" and "the time in" in c["description"]]
        assert len(mails) == 3
        assert all(re.match(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00[+-]\d{2}:\d{2}$", c["value"]) for c in mails)

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

def test_a_larger_k_casts_each_shapes_optional_wrap_role():
    "K=6: a shape adds its optional `wrap` service (Shape.optional) and posts the first wrap-up there, so K varies within a shape; K=5 casts never include it."
    ts, _ = generate_tasks(10, 5, LIB, WORLD, k=6, progress=False, chain_share=0.0)
    assert len(ts) == 10 and {t.meta["author"] for t in ts} == {"scenario"} and len({t.meta["shape"] for t in ts}) >= 4
    for t in ts:
        assert t.meta["K"] == len(t.services) == 6 and 8 <= t.meta["L"] <= 9 and t.meta["revisits"] == t.meta["L"] - 6
        assert any(c["description"].startswith("the wrap-up in ") for c in t.rubric)
    assert all(sc.shape.ks == (5, 6) for sc in K5.values())
    assert all("wrap" not in bind_roles(sc.shape, LIB, random.Random(0)) for sc in K5.values())
