"K=2 workflow shapes (issue 20 at the demo's recipe): short real requests, admitted, both branches across seeds, sets and exclusions checked, SFT replays admitted."
import collections
import pytest
from compoworld_nb.author import default_library, default_scenarios, scenario_task, generate_tasks, AuthoringError
from compoworld_nb.scenario import sentences, step_like
from compoworld_nb.admission import Admission, admission_errors
from compoworld_nb.probe import env_call
from compoworld_nb.sft_data import sft_trajectories

LIB, WORLD = default_library()
SCS = default_scenarios()
K2 = {n: sc for n, sc in SCS.items() if 2 in sc.shape.ks}

def _tasks(shape, seeds):
    scs = {n: sc for n, sc in K2.items() if sc.shape.name == shape}
    out = []
    for s in seeds:
        try: out.append(scenario_task(LIB, s, scs, 2, 3, 4, 2, WORLD, world_seed=s % 8))
        except AuthoringError: pass
    return out

NOTICE = _tasks("list_notice", range(16))
RSVP = _tasks("rsvp_chase", range(12))
BUGS = _tasks("bug_report", range(12))
ISSUES = _tasks("issue_wrapup", range(12))
SHAPES = {"list_notice": (NOTICE, {"gmail", "forum"}), "rsvp_chase": (RSVP, {"gmail", "calendar"}), "bug_report": (BUGS, {"gmail", "linear"}),
          "issue_wrapup": (ISSUES, {"gmail", "github"})}


def _mistake(t, tool: str):
    "Admission of `t`, its one recorded mistake on `tool`, the joint state after that write on top of g, its observation, and the criterion it targets."
    a = Admission(t, LIB)
    m, = [m for m in t.meta["mistakes"] if m["tool"] == tool]
    js, o = env_call(a.env, a.run.g, m["tool"], m["arguments"])
    return a, m, js, o, next(c for c in a.rubric.criteria if c.id == m["criterion"])

def test_k2_shapes_cast_only_at_k2_and_never_to_the_avoided_services():
    assert {sc.shape.name for sc in K2.values()} == set(SHAPES)
    assert all(sc.shape.ks == (2,) for sc in K2.values())
    per = collections.Counter(sc.shape.name for sc in K2.values())
    assert min(per.values()) >= 6 and len({sc.domain for sc in K2.values()}) >= 6
    for t in NOTICE: assert set(t.services) == {"gmail", "forum"}      # slack and notion are avoided (Shape.avoid)

def test_list_notice_tasks_are_admitted_short_and_goal_level():
    assert len(NOTICE) == 16
    for t in NOTICE:
        assert admission_errors(t, LIB) == [], t.meta["scenario"]
        assert (t.meta["K"], t.meta["shape"]) == (2, "list_notice") and t.meta["L"] in (3, 4) and t.meta["revisits"] == t.meta["L"] - 2
        assert len(t.reference) <= 8
        assert not any(step_like(s) for s in sentences(t.u)) and "gmail" not in t.u.lower(), t.u   # "the community forum" is where a person says the list is
        goal = [c for c in t.rubric if c["kind"] in ("state", "output")]
        assert len(goal) >= 5 and {c["service"] for c in goal if c["kind"] == "state"} == {"gmail", "forum"}
    assert {t.meta["L"] for t in NOTICE} == {3, 4}

def test_list_notice_condition_takes_both_branches_and_the_note_checks_the_one_taken():
    outcomes = set()
    for t in NOTICE:
        k, = t.meta["conditions"]
        n_yes = len(t.meta["sets"][0]["members"])
        assert k["name"] == "enough_people" and k["observed"] == n_yes and k["outcome"] == (n_yes >= k["test"]["value"])
        crit = {c["id"]: c for c in t.rubric}
        note = crit[k["against"][0]]
        sc = SCS[t.meta["scenario"]].story
        assert (note["service"], note["op"], note["value"]) == ("forum", "contains", sc["ready"] if k["outcome"] else sc["short"])
        other = next(c for c in t.rubric if c["op"] == "excludes" and c["where"] == note["where"] and c["field"] == note["field"])
        assert other["value"] == [sc["short"] if k["outcome"] else sc["ready"]]
        assert next(c for c in t.rubric if c["kind"] == "output")["value"] == str(n_yes)
        outcomes.add(k["outcome"])
    assert outcomes == {True, False}

