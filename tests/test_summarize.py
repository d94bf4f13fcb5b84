"""``summarize()``: each arm's mean with its interval, against SciPy and statsmodels."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from test_compare import per_query_frame

import polars_rank as pr


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_t_intervals_equal_scipy_and_statsmodels(alpha: float) -> None:
    weightstats = pytest.importorskip("statsmodels.stats.weightstats")
    df = per_query_frame(11).with_columns(  # a null: left out of that metric's n
        pl.when(pl.col("qid") == "q003").then(None).otherwise(pl.col("mrr")).alias("mrr"))
    out = pr.summarize(df, by=["device", "arm"], alpha=alpha)
    assert out.columns == ["device", "arm", "metric", "n", "mean", "sd", "se", "mean_ci_low",
                           "mean_ci_high"]
    assert out.height == 2 * 3 * 2
    for row in out.iter_rows(named=True):
        x = df.filter(device=row["device"], arm=row["arm"])[row["metric"]].drop_nulls().to_numpy()
        assert row["n"] == x.size
        low, high = sps.t.interval(1 - alpha, x.size - 1, loc=x.mean(), scale=sps.sem(x))
        assert (row["mean_ci_low"], row["mean_ci_high"]) == pytest.approx((low, high), rel=1e-12)
        sm = weightstats.DescrStatsW(x).tconfint_mean(alpha)
        assert (row["mean_ci_low"], row["mean_ci_high"]) == pytest.approx(sm, rel=1e-12)
        assert row["sd"] == pytest.approx(x.std(ddof=1))
    assert out["metric"].to_list()[:2] == ["ndcg", "mrr"]  # the frame's order


def test_normal_interval_one_value_and_bad_input() -> None:
    df = pl.DataFrame({"arm": ["A", "A", "A", "B"], "qid": [1, 2, 3, 1], "m": [0.1, 0.5, 0.3, 0.7]})
    out = pr.summarize(df, interval="normal")
    a = np.array([0.1, 0.5, 0.3])
    z = sps.norm.ppf(0.975)
    assert out["mean_ci_low"][0] == pytest.approx(a.mean() - z * a.std(ddof=1) / np.sqrt(3))
    assert out.row(1, named=True)["mean_ci_low"] is None  # one value: no interval
    with pytest.raises(pr.InvalidDataError, match="not unique"):
        pr.summarize(pl.concat([df, df]))
    with pytest.raises(ValueError, match="interval must be"):
        pr.summarize(df, interval="bca")  # type: ignore[arg-type]
