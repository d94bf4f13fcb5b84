"""``polars_rank.stats`` against SciPy and plain-Python references.

t-tests must equal ``scipy.stats.ttest_rel`` / ``ttest_ind(equal_var=False)`` to
1e-10 (p-values and intervals). Resampling results are compared with
``scipy.stats.permutation_test`` / ``bootstrap`` within Monte-Carlo error: the
tolerance is ``Z`` standard errors of the difference of two independent estimates,
each from ``B`` resamples; exact enumerations must agree exactly.
"""

from __future__ import annotations

import itertools
import math
import statistics

import numpy as np
import pytest
from budget import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from polars_rank import stats
from polars_rank.stats import (
    MIN_BOOTSTRAP_N,
    bonferroni,
    bootstrap_test,
    holm,
    randomization_test,
    t_test,
)

Z = 5.0  # standard errors of Monte-Carlo disagreement allowed
NORMAL = statistics.NormalDist()


def data(seed: int, n: int, *, paired: bool = True, shift: float = 0.03,
         n_b: int | None = None, kind: str = "beta") -> tuple[np.ndarray, np.ndarray]:
    """Per-query metric-like values in [0, 1]: correlated pairs, or two independent arms."""
    rng = np.random.default_rng(seed)
    if kind == "binary":
        b = rng.integers(0, 2, n_b or n).astype(float)
        a = (rng.random(n) < 0.5 + shift).astype(float)
        return a, b
    b = rng.beta(2, 3, n_b or n)
    if paired:
        a = np.clip(b + rng.normal(shift, 0.15, n), 0, 1)
    else:
        a = np.clip(rng.beta(2, 3, n) + shift, 0, 1)
    return a, b


# ---------------------------------------------------------------------------- t-tests
@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 300),
       alpha=st.sampled_from([0.01, 0.05, 0.1, 0.32]))
def test_paired_t_equals_scipy(seed: int, n: int, alpha: float) -> None:
    a, b = data(seed, n)
    got = t_test(a, b, paired=True, alpha=alpha)
    ref = sps.ttest_rel(a, b)
    ci = ref.confidence_interval(1 - alpha)
    assert got.p_value == pytest.approx(ref.pvalue, abs=1e-10, rel=1e-10)
    assert got.ci_low == pytest.approx(ci.low, abs=1e-10)
    assert got.ci_high == pytest.approx(ci.high, abs=1e-10)
    assert got.delta == pytest.approx(float(np.mean(a - b)), abs=1e-12)
    assert got.n == n


@settings(max_examples=examples(60), deadline=None)
@given(seed=st.integers(0, 10_000), n_a=st.integers(2, 200), n_b=st.integers(2, 200),
       alpha=st.sampled_from([0.01, 0.05, 0.1]))
def test_welch_t_equals_scipy(seed: int, n_a: int, n_b: int, alpha: float) -> None:
    a, b = data(seed, n_a, paired=False, n_b=n_b)
    got = t_test(a, b, paired=False, alpha=alpha)
    ref = sps.ttest_ind(a, b, equal_var=False)
    ci = ref.confidence_interval(1 - alpha)
    assert got.p_value == pytest.approx(ref.pvalue, abs=1e-10, rel=1e-10)
    assert got.ci_low == pytest.approx(ci.low, abs=1e-10)
    assert got.ci_high == pytest.approx(ci.high, abs=1e-10)
    assert got.n == n_a


def delta_method_lift(a: np.ndarray, b: np.ndarray, paired: bool, alpha: float,
                      ) -> tuple[float, float]:
    """Textbook delta method for mean(a) / mean(b) - 1 (Deng et al. 2018, eq. 3)."""
    ma, mb = a.mean(), b.mean()
    r = ma / mb
    var_a, var_b = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    cov = np.cov(a, b, ddof=1)[0, 1] / a.size if paired else 0.0
    var = (var_a - 2 * r * cov + r * r * var_b) / (mb * mb)
    if paired:
        df = a.size - 1
    else:
        wa, wb = var_a / mb**2, r * r * var_b / mb**2
        df = (wa + wb) ** 2 / (wa**2 / (a.size - 1) + wb**2 / (b.size - 1))
    half = sps.t.ppf(1 - alpha / 2, df) * math.sqrt(var)
    return r - 1 - half, r - 1 + half


