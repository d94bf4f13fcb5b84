"""``summarize()``: each arm's mean over queries, with its confidence interval."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Literal, TypeAlias

import polars as pl

from polars_rank._compare.data import METRIC, VALUE, check_unique, to_long
from polars_rank._compare.options import metric_columns, name_list
from polars_rank._engine.frames import as_polars
from polars_rank.stats import require

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.frames import FrameLike

__all__ = ["summarize"]

MeanInterval: TypeAlias = Literal["t", "normal"]


def mean_intervals(grouped: pl.DataFrame, alpha: float, interval: MeanInterval) -> pl.DataFrame:
    """``mean_ci_low``/``mean_ci_high`` from columns ``n``, ``mean`` and ``sd`` of a frame.

    ``mean -/+ q * sd / sqrt(n)`` with q the ``1 - alpha / 2`` quantile of Student's t
    with n - 1 degrees of freedom (``"t"``, SciPy) or of the normal (``"normal"``); null
    for fewer than 2 values.
    """
    if interval == "t":
        require("scipy", "summarize(interval='t')")
        from scipy import stats as sps

        df = grouped["n"].cast(pl.Float64).to_numpy() - 1
        q = pl.Series(sps.t.ppf(1 - alpha / 2, df.clip(min=1)), dtype=pl.Float64)
    else:
        q = pl.repeat(statistics.NormalDist().inv_cdf(1 - alpha / 2), grouped.height,
                      eager=True)
    half = pl.when(pl.col("n") >= 2).then(q * pl.col("sd") / pl.col("n").sqrt())
    return grouped.with_columns(
        (pl.col("mean") - half).alias("mean_ci_low"), (pl.col("mean") + half).alias("mean_ci_high"))


def summarize(
    per_query: FrameLike,
    *,
    by: str | Sequence[str] | None = "arm",
    metrics: str | Sequence[str] | None = None,
    query: str | Sequence[str] | None = "qid",
    alpha: float = 0.05,
    interval: MeanInterval = "t",
) -> pl.DataFrame:
    r"""Each arm's (or slice's) mean over queries, with its ``1 - alpha`` interval.

    What a results table reports per system: the number of queries with a value, the
    mean, the standard deviation over queries, the standard error of the mean and its
    confidence interval :math:`\bar x \pm t_{1-\alpha/2,\,n-1}\, s / \sqrt n` (Student's
    t, as ``scipy.stats.t.interval``; ``interval="normal"`` for the normal quantile).
    Null values (a query a metric cannot score) are left out of that metric's n.

    Parameters
    ----------
    per_query
        One row per (by..., query) with one column per metric, e.g.
        ``evaluate(..., per_query=True, group_by="arm")``; pandas, Arrow and dicts too.
    by
        The arm (and slice) column(s); ``None``: all rows together.
    metrics
        Metric column(s); ``None``: every numeric column other than ``by`` and ``query``.
    query
        The query column(s): no (by..., query) may appear twice. ``None``: every row
        is a unit.
    alpha
        Intervals at ``1 - alpha``.
    interval
        ``"t"`` (needs SciPy) or ``"normal"``.

    Returns
    -------
    pl.DataFrame
        ``[by...], metric, n, mean, sd, se, mean_ci_low, mean_ci_high``, sorted by the
        ``by`` values, metrics in the order given.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> per_query = pl.DataFrame({"arm": ["A"] * 4 + ["B"] * 4, "qid": [1, 2, 3, 4] * 2,
    ...                           "ndcg": [0.5, 0.7, 0.9, 0.6, 0.4, 0.5, 0.8, 0.6]})
    >>> pr.summarize(per_query).select("arm", "n", "mean", "mean_ci_low", "mean_ci_high")
    shape: (2, 5)
    ┌─────┬─────┬───────┬─────────────┬──────────────┐
    │ arm ┆ n   ┆ mean  ┆ mean_ci_low ┆ mean_ci_high │
    │ --- ┆ --- ┆ ---   ┆ ---         ┆ ---          │
    │ str ┆ u32 ┆ f64   ┆ f64         ┆ f64          │
    ╞═════╪═════╪═══════╪═════════════╪══════════════╡
    │ A   ┆ 4   ┆ 0.675 ┆ 0.403247    ┆ 0.946753     │
    │ B   ┆ 4   ┆ 0.575 ┆ 0.303247    ┆ 0.846753     │
    └─────┴─────┴───────┴─────────────┴──────────────┘
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        msg = f"alpha must be a number strictly between 0 and 1, got {alpha!r}"
        raise ValueError(msg)
    if interval not in ("t", "normal"):
        msg = f"interval must be 't' or 'normal', got {interval!r}"
        raise ValueError(msg)
    frame = as_polars(per_query, "per_query",
                      query=query if isinstance(query, str) else "qid").lazy().collect()
    keys, queries = name_list(by, "by"), name_list(query, "query")
    for column in (*keys, *queries):
        if column not in frame.columns:
            msg = f"per_query has no column {column!r}; columns: {frame.columns}"
            raise ValueError(msg)
    names = metric_columns(frame.schema, metrics, [*keys, *queries])
    if queries:
        check_unique(frame, [*keys, *queries])
    long = to_long(frame, [*keys, *queries], names).rename({METRIC: "metric"})
    value = pl.col(VALUE)
    grouped = (
        long.group_by(*keys, "metric")
        .agg(value.count().alias("n"), value.mean().alias("mean"), value.std().alias("sd"))
        .with_columns((pl.col("sd") / pl.col("n").sqrt()).alias("se"))
        .with_columns(pl.col("metric").replace_strict(names, list(range(len(names))),
                                                     return_dtype=pl.Int64).alias("__order"))
        .sort([*keys, "__order"], nulls_last=True)
        .drop("__order")
    )
    return mean_intervals(grouped, float(alpha), interval)
