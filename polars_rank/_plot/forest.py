"""Forest plots of compare() output: :func:`polars_rank.plot.forest` and its data."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._compare.options import OPTIONAL_COLUMNS, RESULT_COLUMNS
from polars_rank._plot.common import WIDTH, collected, import_altair, key_label, require_columns

if TYPE_CHECKING:
    import altair as alt

    from polars_rank._plot.common import Frame, Value


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
        ``"delta"`` (``mean - baseline_mean``, with ``delta_ci_low``, ``delta_ci_high``) or
        ``"lift"`` (``delta / baseline_mean``, with ``lift_ci_low``, ``lift_ci_high``).

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
    ...     "delta_ci_low": [0.01, -0.02], "delta_ci_high": [0.05, 0.02],
    ...     "lift_ci_low": [0.02, -0.04], "lift_ci_high": [0.09, 0.04],
    ...     "p_value": [0.004, 1.0], "p_adjusted": [0.008, 1.0],
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
    frame = collected(comparison, "comparison")
    if value not in ("delta", "lift"):
        msg = f"value must be 'delta' or 'lift', got {value!r}"
        raise ValueError(msg)
    estimate, low, high = ("delta", "delta_ci_low", "delta_ci_high") if value == "delta" else (
        "lift", "lift_ci_low", "lift_ci_high")
    require_columns(frame, ["metric", arm, estimate, low, high], "comparison")
    slices = [c for c in frame.columns
              if c not in RESULT_COLUMNS and c not in OPTIONAL_COLUMNS and c != arm]
    optional = {"significant": pl.Boolean, "n": pl.Int64, "mean": pl.Float64,
                "baseline_mean": pl.Float64, "p_adjusted": pl.Float64}
    finite = [pl.when(pl.col(c).is_finite()).then(pl.col(c)).alias(name)
              for c, name in ((low, "low"), (high, "high"))]
    return frame.select(
        *slices,
        key_label(slices).alias("slice"),
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
    alt = import_altair("forest")
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
        width=WIDTH + 100, height=alt.Step(26))
    chart = chart.facet(row=alt.Row("metric:N", title=None,
                                    sort=data["metric"].unique(maintain_order=True).to_list(),
                                    header=alt.Header(labelAngle=0, labelAlign="left",
                                                      labelFontSize=13, labelFontWeight="bold")))
    chart = chart.resolve_scale(x="independent")
    subtitle = "filled: significant after correction; bars: confidence intervals"
    chart = chart.properties(title=alt.TitleParams(title or "each arm against the baseline",
                                                   subtitle=subtitle, anchor="start"))
    return chart  # type: ignore[no-any-return]