@pytest.mark.parametrize("paired", [True, False])
@pytest.mark.parametrize("seed", range(5))
def test_t_lift_interval_is_the_delta_method(paired: bool, seed: int) -> None:
    a, b = data(seed, 40 + seed, paired=paired)
    got = t_test(a, b, paired=paired)
    low, high = delta_method_lift(a, b, paired, 0.05)
    assert got.lift == pytest.approx(a.mean() / b.mean() - 1, abs=1e-12)
    assert got.lift_low == pytest.approx(low, abs=1e-10)
    assert got.lift_high == pytest.approx(high, abs=1e-10)


def test_zero_variance_t() -> None:
    same = t_test([0.2, 0.5, 0.7], [0.2, 0.5, 0.7])
    assert (same.p_value, same.ci_low, same.ci_high, same.delta) == (1.0, 0.0, 0.0, 0.0)
    assert (same.lift_low, same.lift_high) == (0.0, 0.0)
    shifted = t_test([0.5, 0.5, 0.5], [0.25, 0.25, 0.25])
    assert shifted.p_value == 0.0
    assert (shifted.ci_low, shifted.ci_high) == (0.25, 0.25)
    welch = t_test([1.0, 1.0], [0.0, 0.0, 0.0], paired=False)
    assert welch.p_value == 0.0
    assert welch.lift is None  # baseline mean 0
    assert welch.lift_low is None
    # one arm constant: Welch is still defined
    b = np.array([0.0, 1.0, 0.5, 0.2])
    one = t_test([1.0, 1.0, 1.0], b, paired=False)
    t = (1.0 - b.mean()) / math.sqrt(b.var(ddof=1) / 4)
    assert one.p_value == pytest.approx(2 * sps.t.sf(t, 3), abs=1e-12)  # Welch df = n_b - 1


# ---------------------------------------------------------------------------- randomization
def mc_tolerance(p: float, n_resamples: int) -> float:
    """Z standard errors of the difference of two two-sided resampling p-values."""
    q = min(max(p / 2, 1 / n_resamples), 0.5)  # the one-sided tail that was doubled
    se_one = 2 * math.sqrt(q * (1 - q) / n_resamples)
    return Z * math.sqrt(2) * se_one + 2 / n_resamples  # + the (1 + count) convention


def mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis) - np.mean(y, axis=axis)


@pytest.mark.parametrize(("seed", "n", "shift", "kind"), [
    (0, 30, 0.0, "beta"), (1, 60, 0.04, "beta"), (2, 25, 0.08, "beta"), (3, 80, 0.1, "binary"),
])
def test_paired_randomization_matches_scipy(seed: int, n: int, shift: float, kind: str) -> None:
    b_res = 20_000
    a, b = data(seed, n, shift=shift, kind=kind)
    got = randomization_test(a, b, n_resamples=b_res, seed=seed)
    ref = sps.permutation_test((a, b), mean_difference, permutation_type="samples",
                               n_resamples=b_res, vectorized=True, rng=seed + 100)
    assert abs(got.p_value - ref.pvalue) <= mc_tolerance(ref.pvalue, b_res), (got, ref.pvalue)


@pytest.mark.parametrize(("seed", "n_a", "n_b", "shift"), [
    (0, 30, 45, 0.0), (1, 50, 20, 0.1), (2, 15, 15, 0.2),
])
def test_unpaired_randomization_matches_scipy(seed: int, n_a: int, n_b: int, shift: float,
                                              ) -> None:
    b_res = 20_000
    a, b = data(seed, n_a, paired=False, n_b=n_b, shift=shift)
    got = randomization_test(a, b, paired=False, n_resamples=b_res, seed=seed)
    ref = sps.permutation_test((a, b), mean_difference, permutation_type="independent",
                               n_resamples=b_res, vectorized=True, rng=seed + 100)
    assert abs(got.p_value - ref.pvalue) <= mc_tolerance(ref.pvalue, b_res), (got, ref.pvalue)


