"""Metric@k curves: :func:`polars_rank.plot.metric_at_k` and its data."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Literal

import polars as pl

from polars_rank._compare.options import name_list
from polars_rank._compare.summary import mean_intervals
from polars_rank._plot.common import (
    HEIGHT,
    SEP,
    WIDTH,
    collected,
    import_altair,
    key_label,
    require_columns,
    z_value,
)
from polars_rank.registry import Metric, parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence

    import altair as alt

    from polars_rank._plot.common import Frame


# ---------------------------------------------------------------------------- metric@k

KAxis = Literal["auto", "linear", "log", "ordinal"]


def k_axis_for(ks: Sequence[int]) -> Literal["linear", "log"]:
    """The x axis ``k_axis="auto"`` picks: linear for evenly spaced cutoffs, else log.

    Evenly spaced cutoffs (1, 2, ..., 10 or 5, 10, 15, 20) read well on a linear axis;
    the usual uneven ones (1, 3, 5, 10, 20, 50) bunch up at the left of it and lose
    tick labels to overlap, so they get a logarithmic axis.

    >>> k_axis_for([5, 10, 15, 20]), k_axis_for([1, 3, 5, 10, 20])
    ('linear', 'log')
    """
    steps = {b - a for a, b in itertools.pairwise(ks)}
    return "linear" if len(steps) <= 1 else "log"

def _is_metric(column: str) -> bool:
    try:
        parse_metric(column)
    except ValueError:
        return False
    return True


def _at_k_columns(schema: pl.Schema, metrics: str | Sequence[str] | None,
                  exclude: list[str]) -> dict[str, Metric]:
    """Metric column -> its parsed metric string (which has a cutoff)."""
    if metrics is None:
        found: dict[str, Metric] = {}
        for column, dtype in schema.items():
            if column in exclude or not dtype.is_numeric():
                continue
            try:
                metric = parse_metric(column)
            except ValueError:
                continue
            if metric.k is not None:
                found[column] = metric
        if not found:
            msg = ("results has no metric column with a cutoff (such as 'ndcg@10' or "
                   f"'P_10'); its columns are {list(schema)}")
            raise ValueError(msg)
        return found
    out = {}
    for column in name_list(metrics, "metrics"):
        if column not in schema:
            msg = f"results has no metric column {column!r}; its columns are {list(schema)}"
            raise ValueError(msg)
        metric = parse_metric(column)
        if metric.k is None:
            msg = f"metric column {column!r} has no cutoff: metric_at_k needs 'name@k' columns"
            raise ValueError(msg)
        out[column] = metric
    return out


def metric_at_k_data(
    results: Frame,
    *,
    series: str | Sequence[str] | None = None,
    query: str | Sequence[str] | None = None,
    metrics: str | Sequence[str] | None = None,
    level: float = 0.95,
) -> pl.DataFrame:
    """The points of :func:`metric_at_k`: one row per (series, metric, cutoff).

    The input is :func:`polars_rank.evaluate` output with metric columns at several
    cutoffs (``metrics=[f"ndcg@{k}" for k in (1, 3, 5, 10, 20)]``), reshaped long:
    each metric column is parsed as a metric string and split into the metric
    without its cutoff (``"ndcg"``; ``"ndcg(gain=linear)"`` for ``ndcg_cut_10``)
    and the cutoff ``k``.

    Parameters
    ----------
    results
        One row per series (``evaluate(..., group_by="arm")``: means), or one row
        per (series, query) (``evaluate(..., group_by="arm", per_query=True)``,
        with ``query=``): then the value is the mean over the queries and comes with
        a confidence interval.
    series
        The column(s) whose values are the curves (an arm, a system). Default: every
        column that is not named like a metric string and is not ``query``. Several
        columns are joined into one label, ``"mobile / treatment"``.
    query
        The query column(s) of per-query results. ``None``: ``results`` holds means.
    metrics
        The metric columns. Default: every numeric column whose name is a metric
        string with a cutoff (``ndcg@10``, ``P_10``, ``recall@100``).
    level
        Confidence level of the interval of the mean over queries: the normal
        approximation ``mean +/- z * sd / sqrt(n)``.

    Returns
    -------
    pl.DataFrame
        ``[series...], series, metric, k, value, ci_low, ci_high, n``: ``series`` is
        the label of the series columns (``"all"`` without any), ``value`` the
        metric, and with ``query=`` the interval and the number of queries ``n``
        (null otherwise). Sorted by series, metric and k.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> results = pl.DataFrame({
    ...     "arm": ["A", "B"], "ndcg@1": [0.41, 0.48], "ndcg@5": [0.52, 0.57],
    ...     "map": [0.33, 0.35],
    ... })
    >>> pr.plot.metric_at_k_data(results)
    shape: (4, 8)
    ┌─────┬────────┬────────┬─────┬───────┬────────┬─────────┬──────┐
    │ arm ┆ series ┆ metric ┆ k   ┆ value ┆ ci_low ┆ ci_high ┆ n    │
    │ --- ┆ ---    ┆ ---    ┆ --- ┆ ---   ┆ ---    ┆ ---     ┆ ---  │
    │ str ┆ str    ┆ str    ┆ i64 ┆ f64   ┆ f64    ┆ f64     ┆ u32  │
    ╞═════╪════════╪════════╪═════╪═══════╪════════╪═════════╪══════╡
    │ A   ┆ A      ┆ ndcg   ┆ 1   ┆ 0.41  ┆ null   ┆ null    ┆ null │
    │ A   ┆ A      ┆ ndcg   ┆ 5   ┆ 0.52  ┆ null   ┆ null    ┆ null │
    │ B   ┆ B      ┆ ndcg   ┆ 1   ┆ 0.48  ┆ null   ┆ null    ┆ null │
    │ B   ┆ B      ┆ ndcg   ┆ 5   ┆ 0.57  ┆ null   ┆ null    ┆ null │
    └─────┴────────┴────────┴─────┴───────┴────────┴─────────┴──────┘

    ``map`` has no cutoff, so it is not a point of a curve.
    """
    frame = collected(results, "results")
    queries = name_list(query, "query")
    require_columns(frame, queries, "results")
    z_value(level)  # checked
    chosen = _at_k_columns(frame.schema, metrics, exclude=queries)
    keys = (name_list(series, "series") if series is not None
            else [c for c in frame.columns
                  if c not in chosen and c not in queries and not _is_metric(c)])
    require_columns(frame, keys, "results")
    clash = sorted(set(keys) & {"metric", "k", "value", "ci_low", "ci_high", "n"})
    if clash:
        msg = f"series columns may not be named like the output columns: {clash}"
        raise ValueError(msg)
    index = {column: (str(Metric(m.definition, None, m.options)), m.k)
             for column, m in chosen.items()}
    long = frame.select(*keys, *queries, *(pl.col(c).cast(pl.Float64) for c in chosen))
    long = long.unpivot(index=[*keys, *queries], on=list(chosen), variable_name="column",
                        value_name="value")
    long = long.with_columns(
        pl.col("column").replace_strict({c: m for c, (m, _) in index.items()}).alias("metric"),
        pl.col("column").replace_strict({c: k for c, (_, k) in index.items()},
                                        return_dtype=pl.Int64).alias("k"),
    )
    if queries:
        grouped = long.group_by(*keys, "metric", "k").agg(
            pl.col("value").mean().alias("mean"), pl.col("value").std().alias("sd"),
            pl.col("value").count().alias("n"))
        out = mean_intervals(grouped, 1 - level, "normal").rename(
            {"mean": "value", "mean_ci_low": "ci_low", "mean_ci_high": "ci_high"})
    else:
        several = frame.select(keys).is_duplicated().any() if keys else frame.height > 1
        if several:
            msg = (f"results has several rows per series {keys}: give means (one row per "
                   "series), or per-query values with query=")
            raise ValueError(msg)
        out = long.select(*keys, "metric", "k", "value",
                          pl.lit(None, pl.Float64).alias("ci_low"),
                          pl.lit(None, pl.Float64).alias("ci_high"),
                          pl.lit(None, pl.UInt32).alias("n"))
    out = out.with_columns(key_label(keys).alias("series"), pl.col("n").cast(pl.UInt32))
    columns = [*(k for k in keys if k != "series"), "series", "metric", "k", "value",
               "ci_low", "ci_high", "n"]
    return out.select(columns).sort("series", "metric", "k")


def metric_at_k(
    results: Frame,
    *,
    series: str | Sequence[str] | None = None,
    query: str | Sequence[str] | None = None,
    metrics: str | Sequence[str] | None = None,
    level: float = 0.95,
    k_axis: KAxis = "auto",
    title: str | None = None,
) -> alt.LayerChart | alt.FacetChart:
    """Metric@k curves: one line per series (arm), one panel per metric.

    x is the cutoff k, y the metric (the mean over queries); with per-query input
    (``query=``) a band shows the confidence interval of the mean at each k. The
    input contract is :func:`metric_at_k_data`'s.

    Parameters
    ----------
    results
        :func:`polars_rank.evaluate` output with metric columns at several cutoffs,
        means (one row per series) or per-query values (with ``query=``).
    series
        The column(s) whose values are the curves; default: every column that is
        neither a metric nor ``query``.
    query
        The query column(s) of per-query results: adds the confidence band.
    metrics
        The metric columns; default: every column named like ``name@k``.
    level
        Confidence level of the band.
    k_axis
        The cutoff axis: ``"linear"``, ``"log"``, ``"ordinal"`` (one equal step per
        cutoff) or ``"auto"``: linear when the cutoffs are evenly spaced, log otherwise
        (:func:`k_axis_for`). Each panel has its own y range.
    title
        Chart title.

    Returns
    -------
    alt.LayerChart or alt.FacetChart
        One panel (a layered chart), or one panel per metric side by side (a
        faceted chart, each panel with its own y scale).

    Examples
    --------
    >>> import polars_rank as pr
    >>> df = pr.datasets.synthetic_experiment(200, seed=0)
    >>> ks = (1, 3, 5, 10)
    >>> per_query = pr.evaluate(df, metrics=[f"ndcg@{k}" for k in ks] + [f"p@{k}" for k in ks],
    ...                         group_by="arm", per_query=True)
    >>> chart = pr.plot.metric_at_k(per_query, query="qid")
    >>> type(chart).__name__, chart.to_dict()["facet"]["column"]["field"]
    ('FacetChart', 'metric')
    >>> chart.save("ndcg_at_k.png")  # doctest: +SKIP
    """
    alt = import_altair("metric_at_k")
    data = metric_at_k_data(results, series=series, query=query, metrics=metrics, level=level)
    series_columns = [c for c in data.columns
                      if c not in ("series", "metric", "k", "value", "ci_low", "ci_high", "n")]
    legend = SEP.join(series_columns) if series_columns else "series"
    ks = sorted(data["k"].unique().to_list())
    many = data["metric"].n_unique() > 1
    y_title = "mean over queries" if many else data["metric"][0]
    axis = k_axis_for(ks) if k_axis == "auto" else k_axis
    if axis == "ordinal":
        x = alt.X("k:O", title="cutoff k", sort=ks, axis=alt.Axis(labelAngle=0))
    else:
        scale = alt.Scale(type=axis, zero=False, nice=False, domain=[ks[0], ks[-1]])
        # every cutoff labelled: Vega drops overlapping labels unless told not to
        x = alt.X("k:Q", title="cutoff k", scale=scale,
                  axis=alt.Axis(values=ks, format="d", labelOverlap=False))
    y = alt.Y("value:Q", title=y_title, scale=alt.Scale(zero=False))
    color = alt.Color("series:N", title=legend)
    unlabelled = alt.Color("series:N", legend=None)  # one legend: the points' colour and shape
    tooltip = [alt.Tooltip("series:N", title=legend), "metric:N", "k:Q",
               alt.Tooltip("value:Q", format=".4f")]
    if query is not None:
        tooltip += [alt.Tooltip("ci_low:Q", format=".4f"), alt.Tooltip("ci_high:Q", format=".4f"),
                    alt.Tooltip("n:Q", title="queries")]
    layers = []
    if query is not None:
        layers.append(alt.Chart().mark_area(opacity=0.18).encode(
            x, alt.Y("ci_low:Q", title=y_title), alt.Y2("ci_high:Q"), unlabelled))
    layers.append(alt.Chart().mark_line(strokeWidth=2).encode(x, y, unlabelled))
    layers.append(alt.Chart().mark_point(size=50, filled=True, opacity=1).encode(
        x, y, color, alt.Shape("series:N", title=legend), tooltip=tooltip))
    chart = alt.layer(*layers, data=data).properties(width=WIDTH, height=HEIGHT)
    if many:
        chart = chart.facet(column=alt.Column("metric:N", title=None,
                                              header=alt.Header(labelFontSize=13)))
        chart = chart.resolve_scale(y="independent")
    if title is not None:
        chart = chart.properties(title=title)
    return chart  # type: ignore[no-any-return]
