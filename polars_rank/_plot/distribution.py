"""Per-query distributions: :func:`polars_rank.plot.distribution` and its data."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank._compare.options import name_list
from polars_rank._plot.common import (
    HEIGHT,
    WIDTH,
    collected,
    import_altair,
    require_columns,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    import altair as alt

    from polars_rank._plot.common import Frame


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
    frame = collected(per_query, "per_query")
    queries = name_list(query, "query")
    require_columns(frame, [arm, metric, *queries], "per_query")
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
    alt = import_altair("distribution")
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
    chart = alt.layer(*layers, data=data).properties(width=WIDTH + 150, height=HEIGHT - 60)
    chart = chart.facet(row=alt.Row("panel:N", title=None,
                                    sort=data["panel"].unique(maintain_order=True).to_list(),
                                    header=alt.Header(labelAngle=0, labelAlign="left",
                                                      labelAnchor="start", labelFontSize=12,
                                                      labelOrient="top", labelPadding=4)))
    subtitle = "black line: mean" + ("; dashed: no difference" if baseline is not None else "")
    chart = chart.properties(title=alt.TitleParams(title or what, subtitle=subtitle,
                                                   anchor="start"))
    return chart  # type: ignore[no-any-return]
