"""Step 3 of an evaluation: every metric of every list, from the judged rows.

The metrics are the public expressions themselves, in positions mode (``rank=``):
one ``group_by`` over the lists, each metric a few aggregations of the rows' ranks
and labels. What many of them would each compute per list (the relevant rows so far,
the precision sums of average precision, the ideal ranking's labels) is computed
once before, as columns (:class:`~polars_rank._engine.ranked.RankColumn`): Polars shares no
sub-expression between the expressions of a ``group_by``, and ``-m all_trec`` reads
each of these in ten to twenty of its measures.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.positions import RankColumn
from polars_rank._evaluation.options import (
    HITS,
    IDEAL,
    JUDGED,
    LIST,
    N_RET,
    POOLED,
    PRECISION,
    PRECISION_SUM,
    RANK,
    RELEVANT,
    RETRIEVED,
    Options,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._evaluation.judged_frame import Judged

__all__ = ["per_list", "prepared_ranks"]


def per_list(judged: Judged, o: Options) -> pl.LazyFrame:
    """One row per list: its keys, a column per metric, and the JUDGED/RETRIEVED flags."""
    longest = judged.lists.select(pl.col(N_RET).max()).collect().item()
    rank, columns = _prepared(o, longest)
    per = judged.rows.with_columns(columns).group_by(LIST).agg(
        m.expr(o.rel, rank=rank if o.rank_of(m) == RANK else o.rank_of(m),
               **({"pooled": POOLED} if m.definition.reads_pool else {})).alias(name)
        for name, m in o.plain
    )
    return per.join(judged.lists, on=LIST, how="left").select(
        *o.keys, *(name for name, _ in o.plain), pl.lit(True).alias(JUDGED),
        (pl.col(N_RET) > 0).alias(RETRIEVED))


def _prepared(o: Options, longest: int | None) -> tuple[RankColumn, list[pl.Expr]]:
    """The metrics' ``rank=`` (the rank column, marked) and the columns it names.

    The thresholds are those of the metrics that have one (trec_eval's ``-l``: all the
    same); no column when no metric reads :data:`RANK` (``ties="expected"``).
    ``longest``: the longest list's length.
    """
    reading = [m for _, m in o.plain if o.rank_of(m) == RANK]
    thresholds = {float(m.options.get("threshold", option.default)) for m in reading
                  if (option := m.definition.option("threshold")) is not None
                  and m.options.get("threshold", option.default) is not None}
    return prepared_ranks(o.rel, sorted(thresholds) if reading else None,
                          checked=o.validate, longest=longest)


def prepared_ranks(rel: str, thresholds: Sequence[float] | None, *, checked: bool,
                   longest: int | None = None) -> tuple[RankColumn, list[pl.Expr]]:
    """:data:`RANK` marked for judged rows sorted by :data:`LIST`, then rank, and its columns.

    The rows come sorted by list, then rank (:func:`~polars_rank._evaluation.judged_frame.
    in_rank_order`): a metric reading :data:`RANK` reads its values in rank order as
    they come (checked when ``checked``), and the running sums over the rows of a list
    are sums in rank order (``cum_sum`` in a window per list, once). ``thresholds``:
    the relevance thresholds to count relevant rows at; None: no column at all.
    ``longest``: no list is longer (None: not known).
    """
    if thresholds is None:
        return RankColumn(RANK, checked=checked, longest=longest), []
    rank, labels = pl.col(RANK), pl.col(rel).cast(pl.Float64)
    retrieved = rank.is_not_null()
    columns: list[pl.Expr] = []
    relevant, hits, precisions, sums = {}, {}, {}, {}
    for i, t in enumerate(thresholds):
        is_relevant = (labels >= t).fill_null(False).cast(pl.Float64)
        hit = is_relevant * retrieved.cast(pl.Float64)
        so_far = hit.cum_sum().over(LIST)
        # each relevant row's precision, i / rank_i: the terms trec_eval's m_map.c adds
        precision = pl.when(hit > 0).then(so_far / rank.cast(pl.Float64))
        relevant[t], hits[t] = f"{RELEVANT}{i}", f"{HITS}{i}"
        precisions[t], sums[t] = f"{PRECISION}{i}", f"{PRECISION_SUM}{i}"
        columns += [is_relevant.sum().over(LIST).alias(relevant[t]), so_far.alias(hits[t]),
                    precision.alias(precisions[t]),
                    precision.fill_null(0.0).cum_sum().over(LIST).alias(sums[t])]
    # each list's labels, largest first, unjudged last: its rows are one block of the
    # frame (sorted by list), so the list's i-th row holds its i-th ideal label
    ideal = pl.col(rel).sort_by([LIST, rel], descending=[False, True], nulls_last=True)
    columns.append(ideal.alias(IDEAL))
    marked = RankColumn(RANK, checked=checked, labels=rel, relevant=relevant, hits=hits,
                        precisions=precisions, precision_sums=sums, ideal=IDEAL,
                        longest=longest)
    return marked, columns