def brute_force_sign_flips(d: np.ndarray) -> float:
    """Two-sided exact sign-flip p-value of the mean, ties within 1e-9 relative counted."""
    observed = float(d.mean())
    tol = 1e-9 * float(np.abs(d).mean())
    null = [sum(s * x for s, x in zip(signs, d, strict=True)) / len(d)
            for signs in itertools.product((1.0, -1.0), repeat=len(d))]
    less = sum(1 for v in null if v <= observed + tol)
    greater = sum(1 for v in null if v >= observed - tol)
    return min(1.0, 2 * min(less, greater) / len(null))


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 12))
@example(seed=1939, n=11)
def test_exact_sign_flips_equal_scipy(seed: int, n: int) -> None:
    a, b = data(seed, n, shift=0.1)
    got = randomization_test(a, b, n_resamples=2**n)  # exactly enough: enumeration
    ref = sps.permutation_test((a, b), mean_difference, permutation_type="samples",
                               n_resamples=2**n, vectorized=True)
    # SciPy counts a null statistic equal to the observed one only within 1e-14 of the
    # observed value itself; when that is near 0 (seed 1939, n=11: -9.9e-5) its own
    # arrangement can fall outside by an ulp, moving its p by one arrangement (2/2^n)
    assert abs(got.p_value - ref.pvalue) <= 2 / 2**n + 1e-12
    assert got.p_value == pytest.approx(brute_force_sign_flips(a - b), abs=1e-12)


@settings(max_examples=examples(40), deadline=None)
@given(seed=st.integers(0, 10_000), n_a=st.integers(2, 7), n_b=st.integers(2, 7))
def test_exact_relabellings_equal_scipy(seed: int, n_a: int, n_b: int) -> None:
    a, b = data(seed, n_a, paired=False, n_b=n_b, shift=0.2)
    got = randomization_test(a, b, paired=False)
    ref = sps.permutation_test((a, b), mean_difference, permutation_type="independent",
                               vectorized=True)
    assert got.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_exact_enumerations_larger_than_one_batch() -> None:
    a, b = data(21, 17, shift=0.05)  # 2^17 sign flips x 17 queries: several batches
    got = randomization_test(a, b, n_resamples=2**17)
    ref = sps.permutation_test((a, b), mean_difference, permutation_type="samples",
                               n_resamples=2**17, vectorized=True)
    assert got.p_value == pytest.approx(ref.pvalue, abs=1e-12)
    a, b = data(22, 9, paired=False, n_b=11, shift=0.1)  # C(20, 9) = 167,960 relabellings
    got = randomization_test(a, b, paired=False, n_resamples=200_000)
    ref = sps.permutation_test((a, b), mean_difference, permutation_type="independent",
                               n_resamples=200_000, vectorized=True)
    assert got.p_value == pytest.approx(ref.pvalue, abs=1e-12)


def test_exact_test_with_ties_and_zero_differences() -> None:
    a = np.array([1.0, 0.5, 0.5, 1.0, 0.0, 1.0])
    b = np.array([0.5, 0.5, 0.0, 1.0, 0.0, 0.5])  # three zero differences
    got = randomization_test(a, b)
    ref = sps.permutation_test((a, b), mean_difference, permutation_type="samples",
                               vectorized=True)
    assert got.p_value == ref.pvalue == 2 * 8 / 64


