"The one scorer: its fast path (`FinalScorer`, used by rollouts, admission, GRPO) equals the plain definition (`check`) on random states and trajectories."
from hypothesis import HealthCheck, given, settings, strategies as st
from compoworld_nb.rubric import OPS, Criterion, FinalScorer, Rubric, check, score_finals
from compoworld_nb.service import Record, State, commit_view, cow_view

class Item(Record):
    id: str
    n: int = 0
    tag: str = ""
    tags: list[str] = []

class Shop(State):
    items: dict[str, Item] = {}

IDS, TAGS, NS = ["a", "b", "c", "d"], ["falcon-41", "falcon-417", "10", "$100", "x"], [0, 1, 10, 100]
_item = st.builds(Item, id=st.sampled_from(IDS), n=st.sampled_from(NS), tag=st.sampled_from(TAGS),
                  tags=st.lists(st.sampled_from(TAGS), max_size=2))
_write = st.one_of(
    st.tuples(st.just("set"), st.sampled_from(IDS), st.sampled_from(["n", "tag", "tags"]), st.sampled_from(NS + TAGS)),
    st.tuples(st.just("add"), _item), st.tuples(st.just("del"), st.sampled_from(IDS)),
    st.tuples(st.just("same"), st.sampled_from(IDS)))

def apply(state: Shop, w) -> Shop:
    "One committed tool call: a copy-on-write view, one write, commit (how every service call runs)."
    v = cow_view(state)
    if w[0] == "set" and w[1] in v.items:
        r = v.items[w[1]]
        val = w[3]
        if w[2] == "n": val = val if isinstance(val, int) else len(val)
        elif w[2] == "tag": val = str(val)
        else: val = [str(val)]
        setattr(r, w[2], val)
    elif w[0] == "add": v.items[w[1].id] = w[1]
    elif w[0] == "del" and w[1] in v.items: del v.items[w[1]]
    elif w[0] == "same" and w[1] in v.items: v.items[w[1]] = v.items[w[1]].model_copy()   # an equal copy: shared again on commit
    return commit_view(v)

_value = st.one_of(st.sampled_from(NS), st.sampled_from(TAGS), st.lists(st.sampled_from(TAGS), max_size=2), st.none())
_where = st.one_of(st.just({}), st.builds(lambda i: {"id": i}, st.sampled_from(IDS)),
                   st.builds(lambda t: {"tag": t}, st.sampled_from(TAGS)), st.builds(lambda n: {"n": n}, st.sampled_from(NS + [10.0, True])),
                   st.builds(lambda t: {"tags": t}, st.lists(st.sampled_from(TAGS), max_size=2)),
                   st.builds(lambda i, t: {"id": i, "tag": t}, st.sampled_from(IDS), st.sampled_from(TAGS)))
_state_c = st.builds(lambda k, w, f, op, v, svc: dict(kind=k, service=svc, collection="items", where=w, field=f, op=op, value=v),
                     st.sampled_from(["state", "unchanged"]), _where, st.sampled_from([None, "n", "tag", "tags", "nope"]),
                     st.sampled_from(OPS), _value, st.sampled_from(["shop", "shop", "plain", "gone"]))
_output_c = st.builds(lambda op, v: dict(kind="output", op=op, value=v), st.sampled_from([o for o in OPS if o != "count_eq"]), _value)
_rubric = st.lists(st.one_of(_state_c, _output_c), min_size=1, max_size=6).map(
    lambda rows: Rubric.load([{**r, "id": f"c{i}"} for i, r in enumerate(rows)]))

_answer = st.one_of(st.none(), st.sampled_from(["code falcon-417", "it costs $100", "10 items", "falcon-41, done", "x"]))
_trajectory = st.lists(st.tuples(st.integers(0, 3), _write), max_size=5)   # (which earlier state it continues from, the write)

@settings(max_examples=120, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_item, max_size=4), _rubric, st.lists(st.tuples(_trajectory, _answer), min_size=1, max_size=5), st.lists(_write, max_size=3))
def test_fast_path_equals_plain_definition(items, rubric, trajs, pre):
    shop = commit_view(cow_view(Shop(items={r.id: r for r in items})))
    for w in pre: shop = apply(shop, w)                       # s0 itself derived from a base: its lineage touched some ids (the scorer's where index)
    plain = Shop(items={r.id: r for r in items})              # no copy-on-write lineage: the plain path
    s0 = {"shop": shop, "plain": plain}
    finals, answers = [], []
    for steps, answer in trajs:
        states = [shop]
        for back, w in steps: states.append(apply(states[max(0, len(states) - 1 - back)], w))
        pw = Shop(items=dict(plain.items)); pw.items.pop(IDS[len(steps) % 4], None)   # a plain-dict write, no lineage
        finals.append({"shop": states[-1], "plain": pw}); answers.append(answer)
    want = [rubric.score(f, s0, a) for f, a in zip(finals, answers)]
    assert score_finals(rubric, finals, s0, answers).tolist() == want
    assert score_finals(rubric, finals, s0, answers, verify=True).tolist() == want
    sc = FinalScorer(rubric, s0)
    assert [sc.score(f, a) for f, a in zip(finals, answers)] == want          # one final at a time, memo shared
    fresh = [Criterion(**{**c.model_dump(), "id": "other"}) for c in rubric.criteria]  # criteria outside the rubric (an author's candidates)
    assert [[sc.b(c, f, a) for c in fresh] for f, a in zip(finals, answers)] == \
           [[check(c, f, s0, a) for c in fresh] for f, a in zip(finals, answers)]

def test_where_index_sees_the_lineage_of_s0():
    "s0 derived from a base: a record removed, one changed so it no longer matches, one added. The scorer's where lookup (the base's index plus the touched ids) selects what `check` does."
    base = commit_view(cow_view(Shop(items={i: Item(id=i, n=1, tag="x") for i in IDS})))
    s0 = apply(apply(apply(base, ("del", "a")), ("set", "b", "tag", "falcon-41")), ("add", Item(id="e", n=1, tag="x")))
    assert s0.items._b is base.items._b and set(s0.items.touched) == {"a", "b", "e"}
    final = apply(s0, ("set", "c", "n", 10))
    rows = [dict(kind="state", service="shop", collection="items", where={"tag": "x"}, field="n", op="eq", value=1),
            dict(kind="state", service="shop", collection="items", where={"tag": "x"}, op="count_eq", value=3),
            dict(kind="state", service="shop", collection="items", where={"n": 1.0, "tag": "x"}, field="n", op="absent"),
            dict(kind="unchanged", service="shop", collection="items", where={"tag": "x"}),
            dict(kind="state", service="shop", collection="items", where={"id": "a"}, field="n", op="exists")]
    rubric = Rubric.load([{**r, "id": f"c{i}"} for i, r in enumerate(rows)])
    want = rubric.score({"shop": final}, {"shop": s0})
    assert want == [1, 1, 0, 0, 0]
    assert FinalScorer(rubric, {"shop": s0}).score({"shop": final}) == want
