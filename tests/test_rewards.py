"""Tests for compoworld_nb.rewards: hand-computed values, hypothesis properties, invalid inputs.

Hand-worked example (used throughout): N=4 trajectories, M=3 criteria,

    b = [[1, 1, 0],
         [1, 0, 0],
         [1, 1, 1],
         [1, 0, 0]]

p = (1, 1/2, 1/4). With λ = 0.01: w = (0.01, 0.51, 0.76), W = 1.28.
Completion-focused R = (0.52/1.28, 0.01/1.28, 1, 0.01/1.28) = (13/32, 1/128, 1, 1/128).
Uniform R = (2/3, 1/3, 1, 1/3); success = (0, 0, 1, 0); α = w/W = (1/128, 51/128, 76/128).
Advantages (Eq. 6): R̄ = 91/256, R − R̄ = (13, −89, 165, −89)/256, σ_R = sqrt(10809)/256,
so A = (13, −89, 165, −89) / (sqrt(10809) + 256 δ).
Static weights s = (2, 1, 1): uniform = (3/4, 1/2, 1, 1/2); w = (0.02, 0.51, 0.76), W = 1.29,
completion-focused = (53/129, 2/129, 1, 2/129).
"""
import math, sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from hypothesis.extra import numpy as hnp

try:
    import compoworld_nb  # noqa: F401  (installed with `pip install -e .`)
except ImportError:  # a bare source checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from compoworld_nb.rewards import (REWARDS, advantages, alpha, batch_rewards, check_passes, completion_focused, completion_weights,
                                   get_reward, group_rewards, pass_rates, register_reward, reward_table, success, uniform)

B = np.array([[1, 1, 0], [1, 0, 0], [1, 1, 1], [1, 0, 0]])
PROPS = settings(derandomize=True, max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
close = lambda a, b, tol=1e-12: np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


# ---------------------------------------------------------------- hand-computed values
def test_hand_pass_rates_weights_alpha():
    assert pass_rates(B).tolist() == [1.0, 0.5, 0.25]
    close(completion_weights(B, 0.01), [0.01, 0.51, 0.76])
    close(alpha(B, 0.01), [1 / 128, 51 / 128, 76 / 128])


def test_hand_rewards():
    close(uniform(B), [2 / 3, 1 / 3, 1, 1 / 3])
    assert success(B).tolist() == [0.0, 0.0, 1.0, 0.0]
    R = completion_focused(B, lam=0.01)
    close(R, [13 / 32, 1 / 128, 1, 1 / 128])
    assert R[2] == 1.0


def test_hand_advantages():
    d = np.array([13, -89, 165, -89], dtype=float)
    for delta in (1e-6, 0.0, 0.5):
        close(advantages(completion_focused(B), delta), d / (math.sqrt(10809) + 256 * delta), 1e-9)


def test_hand_static_weights():
    close(uniform(B, weights=[2, 1, 1]), [3 / 4, 1 / 2, 1, 1 / 2])
    close(completion_weights(B, 0.01, weights=[2, 1, 1]), [0.02, 0.51, 0.76])
    close(completion_focused(B, 0.01, weights=[2, 1, 1]), [53 / 129, 2 / 129, 1, 2 / 129])
    close(alpha(B, 0.01, weights=[2, 1, 1]), np.array([0.02, 0.51, 0.76]) / 1.29)


def test_bool_and_float_inputs_accepted():
    for b in (B.astype(bool), B.astype(float), B.astype(np.int8), B.tolist()):
        close(completion_focused(b), completion_focused(B))


def test_group_rewards_summary():
    g = group_rewards(B)
    assert sorted(g) == ["R", "advantages", "alpha", "p", "w"]
    close(g["R"], [13 / 32, 1 / 128, 1, 1 / 128])
    close(g["advantages"], advantages(g["R"], 1e-6))
    assert g["p"].tolist() == [1.0, 0.5, 0.25]
    close(g["w"], [0.01, 0.51, 0.76])
    close(g["alpha"], [1 / 128, 51 / 128, 76 / 128])
    gu = group_rewards(B, "uniform", lam=0.2)
    close(gu["R"], uniform(B))
    close(gu["w"], completion_weights(B, 0.2))  # diagnostics are the completion-focused ones for any kind
    assert group_rewards(B, "success")["R"].tolist() == [0, 0, 1, 0]


# ---------------------------------------------------------------- strategies
shapes = hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=8)
passes = hnp.arrays(dtype=bool, shape=shapes)
lams = st.floats(1e-4, 10.0)
deltas = st.floats(1e-6, 0.1)


