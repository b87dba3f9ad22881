"The rubric loader's compiled criterion check (fastjsonschema) agrees with jsonschema's Draft 2020-12 validator."
import fastjsonschema, jsonschema, pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis_jsonschema import from_schema
from compoworld_nb.rubric import CRITERION_SCHEMA
from compoworld_nb.task import _FAST, _valid_row, load_rubric

V = jsonschema.Draft202012Validator(CRITERION_SCHEMA)

def fast(d) -> bool:
    try: _FAST(d); return True
    except fastjsonschema.JsonSchemaException: return False

_vals = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False)
                     | st.sampled_from(["", "x", "state", "unchanged", "output", "eq", "contains"]),
                     lambda c: st.lists(c, max_size=3) | st.dictionaries(st.sampled_from(["a", "id"]), c, max_size=2), max_leaves=6)
_rows = st.dictionaries(st.sampled_from(list(CRITERION_SCHEMA["properties"]) + ["extra"]), _vals, max_size=9)

@settings(max_examples=150, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(_rows, from_schema(CRITERION_SCHEMA)))
def test_compiled_check_agrees_with_jsonschema(d):
    assert fast(d) == V.is_valid(d) == _valid_row(d)

@pytest.mark.parametrize("extra,ok", [({"edge": [0.0, 1.0]}, True), ({"edge": [True, 1]}, False), ({"weight": True}, False),
                                      ({"weight": 0}, False), ({"id": ""}, False), ({"kind": "state", "op": "eq"}, False),
                                      ({"covers": [[0, 1, 2]]}, False), ({"edge": None}, True), ({"nope": 1}, False)])
def test_edge_cases_and_load_errors(extra, ok):
    d = {"id": "c1", "kind": "output", "op": "contains", "value": "x", **extra}
    assert fast(d) is ok and V.is_valid(d) is ok
    if ok: assert load_rubric([d]).criteria[0].id == "c1"
    else:
        with pytest.raises(jsonschema.ValidationError): load_rubric([d])
