"Rubric criteria: typed comparison and the verifier."
import math, pytest
from compoworld_nb.rubric import Rubric, Criterion, CriterionError, apply_op, numbers_in, check, text_contains
from compoworld_nb.service import Record, State

class Msg(Record):
    id: str
    text: str
    n: float = 0
class Box(State):
    messages: dict[str, Msg] = {}

S0 = {"m": Box(messages={"a": Msg(id="a", text="x", n=10)})}

@pytest.mark.parametrize("op,actual,value,expect", [
    ("eq", 10, 10.0, True), ("eq", "10", 10, False), ("contains", "costs $100", 10, False),
    ("contains", "costs $100", 100, True), ("contains", ["a", "b"], "b", True), ("in", 3, [1, 2, 3], True),
    ("gte", 5, 5, True), ("lte", 6, 5, False), ("approx", 1.0004, 1.0, False), ("ne", "a", "b", True),
])
def test_ops(op, actual, value, expect):
    assert apply_op(op, True, actual, value, tol=1e-4) is expect

def test_output_criteria_compare_values_not_substrings():
    c = Criterion(id="o", kind="output", op="contains", value=10)
    assert check(c, S0, S0, "The total is $100.") == 0
    assert check(c, S0, S0, "The total is $10.") == 1
    s = Criterion(id="s", kind="output", op="contains", value="falcon-41")
    assert check(s, S0, S0, "code falcon-417") == 0 and check(s, S0, S0, "code falcon-41.") == 1
    assert check(s, S0, S0, None) == 0

def test_state_unchanged_and_counts():
    s1 = {"m": Box(messages={"a": Msg(id="a", text="y", n=10), "b": Msg(id="b", text="new")})}
    r = Rubric.load([
        {"id": "c1", "kind": "state", "service": "m", "collection": "messages", "where": {"id": "b"}, "field": "text", "op": "eq", "value": "new"},
        {"id": "c2", "kind": "unchanged", "service": "m", "collection": "messages", "where": {"id": "a"}},
        {"id": "c3", "kind": "state", "service": "m", "collection": "messages", "where": {}, "field": None, "op": "count_eq", "value": 2},
        {"id": "c4", "kind": "unchanged", "service": "m", "collection": "messages", "where": {"id": "a"}, "field": "n"}])
    assert r.score(s1, S0) == [1, 0, 1, 1]
    assert r.score(S0, S0) == [0, 1, 0, 1]

def test_model_rejects_bad_criteria():
    with pytest.raises(CriterionError, match="needs a service and a collection"): Criterion.load({"id": "x", "kind": "state", "op": "eq"})
    with pytest.raises(CriterionError, match="criterion 'x': op"): Criterion.load({"id": "x", "kind": "output", "op": "matches"})
    with pytest.raises(ValueError): Criterion.model_validate({"id": "x", "kind": "output", "op": "bogus"})
    with pytest.raises(ValueError): Criterion.model_validate({"id": "x", "kind": "state", "collection": "c"})
    for w in (math.inf, math.nan, 0, -1, 1e7, True, "1"):
        with pytest.raises(CriterionError, match="weight"): Criterion.load({"id": "x", "kind": "output", "weight": w})
    assert Criterion.load({"id": "x", "kind": "output", "weight": 1e6}).weight == 1e6
    with pytest.raises(ValueError): Rubric.load([{"id": "x", "kind": "output", "op": "eq"}] * 2)
    assert numbers_in("1,200 and -3.5") == [1200.0, -3.5]

@pytest.mark.parametrize("text,value,expect", [
    ("code falcon-417", "falcon-41", False), ("code falcon-41", "falcon-41", True), ("code falcon-41.", "falcon-41", True),
    ("costs $100", "10", False), ("costs 10.5", "10", False), ("1,100 units", "100", False), ("x-10", "10", False),
    ("room 10, left", "10", True), ("falcons fly", "falcon", False), ("Falcon", "falcon", False), ("a@x.com, b", "a@x.com", True),
    ("", "x", False), ("x", "", False)])
def test_contains_on_text_matches_whole_tokens(text, value, expect):
    assert text_contains(text, value) is expect
    assert apply_op("contains", True, text, value) is expect   # state values: the same typed comparison

def test_state_contains_is_typed():
    box = {"m": Box(messages={"a": Msg(id="a", text="code falcon-417 costs $100")})}
    row = lambda v: {"id": "c", "kind": "state", "service": "m", "collection": "messages", "field": "text", "op": "contains", "value": v}
    assert [check(Criterion.load(row(v)), box) for v in ("falcon-41", "falcon-417", 10, 100, "10", "$100")] == [0, 1, 0, 1, 0, 1]
