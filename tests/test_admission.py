"Admission rules: each rejection names its rule; the issue's must-reject examples; hashes and extra reads."
import json, random
import pytest
from compoworld_nb.core import state_hash, canonical_json
from compoworld_nb.compose import ComposedEnv, joint_hash
from compoworld_nb.walk import DependencyGraph
from compoworld_nb.task import Task, apply_overrides, materialize_s0, _fixture, joint_hash_cached, load_rubric
from compoworld_nb.admission import Admission, ADMISSION_RULES, admission_errors, names_tools, generated_id
from compoworld_nb.probe import probe, run_calls
from compoworld_nb.author import default_library, generate_tasks
from sample_services.demo_task import demo_parts

LIB, WORLD = default_library()

def handmade(seed: int = 3) -> Task:
    "slack (a planted channel gives a code) -> gmail (the email about the code names a venue) -> slack (post the venue in #general): the demo task's parts (`sample_services.demo_task`)."
    P = demo_parts(LIB, seed)
    return build(dict(u=P["u"], services=["slack", "gmail"], distractors=["maps"], walk=P["walk"], s0={"seed": seed, "overrides": P["plant"]},
                      reference=P["reference"], rubric=P["rubric"], meta={"K": 2, "L": 3, "visits": [0, 0, 1, 1, 2],
                                                                          "changes": [{"visit": 2, "service": "slack", "criteria": ["c1"]}]}))

def build(d: dict, fix_hashes: bool = True) -> Task:
    "A task from parts; s0_hash and g_hash recomputed from the overrides and the reference (so only the rule under test breaks)."
    d = dict(d)
    d.setdefault("id", "t_test"); d.setdefault("answer", None)
    d["graph"] = DependencyGraph(d["services"], d["walk"], d["distractors"]).to_json()
    t = Task(s0_hash="0" * 64, g_hash="0" * 64, **d)
    if fix_hashes:
        s0 = apply_overrides({n: _fixture(LIB[n], d["s0"]["seed"]) for n in d["services"] + d["distractors"]}, d["s0"]["overrides"])
        t = t.model_copy(update={"s0_hash": joint_hash(s0)})
        g, _ = probe(t, LIB)
        t = t.model_copy(update={"g_hash": joint_hash(g)})
    return t

def rules(t: Task) -> set[str]: return {e.split(":")[0] for e in admission_errors(t, LIB)}

T = handmade()

def with_(**kw) -> Task:
    d = T.model_dump(); d.pop("graph"); d.pop("s0_hash"); d.pop("g_hash"); d.update(kw)
    return build(d)

def test_the_handmade_task_is_admitted_and_every_rule_has_a_docstring():
    assert admission_errors(T, LIB) == []
    assert len(ADMISSION_RULES) >= 20 and all(f.__doc__ for n, f in ADMISSION_RULES.items() if n not in ("has_goal_criteria", "instruction_names_no_tools"))

def test_must_reject_an_id_absent_from_s0():
    ref = T.reference[:3] + [{"tool": "gmail.read_email", "arguments": {"messageId": "msg_zzz"}}] + T.reference[4:]
    errs = admission_errors(with_(reference=ref), LIB)
    assert "ids_exist: call 3 gmail.read_email messageId='msg_zzz' exists neither in s0 nor in an earlier observation" in errs
    assert any(e.startswith("probe_calls_succeed: reference calls [3]") for e in errs)

def test_must_reject_a_single_write_that_leaves_the_second_demanded_change_undone():
    second = {"id": "c4", "kind": "state", "service": "gmail", "collection": "messages", "where": {"subject": "Venue"},
              "field": "to", "op": "contains", "value": "ann@example.com", "edge": [1, 2]}
    t = with_(u=T.u + " Then email ann@example.com with the subject \"Venue\" naming it.", rubric=T.rubric + [second],
              meta={**T.meta, "changes": T.meta["changes"] + [{"visit": 2, "service": "gmail", "criteria": ["c4"]}]})
    errs = admission_errors(t, LIB)
    assert any(e.startswith("changes_done: criterion c4 checks gmail.messages {'subject': 'Venue'}") for e in errs)
    assert "verifier_accepts_g: v(g)=0: criteria ['c4'] fail on the reference" in errs

