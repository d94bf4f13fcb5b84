"""compare(covariate=...): CUPED against a plain NumPy computation, and what it buys.

Reference: Deng, Xu, Kohavi & Walker (WSDM 2013), eq. 3-4: theta = cov(Y, X) / var(X)
and Y - theta (X - mean X), both pooled over the arms, then SciPy's tests on the
adjusted values.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

import polars_rank as pr
from polars_rank.errors import InvalidDataError


def _experiment(seed: int, arms: tuple[str, ...] = ("control", "treatment"),
                lift: float = 0.004, null_share: float = 0.0) -> pl.DataFrame:
    """Users with a pre-period CTR and an in-experiment CTR that depends on it."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(150, 260, len(arms))
    arm = np.repeat(np.array(arms), sizes)
    x = np.round(rng.gamma(2.0, 0.05, arm.size), 3)  # ties in the covariate
    effect = np.select([arm == a for a in arms], [i * lift for i in range(len(arms))])
    y = 0.8 * x + rng.normal(0, 0.03, arm.size) + effect
    clicks = np.round(y * 10 + rng.normal(0, 0.5, arm.size))
    frame = pl.DataFrame({"arm": arm, "user": np.arange(arm.size), "ctr": y,
                          "clicks": clicks, "pre_ctr": x})
    if null_share:
        missing = rng.random(arm.size) < null_share
        frame = frame.with_columns(pl.when(pl.Series(~missing)).then(pl.col("ctr")))
    return frame


def _numpy_cuped(y: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, float]:
    keep = ~np.isnan(y)
    theta = float(np.cov(y[keep], x[keep])[0, 1] / np.var(x[keep], ddof=1))
    return y - theta * (x - x[keep].mean()), theta


@pytest.mark.parametrize("seed", range(6))
def test_t_test_on_numpy_adjusted_values(seed: int) -> None:
    df = _experiment(seed, null_share=0.1 if seed % 2 else 0.0)
    out = pr.compare(df, baseline="control", paired=False, query="user", covariate="pre_ctr")
    assert out["metric"].to_list() == ["ctr", "clicks"]  # the covariate is not a metric
    assert out.columns[-1] == "cuped_theta"
    arm = df["arm"].to_numpy()
    x = df["pre_ctr"].to_numpy()
    for metric in ("ctr", "clicks"):
        y = df[metric].fill_null(np.nan).to_numpy()
        adjusted, theta = _numpy_cuped(y, x)
        t, c = adjusted[(arm == "treatment") & ~np.isnan(y)], adjusted[(arm == "control")
                                                                        & ~np.isnan(y)]
        ref = stats.ttest_ind(t, c, equal_var=False)
        ci = ref.confidence_interval(0.95)
        row = out.filter(pl.col("metric") == metric).row(0, named=True)
        assert row["cuped_theta"] == pytest.approx(theta, rel=1e-10)
        assert row["mean"] == pytest.approx(t.mean(), rel=1e-10)
        assert row["baseline_mean"] == pytest.approx(c.mean(), rel=1e-10)
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-8)
        assert row["delta_ci_low"] == pytest.approx(ci.low, rel=1e-8)
        assert row["delta_ci_high"] == pytest.approx(ci.high, rel=1e-8)


def test_variance_reduction() -> None:
    """The interval narrows by about sqrt(1 - rho^2); more experiments reach significance."""
    widths, hits = [], [0, 0]
    for seed in range(20):
        df = _experiment(seed, lift=0.006)
        plain = pr.compare(df, baseline="control", paired=False, query="user", metrics="ctr")
        cuped = pr.compare(df, baseline="control", paired=False, query="user", metrics="ctr",
                           covariate="pre_ctr")
        rho = np.corrcoef(df["ctr"], df["pre_ctr"])[0, 1]
        width = [float((f["delta_ci_high"] - f["delta_ci_low"]).item()) for f in (plain, cuped)]
        widths.append(width[1] / width[0] / np.sqrt(1 - rho**2))
        hits[0] += bool(plain["significant"].item())
        hits[1] += bool(cuped["significant"].item())
    assert np.mean(widths) == pytest.approx(1.0, abs=0.05)
    assert hits[1] >= hits[0] + 8, hits


