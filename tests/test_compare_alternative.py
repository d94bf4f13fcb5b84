"""compare(alternative="greater" | "less"): one-sided tests equal to SciPy's.

Random per-query values with ties (rounded to 0.05, as bounded metrics are) and
zero differences; the reference is scipy.stats with the same ``alternative``.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_rank as pr
from polars_rank.stats import randomization_test, sign_test, t_test, wilcoxon_test

ALTERNATIVES = ("two-sided", "greater", "less")


def _values(seed: int, n: int = 25, shift: float = 0.04) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.8, n)
    a = np.round((base + shift + rng.normal(0, 0.12, n)) * 20) / 20
    b = np.round((base + rng.normal(0, 0.12, n)) * 20) / 20
    return np.clip(a, 0, 1), np.clip(b, 0, 1)


def _frame(a: np.ndarray, b: np.ndarray) -> pl.DataFrame:
    return pl.DataFrame({"arm": ["A"] * a.size + ["B"] * b.size,
                         "qid": [*range(a.size), *range(b.size)], "m": np.r_[a, b]})


def _row(a: np.ndarray, b: np.ndarray, **options: object) -> dict[str, object]:
    out = pr.compare(_frame(a, b), baseline="B", metrics="m", correction=None,
                     **options)  # type: ignore[arg-type]
    return out.row(0, named=True)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(8))
def test_t_tests_equal_scipy(seed: int, alternative: str) -> None:
    a, b = _values(seed, shift=0.03 * (seed % 3 - 1))
    for paired in (True, False):
        row = _row(a, b, test="t", paired=paired, alternative=alternative)
        ref = (stats.ttest_rel(a, b, alternative=alternative) if paired  # type: ignore[call-overload]
               else stats.ttest_ind(a, b, equal_var=False, alternative=alternative))
        ci = ref.confidence_interval(0.95)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-300)
        assert row["delta_ci_low"] == pytest.approx(ci.low, rel=1e-10)
        assert row["delta_ci_high"] == pytest.approx(ci.high, rel=1e-10)
        assert row["alternative"] == alternative
        if alternative == "greater":
            assert row["delta_ci_high"] == math.inf
            assert row["lift_ci_high"] == math.inf
        if alternative == "less":
            assert row["delta_ci_low"] == -math.inf
            assert row["lift_ci_low"] == -math.inf


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(8))
def test_rank_tests_equal_scipy(seed: int, alternative: str) -> None:
    a, b = _values(seed, n=12 + seed * 6, shift=0.03 * (seed % 3 - 1))
    d = a - b
    assert (d == 0).any()  # zero differences, and ties among |d|
    for zero_method in ("wilcox", "pratt", "zsplit"):
        row = _row(a, b, test="wilcoxon", alternative=alternative, zero_method=zero_method)
        ref = stats.wilcoxon(d, zero_method=zero_method, alternative=alternative)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    row = _row(a, b, test="wilcoxon", paired=False, alternative=alternative)
    ref = stats.mannwhitneyu(a, b, alternative=alternative)
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)
    row = _row(a, b, test="sign", alternative=alternative)
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    ref = stats.binomtest(wins, wins + losses, alternative=alternative)
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-10)


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(6))
def test_exact_randomization_equals_scipy(seed: int, alternative: str) -> None:
    a, b = _values(seed, n=10, shift=0.05)
    row = _row(a, b, test="randomization", alternative=alternative, n_resamples=5000)
    ref = stats.permutation_test((a - b,), np.mean, permutation_type="samples",
                                 alternative=alternative, n_resamples=math.inf)
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    assert row["p_floor"] == (2 if alternative == "two-sided" else 1) / 2**10
    # unpaired: every relabelling of 6 + 5 units (462)
    a, b = a[:6], b[:5]
    row = _row(a, b, test="randomization", paired=False, alternative=alternative)
    ref = stats.permutation_test((a, b), lambda x, y: x.mean() - y.mean(),
                                 permutation_type="independent", alternative=alternative,
                                 n_resamples=math.inf)
    assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("seed", range(4))
def test_random_sign_flips_within_monte_carlo_error(seed: int, alternative: str) -> None:
    a, b = _values(seed, n=60, shift=0.02 * (seed % 3 - 1))
    n_resamples = 20_000
    r = randomization_test(a, b, alternative=alternative, n_resamples=n_resamples, seed=seed)  # type: ignore[arg-type]
    ref = stats.permutation_test((a - b,), np.mean, permutation_type="samples",
                                 alternative=alternative, n_resamples=n_resamples, rng=seed)
    q = ref.pvalue
    tolerance = 5 * math.sqrt(2) * math.sqrt(q * (1 - q) / n_resamples) + 2 / n_resamples
    assert abs(r.p_value - q) <= tolerance


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("seed", range(6))
def test_one_sided_intervals_agree_with_the_p_value(seed: int, alternative: str) -> None:
    """p <= alpha exactly when the one-sided interval excludes 0."""
    for shift in (-0.06, 0.0, 0.06):
        a, b = _values(seed, n=40, shift=shift)
        for test in ("t", "randomization"):
            r = (t_test(a, b, alternative=alternative) if test == "t"  # type: ignore[arg-type]
                 else randomization_test(a, b, alternative=alternative, n_resamples=4000,  # type: ignore[arg-type]
                                         seed=seed))
            assert r.ci_low is not None
            assert r.ci_high is not None
            excludes = r.ci_low > 0 if alternative == "greater" else r.ci_high < 0
            if abs(r.p_value - 0.05) > 0.005:  # away from the resolution of the resamples
                assert excludes == (r.p_value <= 0.05), (test, shift, r)


def test_one_sided_p_is_half_the_two_sided_on_the_estimate_side() -> None:
    a, b = _values(3, n=50, shift=0.06)
    two = t_test(a, b).p_value
    assert t_test(a, b, alternative="greater").p_value == pytest.approx(two / 2)
    assert t_test(a, b, alternative="less").p_value == pytest.approx(1 - two / 2)
    assert sign_test(a, b, alternative="greater").p_value < sign_test(a, b).p_value
    assert wilcoxon_test(a, b, alternative="less").p_value > 0.5


def test_zero_variance_one_sided() -> None:
    a, b = np.array([0.5, 0.6, 0.7]), np.array([0.4, 0.5, 0.6])
    assert t_test(a, b, alternative="greater").p_value == 0.0
    assert t_test(a, b, alternative="less").p_value == 1.0
    assert t_test(b, b, alternative="greater").p_value == 1.0


def test_alternative_errors() -> None:
    a, b = _values(0)
    with pytest.raises(ValueError, match="alternative must be one of"):
        pr.compare(_frame(a, b), baseline="B", alternative="bigger")  # type: ignore[arg-type]
    for test in ("bootstrap", "tukey"):
        with pytest.raises(ValueError, match="two-sided only"):
            pr.compare(_frame(a, b), baseline="B", test=test, alternative="greater")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="alternative must be one of"):
        t_test(a, b, alternative="up")  # type: ignore[arg-type]


def test_report_says_one_sided() -> None:
    a, b = _values(1, n=40, shift=0.08)
    out = pr.compare(_frame(a, b), baseline="B", alternative="greater")
    assert "one-sided (greater) paired Student's t-test" in pr.report(out)


NULL_CASES = [("t", True), ("t", False), ("wilcoxon", True), ("wilcoxon", False),
              ("sign", True), ("randomization", True)]


@pytest.mark.slow
@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize(("test", "paired"), NULL_CASES)
def test_one_sided_null_rejection_rate(test: str, paired: bool, alternative: str) -> None:
    """No true difference: one-sided tests reject at alpha within 4 binomial SEs.

    The sign test is discrete, hence conservative: its rate may only fall short.
    """
    n_sims, n, alpha = 600, 30, 0.1
    rng = np.random.default_rng(NULL_CASES.index((test, paired)))
    level = rng.normal(0.5, 0.2, (n_sims, n)) if paired else 0.5
    values = {arm: level + rng.normal(0, 0.1, (n_sims, n)) for arm in ("control", "treatment")}
    df = pl.concat([pl.DataFrame({"sim": np.repeat(np.arange(n_sims), n), "arm": arm,
                                  "qid": np.tile(np.arange(n), n_sims), "m": v.ravel()})
                    for arm, v in values.items()])
    out = pr.compare(df, baseline="control", group_by="sim", paired=paired, test=test,  # type: ignore[arg-type]
                     alpha=alpha, alternative=alternative, n_resamples=1000, seed=1)  # type: ignore[arg-type]
    rate = float(out["significant"].mean())  # type: ignore[arg-type]
    se = math.sqrt(alpha * (1 - alpha) / n_sims)
    assert rate <= alpha + 4 * se, rate
    if test != "sign":
        assert rate >= alpha - 4 * se, rate
    if test in ("t", "randomization"):  # one-sided intervals cover 0 as often
        covered = float(((out["delta_ci_low"] <= 0) & (out["delta_ci_high"] >= 0)).mean())  # type: ignore[arg-type]
        assert abs(covered - (1 - rate)) <= 0.01, covered
