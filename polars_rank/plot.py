"""Charts of evaluation results: metric@k curves, forest plots, per-query distributions.

Three questions are easier to answer by looking than by reading a table:

* how does a metric grow with the cutoff, per arm? :func:`metric_at_k`
* which deltas are real, per metric and segment? :func:`forest`, from
  :func:`polars_rank.compare` output
* is a mean difference a few queries or many? :func:`distribution`, of a metric or
  of its per-query difference between an arm and the baseline

The charts are `Altair <https://altair-viz.github.io>`_ charts, the library behind
Polars' own ``DataFrame.plot``: they take Polars frames as they are, show exact
values in tooltips in a notebook or a web page, can be restyled or combined with
Altair's operators (``chart.properties(width=500)``, ``a | b``), and save to PNG or
SVG without a display (``chart.save("forest.png")``, through ``vl-convert-python``).
Install them with ``pip install "polars-rank[plot]"``; the rest of the package does
not need Altair, and this module imports it only when a chart is built.

Each chart has a ``*_data`` twin that returns the Polars frame the chart draws, so
the numbers behind a chart can be printed, tested or plotted with another library.
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import polars as pl

from polars_rank.compare import RESULT_COLUMNS, _names
from polars_rank.registry import Metric, parse_metric

if TYPE_CHECKING:
    from collections.abc import Sequence

    import altair as alt

__all__ = [
    "metric_at_k",
    "metric_at_k_data",
    "forest",
    "forest_data",
    "distribution",
    "distribution_data",
    "INSTALL_HINT",
]

Frame: TypeAlias = "pl.DataFrame | pl.LazyFrame"
Value = Literal["delta", "lift"]

INSTALL_HINT = 'pip install "polars-rank[plot]"'
"""How to install the optional plotting dependencies (Altair and vl-convert-python)."""

_SEP = " / "
_WIDTH = 300
_HEIGHT = 200


def _altair(purpose: str) -> Any:
    """Import Altair or raise an ``ImportError`` saying how to install it."""
    try:
        import altair
    except ImportError as exc:
        msg = (f"{purpose} needs altair, which is not installed; install the plotting "
               f"extra: {INSTALL_HINT}")
        raise ImportError(msg) from exc
    return altair


def _collect(frame: Frame, param: str) -> pl.DataFrame:
    if isinstance(frame, pl.LazyFrame):
        return frame.collect()
    if isinstance(frame, pl.DataFrame):
        return frame
    msg = f"{param} must be a polars DataFrame or LazyFrame, got {type(frame).__name__}"
    raise TypeError(msg)


def _require_columns(frame: pl.DataFrame, columns: Sequence[str], param: str) -> None:
    for column in columns:
        if column not in frame.columns:
            msg = f"{param} has no column {column!r}; its columns are {frame.columns}"
            raise ValueError(msg)


def _label(columns: list[str]) -> pl.Expr:
    """One text label from one or several key columns: ``"mobile / treatment"``."""
    if not columns:
        return pl.lit("all")
    return pl.concat_str([pl.col(c).cast(pl.String).fill_null("null") for c in columns],
                         separator=_SEP)


def _z(level: float) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0 < level < 1:
        msg = f"level must be a number strictly between 0 and 1, got {level!r}"
        raise ValueError(msg)
    return statistics.NormalDist().inv_cdf(0.5 + level / 2)


# ---------------------------------------------------------------------------- metric@k
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
    for column in _names(metrics, "metrics"):
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
    frame = _collect(results, "results")
    queries = _names(query, "query")
    _require_columns(frame, queries, "results")
    z = _z(level)
    chosen = _at_k_columns(frame.schema, metrics, exclude=queries)
    keys = (_names(series, "series") if series is not None
            else [c for c in frame.columns
                  if c not in chosen and c not in queries and not _is_metric(c)])
    _require_columns(frame, keys, "results")
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
        se = pl.col("value").std() / pl.col("value").count().sqrt()
        out = long.group_by(*keys, "metric", "k").agg(
            pl.col("value").mean(),
            (pl.col("value").mean() - z * se).alias("ci_low"),
            (pl.col("value").mean() + z * se).alias("ci_high"),
            pl.col("value").count().alias("n"),
        )
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
    out = out.with_columns(_label(keys).alias("series"), pl.col("n").cast(pl.UInt32))
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
    log_k: bool = False,
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
    log_k
        A logarithmic x axis, for cutoffs such as 1, 10, 100, 1000.
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
    alt = _altair("metric_at_k")
    data = metric_at_k_data(results, series=series, query=query, metrics=metrics, level=level)
    series_columns = [c for c in data.columns
                      if c not in ("series", "metric", "k", "value", "ci_low", "ci_high", "n")]
    legend = _SEP.join(series_columns) if series_columns else "series"
    ks = sorted(data["k"].unique().to_list())
    many = data["metric"].n_unique() > 1
    y_title = "mean over queries" if many else data["metric"][0]
    x = alt.X("k:Q", title="cutoff k",
              scale=alt.Scale(type="log") if log_k else alt.Scale(zero=False, nice=False),
              axis=alt.Axis(values=ks, format="d"))
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
    chart = alt.layer(*layers, data=data).properties(width=_WIDTH, height=_HEIGHT)
    if many:
        chart = chart.facet(column=alt.Column("metric:N", title=None,
                                              header=alt.Header(labelFontSize=13)))
        chart = chart.resolve_scale(y="independent")
    if title is not None:
        chart = chart.properties(title=title)
    return chart  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- forest
def forest_data(
    comparison: Frame,
    *,
    arm: str = "arm",
    value: Value = "delta",
) -> pl.DataFrame:
    """The rows of :func:`forest`: one estimate and interval per (slice, metric, arm).

    Parameters
    ----------
    comparison
        :func:`polars_rank.compare` output. Its slice columns (the ``group_by`` of
        the comparison) are the columns before ``metric``.
    arm
        The arm column, as named in :func:`polars_rank.compare`.
    value
        ``"delta"`` (``mean - baseline_mean``, with ``ci_low``, ``ci_high``) or
        ``"lift"`` (``delta / baseline_mean``, with ``lift_low``, ``lift_high``).

    Returns
    -------
    pl.DataFrame
        ``[slices...], slice, metric, arm, estimate, low, high, significant, n,
        mean, baseline_mean, p_adjusted``: ``slice`` joins the slice values
        (``"all"`` without slices); an infinite interval end (a randomization test
        on too few queries) becomes null. In the order of ``comparison``.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> comparison = pl.DataFrame({
    ...     "device": ["desktop", "mobile"], "metric": ["ndcg@10", "ndcg@10"],
    ...     "arm": ["B", "B"], "n": [40, 60], "mean": [0.61, 0.55],
    ...     "baseline_mean": [0.58, 0.55], "delta": [0.03, 0.0], "lift": [0.0517, 0.0],
    ...     "ci_low": [0.01, -0.02], "ci_high": [0.05, 0.02], "lift_low": [0.02, -0.04],
    ...     "lift_high": [0.09, 0.04], "p_value": [0.004, 1.0], "p_adjusted": [0.008, 1.0],
    ...     "significant": [True, False],
    ... })
    >>> pr.plot.forest_data(comparison).select("slice", "metric", "estimate", "low", "high")
    shape: (2, 5)
    ┌─────────┬─────────┬──────────┬───────┬──────┐
    │ slice   ┆ metric  ┆ estimate ┆ low   ┆ high │
    │ ---     ┆ ---     ┆ ---      ┆ ---   ┆ ---  │
    │ str     ┆ str     ┆ f64      ┆ f64   ┆ f64  │
    ╞═════════╪═════════╪══════════╪═══════╪══════╡
    │ desktop ┆ ndcg@10 ┆ 0.03     ┆ 0.01  ┆ 0.05 │
    │ mobile  ┆ ndcg@10 ┆ 0.0      ┆ -0.02 ┆ 0.02 │
    └─────────┴─────────┴──────────┴───────┴──────┘
    """
    frame = _collect(comparison, "comparison")
    if value not in ("delta", "lift"):
        msg = f"value must be 'delta' or 'lift', got {value!r}"
        raise ValueError(msg)
    estimate, low, high = ("delta", "ci_low", "ci_high") if value == "delta" else (
        "lift", "lift_low", "lift_high")
    _require_columns(frame, ["metric", arm, estimate, low, high], "comparison")
    slices = [c for c in frame.columns if c not in RESULT_COLUMNS and c != arm]
    optional = {"significant": pl.Boolean, "n": pl.Int64, "mean": pl.Float64,
                "baseline_mean": pl.Float64, "p_adjusted": pl.Float64}
    finite = [pl.when(pl.col(c).is_finite()).then(pl.col(c)).alias(name)
              for c, name in ((low, "low"), (high, "high"))]
    return frame.select(
        *slices,
        _label(slices).alias("slice"),
        pl.col("metric").cast(pl.String),
        pl.col(arm).cast(pl.String).alias("arm"),
        pl.col(estimate).cast(pl.Float64).alias("estimate"),
        *finite,
        *(pl.col(c).cast(t) if c in frame.columns else pl.lit(None, t).alias(c)
          for c, t in optional.items()),
    )


def forest(
    comparison: Frame,
    *,
    arm: str = "arm",
    value: Value = "delta",
    title: str | None = None,
) -> alt.FacetChart:
    """Forest plot of :func:`polars_rank.compare` output: each delta with its interval.

    One row of panels per metric; within a panel one line per slice (segment), the
    point at the arm's delta (or lift) against the baseline and the bar its
    confidence interval, a dashed line at 0. A filled point is significant after the
    multiple-comparison correction (``significant``), a hollow one is not. Several
    arms are drawn side by side in their own colours. Each metric has its own x scale.

    Parameters
    ----------
    comparison
        :func:`polars_rank.compare` output, with or without ``group_by`` slices.
    arm
        The arm column, as named in :func:`polars_rank.compare`.
    value
        ``"delta"`` (absolute) or ``"lift"`` (relative to the baseline mean, in %).
    title
        Chart title (default: "each arm against the baseline").

    Returns
    -------
    alt.FacetChart
        The chart; ``.save("forest.png")`` writes it.

    Examples
    --------
    >>> import polars_rank as pr
    >>> df = pr.datasets.synthetic_experiment(300, seed=0)
    >>> per_query = pr.evaluate(df, metrics=["ndcg@10", "mrr@10"], group_by=["device", "arm"],
    ...                         per_query=True)
    >>> chart = pr.plot.forest(pr.compare(per_query, baseline="control", group_by="device"))
    >>> chart.to_dict()["facet"]["row"]["field"]
    'metric'
    """
    alt = _altair("forest")
    data = forest_data(comparison, arm=arm, value=value)
    arms = data["arm"].unique(maintain_order=True).to_list()
    x_title = ("delta vs baseline (arm - baseline)" if value == "delta"
               else "lift vs baseline (delta / baseline mean)")
    fmt = "+.1%" if value == "lift" else "+.3f"
    x = alt.X("estimate:Q", title=x_title, axis=alt.Axis(format=fmt[1:], tickCount=6),
              scale=alt.Scale(padding=12))  # 0 inside the frame, not on its edge
    y = alt.Y("slice:N", title=None, sort=data["slice"].unique(maintain_order=True).to_list())
    color = alt.Color("arm:N", title="arm", scale=alt.Scale(domain=arms))
    offset = [alt.YOffset("arm:N", sort=arms)] if len(arms) > 1 else []
    tooltip = ["slice:N", "metric:N", "arm:N",
               alt.Tooltip("estimate:Q", title=value, format=fmt),
               alt.Tooltip("low:Q", title="CI low", format=fmt),
               alt.Tooltip("high:Q", title="CI high", format=fmt),
               alt.Tooltip("mean:Q", format=".4f"), alt.Tooltip("baseline_mean:Q", format=".4f"),
               alt.Tooltip("p_adjusted:Q", title="p (adjusted)", format=".4g"),
               alt.Tooltip("n:Q"), "significant:N"]
    zero = alt.Chart().mark_rule(strokeDash=[4, 3], color="#555555").encode(x=alt.datum(0))
    bars = alt.Chart().mark_rule(strokeWidth=2.5).encode(
        alt.X("low:Q", title=x_title), alt.X2("high:Q"), y, color, *offset)
    # every point hollow (white inside), then the significant ones filled on top
    hollow = alt.Chart().mark_point(size=90, strokeWidth=2, opacity=1, filled=False,
                                    fill="white").encode(x, y, color, *offset, tooltip=tooltip)
    filled = alt.Chart().transform_filter("datum.significant").mark_point(
        size=90, strokeWidth=2, opacity=1, filled=True).encode(x, y, color, *offset,
                                                               tooltip=tooltip)
    chart = alt.layer(zero, bars, hollow, filled, data=data).properties(
        width=_WIDTH + 100, height=alt.Step(26))
    chart = chart.facet(row=alt.Row("metric:N", title=None,
                                    sort=data["metric"].unique(maintain_order=True).to_list(),
                                    header=alt.Header(labelAngle=0, labelAlign="left",
                                                      labelFontSize=13, labelFontWeight="bold")))
    chart = chart.resolve_scale(x="independent")
    subtitle = "filled: significant after correction; bars: confidence intervals"
    chart = chart.properties(title=alt.TitleParams(title or "each arm against the baseline",
                                                   subtitle=subtitle, anchor="start"))
    return chart  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- distribution
def distribution_data(
    per_query: Frame,
    metric: str,
    *,
    arm: str = "arm",
    baseline: Any = None,
    query: str | Sequence[str] = "qid",
    bins: int = 21,
) -> pl.DataFrame:
    """The histogram of :func:`distribution`: per arm, the share of queries per bin.

    Without ``baseline``: the per-query values of ``metric`` in each arm. With
    ``baseline``: the per-query difference ``arm - baseline`` of every other arm,
    on the queries both have (pairs by ``query``), with how many queries the arm
    wins, ties and loses. Bins are equal-width over the range of the values (for
    differences, symmetric about 0, so an odd number of bins centres one on 0).

    Parameters
    ----------
    per_query
        One row per (arm, query) with the metric column:
        ``evaluate(..., group_by="arm", per_query=True)`` (filter it to one slice
        first to look at a segment).
    metric
        The metric column.
    arm
        The arm column.
    baseline
        The baseline's value in ``arm``: plot differences to it. ``None``: values.
    query
        The query column(s): a (arm, query) must not repeat.
    bins
        Number of bins (>= 1).

    Returns
    -------
    pl.DataFrame
        ``arm, panel, bin_start, bin_end, queries, share, mean``: ``panel`` labels
        the arm (with wins, losses and ties against the baseline), ``queries`` is
        the number of queries in the bin and ``share`` their share of the arm's,
        ``mean`` the arm's mean value (or mean difference). Null metric values are
        left out.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> per_query = pl.DataFrame({
    ...     "arm": ["A"] * 4 + ["B"] * 4, "qid": [1, 2, 3, 4] * 2,
    ...     "rr": [1.0, 0.5, 0.5, 0.0, 1.0, 1.0, 0.5, 0.0],
    ... })
    >>> out = pr.plot.distribution_data(per_query, "rr", baseline="A", bins=3)
    >>> out["panel"][0]
    'B - A: better 1, worse 0, tied 3'
    >>> out.select("arm", "bin_start", "bin_end", "queries", "share", "mean")
    shape: (3, 6)
    ┌─────┬───────────┬───────────┬─────────┬───────┬───────┐
    │ arm ┆ bin_start ┆ bin_end   ┆ queries ┆ share ┆ mean  │
    │ --- ┆ ---       ┆ ---       ┆ ---     ┆ ---   ┆ ---   │
    │ str ┆ f64       ┆ f64       ┆ u32     ┆ f64   ┆ f64   │
    ╞═════╪═══════════╪═══════════╪═════════╪═══════╪═══════╡
    │ B   ┆ -0.5      ┆ -0.166667 ┆ 0       ┆ 0.0   ┆ 0.125 │
    │ B   ┆ -0.166667 ┆ 0.166667  ┆ 3       ┆ 0.75  ┆ 0.125 │
    │ B   ┆ 0.166667  ┆ 0.5       ┆ 1       ┆ 0.25  ┆ 0.125 │
    └─────┴───────────┴───────────┴─────────┴───────┴───────┘
    """
    frame = _collect(per_query, "per_query")
    queries = _names(query, "query")
    _require_columns(frame, [arm, metric, *queries], "per_query")
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        msg = f"bins must be a positive int, got {bins!r}"
        raise ValueError(msg)
    dtype = frame.schema[metric]
    if not dtype.is_numeric():
        msg = f"metric column {metric!r} must be numeric, got {dtype}"
        raise TypeError(msg)
    keys = [arm, *queries]
    if frame.select(keys).is_duplicated().any():
        msg = (f"per_query has several rows per ({', '.join(keys)}): filter it to one slice, "
               "or name every column that identifies a query in query=")
        raise ValueError(msg)
    values = frame.select(pl.col(arm).cast(pl.String), *queries,
                          pl.col(metric).cast(pl.Float64).alias("value"))
    values = values.filter(pl.col("value").is_not_null() & pl.col("value").is_finite())
    if baseline is None:
        values = values.with_columns(pl.col(arm).alias("panel"))
        order = sorted(values[arm].unique().to_list())
    else:
        base = str(baseline)
        if base not in values[arm].to_list():
            msg = f"baseline {baseline!r} is not a value of column {arm!r}"
            raise ValueError(msg)
        reference = values.filter(pl.col(arm) == base).select(*queries,
                                                              pl.col("value").alias("base"))
        values = (values.filter(pl.col(arm) != base).join(reference, on=queries, how="inner")
                  .with_columns((pl.col("value") - pl.col("base")).alias("value")))
        counts = values.group_by(arm).agg(
            (pl.col("value") > 0).sum().alias("better"),
            (pl.col("value") < 0).sum().alias("worse"),
            (pl.col("value") == 0).sum().alias("tied"),
        )
        values = values.join(counts, on=arm).with_columns(pl.format(
            "{} - {}: better {}, worse {}, tied {}", pl.col(arm), pl.lit(base),
            "better", "worse", "tied").alias("panel"))
        order = sorted(values[arm].unique().to_list())
    if values.height == 0:
        msg = f"per_query has no value of {metric!r} to plot"
        raise ValueError(msg)
    lo, hi = values["value"].min(), values["value"].max()
    assert isinstance(lo, float)  # a non-empty Float64 column
    assert isinstance(hi, float)
    if baseline is not None:
        lo, hi = -max(abs(lo), abs(hi)), max(abs(lo), abs(hi))
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    width = (hi - lo) / bins
    binned = values.with_columns(
        ((pl.col("value") - lo) / width).floor().clip(0, bins - 1).cast(pl.Int64).alias("bin"))
    grid = (binned.select(arm, "panel").unique()
            .join(pl.DataFrame({"bin": range(bins)}, schema={"bin": pl.Int64}), how="cross"))
    counted = binned.group_by(arm, "panel", "bin").agg(pl.len().alias("queries"))
    means = binned.group_by(arm).agg(pl.col("value").mean().alias("mean"),
                                     pl.len().alias("total"))
    out = (grid.join(counted, on=[arm, "panel", "bin"], how="left")
           .join(means, on=arm)
           .with_columns(pl.col("queries").fill_null(0).cast(pl.UInt32)))
    out = out.with_columns(
        (lo + pl.col("bin") * width).alias("bin_start"),
        (lo + (pl.col("bin") + 1) * width).alias("bin_end"),
        (pl.col("queries") / pl.col("total")).alias("share"),
        pl.col(arm).replace_strict({a: i for i, a in enumerate(order)},
                                   return_dtype=pl.Int64).alias("__order"),
    )
    return (out.sort("__order", "bin")
            .select(pl.col(arm).alias("arm"), "panel", "bin_start", "bin_end", "queries",
                    "share", "mean"))


def distribution(
    per_query: Frame,
    metric: str,
    *,
    arm: str = "arm",
    baseline: Any = None,
    query: str | Sequence[str] = "qid",
    bins: int = 21,
    title: str | None = None,
) -> alt.FacetChart:
    """Per-query distribution of a metric per arm, or of its difference to the baseline.

    One histogram per arm (share of queries per bin), stacked so the x axes line up,
    with a line at the mean. With ``baseline``, the histograms are of the per-query
    difference ``arm - baseline`` and each panel says on how many queries the arm is
    better, worse or tied: a mean difference carried by a few queries looks very
    different from a small gain on many. The input contract is
    :func:`distribution_data`'s.

    Parameters
    ----------
    per_query
        One row per (arm, query) with the metric column.
    metric
        The metric column.
    arm
        The arm column.
    baseline
        The baseline's value in ``arm``: plot per-query differences to it.
    query
        The query column(s), which pair the arms' values.
    bins
        Number of bins.
    title
        Chart title; default: the metric (and the difference shown).

    Returns
    -------
    alt.FacetChart
        The chart; ``.save("distribution.svg")`` writes it.

    Examples
    --------
    >>> import polars_rank as pr
    >>> df = pr.datasets.synthetic_experiment(300, seed=0)
    >>> per_query = pr.evaluate(df, metrics=["ndcg@10"], group_by="arm", per_query=True)
    >>> chart = pr.plot.distribution(per_query, "ndcg@10", baseline="control")
    >>> chart.to_dict()["facet"]["row"]["field"]
    'panel'
    """
    alt = _altair("distribution")
    data = distribution_data(per_query, metric, arm=arm, baseline=baseline, query=query,
                             bins=bins)
    what = f"per-query {metric}" if baseline is None else f"per-query difference in {metric}"
    bars = alt.Chart().mark_bar(stroke="white", strokeWidth=0.5).encode(
        alt.X("bin_start:Q", title=what, scale=alt.Scale(zero=False, nice=False)),
        alt.X2("bin_end:Q"),
        alt.Y("share:Q", title="share of queries", axis=alt.Axis(format="%")),
        alt.Y2(datum=0),
        alt.Color("arm:N", legend=None),
        tooltip=[alt.Tooltip("bin_start:Q", title="from", format=".4f"),
                 alt.Tooltip("bin_end:Q", title="to", format=".4f"),
                 alt.Tooltip("queries:Q"), alt.Tooltip("share:Q", format=".1%")],
    )
    mean = alt.Chart().mark_rule(color="black", strokeWidth=2).encode(
        x=alt.X("mean(mean):Q", title=what), tooltip=[alt.Tooltip("mean(mean):Q", title="mean",
                                                       format=".4f")])
    layers = [bars, mean]
    if baseline is not None:
        layers.insert(1, alt.Chart().mark_rule(strokeDash=[4, 3], color="#555555")
                      .encode(x=alt.datum(0)))
    chart = alt.layer(*layers, data=data).properties(width=_WIDTH + 150, height=_HEIGHT - 60)
    chart = chart.facet(row=alt.Row("panel:N", title=None,
                                    sort=data["panel"].unique(maintain_order=True).to_list(),
                                    header=alt.Header(labelAngle=0, labelAlign="left",
                                                      labelAnchor="start", labelFontSize=12,
                                                      labelOrient="top", labelPadding=4)))
    subtitle = "black line: mean" + ("; dashed: no difference" if baseline is not None else "")
    chart = chart.properties(title=alt.TitleParams(title or what, subtitle=subtitle,
                                                   anchor="start"))
    return chart  # type: ignore[no-any-return]
