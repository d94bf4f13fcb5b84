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


def summarize(values: pl.Expr, how: Summary = "mean", *, in_order: bool = False) -> pl.Expr:
    """The aggregation of ``values`` (one per query) that ``how`` names.

    ``in_order``: add the values one after another in row order, then divide, as
    trec_eval's loop over its queries does (meas_acc.c, meas_avg.c). Polars' ``sum``
    and ``mean`` add in another order, which can move a mean by one unit in the last
    place: enough to print 0.0437 where trec_eval prints 0.0438 (0.04375 rounded).
    """
    if how == "none":  # a null of the values' type (relstring: no summary)
        return values.filter(pl.lit(False)).first()
    if in_order:
        kept = values.cast(pl.Float64).drop_nulls()  # Polars 1.36: no cum_sum of dtype null
        if how == "geometric":
            kept = kept.clip(lower_bound=GEOMETRIC_FLOOR).log()
        total = kept.cum_sum().last()  # cum_sum adds in row order; sum does not
        if how == "sum":
            return total
        mean = total / kept.len()
        return mean.exp() if how == "geometric" else mean
    # one value per query, in the order the queries come: sorted first, so that the
    # same values give the same bits in any order (a shuffled frame's, a join's)
    kept = values.cast(pl.Float64).drop_nulls().sort()
    if how == "geometric":
        kept = kept.clip(lower_bound=GEOMETRIC_FLOOR).log()
    total = kept.cum_sum().last()  # cum_sum adds in row order; sum does not
    if how == "sum":
        return total.fill_null(0.0)
    mean = total / kept.len()
    return mean.exp() if how == "geometric" else mean
