"Beats (issue 20): a shape's visits come in a seeded order that keeps every declared dependency, and independent beats vary across seeds."
import random
from collections import defaultdict
from compoworld_nb.author import default_library, default_scenarios, scenario_task, AuthoringError
from compoworld_nb.scenario import beat_order
from compoworld_nb.admission import admission_errors

LIB, WORLD = default_library()
SCS = default_scenarios()

def _by_shape(seeds):
    out = defaultdict(list)
    for s in seeds:
        try: t = scenario_task(LIB, s, SCS, 5, 7, 12, 5, WORLD, world_seed=s % 8)
        except AuthoringError: continue
        out[t.meta["shape"]].append(t)
    return out

TASKS = _by_shape(range(48))

def test_some_shape_plays_its_beats_in_two_orders_and_every_order_keeps_its_dependencies():
    orders = {sh: {tuple(t.meta.get("beat_order") or ()) for t in ts} for sh, ts in TASKS.items()}
    assert any(len(o) >= 2 for o in orders.values()), orders
    assert len(orders) == 7 and all(len(o) >= 2 for o in orders.values()), orders      # every shape, in two orders at least
    for ts in TASKS.values():
        for t in ts:
            order, edges, at = t.meta["beat_order"], t.meta["beat_edges"], t.meta["beat_visits"]
            assert order and sorted(at) == sorted(order)
            for a, b in edges: assert order.index(a) < order.index(b), (t.meta["scenario"], a, b, order)
            assert [at[b] for b in order] == sorted(at.values())      # the beats' first visits follow the order, along the walk
            assert at[order[0]] == 0 and max(at.values()) < len(t.walk)

def test_a_reordered_task_is_admitted_and_its_graph_is_its_walk():
    seen = set()
    for sh in ("weather_event", "list_followup"):
        for t in TASKS[sh]:
            assert admission_errors(t, LIB) == [], (t.meta["scenario"], t.meta["beat_order"])
            assert t.graph["walk"] == t.walk and t.meta["steps"] == [f"{s}.{sh}" for s in t.walk]
            seen.add(tuple(t.meta["beat_order"]))
    assert len(seen) >= 4

def test_the_condition_names_the_visit_of_the_beat_that_observes_it():
    for t in TASKS["list_followup"]:
        c = next(c for c in t.meta["conditions"] if c["name"] == "ticket_priority")
        assert c["visit"] == t.meta["beat_visits"]["list"] and t.walk[c["visit"]] == t.walk[t.meta["beat_visits"]["note"]]

def test_beat_order_draws_only_where_a_choice_exists_and_never_breaks_a_dependency():
    chain = {"a": (), "b": ("a",), "c": ("b",)}
    r = random.Random(5); state = r.getstate()
    assert beat_order(chain, r) == ["a", "b", "c"] and r.getstate() == state      # no choice: the rng is untouched
    diamond = {"a": (), "b": ("a",), "c": ("a",), "d": ("b", "c")}
    assert {tuple(beat_order(diamond, random.Random(s))) for s in range(20)} == {("a", "b", "c", "d"), ("a", "c", "b", "d")}
