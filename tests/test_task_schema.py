"One criterion definition: the pydantic `Criterion`; the committed JSON Schema is generated from it."
import json, pathlib
import jsonschema, pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from compoworld_nb.rubric import Criterion, CriterionError, OPS, criterion_schema
from compoworld_nb.task import load_rubric

SCHEMA_FILE = pathlib.Path(__file__).resolve().parent.parent / "schemas" / "criterion.schema.json"

def test_committed_schema_is_generated_from_the_model():
    assert json.loads(SCHEMA_FILE.read_text(encoding="utf-8")) == criterion_schema()
    s = criterion_schema()
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["properties"]["op"]["enum"] == list(OPS) and s["additionalProperties"] is False
    assert sorted(s["required"]) == ["id", "kind"]

_vals = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False)
                     | st.sampled_from(["", "x", "state", "unchanged", "output", "eq", "contains", "bogus"]),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["a", "id"]), c, max_size=2), max_leaves=6)
_rows = st.dictionaries(st.sampled_from(list(Criterion.model_fields) + ["extra"]), _vals, max_size=9)

@settings(max_examples=200, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(_rows)
def test_what_the_model_accepts_the_schema_accepts(d):
    "The model is the definition; the schema it generates never refuses a row the model takes (the model is stricter only on integer-valued floats in `edge`/`covers`)."
    V = jsonschema.Draft202012Validator(criterion_schema())
    try: c = Criterion.load(d)
    except CriterionError: return
    assert V.is_valid(d) and V.is_valid(c.to_json())

@pytest.mark.parametrize("extra,ok", [({"edge": [0, 1]}, True), ({"edge": [True, 1]}, False), ({"weight": True}, False),
                                      ({"weight": 0}, False), ({"weight": float("inf")}, False), ({"id": ""}, False),
                                      ({"kind": "state", "op": "eq"}, False), ({"op": "bogus"}, False),
                                      ({"covers": [[0, 1, 2]]}, False), ({"edge": None}, True), ({"nope": 1}, False)])
def test_edge_cases_and_load_errors(extra, ok):
    d = {"id": "c1", "kind": "output", "op": "contains", "value": "x", **extra}
    if ok: assert load_rubric([d]).criteria[0].id == "c1"
    else:
        with pytest.raises(CriterionError, match="criterion 'c1'|criterion ''"): load_rubric([d])
