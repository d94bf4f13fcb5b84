"""Average precision's numerator: the precisions at the relevant ranks within k.

One implementation per variant of the list (``functools.singledispatch``): the sorted
hits by parts for sort keys, the exact mean over tie orders for both tie-averaged
variants, trec_eval's sum in rank order over positions. AP, GMAP and YAAP read it.
"""

from __future__ import annotations

import functools

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.expected import Expected
from polars_rank._engine.positions import Positions
from polars_rank._engine.ranked import Ranked
from polars_rank._engine.terms import by_parts_weights
from polars_rank.metrics._expected_ap import expected_precision_sum

__all__ = ["precision_sum"]


@functools.singledispatch
def precision_sum(r: Ranked, k: int | None, threshold: float) -> pl.Expr:
    """The sum of the precisions at the relevant ranks within k: AP's numerator, R x AP.

    Sort keys: by parts over the sorted hits. Under ``ties="expected"`` its exact mean
    over the orders of the tied rows; over positions trec_eval's sum.
    """
    return _dense_precision_sum(r.hits(k, threshold), k)


@precision_sum.register(Expected)
def _(r: Expected, k: int | None, threshold: float) -> pl.Expr:
    return expected_precision_sum(r, r.relevant(threshold), k)


@precision_sum.register(Positions)
def _(r: Positions, k: int | None, threshold: float) -> pl.Expr:
    if (so_far := r.prepared_precision_sum(threshold)) is not None:
        # the running sum below, computed once for every AP of the evaluation: at the
        # last retrieved row within k (it only grows down the list)
        return pl.when(r.within(k)).then(so_far).max().fill_null(0.0)
    # trec_eval's sum (m_map.c): i / rank_i at the i-th hit, added in rank order, so
    # that the printed digits are trec_eval's even at a half unit (AP = 23/32)
    hit = r.within(k) & (r.relevant(threshold) > 0)
    n_hits = hit.sum()  # counted before the sort (Ranked.ordered says why)
    ranks = r.sorted_ranks(r.rank.filter(hit)).cast(pl.Float64)
    terms = pl.int_range(1, n_hits + 1, dtype=pl.Int64).cast(pl.Float64) / ranks
    return terms.cum_sum().last().fill_null(0.0)


def _dense_precision_sum(hits: pl.Expr, k: int | None) -> pl.Expr:
    """Sum over ranks p = 1..m of hits_p * z_p / p, z the running hit count, m rows.

    ``hits * hits.cum_sum()`` would name ``hits`` (the rank sort) twice. With 0/1 hits,
    hits_p * z_p = T(z_p) - T(z_(p-1)), T(z) = z(z + 1)/2, so the sum is taken by parts
    (:func:`by_parts_weights`, T(z_0) = 0). Every term is >= 0, so nothing cancels;
    T(z) is exact for z < 2^26.
    """
    triangle = ((hits.cum_sum() + 0.5).pow(2) - 0.25) * 0.5
    return group_sum(triangle * by_parts_weights(k, Ranked.depth(k)))
