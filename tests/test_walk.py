"Environment walks (Eq. 3), service sampling and the walk settings: property tests and exact counts."
import random
from collections import Counter
import pytest
from hypothesis import given, settings, strategies as st
from compoworld_nb.walk import (sample_walk, check_walk, count_walks, sample_services, sample_length, sample_graph,
                                walk_settings, is_authorable, DependencyGraph)

@settings(max_examples=120, derandomize=True, deadline=None)
@given(st.integers(2, 7), st.integers(1, 8), st.integers(0, 10**6))
def test_walk_satisfies_eq3(k, extra, seed):
    C = [f"s{i}" for i in range(k)]
    w = sample_walk(C, k + extra, random.Random(seed))
    assert len(w) == k + extra and set(w) == set(C)                  # covers C
    assert all(a != b for a, b in zip(w, w[1:]))                      # never the same service twice in a row
    assert len(w) > len(set(w))                                        # L > K: at least one revisit
    assert check_walk(w, C) == [] and DependencyGraph(C, w).revisits()

@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.integers(2, 5), st.integers(1, 5), st.integers(0, 10**6), st.sets(st.tuples(st.integers(0, 4), st.integers(0, 4)), max_size=6))
def test_allowed_edges_are_respected_or_absence_is_exact(k, extra, seed, banned):
    C = [f"s{i}" for i in range(k)]
    allowed = lambda a, b: (int(a[1:]), int(b[1:])) not in banned
    n = count_walks(C, k + extra, allowed)
    if n == 0:
        with pytest.raises(RuntimeError, match="no walk of length"): sample_walk(C, k + extra, random.Random(seed), allowed)
    else:
        w = sample_walk(C, k + extra, random.Random(seed), allowed)
        assert check_walk(w, C) == [] and all(allowed(a, b) for a, b in zip(w, w[1:]))

def test_exact_counts_and_uniform_draws():
    assert count_walks(["a", "b"], 3) == 2 and count_walks(["a", "b", "c"], 4) == 18 and count_walks(["a", "b", "c"], 3) == 0
    cnt = Counter(tuple(sample_walk(["a", "b", "c"], 4, random.Random(i))) for i in range(3600))
    assert len(cnt) == 18 and max(cnt.values()) - min(cnt.values()) < 110      # 200 each on average

def test_bad_lengths_raise_naming_values():
    with pytest.raises(ValueError, match="L=3 must be > K=3"): sample_walk(["a", "b", "c"], 3, random.Random(0))
    with pytest.raises(ValueError, match="K=1"): sample_walk(["a"], 3, random.Random(0))
    with pytest.raises(ValueError, match="L range 3-5 must allow L > K=5"): sample_length(random.Random(0), 5, 3, 5)

def test_same_seed_same_walk_and_graph_export():
    C = ["a", "b", "c", "d"]
    assert sample_walk(C, 9, random.Random(4)) == sample_walk(C, 9, random.Random(4))
    G = DependencyGraph(C, ["a", "b", "a", "c", "d"], ["x"])
    g = G.to_networkx()
    assert sorted((u, v, d["position"]) for u, v, d in g.edges(data=True)) == [("a", "b", 0), ("a", "c", 2), ("b", "a", 1), ("c", "d", 3)]
    assert g.nodes["x"]["distractor"] and not g.nodes["a"]["distractor"]
    assert G.previous_visit(2) == 0 and DependencyGraph.from_json(G.to_json()) == G

def test_settings_defaults_are_the_papers():
    w = walk_settings()
    assert (w["k"], w["l_min"], w["l_max"], w["distractors"]) == (5, 7, 12, 5)
    assert walk_settings("demo")["k"] == 3 and walk_settings(k=4, l_max=9)["l_max"] == 9
    with pytest.raises(ValueError, match="L > K=6"): walk_settings(k=6, l_max=6)

class _S:
    def __init__(self, d, steps=None):
        self.domain = d
        if steps is not None: self.steps = steps

LIB = {"a": _S("mail", ["x"]), "b": _S("mail", ["x"]), "c": _S("travel", ["x"]), "d": _S("travel", ["x"]),
       "e": _S("code", ["x"]), "n1": _S("notes", []), "n2": _S("crm", []), "n3": _S("crm", [])}

@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.integers(1, 5), st.integers(0, 8), st.integers(0, 10**6))
def test_c_is_authorable_and_distractors_come_from_all(k, nd, seed):
    C, D = sample_services(LIB, k, random.Random(seed), n_distractors=nd)
    assert len(C) == k and all(is_authorable(LIB[n]) for n in C)
    assert len(D) == min(nd, len(LIB) - k) and not set(C) & set(D)

def test_non_authorable_services_appear_as_distractors_and_domain_control():
    seen = set()
    for i in range(40):
        C, D = sample_services(LIB, 2, random.Random(i), domain="travel", n_distractors=6)
        assert LIB[C[0]].domain == "travel"; seen |= set(D)
    assert {"n1", "n2", "n3"} <= seen
    with pytest.raises(ValueError, match="K=6"): sample_services(LIB, 6, random.Random(0))
    with pytest.raises(ValueError, match="domain='crm' has no authorable service"): sample_services(LIB, 1, random.Random(0), domain="crm")

def test_sample_graph_uses_settings():
    G = sample_graph(LIB, random.Random(3), n_distractors=2)
    assert G.K == 5 and 7 <= G.L <= 12 and G.violations() == [] and len(G.distractors) == 2
