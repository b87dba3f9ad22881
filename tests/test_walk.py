"Environment walks (Eq. 3): property tests."
import random
import pytest
from hypothesis import given, settings, strategies as st
from compoworld_nb.walk import sample_walk, check_walk, sample_services, DependencyGraph

@settings(max_examples=150, derandomize=True)
@given(st.integers(2, 7), st.integers(1, 8), st.integers(0, 10**6))
def test_walk_satisfies_eq3(k, extra, seed):
    C = [f"s{i}" for i in range(k)]
    w = sample_walk(C, k + extra, random.Random(seed))
    assert len(w) == k + extra and set(w) == set(C)
    assert all(a != b for a, b in zip(w, w[1:]))
    assert len(w) > len(set(w))  # at least one revisit
    assert check_walk(w, C) == []
    assert DependencyGraph(C, w).revisits()

def test_bad_lengths_raise_naming_values():
    with pytest.raises(ValueError, match="L=3 must be > K=3"): sample_walk(["a", "b", "c"], 3, random.Random(0))
    with pytest.raises(ValueError, match="K=1"): sample_walk(["a"], 3, random.Random(0))

def test_same_seed_same_walk_and_graph_export():
    C = ["a", "b", "c", "d"]
    assert sample_walk(C, 9, random.Random(4)) == sample_walk(C, 9, random.Random(4))
    g = DependencyGraph(C, ["a", "b", "a", "c", "d"], ["x"]).to_networkx()
    assert sorted((u, v, d["position"]) for u, v, d in g.edges(data=True)) == [("a", "b", 0), ("a", "c", 2), ("b", "a", 1), ("c", "d", 3)]