@st.composite
def passes_and_weights(draw):
    b = draw(passes)
    s = draw(hnp.arrays(np.float64, b.shape[1], elements=st.floats(0.1, 10.0)))
    return b, s


@st.composite
def equal_rate_passes(draw):
    "A pass matrix whose columns all have the same pass count k."
    n, m = draw(st.integers(1, 8)), draw(st.integers(1, 6))
    k = draw(st.integers(0, n))
    col = [1] * k + [0] * (n - k)
    return np.array([draw(st.permutations(col)) for _ in range(m)]).T


# ---------------------------------------------------------------- properties
@PROPS
@given(passes_and_weights(), lams)
def test_rewards_in_unit_interval_and_one_iff_all_pass(bs, lam):
    b, s = bs
    full = b.all(axis=1)
    for R in (uniform(b), uniform(b, s), completion_focused(b, lam), completion_focused(b, lam, s), success(b)):
        assert R.shape == (b.shape[0],)
        assert ((R >= 0) & (R <= 1)).all()
        assert ((R == 1) == full).all()


@PROPS
@given(passes, passes, lams)
def test_weights_recomputed_per_group_and_stateless(b1, b2, lam):
    m = min(b1.shape[1], b2.shape[1])
    b1, b2 = b1[:, :m], b2[:, :m]
    w1, w2 = completion_weights(b1, lam), completion_weights(b2, lam)
    p1, p2 = pass_rates(b1), pass_rates(b2)
    assert ((w1 == w2) == (p1 == p2)).all()  # same criterion, different p -> different w
    r1 = completion_focused(b1, lam)
    completion_focused(b2, lam)  # another group in between changes nothing
    assert np.array_equal(completion_focused(b1, lam), r1)
    assert np.array_equal(completion_weights(b1, lam), w1)


def test_same_row_scored_differently_in_different_groups():
    row = [1, 1, 0]
    g1 = np.array([row, [1, 0, 0]])  # p = (1, .5, 0)
    g2 = np.array([row, [0, 1, 1]])  # p = (.5, 1, .5)
    assert not np.allclose(completion_weights(g1)[1], completion_weights(g2)[1])
    assert completion_focused(g1)[0] != completion_focused(g2)[0]


@PROPS
@given(equal_rate_passes(), lams)
def test_completion_focused_equals_uniform_when_rates_equal(b, lam):
    assert np.array_equal(completion_focused(b, lam), uniform(b))
    s = np.linspace(1, 2, b.shape[1])
    close(completion_focused(b, lam, s), uniform(b, s), 1e-12)


@PROPS
@given(passes, lams)
def test_alpha_ordering_and_normalisation(b, lam):
    p, a = pass_rates(b), alpha(b, lam)
    close(a.sum(), 1.0)
    assert (a > 0).all()
    lower = p[:, None] < p[None, :]  # lower[j, k]: p_j < p_k
    assert (a[:, None] > a[None, :])[lower].all()  # Eq. 11
    close(a, completion_weights(b, lam) / completion_weights(b, lam).sum())


@PROPS
@given(passes_and_weights(), lams)
def test_alpha_with_static_weights_sums_to_one(bs, lam):
    b, s = bs
    close(alpha(b, lam, s).sum(), 1.0)


@PROPS
@given(passes, lams, deltas)
def test_advantages_mean_zero_and_unit_scale(b, lam, delta):
    R = completion_focused(b, lam)
    A = advantages(R, delta)
    sigma = np.std(R)
    assert abs(A.mean()) < 1e-9
    if sigma > 1e-9:
        close(np.std(A), sigma / (sigma + delta), 1e-9)
    if sigma > 1e-3 and delta <= 1e-6:
        assert abs(np.std(A) - 1) < 1e-3


@PROPS
@given(st.lists(st.floats(-5, 5), min_size=1, max_size=12), st.floats(0, 1))
def test_advantages_of_arbitrary_rewards(R, delta):
    A = advantages(R, delta)
    R = np.asarray(R)
    assert abs(A.mean()) < 1e-9
    if np.std(R) > 1e-6:
        close(np.std(A), np.std(R) / (np.std(R) + delta), 1e-9)


@PROPS
@given(st.floats(0, 1), st.integers(1, 10), st.floats(0, 1))
def test_constant_group_has_zero_advantages(r, n, delta):
    assert advantages([r] * n, delta).tolist() == [0.0] * n


@PROPS
@given(hnp.arrays(dtype=bool, shape=st.tuples(st.integers(1, 6))), st.integers(1, 8), lams)
def test_identical_rollouts_have_zero_advantages(row, n, lam):
    b = np.tile(row, (n, 1))
    for kind in ("uniform", "success", "completion_focused"):
        assert group_rewards(b, kind, lam=lam)["advantages"].tolist() == [0.0] * n