def test_theta_pooled_over_arms_per_slice() -> None:
    df = pl.concat([
        _experiment(1, arms=("a", "b", "c")).with_columns(device=pl.lit("mobile")),
        _experiment(2, arms=("a", "b", "c")).with_columns(
            device=pl.lit("desktop"), user=pl.col("user") + 10_000),
    ])
    out = pr.compare(df, baseline="a", paired=False, query="user", group_by="device",
                     metrics="ctr", covariate="pre_ctr")
    for device in ("desktop", "mobile"):
        part = df.filter(pl.col("device") == device)
        _, theta = _numpy_cuped(part["ctr"].to_numpy(), part["pre_ctr"].to_numpy())
        thetas = out.filter(pl.col("device") == device)["cuped_theta"].to_list()
        assert thetas == pytest.approx([theta, theta], rel=1e-10)  # b and c vs a: one theta


@pytest.mark.parametrize("test", ["randomization", "bootstrap", "wilcoxon", "tukey"])
def test_other_tests_run_on_the_adjusted_values(test: str) -> None:
    df = _experiment(4)
    out = pr.compare(df, baseline="control", paired=False, query="user", metrics="ctr",
                     covariate="pre_ctr", test=test, n_resamples=2000)  # type: ignore[arg-type]
    adjusted, _ = _numpy_cuped(df["ctr"].to_numpy(), df["pre_ctr"].to_numpy())
    arm = df["arm"].to_numpy()
    t, c = adjusted[arm == "treatment"], adjusted[arm == "control"]
    assert out["delta"].item() == pytest.approx(t.mean() - c.mean(), rel=1e-10)
    if test == "wilcoxon":
        assert out["p_value"].item() == pytest.approx(stats.mannwhitneyu(t, c).pvalue, rel=1e-10)
    if test == "tukey":
        ref = stats.tukey_hsd(c, t)
        assert out["p_value"].item() == pytest.approx(ref.pvalue[1, 0], rel=1e-8)


def test_report_and_forest_ignore_the_theta_column() -> None:
    df = _experiment(5)
    out = pr.compare(df, baseline="control", paired=False, query="user", covariate="pre_ctr")
    assert "| a | control |" in pr.report(out)
    pytest.importorskip("altair")
    assert pr.plot.forest_data(out)["slice"].to_list() == ["all", "all"]


def test_errors() -> None:
    df = _experiment(0)
    unpaired = {"baseline": "control", "paired": False, "query": "user"}
    with pytest.raises(ValueError, match="needs paired=False"):
        pr.compare(df, baseline="control", query="user", covariate="pre_ctr")
    with pytest.raises(ValueError, match="no column 'pre'"):
        pr.compare(df, covariate="pre", **unpaired)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is also the arm"):
        pr.compare(df, covariate="user", **unpaired)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="is also the arm"):
        pr.compare(df, metrics=["ctr", "pre_ctr"], covariate="pre_ctr", **unpaired)  # type: ignore[arg-type]
    with pytest.raises(InvalidDataError, match="null values"):
        pr.compare(df.with_columns(pl.when(pl.col("user") != 3).then(pl.col("pre_ctr"))),
                   covariate="pre_ctr", **unpaired)  # type: ignore[arg-type]
    with pytest.raises(InvalidDataError, match="NaN or infinite"):
        pr.compare(df.with_columns(pl.when(pl.col("user") != 3).then(pl.col("pre_ctr"))
                                   .otherwise(float("nan"))), covariate="pre_ctr", **unpaired)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="must be numeric"):
        pr.compare(df.with_columns(pl.col("pre_ctr").cast(pl.String)), metrics="ctr",
                   covariate="pre_ctr", **unpaired)  # type: ignore[arg-type]


@pytest.mark.slow
def test_null_rejection_rate_with_cuped() -> None:
    """No true difference: CUPED keeps the t-test's level (within 4 binomial SEs)."""
    n_sims, alpha = 400, 0.1
    frames = [_experiment(seed, lift=0.0).with_columns(sim=pl.lit(seed),
                                                       user=pl.col("user") + 1000 * seed)
              for seed in range(100, 100 + n_sims)]
    out = pr.compare(pl.concat(frames), baseline="control", paired=False, query="user",
                     group_by="sim", metrics="ctr", covariate="pre_ctr", alpha=alpha,
                     correction=None)
    rate = float(out["significant"].mean())  # type: ignore[arg-type]
    assert abs(rate - alpha) <= 4 * np.sqrt(alpha * (1 - alpha) / n_sims), rate
