"""``compare(robust=True)``: whether a difference survives what ties and judgments leave open.

A per-query frame from ``evaluate(..., bounds=True)`` holds, beside each metric, its
pessimistic and optimistic values (``<metric>_low``, ``<metric>_high``: unjudged
documents non-relevant / relevant; evaluated under ``ties="pessimistic"`` and
``"optimistic"`` they bound the tie order too). A difference between an arm and its
baseline is *robust* when it keeps its sign from the arm's pessimistic mean against
the baseline's optimistic one to the arm's optimistic mean against the baseline's
pessimistic one: the interval ``[delta_low, delta_high]`` excludes 0. Per query the
smaller of the two ends is the pessimistic one (for nDCG or AP, "high" can be below
"low": docs/how-sure.md).
"""

from __future__ import annotations

from typing import Any

import polars as pl

from polars_rank._unjudged import HIGH, LOW

__all__ = ["ROBUST_COLUMNS", "bound_columns", "robust_columns"]

ROBUST_COLUMNS = ("delta_low", "delta_high", "robust")


def bound_columns(schema: pl.Schema, metrics: list[str]) -> list[str]:
    """``metrics`` without the bound columns of another metric, each bound checked."""
    names = [m for m in metrics
             if not any(m == f"{base}_{end}" for base in metrics for end in (LOW, HIGH))]
    for m in names:
        for end in (LOW, HIGH):
            if f"{m}_{end}" not in schema:
                msg = (f"robust=True reads {m!r}'s bounds, {m}_{LOW} and {m}_{HIGH} "
                       f"(evaluate(..., bounds=True)); per_query has no {m}_{end!s}")
                raise ValueError(msg)
    return names


def robust_columns(result: pl.DataFrame, per_query: pl.DataFrame, arm: str,
                   groups: list[str], metrics: list[str]) -> pl.DataFrame:
    """``result`` with ``delta_low``, ``delta_high`` and ``robust`` per row."""
    # per query the smaller and the larger end: for a metric not monotone in the
    # labels (nDCG, AP) "high" may be below "low"
    ends = {LOW: pl.min_horizontal, HIGH: pl.max_horizontal}
    means = per_query.group_by([*groups, arm]).agg(
        *(ends[end](f"{m}_{LOW}", f"{m}_{HIGH}").mean().alias(f"{m}\x00{end}")
          for m in metrics for end in (LOW, HIGH)))
    long = means.unpivot(index=[*groups, arm], variable_name="__key").with_columns(
        pl.col("__key").str.split_exact("\x00", 1).struct.rename_fields(["metric", "end"])
    ).unnest("__key").pivot(on="end", index=[*groups, arm, "metric"], values="value")
    mine = long.rename({LOW: "__arm_low", HIGH: "__arm_high"})
    base = long.rename({arm: "baseline", LOW: "__base_low", HIGH: "__base_high"})
    on: list[Any] = [*groups, "metric"]
    out = (result.join(mine, on=[*on, arm], how="left", nulls_equal=True)
           .join(base, on=[*on, "baseline"], how="left", nulls_equal=True))
    delta_low = pl.col("__arm_low") - pl.col("__base_high")
    delta_high = pl.col("__arm_high") - pl.col("__base_low")
    return out.with_columns(
        delta_low.alias("delta_low"), delta_high.alias("delta_high"),
        ((delta_low > 0) | (delta_high < 0)).alias("robust"),
    ).select(*result.columns, *ROBUST_COLUMNS)
