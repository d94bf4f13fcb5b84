"""What both ranking paths of step 2 hand on: :class:`Judged`, and how they finish it.

:mod:`~polars_rank._evaluation.judged` (a window ranking per list) and
:mod:`~polars_rank._evaluation.sorted_key` (trec_eval's order from one sorted key)
rank the lists their own ways, and end the same: the judged rows with the rank
columns of :func:`rank_columns`, each list's end row (:func:`with_list_ends`), sorted
by list and rank (:func:`in_rank_order`). Here, below both, so that neither imports
the other's module back.
"""

from __future__ import annotations

from typing import NamedTuple

import polars as pl

from polars_rank._evaluation.options import (
    LIST,
    N_RET,
    POOLED,
    RANK,
    RANK_LAST,
    TIE_FIRST,
    TIE_LAST,
    Options,
)

__all__ = ["Judged", "in_rank_order", "rank_columns", "with_list_ends"]

class Judged(NamedTuple):
    """The ranking's result: what every metric of an evaluation reads."""

    rows: pl.LazyFrame
    """Per list (``LIST``): the judged rows (``RANK`` null: not retrieved) and the
    last retrieved row, with ``rel`` and the rank columns of :func:`rank_columns`;
    sorted by ``LIST`` (and flagged sorted) when it comes collected."""
    lists: pl.LazyFrame
    """One row per list with a retrieved or a judged row: ``LIST``, the list's keys
    (groups, query) and ``N_RET``, its length."""


def rank_columns(o: Options) -> list[str]:
    """The rank columns of :attr:`Judged.rows`: positions, tie spans, AUC's tie spans."""
    if o.ties == "expected":
        return [RANK, RANK_LAST]
    bounds = [TIE_FIRST, TIE_LAST] if o.needs_tie_span else []
    return [RANK, *bounds, *o.gain_ranks]


def with_list_ends(rows: pl.LazyFrame, lists: pl.LazyFrame, o: Options, *,
                   doc: bool = False) -> pl.LazyFrame:
    """``rows`` (``LIST``, rank columns, rel) and a row at the end of each list.

    A list's length is its largest rank: a list with judged rows whose last
    retrieved row is not judged gets that row, label-less (every rank column at the
    length); a list without judged rows is not evaluated and gets none. Every row of
    ``rows`` has a qrels line (or a label, without qrels) and no end row has: that is
    ``POOLED``, added when a metric reads it (``o.needs_pooled``). Then the
    rows sorted by list, so that each list is a slice of the frame (a ``group_by``
    on a column Polars knows is sorted slices instead of gathering; docs/performance.md,
    "Behind the code"), and by rank within it.

    The ranks by a metric's gain (:attr:`Options.gain_ranks`) put the last retrieved
    row elsewhere than ``RANK`` may: the end row is there when any ranking misses
    the length, at the length in each ranking that misses it (null, not retrieved, in
    the others: an unjudged row counts nowhere else).
    """
    last = RANK_LAST if o.ties == "expected" else RANK
    columns = [LIST, *rank_columns(o), o.rel, *([o.doc] if doc else [])]
    pooled = [pl.lit(True).alias(POOLED)] if o.needs_pooled else []
    rows_df = rows.select(*columns, *pooled).collect()  # read three times below: once
    owners = [last, *o.gain_ranks]  # the columns whose largest rank decides an end row
    largest = rows_df.lazy().group_by(LIST).agg(
        pl.col(c).max().fill_null(0).alias(f"__largest{c}") for c in owners)
    short = {c: pl.col(f"__largest{c}") < pl.col(N_RET) for c in owners}
    length = pl.col(N_RET).cast(pl.Int64)
    ends = (
        largest.join(lists.select(LIST, N_RET), on=LIST, how="inner")
        .filter((pl.col(N_RET) > 0) & pl.any_horizontal(short.values()))
        .select(LIST, *(pl.when(short.get(c, short[last])).then(length).alias(c)
                        for c in rank_columns(o)),
                pl.lit(None, pl.Float64).alias(o.rel),
                *([pl.lit(False).alias(POOLED)] if o.needs_pooled else []))
    )
    out = in_rank_order(pl.concat([rows_df.lazy(), ends], how="diagonal_relaxed"), LIST, o)
    return out.collect().with_columns(pl.col(LIST).set_sorted()).lazy()


def in_rank_order(rows: pl.LazyFrame, numbers: str, o: Options) -> pl.LazyFrame:
    """``rows`` sorted by list (the integer column ``numbers``), then by rank.

    Sums then add up in trec_eval's order, the same whatever path ranked the rows;
    one UInt64 (list, rank) sorts several times faster than the two columns.
    """
    order = pl.col(numbers).cast(pl.UInt64) * 2**32 + pl.col(RANK).fill_null(
        2**32 - 1).cast(pl.UInt64)
    if o.ties == "expected":  # rows sharing a rank: by label
        return rows.sort(order, pl.col(o.rel), nulls_last=True)
    return rows.sort(order)