def test_a_trivially_true_collateral_criterion_is_rejected():
    triv = {"id": "c9", "kind": "unchanged", "service": "slack", "collection": "users", "where": {"id": sorted(_fixture(LIB["slack"], 3).users)[0]}}
    assert "collateral_catches_wrong_write: collateral criteria ['c9'] pass on every plausible wrong write (trivially true)" \
        in admission_errors(with_(rubric=T.rubric + [triv]), LIB)

def test_collateral_is_needed_where_a_wrong_write_exists_and_catches_it():
    assert rules(with_(rubric=T.rubric[:1])) == {"collateral_per_service"}
    a = Admission(T, LIB)
    ww = list(a.wrong_writes())
    right = [w for w in ww if w.kind == "wrong_record"]
    assert right[0].call == {"tool": "slack.slack_post_message", "arguments": {"channel_id": "C_p2", "text": "Venue: Tyler, TX"}}
    c2 = a.rubric.criteria[1]
    assert a.b(c2, a.run.g) == 1 and a.b(c2, right[0].final) == 0          # passes on g, fails on the right action on the wrong record

@pytest.mark.parametrize("change,rule", [
    (dict(walk=["slack", "slack", "gmail"]), "walk_eq3"),
    (dict(meta={**T.meta, "L": 4}), "consistent_counts"),
    (dict(meta={**T.meta, "visits": [0, 0, 1, 1]}), "consistent_counts"),
    (dict(reference=T.reference[:4] + [{"tool": "slack.slack_post_message", "arguments": {"channel_id": "C_nope", "text": "x"}}]), "probe_calls_succeed"),
    (dict(rubric=[{**T.rubric[0], "value": "Ada, OK"}] + T.rubric[1:]), "verifier_accepts_g"),
    (dict(rubric=T.rubric[1:]), "has_goal_criteria"),
    (dict(rubric=T.rubric[1:]), "verifier_rejects_s0"),
    (dict(rubric=T.rubric[1:]), "empty_trajectory_fails"),
    (dict(rubric=[{**T.rubric[0], "covers": []}] + T.rubric[1:]), "criterion_per_edge"),
    (dict(rubric=T.rubric + [{"id": "c5", "kind": "state", "service": "slack", "collection": "channels", "where": {"name": "general"},
                              "field": "name", "op": "eq", "value": "general", "edge": [1, 2]}]), "goal_criteria_need_reference"),
    (dict(answer="falcon-417", rubric=T.rubric + [{"id": "c6", "kind": "output", "op": "contains", "value": "quartz-552", "edge": [1, 2]}]), "answer_needs_reference"),
    (dict(reference=T.reference[:4] + [{"tool": "slack.slack_post_message", "arguments": {"channel_id": T.reference[4]["arguments"]["channel_id"],
                                                                                      "text": "Venue: Tyler, TX (ref 7731-QX)"}}]), "values_derivable"),
    (dict(reference=T.reference + [{"tool": "slack.slack_nope", "arguments": {}}], meta={**T.meta, "visits": [0, 0, 1, 1, 2, 2]}), "tools_exercised"),
    (dict(u=T.u + " Use slack_post_message."), "instruction_names_no_tools"),
    (dict(u=T.u + " The channel id is C_p2; pass it as channel_id."), "instruction_no_internals"),
    (dict(reference=T.reference[:2] + [{"tool": "gmail.search_emails", "arguments": {"query": "venue"}}] + T.reference[3:]), "edge_information_flow"),
])
def test_each_rule_names_itself(change, rule):
    assert rule in rules(with_(**change))

def test_s0_and_g_mismatches_are_named():
    bad_plant = json.loads(json.dumps(T.s0)); bad_plant["overrides"]["gmail"]["messages"]["msg_p1"]["nonsense"] = 1
    assert rules(T.model_copy(update={"s0": bad_plant})) == {"s0_materialises"}
    assert rules(T.model_copy(update={"s0_hash": "f" * 64})) == {"s0_materialises"}
    assert rules(T.model_copy(update={"g_hash": "e" * 64})) == {"probe_reaches_g"}
    key = json.loads(json.dumps(T.s0)); key["overrides"]["gmail"]["messages"]["msg_p1"]["id"] = "msg_other"
    assert "consistent_counts" in rules(build({**{k: v for k, v in T.model_dump().items() if k not in ("graph", "s0_hash", "g_hash")}, "s0": key}))