@pytest.mark.parametrize("paired", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomization_interval_inverts_the_test(paired: bool, seed: int) -> None:
    """Shifts just inside the interval are not rejected, shifts just outside are."""
    a, b = data(seed, 40, paired=paired, shift=0.05)
    alpha, b_res = 0.05, 4000
    got = randomization_test(a, b, paired=paired, alpha=alpha, n_resamples=b_res, seed=7)
    assert got.ci_low is not None
    assert got.ci_high is not None
    width = got.ci_high - got.ci_low
    assert got.ci_low < got.delta < got.ci_high
    eps = 1e-6 * width

    def p_shift(delta0: float) -> float:
        return randomization_test(a - delta0, b, paired=paired, alpha=alpha,
                                  n_resamples=b_res, seed=7).p_value

    assert p_shift(got.ci_low + eps) > alpha
    assert p_shift(got.ci_low - eps) <= alpha
    assert p_shift(got.ci_high - eps) > alpha
    assert p_shift(got.ci_high + eps) <= alpha
    assert (p_shift(0.0) <= alpha) == (not got.ci_low <= 0 <= got.ci_high)
    # the lift: "arm vs (1 + lift0) x baseline"
    assert got.lift_low is not None
    assert got.lift_high is not None
    eps = 1e-6 * (got.lift_high - got.lift_low)

    def p_lift(lift0: float) -> float:
        return randomization_test(a, (1 + lift0) * b, paired=paired, alpha=alpha,
                                  n_resamples=b_res, seed=7).p_value

    assert p_lift(got.lift_low + eps) > alpha
    assert p_lift(got.lift_low - eps) <= alpha
    assert p_lift(got.lift_high - eps) > alpha
    assert p_lift(got.lift_high + eps) <= alpha


def test_randomization_interval_close_to_t_on_many_queries() -> None:
    a, b = data(3, 400, shift=0.05)
    r, t = randomization_test(a, b, n_resamples=20_000), t_test(a, b)
    width = t.ci_high - t.ci_low  # type: ignore[operator]
    assert abs(r.ci_low - t.ci_low) < 0.05 * width  # type: ignore[operator]
    assert abs(r.ci_high - t.ci_high) < 0.05 * width  # type: ignore[operator]
    assert abs(r.lift_low - t.lift_low) < 0.05 * width / b.mean()  # type: ignore[operator]


def test_too_few_queries_to_reject_gives_an_infinite_interval() -> None:
    # 3 pairs: 8 sign flips, the smallest p-value is 2/8 > 0.05
    got = randomization_test([0.9, 0.8, 0.7], [0.1, 0.2, 0.3])
    assert got.p_value == 0.25
    assert (got.ci_low, got.ci_high) == (-math.inf, math.inf)


def test_zero_variance_randomization() -> None:
    same = randomization_test([0.2, 0.5, 0.7, 0.1], [0.2, 0.5, 0.7, 0.1])
    assert same.p_value == 1.0
    shifted = randomization_test(np.full(20, 0.5), np.full(20, 0.25), n_resamples=999)
    assert shifted.p_value == 2 / 1000  # the smallest (1 + 0) / (1 + B), doubled


# ---------------------------------------------------------------------------- bootstrap
def ratio_minus_one(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x, axis=axis) / np.mean(y, axis=axis) - 1


def quantile_tolerance(sd: float, alpha: float, n_resamples: int) -> float:
    """Z standard errors of the difference of two bootstrap alpha/2 quantiles."""
    q = alpha / 2
    density = math.exp(-NORMAL.inv_cdf(q) ** 2 / 2) / math.sqrt(2 * math.pi) / sd
    return Z * math.sqrt(2) * math.sqrt(q * (1 - q) / n_resamples) / density


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize(("paired", "seed", "n", "n_b"), [
    (True, 0, 30, None), (True, 1, 80, None), (False, 2, 40, 25), (False, 3, 60, 90),
])
def test_bootstrap_intervals_match_scipy(method: str, paired: bool, seed: int, n: int,
                                         n_b: int | None) -> None:
    b_res, alpha = 20_000, 0.05
    a, b = data(seed, n, paired=paired, n_b=n_b if not paired else None, shift=0.05)
    got = bootstrap_test(a, b, paired=paired, alpha=alpha, n_resamples=b_res, seed=seed,
                         interval=method)  # type: ignore[arg-type]
    scipy_method = "BCa" if method == "bca" else "percentile"
    for stat, low, high in [(mean_difference, got.ci_low, got.ci_high),
                            (ratio_minus_one, got.lift_low, got.lift_high)]:
        ref = sps.bootstrap((a, b), stat, paired=paired, vectorized=True, n_resamples=b_res,
                            confidence_level=1 - alpha, method=scipy_method, rng=seed + 100)
        tol = quantile_tolerance(ref.standard_error, alpha, b_res)
        assert low == pytest.approx(ref.confidence_interval.low, abs=tol), stat.__name__
        assert high == pytest.approx(ref.confidence_interval.high, abs=tol), stat.__name__


def skewed(seed: int, n: int, *, paired: bool, n_b: int | None = None,
           ) -> tuple[np.ndarray, np.ndarray]:
    """Long-tailed values (dwell-time like), where BCa and percentile intervals differ."""
    rng = np.random.default_rng(seed)
    b = rng.lognormal(0.0, 1.0, n_b or n)
    a = b * rng.lognormal(0.1, 0.5, n) if paired else rng.lognormal(0.3, 1.0, n)
    return a, b


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize(("paired", "n", "n_b"), [(True, 25, None), (False, 20, 35)])
@pytest.mark.parametrize("seed", [0, 1])
def test_bootstrap_with_scipys_resamples_is_scipy(method: str, paired: bool, n: int,
                                                  n_b: int | None, seed: int) -> None:
    """Seeded alike, bootstrap_test draws scipy.stats.bootstrap's very resamples.

    (scipy draws ``rng.integers(0, n, (B, n))`` per sample, as bootstrap_test does in
    its first batch.) The intervals must then agree to 1e-10: the BCa bias correction,
    acceleration and interpolation are scipy's.
    """
    a, b = skewed(seed, n, paired=paired, n_b=n_b)
    got = bootstrap_test(a, b, paired=paired, n_resamples=9999, seed=seed,
                         interval=method)  # type: ignore[arg-type]
    scipy_method = "BCa" if method == "bca" else "percentile"
    for stat, low, high in [(mean_difference, got.ci_low, got.ci_high),
                            (ratio_minus_one, got.lift_low, got.lift_high)]:
        ref = sps.bootstrap((a, b), stat, paired=paired, vectorized=True, n_resamples=9999,
                            method=scipy_method, rng=seed)
        assert low == pytest.approx(ref.confidence_interval.low, abs=1e-10), stat.__name__
        assert high == pytest.approx(ref.confidence_interval.high, abs=1e-10), stat.__name__
    if method == "bca":  # and BCa is not percentile here
        plain = bootstrap_test(a, b, paired=paired, n_resamples=9999, seed=seed,
                               interval="percentile")
        assert abs(plain.ci_low - got.ci_low) > 1e-3  # type: ignore[operator]


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize(("paired", "seed", "scale"), [
    (True, 0, 1.1), (True, 1, 1.3), (True, 2, 1.3), (True, 3, 1.1),
    (False, 0, 1.6), (False, 1, 1.3), (False, 2, 1.3), (False, 3, 1.3),
])
def test_bootstrap_p_value_is_the_interval_inverted(method: str, paired: bool, seed: int,
                                                    scale: float) -> None:
    """At alpha = p, the 1 - alpha interval has 0 as an endpoint (up to interpolation).

    The cases have p-values between 0.05 and 0.6, where neighbouring resamples are
    close; the baseline is scaled to get there.
    """
    a, b = skewed(seed, 30, paired=paired)
    b = b * scale
    first = bootstrap_test(a, b, paired=paired, n_resamples=20_000, seed=seed,
                           interval=method)  # type: ignore[arg-type]
    assert 0.05 < first.p_value < 0.6
    at_p = bootstrap_test(a, b, paired=paired, alpha=first.p_value, n_resamples=20_000,
                          seed=seed, interval=method)  # type: ignore[arg-type]
    endpoint = at_p.ci_low if first.delta > 0 else at_p.ci_high
    spread = at_p.ci_high - at_p.ci_low  # type: ignore[operator]
    assert abs(endpoint) < 1.5e-3 * spread, (endpoint, spread)  # type: ignore[arg-type]
    for alpha in (0.01, 0.05, 0.1, 0.3, 0.5):
        got = bootstrap_test(a, b, paired=paired, alpha=alpha, n_resamples=20_000, seed=seed,
                             interval=method)  # type: ignore[arg-type]
        if abs(got.p_value - alpha) > 1e-3:  # at the very edge interpolation decides
            excludes = not got.ci_low <= 0 <= got.ci_high  # type: ignore[operator]
            assert (got.p_value <= alpha) == excludes, (alpha, got)


def test_bootstrap_p_value_is_at_least_one_over_b() -> None:
    a, b = skewed(2, 30, paired=True)
    got = bootstrap_test(a, b * 1.1, n_resamples=20_000, seed=2)  # far in the BCa tail
    assert got.p_value == 1 / 20_000


def test_percentile_p_value_is_twice_the_tail() -> None:
    a, b = data(5, 25, shift=0.03)
    got = bootstrap_test(a, b, interval="percentile", n_resamples=10_000, seed=3)
    rng = np.random.default_rng(3)  # the same resamples, drawn as bootstrap_test does
    idx = rng.integers(0, a.size, size=(10_000, a.size))
    theta = a[idx].mean(axis=1) - b[idx].mean(axis=1)
    below = (np.count_nonzero(theta < 0) + np.count_nonzero(theta <= 0)) / (2 * theta.size)
    assert got.p_value == pytest.approx(2 * min(below, 1 - below), abs=1e-12)


def test_zero_variance_bootstrap() -> None:
    values = [0.2, 0.5, 0.7, 0.1, 0.3, 0.9, 0.4, 0.6, 0.8, 0.0]
    same = bootstrap_test(values, values)
    assert same.p_value == 1.0
    assert (same.ci_low, same.ci_high) == (0.0, 0.0)
    shifted = bootstrap_test(np.full(10, 0.5), np.full(10, 0.25), n_resamples=1000)
    assert shifted.p_value == pytest.approx(1 / 1000)  # the share below 0 clipped at 1/(2B)
    assert shifted.ci_low == pytest.approx(0.25)
    assert shifted.ci_high == pytest.approx(0.25)


@pytest.mark.parametrize("paired", [True, False])
def test_the_bootstrap_refuses_fewer_than_its_minimum(paired: bool) -> None:
    """Two to four pairs of one sign gave p = 1/B (issue 36): below MIN_BOOTSTRAP_N the
    bootstrap refuses, naming the rule and the tests that answer there."""
    assert MIN_BOOTSTRAP_N == 10
    what = "pairs" if paired else "values in each arm"
    for n in (2, 4, 9):
        a, b = np.linspace(0.5, 0.7, n), np.linspace(0.4, 0.45, n)
        with pytest.raises(ValueError, match=f"at least 10 {what}, got {n}.*t_test or "
                                             "randomization_test"):
            bootstrap_test(a, b, paired=paired)
    if not paired:  # each arm counts: 9 in one arm is too few
        with pytest.raises(ValueError, match="got 9"):
            bootstrap_test(np.linspace(0, 1, 30), np.linspace(0, 1, 9), paired=False)
    a, b = np.linspace(0.5, 0.7, 10), np.linspace(0.4, 0.45, 10)
    assert bootstrap_test(a, b, paired=paired, n_resamples=500).p_value > 0


def test_the_bootstrap_minimum_is_where_its_level_is_near_alpha() -> None:
    """The rejection rates docs/compare.md gives: a true null (normal differences),
    alpha 0.05, 400 experiments at each n. Below the minimum the bootstrap rejects at
    least twice as often as alpha says; the t-test holds its level."""
    rng = np.random.default_rng(36)
    rates = {}
    for n in (4, 10, 30):
        rejected = 0
        for seed in range(400):
            d = rng.normal(0, 1, n)
            # the rule is the public function's: call the resampling itself below it
            rejected += _bootstrap_p(d, seed) <= 0.05
        rates[n] = rejected / 400
    assert rates[4] > 0.10
    assert rates[10] < rates[4]
    assert rates[30] < 0.09


def _bootstrap_p(d: np.ndarray, seed: int) -> float:
    """The paired percentile bootstrap's p-value of mean(d) = 0, as bootstrap_test."""
    rng = np.random.default_rng(seed)
    means = d[rng.integers(0, d.size, size=(1000, d.size))].mean(axis=1)
    below = (np.count_nonzero(means < 0) + np.count_nonzero(means <= 0)) / (2 * means.size)
    below = min(max(below, 0.5 / means.size), 1 - 0.5 / means.size)
    return float(min(1.0, 2 * min(below, 1 - below)))


# ---------------------------------------------------------------------------- seeds, input
@pytest.mark.parametrize("function", [randomization_test, bootstrap_test])
@pytest.mark.parametrize("paired", [True, False])
def test_seeded_and_reproducible(function: object, paired: bool) -> None:
    a, b = data(11, 50, paired=paired, shift=0.05)
    run = function  # type: ignore[assignment]
    first = run(a, b, paired=paired, n_resamples=2000, seed=5)  # type: ignore[operator]
    again = run(a, b, paired=paired, n_resamples=2000, seed=5)  # type: ignore[operator]
    other = run(a, b, paired=paired, n_resamples=2000, seed=6)  # type: ignore[operator]
    assert first == again
    assert first != other


def test_resamples_are_drawn_in_batches() -> None:
    """More cells than one batch: same distribution, bounded memory."""
    a, b = data(4, 3000, shift=0.01)
    r = randomization_test(a, b, n_resamples=2000, seed=1)
    t = t_test(a, b)
    assert abs(r.p_value - t.p_value) < mc_tolerance(t.p_value, 2000)
    boot = bootstrap_test(a, b, n_resamples=2000, seed=1)
    assert boot.ci_low == pytest.approx(t.ci_low, abs=0.1 * (t.ci_high - t.ci_low))  # type: ignore[operator]


@pytest.mark.parametrize("function", [t_test, randomization_test, bootstrap_test])
def test_input_errors(function: object) -> None:
    run = function  # type: ignore[assignment]
    with pytest.raises(ValueError, match="at least 2 pairs, got 1"):
        run([0.5], [0.4])  # type: ignore[operator]
    with pytest.raises(ValueError, match="at least 2 values in each arm, got 1"):
        run([0.5, 0.2, 0.1], [0.4], paired=False)  # type: ignore[operator]
    with pytest.raises(ValueError, match="as many baseline as arm values, got 3 and 2"):
        run([0.5, 0.2, 0.1], [0.4, 0.3])  # type: ignore[operator]
    with pytest.raises(ValueError, match="finite"):
        run([0.5, math.nan], [0.4, 0.3])  # type: ignore[operator]
    with pytest.raises(ValueError, match="1-D"):
        run([[0.5, 0.1]], [[0.4, 0.3]])  # type: ignore[operator]
    with pytest.raises(ValueError, match="alpha must be a number strictly between 0 and 1"):
        run([0.5, 0.2], [0.4, 0.3], alpha=1.0)  # type: ignore[operator]


def test_resampling_option_errors() -> None:
    with pytest.raises(ValueError, match="n_resamples must be a positive int, got 0"):
        randomization_test([0.5, 0.2], [0.4, 0.3], n_resamples=0)
    with pytest.raises(ValueError, match="interval must be one of 'bca', 'percentile'"):
        bootstrap_test([0.5, 0.2], [0.4, 0.3], interval="basic")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- corrections
def holm_reference(p: list[float]) -> list[float]:
    """Holm by its definition: the smallest level at which the step-down procedure rejects.

    At level a, sort the p-values; reject while p_(j) <= a / (m - j + 1), stop at the
    first that is not. The adjusted p-value of H_i is the smallest a (from the finite
    set of candidates (m - j + 1) p_(j), capped at 1) at which H_i is rejected.
    """
    m = len(p)
    ranked = sorted(range(m), key=lambda i: p[i])
    candidates = sorted({min(1.0, (m - j) * p[i]) for j, i in enumerate(ranked)} | {1.0})

    def rejected(level: float) -> set[int]:
        out: set[int] = set()
        for j, i in enumerate(ranked):
            if p[i] * (m - j) > level:  # p_(j) <= level / (m - j + 1), 0-based j
                break
            out.add(i)
        return out

    return [next((c for c in candidates if i in rejected(c)), 1.0) for i in range(m)]


p_values_st = st.lists(
    st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 0.5, 1.0])), max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(p=p_values_st)