def test_list_notice_emails_each_member_and_the_count_and_exclusion_hold():
    for t in NOTICE:
        st, = t.meta["sets"]
        assert st["members"] and st["excluded"] and not set(st["members"]) & set(st["excluded"])
        per = [c for c in t.rubric if c["service"] == "gmail" and c["op"] == "contains"]
        assert sorted(c["where"]["to.0"] for c in per) == sorted(st["members"])     # one criterion per member
        count, = [c for c in t.rubric if c["op"] == "count_eq"]
        assert count["value"] == len(st["members"])
        excl = [c for c in t.rubric if c["kind"] == "unchanged" and c["service"] == "gmail" and c["where"].get("to.0") in st["excluded"]]
        assert len(excl) == 1

def test_emailing_the_person_who_said_no_fails_the_exclusion_on_g():
    for t in NOTICE[:4]:
        a, m, js, o, c = _mistake(t, "gmail.send_email")
        assert o["ok"] and m["arguments"]["to"][0] in t.meta["sets"][0]["excluded"]
        assert a.b(c, a.run.g) == 1 and a.b(c, js) == 0

def test_list_notice_discovering_sft_replays_are_admitted():
    kept, why = sft_trajectories(NOTICE, LIB)
    assert why == {"not_success": 0, "unseen_value": 0} and len(kept) == len(NOTICE)

def test_same_seed_same_k2_task_bytes():
    a, b = _tasks("list_notice", [3]), _tasks("list_notice", [3])
    assert a and a[0].to_jsonl() == b[0].to_jsonl()

def test_demo_recipe_draws_workflows_with_at_most_a_tenth_token_chain():
    "The demo's recipe (PRETRAINED_RECIPE: K=2, L<=4, 2 distractors): generate_tasks draws the K=2 shapes; the token chain is at most 10%."
    ts, _ = generate_tasks(40, 0, LIB, WORLD, k=(2, 2), l_min=3, l_max=4, n_distractors=2, progress=False)
    kinds = collections.Counter(t.meta.get("shape", "token_chain") for t in ts)
    assert len(ts) == 40 and kinds["token_chain"] <= 4 and min(kinds[sh] for sh in SHAPES) >= 3, kinds
    assert set(kinds) - {"token_chain"} == {sc.shape.name for sc in K2.values()}


def test_every_k2_shape_is_admitted_short_goal_level_with_writes_in_both_services():
    for shape, (ts, services) in SHAPES.items():
        assert len(ts) >= 12, shape
        for t in ts:
            assert admission_errors(t, LIB) == [] and t.meta["shape"] == shape and set(t.services) == services, t.meta["scenario"]
            assert t.meta["K"] == 2 and t.meta["L"] in (3, 4) and len(t.reference) <= 8
            assert not any(step_like(s) for s in sentences(t.u)) and "gmail" not in t.u.lower() and "linear" not in t.u.lower(), t.u
            goal = [c for c in t.rubric if c["kind"] in ("state", "output")]
            assert len(goal) >= 4 and {c["service"] for c in goal if c["kind"] == "state"} == services
            assert t.meta["sets"] and t.meta["conditions"] and t.answer
        assert len({t.meta["scenario"] for t in ts}) >= 5 and len({SCS[t.meta["scenario"]].domain for t in ts}) >= 4, shape

def test_rsvp_chase_moves_the_event_only_when_too_few_accepted():
    "Both branches across seeds: enough acceptances keep the venue (an exclusion a move fails), too few move it (location eq the alternative)."
    outcomes = set()
    for t in RSVP:
        k, = t.meta["conditions"]
        c = {c["id"]: c for c in t.rubric}[k["against"][0]]
        assert (c["service"], c["field"]) == ("calendar", "location") and c["kind"] == ("unchanged" if k["outcome"] else "state")
        out = [c for c in t.rubric if c["kind"] == "output"]
        assert out[0]["value"] == t.answer and out[1]["op"] == "excludes" and t.answer not in out[1]["value"]
        outcomes.add(k["outcome"])
    assert outcomes == {True, False}
    kept = next(t for t in RSVP if t.meta["conditions"][0]["outcome"])
    a, m, js, o, c = _mistake(kept, "calendar.update-event")
    assert o["ok"] and a.b(c, a.run.g) == 1 and a.b(c, js) == 0          # moving it anyway fails the kept branch

