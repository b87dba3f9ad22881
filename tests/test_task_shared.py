"Shared work in admission is the same work: `same_state`, `any_change`, `rubric_rows`, shared probes and wrong writes."
from compoworld_nb.author import default_library, author_task
from compoworld_nb.service import cow_view, commit_view
from compoworld_nb.task import same_state, rubric_rows, load_rubric, materialize_s0, _fixture
from compoworld_nb.wrong_writes import any_change, record_changes
from compoworld_nb.admission import Admission, admission_errors
from compoworld_nb.probe import run_calls

LIB, WORLD = default_library()

def test_same_state_is_strict_about_values_types_and_order():
    s = _fixture(LIB["slack"], 0)
    v = cow_view(s); commit_view(v)
    assert v is not s and same_state(v, s)                                  # a copy sharing every record
    mid = next(iter(s.messages))
    w = cow_view(s); w.messages[mid] = w.messages[mid].model_copy(update={"text": "changed"}); commit_view(w)
    assert not same_state(w, s) and any_change(s, w) and record_changes(s, w) == [("messages", mid, "changed")]
    x = cow_view(s); m = x.messages.pop(mid); x.messages[mid] = m; commit_view(x)   # same records, another order
    assert not same_state(x, s) and not any_change(s, x)
    assert not any_change(s, v) and record_changes(s, v) == []

def test_rubric_rows_equal_to_json_and_fresh():
    rows = [{"id": "c1", "kind": "output", "op": "contains", "value": "x"}]
    a, b = rubric_rows(rows), rubric_rows(rows)
    assert a == b == load_rubric(rows).to_json() and a[0] is not b[0]

def test_shared_probe_and_wrong_writes_are_those_of_a_fresh_admission():
    t = author_task(LIB, 11, k=3, l_min=4, l_max=6, n_distractors=1, world_factory=WORLD)
    a1, a2 = Admission(t, LIB), Admission(t, LIB)
    assert a1.run is a2.run                                                 # the author's probe is reused
    fresh = run_calls(a1.env, materialize_s0(t, LIB), t.reference)
    assert [o for o in fresh.obs] == a1.run.obs
    assert [(w.kind, w.service, w.call) for w in a1.wrong_writes()] == [(w.kind, w.service, w.call) for w in a2.wrong_writes()]
    a3 = Admission(t, LIB); a3.skip_services = {t.services[0]}               # a capped generation is never the shared one
    assert all(w.service != t.services[0] for w in a3.wrong_writes())
    assert admission_errors(t, LIB) == []

def test_field_index_of_a_derived_collection_extends_the_fixtures_and_equals_a_fresh_one():
    "A written or planted collection reuses the cached index of its records before the first touched one; the result equals an index built from scratch, and the cached one is left as it was."
    import copy
    from compoworld_nb.wrong_writes import _field_index, _index_records
    svc = LIB["gmail"]; s = _fixture(svc, 3)
    fresh = lambda coll: _index_records(list(coll.values())[:400])
    base = _field_index(s.messages); kept = copy.deepcopy(base)
    assert base == fresh(s.messages)
    mid = next(m for m in sorted(s.messages)[5:] if "STARRED" not in s.messages[m].labelIds)
    s1, o = svc.call(s, "modify_email", {"messageId": mid, "addLabelIds": ["STARRED"]}); assert o["ok"]   # a write: touched in the middle
    s2, o = svc.call(s1, "send_email", {"to": ["ann@example.com"], "subject": "Quarterly falcon-417", "body": "hi"}); assert o["ok"]
    assert s1.messages.touched == {mid} and s2.messages.touched                   # each derived collection names what its call changed
    for coll in (s1.messages, s2.messages):
        assert _field_index(coll) == fresh(coll)
    got = _field_index(s2.messages)
    assert "Quarterly falcon-417" in got[0] and "Quarterly falcon-417" not in base[0]
    assert _field_index(s.messages) == kept == base                 # the fixture's index is unchanged
