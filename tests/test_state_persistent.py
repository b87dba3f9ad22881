"""Persistent collections (issue 19): a committed `Records` and a call's `CowRecords` behave exactly as a dict would
under any sequence of puts, replacements and removals (same ids, same records, same order — a replaced id keeps its
place, a re-added one goes to the end), across rebases; a write shares the base and costs O(changes); the lane sum
always equals the from-scratch definition; equal int and float values >= 2^63 hash the same (issue 21)."""
from __future__ import annotations
from hypothesis import given, settings, strategies as st
from compoworld_nb.core import state_hash
from compoworld_nb.state import (CowRecords, Record, Records, State, _sum, changed_ids, commit_view, cow_view, digest_form,
                                 record_digest, state_digest)


class Item(Record):
    id: str
    n: int | float = 0
    tags: list[str] = []

class Shop(State):
    items: dict[str, Item] = {}


IDS = [f"i{k}" for k in range(12)]
OPS = st.lists(st.tuples(st.sampled_from(["put", "del", "edit"]), st.sampled_from(IDS), st.integers(0, 9)), max_size=30)


@settings(max_examples=150, deadline=None)
@given(start=st.lists(st.sampled_from(IDS), unique=True, max_size=12), calls=st.lists(OPS, min_size=1, max_size=6))
def test_records_behave_as_a_dict(start, calls):
    "Each inner list is one tool call (a view, then commit); a plain dict run through the same operations is the model."
    s = commit_view(cow_view(Shop(items={k: Item(id=k) for k in start})))
    model = {k: Item(id=k) for k in start}
    for ops in calls:
        v = cow_view(s); t = v.items
        assert type(t) is CowRecords
        for op, k, n in ops:
            if op == "put": t[k] = Item(id=k, n=n); model[k] = Item(id=k, n=n)
            elif op == "del" and k in model: del t[k]; del model[k]
            elif op == "edit" and k in model:
                w = t.take(k); w.n = n; w.tags.append("e")
                model[k] = model[k].model_copy(update={"n": n, "tags": list(model[k].tags) + ["e"]})
            assert list(t.keys()) == list(model) and len(t) == len(model)    # the view reads as the dict does, mid-call
        before = s
        s = commit_view(v)
        assert type(s.items) is Records
        assert list(s.items.keys()) == list(model) and [r.model_dump() for r in s.items.values()] == [r.model_dump() for r in model.values()]
        assert all(s.items.get(k) is None for k in IDS if k not in model) and len(s.items) == len(model)
        assert s.items.lane_sum() == _sum(model.items())                    # the incremental sum is the definition
        assert state_digest(s) == state_hash(digest_form(s)) == state_hash(digest_form(Shop(items=dict(model))))
        ch = changed_ids(before.items, s.items)
        assert ch == {k for k in set(before.items.keys()) | set(model) if before.items.get(k) is not s.items.get(k)}


def test_a_write_shares_the_base_and_costs_what_changed():
    s0 = commit_view(cow_view(Shop(items={f"i{k}": Item(id=f"i{k}", n=k) for k in range(5000)})))
    v = cow_view(s0); v.items.take("i7").n = -1; v.items["new"] = Item(id="new")
    s1 = commit_view(v)
    assert s1.items._b is s0.items._b and (len(s1.items._d), len(s1.items._t)) == (1, 1)   # one replaced id, one appended
    assert s1.items.touched == {"i7", "new"} and changed_ids(s0.items, s1.items, full=False) == {"i7", "new"}
    assert list(s1.items)[-1] == "new" and list(s1.items)[7] == "i7" and s0.items["i7"].n == 7
    assert state_digest(s1) == state_hash(digest_form(s1))
    s = s1                                                   # many writes: the changes fold into a new base (amortised O(1))
    for k in range(700):
        v = cow_view(s); v.items.take(f"i{k}").n = k + 1; s = commit_view(v)
    assert s.items._b is not s0.items._b and len(s.items._d) + len(s.items._t) <= 625
    assert [r.n for r in list(s.items.values())[:3]] == [1, 2, 3] and list(s.items)[-1] == "new"
    assert state_digest(s) == state_hash(digest_form(s))


def test_equal_int_and_float_values_hash_the_same_at_any_size():
    for x in (25, 2 ** 53, 2 ** 63, 2 ** 64 + 2 ** 12, 2 ** 70):
        assert record_digest("k", Item(id="k", n=x)) == record_digest("k", Item(id="k", n=float(x))), x
    a, b = Shop(items={"k": Item(id="k", n=2 ** 63)}), Shop(items={"k": Item(id="k", n=2.0 ** 63)})
    assert state_digest(a) == state_digest(b) == state_hash(digest_form(b))
    assert record_digest("k", Item(id="k", n=2 ** 63 + 1)) != record_digest("k", Item(id="k", n=2.0 ** 63))   # unequal values differ


def test_a_plain_collection_reordered_in_place_is_not_mistaken_for_its_earlier_records():
    "The plain-dict -> Records cache reuses a base only while the dict holds the same records in the same order."
    s = Shop(items={k: Item(id=k) for k in ("a", "b", "c")})
    d = s.items
    assert list(commit_view(cow_view(s)).items) == ["a", "b", "c"]
    d["a"] = d.pop("a")                                   # same ids, same record objects, another order
    assert list(commit_view(cow_view(s)).items) == ["b", "c", "a"] == list(d)


def test_a_collection_merged_into_itself_stays_the_views_own():
    "`v.items |= {...}` is `v.items = v.items.__ior__({...})`: the assignment keeps the view's `CowRecords` (validation would copy it into a plain dict of taken records), so a write through the collection the call holds is committed, the untouched records stay shared and the lineage stays O(changes)."
    s = commit_view(cow_view(Shop(items={"a": Item(id="a"), "b": Item(id="b")})))
    v = cow_view(s); t = v.items
    v.items |= {"c": Item(id="c", n=3)}
    t.take("a").n = 5                                    # a write through the collection as the call holds it
    assert (type(v.items).__name__, v.items is t) == ("CowRecords", True)
    g = commit_view(v)
    assert {k: r.n for k, r in g.items.items()} == {"a": 5, "b": 0, "c": 3}
    assert (g.items["b"] is s.items["b"], changed_ids(s.items, g.items, full=False)) == (True, {"a", "c"})
    assert ({k: r.n for k, r in s.items.items()}, state_digest(g)) == ({"a": 0, "b": 0}, state_hash(digest_form(g)))
    v2 = cow_view(g); t2 = v2.items
    v2.items = v2.items                                  # assigned back as it is: nothing taken, nothing changes
    assert (v2.items is t2, dict(t2._own), commit_view(v2).items is g.items) == (True, {}, True)
