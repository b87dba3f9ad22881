"""The state layer's guarantees, over every tool of every sample service.

* no call — valid or invalid, on a fixture or on a state derived from it — ever changes the fixture it started
  from (its fast hash, its from-scratch hash and its content stay what they were);
* a failed call returns the very state object it was given;
* the incremental hash of every state a call returns equals the from-scratch definition (`digest_form`);
* a committed record is sealed: a tool that writes one gets an error naming service, collection and id, and the
  state is unchanged.
"""
from __future__ import annotations
import copy, pickle
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from compoworld_nb.core import ToolError, state_hash
from compoworld_nb.service import Service
from compoworld_nb.state import (FrozenList, Record, SealedRecordError, State, commit_view, cow_view, digest_form, find, put,
                                 read, remove, scan, sealed_at, size, state_digest, writable)
from compoworld_nb.task import _fixture
from sample_services import load_library

LIB = load_library()
FIX = {n: _fixture(svc, 0) for n, svc in LIB.items()}                       # cached fixtures, shared by every example
H0 = {n: state_digest(s) for n, s in FIX.items()}
REF = {n: state_hash(digest_form(s)) for n, s in FIX.items()}
IDS = {n: sorted({str(k) for c in type(s).collection_names() for k in getattr(s, c)})[:400] for n, s in FIX.items()}
TOOLS = sorted((n, t) for n, svc in LIB.items() for t, tool in svc.tools.items() if not tool.simulated)


def _value(schema: dict, ids: list, depth: int = 0):
    "A strategy for one argument value of `schema`, drawing text from the fixture's ids (so calls reach real records)."
    if "enum" in schema: return st.sampled_from(schema["enum"])
    if "anyOf" in schema: return st.one_of([_value(s, ids, depth) for s in schema["anyOf"]])
    t = schema.get("type")
    if isinstance(t, list): t = t[0]
    text = st.one_of(st.sampled_from(ids or ["x"]), st.sampled_from(["", "x", "hello world", "2025-03-04", "a/b"]))
    if t == "string": return text
    if t == "integer": return st.integers(-2, 60)
    if t == "number": return st.one_of(st.integers(-2, 60), st.floats(-5, 1e4, allow_nan=False))
    if t == "boolean": return st.booleans()
    if t == "array": return st.lists(_value(schema.get("items", {"type": "string"}), ids, depth + 1), max_size=3)
    if t == "object" and depth < 2 and schema.get("properties"):
        props = schema["properties"]
        return st.fixed_dictionaries({k: _value(props[k], ids, depth + 1) for k in schema.get("required", [])},
                                     optional={k: _value(v, ids, depth + 1) for k, v in props.items() if k not in schema.get("required", [])})
    return st.one_of(st.none(), text, st.integers(0, 3))


def _args(draw, name: str, tool: str):
    "Mostly schema-shaped arguments for `tool`, some broken on purpose (unknown key, a required one missing, not an object)."
    p = LIB[name].tools[tool].parameters
    args = draw(_value({**p, "type": "object", "properties": p.get("properties") or {"_": {"type": "string"}}}, IDS[name]))
    if not p.get("properties"): args = {}
    kind = draw(st.sampled_from(["valid"] * 6 + ["unknown", "missing", "text"]))
    if kind == "unknown": args = {**args, "zz_unknown": 1}
    elif kind == "missing" and p.get("required"): args = {k: v for k, v in args.items() if k != p["required"][0]}
    elif kind == "text": args = "{not json"
    return args


