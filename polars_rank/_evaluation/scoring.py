"""Step 3 of an evaluation: every metric of every list, from the judged rows.

The metrics are the public expressions themselves, in positions mode (``rank=``):
one ``group_by`` over the lists, each metric a few aggregations of the rows' ranks
and labels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._evaluation.options import (
    JUDGED,
    LIST,
    N_RET,
    POOLED,
    RANK,
    RETRIEVED,
    Options,
)
from polars_rank._ranked import RankColumn

if TYPE_CHECKING:
    from polars_rank._evaluation.judged import Judged
    from polars_rank.registry import Metric

__all__ = ["per_list"]


def per_list(judged: Judged, o: Options) -> pl.LazyFrame:
    """One row per list: its keys, a column per metric, and the JUDGED/RETRIEVED flags."""
    per = judged.rows.group_by(LIST).agg(
        m.expr(o.rel, rank=_rank(o, m), **({"pooled": POOLED} if m.definition.reads_pool
                                           else {})).alias(name)
        for name, m in o.plain
    )
    return per.join(judged.lists, on=LIST, how="left").select(
        *o.keys, *(name for name, _ in o.plain), pl.lit(True).alias(JUDGED),
        (pl.col(N_RET) > 0).alias(RETRIEVED))


def _rank(o: Options, m: Metric) -> str | tuple[str, str]:
    """The ``rank=`` of metric ``m``: the rank column, marked as the judged rows' own.

    The rows come sorted by list, then rank (:func:`~polars_rank._evaluation.judged.
    in_rank_order`), so a metric reading :data:`RANK` reads its values in rank order
    as they come (:class:`~polars_rank._ranked.RankColumn`); checked when validated.
    """
    rank = o.rank_of(m)
    return RankColumn(rank, checked=o.validate) if rank == RANK else rank