@PROPS
@given(passes_and_weights(), lams, deltas, st.booleans())
def test_eq9_identity(bs, lam, delta, weighted):
    b, s = bs
    s = s if weighted else None
    g = group_rewards(b, lam=lam, delta=delta, weights=s)
    w, p = completion_weights(b, lam, s), pass_rates(b)
    sigma = np.std(g["R"])
    eq9 = ((b - p) @ w) / (w.sum() * (sigma + delta))
    np.testing.assert_allclose(g["advantages"], eq9, atol=1e-8)


# ---------------------------------------------------------------- invalid inputs
BAD_B = {
    "nan": ([[1, np.nan]], "non-finite"),
    "inf": ([[1, 0], [np.inf, 1]], "b[1, 0]"),
    "neg_inf": ([[-np.inf]], "non-finite"),
    "3d": (np.ones((2, 2, 2)), "2-D"),
    "1d": ([1, 0, 1], "2-D"),
    "0d": (1, "2-D"),
    "two": ([[0, 1], [1, 2]], "b[1, 1] = 2"),
    "minus_one": ([[-1, 0]], "non-binary"),
    "half": ([[0.5, 1]], "b[0, 0] = 0.5"),
    "empty_rows": (np.zeros((0, 3)), "N >= 1"),
    "empty_cols": (np.zeros((3, 0)), "M >= 1"),
    "empty_list": ([], "2-D"),
    "empty_nested": ([[]], "M >= 1"),
    "strings": ([["1", "0"]], "dtype"),
    "ragged": ([[1, 0], [1]], "rectangular"),
    "complex": ([[1 + 0j, 0]], "dtype"),
    "none": ([[None, 1]], "dtype"),
}
B_FUNCS = {
    "check_passes": check_passes, "uniform": uniform, "success": success, "pass_rates": pass_rates,
    "completion_weights": completion_weights, "completion_focused": completion_focused, "alpha": alpha,
    "group_rewards": group_rewards, "reward_table": reward_table,
}


@pytest.mark.parametrize("case", sorted(BAD_B))
@pytest.mark.parametrize("fname", sorted(B_FUNCS))
def test_invalid_pass_matrix_raises(case, fname):
    b, msg = BAD_B[case]
    with pytest.raises(ValueError, match=None) as e:
        B_FUNCS[fname](b)
    assert msg in str(e.value), str(e.value)


@pytest.mark.parametrize("lam", [0, 0.0, -1, -1e-9, float("nan"), float("inf"), "0.01", True, None])
@pytest.mark.parametrize("f", [completion_weights, completion_focused, alpha, group_rewards])
def test_invalid_lambda_raises(f, lam):
    with pytest.raises(ValueError, match="lam"):
        f(B, lam=lam)


@pytest.mark.parametrize("delta", [-1e-9, -1, float("nan"), float("inf"), "0", None])
def test_invalid_delta_raises(delta):
    with pytest.raises(ValueError, match="delta"):
        advantages([0.1, 0.2], delta)
    with pytest.raises(ValueError, match="delta"):
        group_rewards(B, delta=delta)


@pytest.mark.parametrize("R, msg", [([], "N >= 1"), ([[0.1, 0.2]], "1-D"), ([0.1, np.nan], "finite"),
                                    ([np.inf], "finite"), (["a"], "numbers")])
def test_invalid_rewards_for_advantages_raise(R, msg):
    with pytest.raises(ValueError, match=msg):
        advantages(R)


@pytest.mark.parametrize("weights, msg", [([1, 1], "shape"), ([1, 0, 1], "> 0"), ([1, -1, 1], "> 0"),
                                          ([1, np.nan, 1], "finite"), ([[1, 1, 1]], "shape"), (["a", 1, 1], "numbers")])
@pytest.mark.parametrize("f", [uniform, completion_weights, completion_focused, alpha, group_rewards])
def test_invalid_static_weights_raise(f, weights, msg):
    with pytest.raises(ValueError, match=msg):
        f(B, weights=weights)


def test_delta_zero_is_allowed():
    A = advantages(completion_focused(B), 0.0)
    close(np.std(A), 1.0, 1e-12)


# ---------------------------------------------------------------- registry
def test_builtins_registered():
    assert {"uniform", "success", "completion_focused"} <= set(REWARDS)
    assert get_reward("completion_focused") is completion_focused


def test_get_reward_unknown_lists_known_names():
    with pytest.raises(KeyError) as e:
        get_reward("nope")
    for n in ("uniform", "success", "completion_focused"):
        assert n in str(e.value)