@pytest.mark.parametrize("name,tool", TOOLS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_call_changes_a_fixture(name, tool, data):
    "This tool, then up to two more tools of its service, each on the previous result, from the cached fixture."
    tools = [tool] + data.draw(st.lists(st.sampled_from([t for n, t in TOOLS if n == name]), max_size=2))
    cur = FIX[name]
    for t in tools:
        args = _args(data.draw, name, t)
        new, o = LIB[name].call(cur, t, args)
        if not o["ok"]: assert new is cur, (t, args, o)
        else: assert state_digest(new) == state_hash(digest_form(new)), (t, args)
        assert "SealedRecordError" not in (o.get("error") or {}).get("message", ""), (t, args, o)
        cur = new
    assert state_digest(FIX[name]) == H0[name] == REF[name] == state_hash(digest_form(FIX[name])), name


def test_every_fixture_is_unchanged_after_the_run():
    "The cached fixtures hold the same content as fresh ones (nothing leaked into them through a shared record)."
    for n, svc in LIB.items():
        assert state_hash(digest_form(FIX[n])) == state_hash(digest_form(svc.initial_state(0))) == H0[n], n


# --- sealing, on a service of its own -------------------------------------------------------------------
class Item(Record):
    id: str
    qty: int
    tags: list[str] = []

class ShopState(State):
    items: dict[str, Item] = {}

shop = Service("shop", "test", ShopState)

@shop.tool
def bump(s: ShopState, id: str):  # item id
    "Add one to an item's quantity, the right way."
    it = writable(s, "items", id, "item", "id"); it.qty += 1; it.tags.append("bumped"); return it

@shop.tool
def bump_wrong(s: ShopState, id: str):  # item id
    "Write through a shared record (a bug this layer turns into an error)."
    it = find(s, "items", id, "item", "id"); it.qty += 1; return it

@shop.tool
def tag_wrong(s: ShopState, id: str):  # item id
    "Mutate a list inside a shared record in place."
    find(s, "items", id, "item", "id").tags.append("x"); return {}

@shop.tool
def restock(s: ShopState, id: str, qty: int):  # item id; its quantity
    "Put a new item, or replace one."
    return put(s, "items", id, Item(id=id, qty=qty))

@shop.tool
def drop(s: ShopState, id: str):  # item id
    "Remove an item."
    return remove(s, "items", id, "item", "id")

@shop.fixture
def _shop(seed: int) -> ShopState: return ShopState(seed=seed, items={"a": Item(id="a", qty=1), "b": Item(id="b", qty=2, tags=["t"])})


def test_writing_a_sealed_record_is_an_error_that_names_it():
    s0 = _fixture(shop, 0); h = state_digest(s0)
    for tool in ("bump_wrong", "tag_wrong"):
        new, o = shop.call(s0, tool, {"id": "b"})
        assert new is s0 and o["error"]["code"] == 500
        assert "SealedRecordError: shop.items['b'] is a committed record" in o["error"]["message"] and "writable(s, 'items', 'b')" in o["error"]["message"]
    assert state_digest(s0) == h and (s0.items["b"].qty, s0.items["b"].tags) == (2, ["t"])
    with pytest.raises(SealedRecordError) as e: read(s0, "items", "a").qty = 5      # a record is sealed once a read hands it out
    assert (e.value.service, e.value.collection, e.value.id) == ("shop", "items", "a")


def test_the_helpers_write_only_the_copy():
    s0 = _fixture(shop, 0); h = state_digest(s0)
    s1, o = shop.call(s0, "bump", {"id": "b"})
    assert o["data"] == {"id": "b", "qty": 3, "tags": ["t", "bumped"]} and (s0.items["b"].qty, s0.items["b"].tags) == (2, ["t"])
    assert s1.items["a"] is s0.items["a"] and sealed_at(s1.items["b"]) == ("shop", "items", "b") and type(s1.items["b"].tags) is FrozenList
    s2, _ = shop.call(s1, "restock", {"id": "c", "qty": 7}); s3, o = shop.call(s2, "drop", {"id": "a"})
    assert o["data"]["id"] == "a" and list(s3.items) == ["b", "c"] and [i.qty for i in scan(s3, "items")] == [3, 7]
    for st_ in (s1, s2, s3): assert state_digest(st_) == state_hash(digest_form(st_))
    assert shop.call(s3, "drop", {"id": "a"})[1]["error"]["message"] == "no item with id='a'"
    assert state_digest(s0) == h
    s4, _ = shop.call(s3, "bump", {"id": "c"}); s5, _ = shop.call(s4, "restock", {"id": "c", "qty": 7})
    assert state_digest(s5) == state_hash(digest_form(s5)) == state_digest(s3) != state_digest(s4) == state_hash(digest_form(s4))   # s5 holds what s3 held


def test_copies_of_a_sealed_state_are_plain_and_writable():
    s1, _ = shop.call(_fixture(shop, 0), "bump", {"id": "b"})
    for c in (copy.deepcopy(s1), s1.model_copy(deep=True), pickle.loads(pickle.dumps(s1))):
        assert type(c.items["b"].tags) is list and sealed_at(c.items["b"]) is None
        c.items["b"].tags.append("hand"); c.items["b"].qty = 0
        assert state_digest(c) == state_hash(digest_form(c)) != state_digest(s1)
    assert (s1.items["b"].qty, s1.items["b"].tags) == (3, ["t", "bumped"])
    assert read(s1, "items", "zz") is None and read(s1, "items", "zz", 0) == 0
    with pytest.raises(ToolError): find(s1, "items", "zz", "item", "id")


def test_the_hash_is_canonical_and_order_free():
    a = ShopState(items={"x": Item(id="x", qty=1), "y": Item(id="y", qty=2)})
    b = ShopState(items={"y": Item(id="y", qty=2.0), "x": Item(id="x", qty=1)})
    assert state_digest(a) == state_digest(b) == state_hash(digest_form(a))
    variants = [ShopState(items={"x": Item(id="x", qty=1)}), ShopState(items={"x": Item(id="x", qty=1), "y": Item(id="y", qty=3)}),
                ShopState(items={"x": Item(id="x", qty=1), "z": Item(id="y", qty=2)}), ShopState(seed=1, items=dict(a.items))]
    hs = [state_digest(v) for v in variants]
    assert len(set(hs + [state_digest(a)])) == len(variants) + 1 and hs == [state_hash(digest_form(v)) for v in variants]


# --- service code reaches records only through the helpers --------------------------------------------
_READERS = {"len", "list", "sorted", "iter", "next", "set", "dict", "tuple", "sum", "any", "all", "max", "min", "enumerate", "zip", "reversed"}

def _raw_collection_uses(src: str, cols: set) -> list:
    """`(line, text)` of every place `src` reads or writes a state's record collection directly (`s.coll[k]`,
    `s.coll.get/values/items/keys/pop(...)`, `k in s.coll`, iterating it, `len(s.coll)`, ...). A state is a parameter
    annotated with a `...State` class, a name bound to `XState(...)` or to `ctx.state(...)`."""
    import ast
    tree = ast.parse(src)
    parent = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    out = []
    for fn in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))):
        names = set()
        if isinstance(fn, ast.FunctionDef):
            for a in fn.args.args + fn.args.kwonlyargs:
                ann = a.annotation
                if ann is not None and ast.unparse(ann).split(".")[-1].endswith("State"): names.add(a.arg)
            for n in ast.walk(fn):
                if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
                    f = ast.unparse(n.value.func)
                    if f.endswith("State") or f.endswith(".state"): names |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Attribute) and n.attr in cols and isinstance(n.value, ast.Name) and n.value.id in names): continue
            p = parent.get(n)
            raw = (isinstance(p, ast.Subscript) and p.value is n or isinstance(p, ast.Attribute)
                   or isinstance(p, ast.Compare) and n in p.comparators or isinstance(p, (ast.For, ast.comprehension)) and p.iter is n
                   or isinstance(p, ast.Call) and n in p.args and isinstance(p.func, ast.Name) and p.func.id in _READERS)
            if raw: out.append((n.lineno, ast.get_source_segment(src, p)))
    return sorted(set(out))