def test_revisit_that_learned_nothing_in_between_is_rejected():
    # gmail -> slack -> gmail: the second gmail visit writes what the first one already read (the venue), not what slack revealed
    t = with_(walk=["gmail", "slack", "gmail"], services=["gmail", "slack"],
              reference=[T.reference[2], T.reference[3], T.reference[4],
                         {"tool": "gmail.send_email", "arguments": {"to": ["ann@example.com"], "subject": "Venue", "body": "Tyler, TX"}}],
              u="Find the email about 'falcon-417' and read it. Post the venue it names in the #general channel, then email "
                "ann@example.com with the subject \"Venue\" naming it.",
              rubric=[{**T.rubric[0], "edge": [0, 1], "covers": []},
                      {"id": "c4", "kind": "state", "service": "gmail", "collection": "messages", "where": {"subject": "Venue"},
                       "field": "body", "op": "contains", "value": "Tyler, TX", "edge": [1, 2], "covers": [[0, 1]]}] + T.rubric[1:],
              meta={"K": 2, "L": 3, "visits": [0, 0, 1, 2], "changes": []})
    assert "revisits_needed" in rules(t)

REVISIT_RULES = ["revisits_needed", "edge_information_flow"]

def test_a_record_a_call_names_by_its_generated_id_is_read_there():
    # calendar -> gmail -> calendar: visit 0 opens event ev_94n by its id (the answer holds its attendees, a list of records),
    # gmail is searched for one attendee's mail, and the revisit writes only that attendee's address into the event: the agent
    # had read it at visit 0, so the revisit needs nothing learned in between. Before, an answer holding a list of records was
    # taken for a listing, and the record itself never counted as read: the revisit passed.
    ev = _fixture(LIB["calendar"], 3).events["ev_94n"]
    assert "brad.deleon@watkins.com" in [x.email for x in ev.attendees]
    cal = {"calendarId": ev.calendarId, "eventId": ev.id}
    t = build(dict(u="Open my weekly team sync event, look up my mail from its attendee Brad Deleon, and note in the event to follow up with him.",
                   services=["calendar", "gmail"], distractors=["maps"], walk=["calendar", "gmail", "calendar"], s0={"seed": 3, "overrides": {}},
                   reference=[{"tool": "calendar.get-event", "arguments": cal},
                              {"tool": "gmail.search_emails", "arguments": {"query": "brad.deleon@watkins.com"}},
                              {"tool": "calendar.update-event", "arguments": {**cal, "description": "Follow up with brad.deleon@watkins.com"}}],
                   rubric=[{"id": "c1", "kind": "state", "service": "calendar", "collection": "events", "where": {"id": "ev_94n"}, "field": "description",
                            "op": "contains", "value": "brad.deleon@watkins.com", "edge": [1, 2], "covers": [[0, 1]]}],
                   meta={"K": 2, "L": 3, "visits": [0, 1, 2], "changes": [{"visit": 2, "service": "calendar", "criteria": ["c1"]}]}))
    assert admission_errors(t, LIB, REVISIT_RULES) == [
        "revisits_needed: the revisit of calendar at position 2 uses nothing learned after its previous visit at 0 nor its own earlier write"]

