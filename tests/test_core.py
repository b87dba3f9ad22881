"Core: observations, canonical hashing, ids, clock and settings precedence."
import json
from hypothesis import given, settings, strategies as st
from compoworld_nb.core import (ok, err, canonical_json, state_hash, IdFactory, FrozenClock, load_settings, DEFAULTS)

json_vals = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=5),
                         lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3), max_leaves=10)

@settings(max_examples=60, derandomize=True)
@given(st.dictionaries(st.text(max_size=4), json_vals, max_size=5))
def test_hash_ignores_key_order(d):
    assert state_hash(d) == state_hash(dict(reversed(list(d.items()))))

@settings(max_examples=60, derandomize=True)
@given(st.integers(-2**52, 2**52))
def test_integral_floats_hash_like_ints(n):
    assert state_hash({"x": n}) == state_hash({"x": float(n)})
    assert canonical_json([float(n)]) == f"[{n}]"

def test_canonical_form_is_exact():
    assert canonical_json({"b": 25.0, "a": "Zürich", "c": [1.5]}) == '{"a":"Zürich","b":25,"c":[1.5]}'
    assert state_hash({"x": "25"}) != state_hash({"x": 25})

def _reference_canon(o):
    "The canonical form written out plainly (the spec `canonical_json` must match on any JSON-like value)."
    if isinstance(o, bool) or o is None or isinstance(o, str): return o
    if isinstance(o, int): return o
    if isinstance(o, float): return int(o) if o.is_integer() else o   # every integral float as the int it equals (core._canon_any)
    if isinstance(o, dict): return {str(k): _reference_canon(v) for k, v in o.items()}
    return [_reference_canon(v) for v in o]

mixed_vals = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
                          lambda c: st.lists(c, max_size=3) | st.tuples(c, c) | st.dictionaries(st.text(max_size=3) | st.integers(0, 9), c, max_size=3),
                          max_leaves=12)

@settings(max_examples=200, derandomize=True)
@given(mixed_vals)
def test_canonical_json_matches_its_definition(v):
    want = json.dumps(_reference_canon(v), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_json(v) == want and canonical_json({"v": v, "w": [v]}) == '{"v":' + want + ',"w":[' + want + ']}'

def test_canonical_json_rejects_non_finite_and_unknown():
    import pytest
    for bad in (float("nan"), [1, {"x": float("inf")}], {"a": [-float("inf")]}):
        with pytest.raises(ValueError, match="non-finite"): canonical_json(bad)
    with pytest.raises(TypeError, match="cannot serialise object"): canonical_json({"a": [object()]})
    assert canonical_json({1: True, "s": {2, 1}, "t": (1.0, 2.5)}) == '{"1":true,"s":[1,2],"t":[1,2.5]}'

def test_envelope_shapes():
    assert ok({"a": 1}) == {"ok": True, "data": {"a": 1}}
    assert err(409, "busy", "eventId") == {"ok": False, "error": {"code": 409, "type": "conflict", "message": "busy", "argument": "eventId"}}

def test_ids_never_reused_and_reproducible():
    a = [IdFactory(5).next("evt") for _ in range(1)]
    f = IdFactory(5); ids = [f.next("evt") for _ in range(3000)]
    assert len(set(ids)) == 3000 and ids[0] == a[0]
    assert ids[:3] == [IdFactory(5).next("evt")] + [IdFactory(5, {"evt": 1}).next("evt"), IdFactory(5, {"evt": 2}).next("evt")]

def test_frozen_clock():
    c = FrozenClock(); assert c.iso() == "2025-03-03T09:00:00Z"
    assert c.advance(3600).isoformat() == "2025-03-03T10:00:00+00:00"

def test_settings_precedence(tmp_path):
    ini = tmp_path / "settings.ini"
    ini.write_text("[rewards]\nlam = 0.2\n[profile:x]\ngrpo.n = 4\n")
    s = load_settings(path=ini, env={})
    assert s["rewards"]["lam"] == 0.2 and s["grpo"]["n"] == DEFAULTS["grpo"]["n"] == 8
    assert load_settings("x", path=ini, env={})["grpo"]["n"] == 4
    assert load_settings("x", path=ini, env={"COMPOWORLD_GRPO_N": "16"})["grpo"]["n"] == 16

def test_shipped_settings_match_paper_defaults():
    "settings.ini's base sections hold exactly the built-in (paper) defaults."
    from compoworld_nb.core import find_settings_file
    import configparser
    cp = configparser.ConfigParser(inline_comment_prefixes=("#", ";")); cp.read(find_settings_file())
    s = load_settings(env={})
    for sec, kv in DEFAULTS.items():
        for k, v in kv.items():
            assert s[sec][k] == v, (sec, k)
    assert load_settings("demo", env={})["walk"]["k"] == 3