def test_rsvp_chase_reminds_only_the_guests_who_did_not_answer():
    for t in RSVP:
        st, = t.meta["sets"]
        per = [c for c in t.rubric if c["service"] == "gmail" and c["op"] == "contains"]
        assert sorted(c["where"]["to.0"] for c in per) == sorted(st["members"]) and st["excluded"]
        count, = [c for c in t.rubric if c["op"] == "count_eq"]
        assert count["value"] == len(st["members"])

def test_bug_report_priority_follows_the_affected_count_and_every_reporter_is_named_and_told():
    outcomes = set()
    for t in BUGS:
        k, = t.meta["conditions"]
        c = {c["id"]: c for c in t.rubric}[k["against"][0]]
        assert (c["service"], c["field"], c["value"]) == ("linear", "priority", 1 if k["outcome"] else 3)
        assert k["outcome"] == (k["observed"] >= k["test"]["value"])
        st, = t.meta["sets"]
        told = [c for c in t.rubric if c["service"] == "gmail" and c["op"] == "contains"]
        assert sorted(c["where"]["to.0"] for c in told) == sorted(st["members"]) and all(c["value"] == t.answer for c in told)
        assert len([c for c in t.rubric if c["service"] == "linear" and c["field"] == "description" and c["op"] == "contains"]) == len(st["members"]) + 1
        outcomes.add(k["outcome"])
    assert outcomes == {True, False}
    t = BUGS[0]
    a, m, js, o, c = _mistake(t, "gmail.send_email")
    assert o["ok"] and m["arguments"]["to"] == t.meta["sets"][0]["excluded"] and a.b(c, a.run.g) == 1 and a.b(c, js) == 0

def test_every_k2_shapes_discovering_sft_replays_are_admitted():
    kept, why = sft_trajectories(RSVP + BUGS + ISSUES, LIB)
    assert why == {"not_success": 0, "unseen_value": 0} and len(kept) == len(RSVP + BUGS + ISSUES)


def test_issue_wrapup_closes_the_issue_only_when_it_says_fixed():
    "Fixed: closed (state eq closed) and each reporter told the version; not fixed: an exclusion that closing it fails, and the answer is the status line."
    outcomes = set()
    for t in ISSUES:
        k, = t.meta["conditions"]
        c = {c["id"]: c for c in t.rubric}[k["against"][0]]
        assert (c["service"], c["field"]) == ("github", "state") and (c["kind"], c.get("value")) == (("state", "closed") if k["outcome"] else ("unchanged", None))
        told = [c for c in t.rubric if c["service"] == "gmail" and c["op"] == "contains"]
        assert sorted(c["where"]["to.0"] for c in told) == sorted(t.meta["sets"][0]["members"])
        if k["outcome"]: assert all(c["value"] == t.answer and t.answer.startswith("v") for c in told)
        outcomes.add(k["outcome"])
    assert outcomes == {True, False}
    t = next(t for t in ISSUES if not t.meta["conditions"][0]["outcome"])
    a, m, js, o, c = _mistake(t, "github.update_issue_state")
    assert o["ok"] and a.b(c, a.run.g) == 1 and a.b(c, js) == 0

def test_a_library_or_l_range_no_k2_shape_fits_falls_back_to_the_token_chain():
    "generate_tasks draws only scenarios the library casts whose Shape.ls meet the L range; where none does, the token chain (as before K=2 shapes existed)."
    two = {k: LIB[k] for k in ("gmail", "linear")}
    ts, rej = generate_tasks(1, 3, two, WORLD, k=2, l_min=3, l_max=3, n_distractors=0, progress=False)
    assert [t.meta["scenario"] for t in ts] == ["token_chain"] and rej == {}
    ts, _ = generate_tasks(3, 3, two, WORLD, k=2, l_min=3, l_max=4, n_distractors=0, progress=False, chain_share=0.0)
    assert {t.meta["shape"] for t in ts} == {"bug_report"}          # the only K=2 shape gmail + linear cast
    assert {sc.shape.ls for sc in K2.values()} == {(3, 4), (4,)}