def test_holm_matches_its_definition(p: list[float]) -> None:
    got = holm(p)
    expected = holm_reference(p)
    assert got == pytest.approx(expected, abs=1e-15)
    assert all(a >= b for a, b in zip(got, p, strict=True))  # never below the raw p-value
    assert all(x <= 1.0 for x in got)
    order = sorted(range(len(p)), key=lambda i: p[i])
    assert all(got[i] <= got[j] for i, j in itertools.pairwise(order))  # monotone


@settings(max_examples=examples(200), deadline=None)
@given(p=p_values_st)
def test_bonferroni_and_none(p: list[float]) -> None:
    assert bonferroni(p) == [min(1.0, len(p) * x) for x in p]
    assert stats.adjust(p, None) == p
    assert stats.adjust(p, "bonferroni") == bonferroni(p)
    assert all(h <= bf for h, bf in zip(holm(p), bonferroni(p), strict=True))


def test_holm_hand_example() -> None:
    # sorted 0.01, 0.02, 0.03, 0.04 (m = 4): 0.04, 0.06, 0.06, 0.06 after the running max
    assert holm([0.03, 0.01, 0.04, 0.02]) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([]) == []
    with pytest.raises(ValueError, match="correction must be one of"):
        stats.adjust([0.1], "fdr")  # type: ignore[arg-type]
