"""``power()`` and ``mde()``: the t-test's against statsmodels, the simulated ones against
an independent Monte Carlo of SciPy's tests."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

import polars_rank as pr

smp = pytest.importorskip("statsmodels.stats.power")


def pilot(n: int = 200, seed: int = 0, shift: float = 0.0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.beta(3, 2, n)
    treat = np.clip(base + shift + rng.normal(0, 0.12, n), 0, 1)
    return pl.DataFrame({"arm": ["B"] * n + ["A"] * n, "qid": list(range(n)) * 2,
                         "m": np.concatenate([base, treat])})


@pytest.mark.parametrize(("lift", "alpha", "target"), [(0.02, 0.05, 0.8), (0.05, 0.01, 0.9)])
def test_paired_t_sample_size_equals_statsmodels(lift: float, alpha: float, target: float) -> None:
    df = pilot()
    row = pr.power(df, "m", lift=lift, alpha=alpha, power=target, baseline="B").row(0, named=True)
    a, b = df.filter(arm="A")["m"].to_numpy(), df.filter(arm="B")["m"].to_numpy()
    sd = (a - b).std(ddof=1)
    assert row["sd"] == pytest.approx(sd)
    assert row["delta"] == pytest.approx(lift * b.mean())
    ref = smp.TTestPower().solve_power(effect_size=row["delta"] / sd, alpha=alpha, power=target)
    assert row["n"] == int(np.ceil(ref))  # the smallest whole number of queries


def test_unpaired_t_sample_size_equals_statsmodels() -> None:
    rng = np.random.default_rng(1)
    df = pl.DataFrame({"arm": "A", "qid": range(500), "m": rng.normal(0.3, 0.2, 500)})
    row = pr.power(df, "m", delta=0.02, paired=False).row(0, named=True)  # one arm's spread
    sd = df["m"].std()
    ref = smp.TTestIndPower().solve_power(effect_size=0.02 / sd, alpha=0.05, power=0.8)
    assert row["n"] == int(np.ceil(ref))


def test_unpaired_t_with_unequal_variances_uses_welch_degrees_of_freedom() -> None:
    """docs/compare.md: with two arms of unequal spread the degrees of freedom are
    Welch-Satterthwaite's, fewer than TTestIndPower's pooled 2n - 2, so n can be one
    more than statsmodels' (944 against 943 here). The reference: the smallest n whose
    noncentral-t power with Welch's degrees of freedom reaches 0.8 (SciPy directly)."""
    rng = np.random.default_rng(1)
    a, b = rng.normal(0.5, 0.1, 400), rng.normal(0.5, 0.3, 400)
    df = pl.DataFrame({"arm": ["A"] * 400 + ["B"] * 400, "qid": range(800),
                       "m": np.concatenate([a, b])})
    row = pr.power(df, "m", delta=0.03, paired=False, baseline="B",
                   query=None).row(0, named=True)
    va, vb = a.var(ddof=1), b.var(ddof=1)

    def welch_power(n: int) -> float:
        dof = (va + vb) ** 2 * (n - 1) / (va**2 + vb**2)
        nc = 0.03 / np.sqrt((va + vb) / n)
        crit = sps.t.ppf(0.975, dof)
        return float(sps.nct.sf(crit, dof, nc) + sps.nct.cdf(-crit, dof, nc))

    expected = next(n for n in range(2, 5000) if welch_power(n) >= 0.8)
    assert row["n"] == expected == 944
    pooled = smp.TTestIndPower().solve_power(effect_size=0.03 / np.sqrt((va + vb) / 2),
                                             alpha=0.05, power=0.8)
    assert int(np.ceil(pooled)) == 943  # statsmodels' pooled 2n - 2 degrees of freedom


def test_mde_inverts_power() -> None:
    df = pilot(seed=2)
    m = pr.mde(df, "m", baseline="B").row(0, named=True)
    assert m["n"] == 200
    ref = smp.TTestPower().solve_power(nobs=200, alpha=0.05, power=0.8) * m["sd"]
    assert m["delta"] == pytest.approx(ref, rel=1e-5)  # statsmodels' root-finder tolerance
    assert pr.power(df, "m", delta=m["delta"] * 1.001, baseline="B")["n"].item() <= 200
    assert pr.power(df, "m", delta=m["delta"] * 0.99, baseline="B")["n"].item() > 200


@pytest.mark.slow
@pytest.mark.parametrize("test", ["t", "wilcoxon", "sign"])
def test_simulated_power_reaches_its_target(test: str) -> None:
    """At the n power() gives, 2,000 fresh experiments reject 80% of the time, within 2
    points: an independent Monte Carlo of SciPy's own tests on resampled pilot
    differences shifted to the lift (paired)."""
    df = pilot(seed=3)
    row = pr.power(df, "m", delta=0.03, baseline="B", test=test,  # type: ignore[arg-type]
                   n_simulations=8000).row(0, named=True)
    n = row["n"]
    a, b = df.filter(arm="A")["m"].to_numpy(), df.filter(arm="B")["m"].to_numpy()
    d = a - b - (a - b).mean() + 0.03
    rng = np.random.default_rng(99)

    def rejects(x: np.ndarray) -> bool:
        if test == "sign":
            w, l_ = int((x > 0).sum()), int((x < 0).sum())
            return bool(sps.binomtest(w, w + l_).pvalue <= 0.05)
        if test == "t":
            return bool(sps.ttest_1samp(x, 0.0).pvalue <= 0.05)
        return bool(sps.wilcoxon(x, method="approx").pvalue <= 0.05)

    at_n = np.mean([rejects(rng.choice(d, n)) for _ in range(2000)])
    below = np.mean([rejects(rng.choice(d, max(2, int(n * 0.7)))) for _ in range(2000)])
    assert at_n == pytest.approx(0.8, abs=0.02), (n, at_n)
    assert below < 0.75


def test_bad_input() -> None:
    df = pilot()
    with pytest.raises(ValueError, match="not both"):
        pr.power(df, "m", lift=0.1, delta=0.1)
    with pytest.raises(ValueError, match="test must be"):
        pr.power(df, "m", lift=0.1, test="bootstrap")  # type: ignore[arg-type]
    three = pl.concat([df, df.filter(arm="A").with_columns(arm=pl.lit("C"))])
    with pytest.raises(ValueError, match="two arms"):
        pr.power(three, "m", lift=0.1)