def test_a_record_only_listed_before_and_picked_by_what_came_in_between_makes_the_revisit_needed():
    # slack -> gmail -> slack: visit 0 lists the channels (eng-standup among them, not read) and reads the planted one; the email
    # names eng-standup; the revisit reads that channel by its id, known from the listing. The email's value picked the record
    # the revisit reads for the first time: the revisit is needed. Before, only records listed by the revisit's own calls could be
    # picked, so no value flowed along edge 1 -> 2 and the revisit was refused.
    P = demo_parts(LIB, 3)
    chan = next(c for c in _fixture(LIB["slack"], 3).channels.values() if c.name == "eng-standup")
    plant = json.loads(json.dumps(P["plant"]))
    plant["gmail"]["messages"]["msg_p1"]["body"] = "The seating plan for falcon-417 is in the eng-standup channel."
    t = with_(s0={"seed": 3, "overrides": plant}, reference=P["reference"][:4] + [
                  {"tool": "slack.slack_get_channel_history", "arguments": {"channel_id": chan.id}}],
              u="Open the chat channel named 'quartz-552' and read the latest message. Find the email about the code posted there, "
                "and tell me the latest message in the channel that email names.", answer=None,
              rubric=[{"id": "c1", "kind": "output", "op": "contains", "value": "x", "edge": [1, 2], "covers": [[0, 1]]}])
    assert admission_errors(t, LIB, REVISIT_RULES) == []

def test_state_hashes_ignore_number_spelling_and_key_order():
    assert state_hash({"a": 25, "b": [1, 2.0]}) == state_hash({"b": [1, 2], "a": 25.0})
    ov = json.loads(json.dumps(T.s0["overrides"]))
    ov["slack"]["channels"]["C_p2"]["created"] = 1740900000.0
    ov2 = {k: dict(reversed(list(v.items()))) for k, v in reversed(list(ov.items()))}
    s0 = {n: _fixture(LIB[n], 3) for n in T.services + T.distractors}
    assert joint_hash(apply_overrides(s0, ov)) == joint_hash(apply_overrides(s0, ov2)) == T.s0_hash

@pytest.fixture(scope="module")
def generated():
    ts, _ = generate_tasks(4, seed=21, library=LIB, world_factory=WORLD, k=3, l_min=4, l_max=6, n_distractors=2, progress=False, worlds=2)
    return ts

def test_extra_read_calls_never_change_a_hash(generated):
    for t in generated + [T]:
        env = ComposedEnv([LIB[n] for n in t.services + t.distractors])
        reads = [c for c in t.reference if env.get_tool(c["tool"]).read_only]
        noisy = []
        for c in t.reference: noisy += [c, *reads[:2]]              # every call followed by two extra reads
        run = run_calls(env, materialize_s0(t, LIB), noisy)
        assert joint_hash(run.g) == t.g_hash
        for i, c in enumerate(noisy):
            if env.get_tool(c["tool"]).read_only: assert joint_hash(run.states[i + 1]) == joint_hash(run.states[i])

def test_generated_ids_and_tool_names_in_text():
    assert [generated_id(k) for k in ("msg_7k2", "C_p3", "UQ0AL12X9", "ENG", "falcon-417", "#W8692887")] == [True, True, True, False, False, False]
    assert names_tools("Call gmail.send_email, then search-events.", ["gmail.send_email", "calendar.search-events", "slack.post"]) == \
        ["gmail.send_email", "search-events", "send_email"]

def test_cached_helpers_agree_with_the_plain_ones():
    s0 = materialize_s0(T, LIB)
    assert joint_hash_cached(s0) == joint_hash(s0) and load_rubric(T.rubric).to_json() == T.v.to_json()
    with pytest.raises(Exception, match="python"):
        load_rubric([{**T.rubric[0], "python": "lambda s: True"}])           # criteria are data: unknown fields are refused

def test_a_task_with_the_earlier_state_hash_gets_a_clear_error(generated):
    "A task file written before the two-level state hash names that cause (and what to do); any other mismatch keeps the plain message."
    t = generated[0]
    s0 = materialize_s0(t, LIB)
    old = state_hash({n: state_hash(s) for n, s in s0.items()})       # each service state's whole canonical JSON, then joint
    assert old != t.s0_hash
    with pytest.raises(ValueError, match=r"earlier state hash .* author its task set again"):
        materialize_s0(t.model_copy(update={"s0_hash": old}), LIB)
    with pytest.raises(ValueError, match=r"materialised s0 hash [0-9a-f]{12} != recorded 000000000000"):
        materialize_s0(t.model_copy(update={"s0_hash": "0" * 64}), LIB)