def test_services_reach_records_only_through_the_helpers():
    "Every sample service reads and writes its records with `read`/`find`/`scan`/`entries`/`writable`/`put`/`remove` (issue 19), never through the collection itself."
    import pathlib, sample_services
    cols = {c for svc in LIB.values() for c in svc.state_cls.collection_names()}
    found = {p.name: _raw_collection_uses(p.read_text(), cols) for p in sorted(pathlib.Path(sample_services.__file__).parent.glob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}
    probe = "def f(s: XState, k):\n    a = s.users[k]; b = s.users.get(k); c = k in s.users; d = len(s.users)\n    for u in s.users: pass\n    return read(s, 'users', k), s.seed\n"
    assert [l for l, _ in _raw_collection_uses(probe, {"users"})] == [2, 2, 2, 2, 3]


# --- a tool that merges into its collection with |= --------------------------------------------------
class ShelfState(State):
    items: dict[str, Item] = {}

shelf = Service("shelf", "test", ShelfState)

@shelf.tool
def add_and_bump(s: ShelfState, id: str):  # the new item's id
    "Merge a new item in with `|=`, then bump every item found by a scan (writable copies, as any tool takes them)."
    s.items |= {id: Item(id=id, qty=0)}
    for it in list(scan(s, "items")):
        if it.id == "a": writable(s, "items", it.id).qty += 10
    return {"n": size(s, "items")}

@shelf.fixture
def _shelf(seed: int) -> ShelfState: return ShelfState(seed=seed, items={"a": Item(id="a", qty=1), "b": Item(id="b", qty=2, tags=["t"])})


def test_a_tool_that_merges_with_ior_keeps_copy_on_write():
    "Before State.__setattr__ kept the view's own collection, `s.items |= ...` made it a plain dict that the scan sealed: the bump raised SealedRecordError (a 500)."
    from compoworld_nb.compose import diff
    s0 = _fixture(shelf, 0); h = state_digest(s0)
    s1, o = shelf.call(s0, "add_and_bump", {"id": "c"})
    assert o == {"ok": True, "data": {"n": 3}}
    assert [(k, r.qty) for k, r in s1.items.items()] == [("a", 11), ("b", 2), ("c", 0)] and s1.items["b"] is s0.items["b"]
    assert diff({"shelf": s0}, {"shelf": s1}) == [
        {"service": "shelf", "collection": "items", "id": "a", "change": "changed", "fields": {"qty": [1, 11]}},
        {"service": "shelf", "collection": "items", "id": "c", "change": "added", "fields": {}}]
    assert state_digest(s0) == h and [(k, r.qty) for k, r in s0.items.items()] == [("a", 1), ("b", 2)]
