"""How one metric's per-query values become one number over the queries.

Most metrics are averaged; trec_eval sums its counts (``num_ret``, ``num_rel``,
``num_rel_ret``, ``num_nonrel_judged_ret``) and takes the geometric mean of
``gm_map`` and ``gm_bpref``, each value floored at 1e-5 first (``MIN_GEO_MEAN``,
trec_eval.h:238; meas_avg.c:68-87). ``relstring`` (a string per query) has no value
over queries: ``"none"``, a null, as trec_eval prints it per query only.
"""

from __future__ import annotations

from typing import Literal

import polars as pl

__all__ = ["Summary", "GEOMETRIC_FLOOR", "summarize"]

Summary = Literal["mean", "sum", "geometric", "none"]

GEOMETRIC_FLOOR = 1e-5
"""trec_eval's MIN_GEO_MEAN: a geometric mean sees max(value, 1e-5)."""


def summarize(values: pl.Expr, how: Summary = "mean") -> pl.Expr:
    """The aggregation of ``values`` (one per query) that ``how`` names."""
    if how == "sum":
        return values.sum()
    if how == "none":  # a null of the values' type
        return values.filter(pl.lit(False)).first()
    if how == "geometric":
        return values.clip(lower_bound=GEOMETRIC_FLOOR).log().mean().exp()
    return values.mean()