def test_reward_table_defaults_and_kwargs():
    tab = reward_table(B, lam=0.5)
    assert set(tab) == set(REWARDS)
    close(tab["completion_focused"], completion_focused(B, 0.5))
    close(tab["uniform"], uniform(B))
    assert list(reward_table(B, ["success"], lam=0.5)) == ["success"]  # lam silently not given to success
    with pytest.raises(TypeError, match="lamda"):
        reward_table(B, lamda=0.5)
    with pytest.raises(KeyError, match="known"):
        reward_table(B, ["nope"])


def test_new_variant_in_a_few_lines():
    @register_reward("rank_test")
    def rank_test(b, lam: float = 0.01):
        "Completion-focused rewards replaced by their rank in the group, scaled to [0, 1]."
        r = completion_focused(b, lam)
        return np.argsort(np.argsort(r, kind="stable"), kind="stable") / max(len(r) - 1, 1)

    try:
        tab = reward_table(B, ["rank_test", "completion_focused"], lam=0.01)
        assert tab["rank_test"].tolist() == [2 / 3, 0.0, 1.0, 1 / 3]
        assert group_rewards(B, "rank_test")["R"].tolist() == [2 / 3, 0.0, 1.0, 1 / 3]
        register_reward("rank_test")(rank_test)  # re-running the same definition is fine
        with pytest.raises(ValueError, match="already registered"):
            register_reward("rank_test")(lambda b: uniform(b))
        register_reward("rank_test", replace=True)(lambda b: uniform(b))
        close(get_reward("rank_test")(B), uniform(B))
    finally:
        REWARDS.pop("rank_test", None)


def test_bad_variant_output_is_caught():
    REWARDS["bad_shape"] = lambda b: np.zeros(3)
    try:
        with pytest.raises(ValueError, match="bad_shape"):
            reward_table(B, ["bad_shape"])
    finally:
        REWARDS.pop("bad_shape")


def test_register_rejects_empty_name():
    with pytest.raises(ValueError):
        register_reward("")


# ---------------------------------------------------------------- many groups at once
batches = hnp.arrays(dtype=bool, shape=hnp.array_shapes(min_dims=3, max_dims=3, min_side=1, max_side=6))


@PROPS
@given(batches, lams, deltas, st.booleans())
def test_batch_rewards_equal_group_by_group(b, lam, delta, weighted):
    s = np.linspace(0.5, 2.0, b.shape[2]) if weighted else None
    out = batch_rewards(b, lam=lam, delta=delta, weights=s)
    for g in range(b.shape[0]):
        one, tab = group_rewards(b[g], lam=lam, delta=delta, weights=s), reward_table(b[g], lam=lam, weights=s)
        for n in tab: close(out["rewards"][n][g], tab[n], 1e-12)
        for k in ("R", "advantages", "p", "w", "alpha"): close(out[k][g], one[k], 1e-12)
    R = out["rewards"]["completion_focused"]
    assert ((R == 1.0) == b.all(axis=2)).all() and (R >= 0).all() and (R <= 1).all()   # weights recomputed per group, R=1 iff all pass


def test_batch_rewards_calls_custom_variants_per_group_and_checks_inputs():
    @register_reward("first_criterion")
    def first_criterion(b):
        "Pays only for criterion 0 (a variant in three lines)."
        return np.asarray(b, dtype=float)[:, 0]
    try:
        b3 = np.stack([B, B[::-1]])
        out = batch_rewards(b3)
        assert out["rewards"]["first_criterion"].tolist() == [[1, 1, 1, 1], [1, 1, 1, 1]]
        close(out["R"][1], completion_focused(B[::-1]))
    finally:
        REWARDS.pop("first_criterion")
    for bad, msg in [(B, "3-D"), (np.zeros((2, 0, 3)), "3-D"), (np.full((1, 2, 2), 0.5), r"b\[0, 0, 0\] = 0.5"),
                     (np.array([[[1, np.nan]]]), "not 0 or 1")]:
        with pytest.raises(ValueError, match=msg): batch_rewards(bad)
    with pytest.raises(KeyError, match="known"): batch_rewards(B[None], kind="nope")
    with pytest.raises(ValueError, match="lam"): batch_rewards(B[None], lam=float("inf"))


def test_variant_returning_non_finite_values_is_refused():
    REWARDS["nan_variant"] = lambda b: np.full(np.asarray(b).shape[0], np.nan)
    try:
        with pytest.raises(ValueError, match="nan_variant"): reward_table(B, ["nan_variant"])
        with pytest.raises(ValueError, match="nan_variant"): group_rewards(B, "nan_variant")
        with pytest.raises(ValueError, match="nan_variant"): batch_rewards(B[None], names=["nan_variant"])
    finally:
        REWARDS.pop("nan_variant")
