"""The tie-averaged variants' maths: the exact mean over every order of the tied rows.

:class:`Expected` is what :class:`~polars_rank._engine.keys.TieAveraged` (ranking keys,
``ties="expected"``) and :class:`~polars_rank._engine.positions.TieSpans` (``rank=(first,
last)``) share: sums over ranks and the first hit from each row's tie span
(:meth:`~polars_rank._engine.ranked.Ranked.bounds`), without sorting a list. A kernel
with a closed form of its own under ``"expected"`` registers it for this class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.ranked import Ranked, order_free_sum, value_term

if TYPE_CHECKING:
    from collections.abc import Callable


class Expected(Ranked):
    """A ranked list whose tied rows are averaged over: each row has a tie span."""

    def rank_sum(self, values: pl.Expr, k: int | None = None,
                 term: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None,
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None) -> pl.Expr:
        """:meth:`Ranked.rank_sum`, the exact mean over tie orders, without a sort.

        Each row of a tie group holding ranks lo..hi is at each of them with
        probability 1/(hi - lo + 1), so it contributes its value times the mean of
        ``term(1, p)`` over lo..hi: ``term_sum(lo, hi)`` when the sum has a closed
        form (empty when hi < lo), else prefix sums of the terms over the ranks.
        """
        apply = term if term is not None else value_term
        lo, hi = self.bounds()
        n_ret = self.n_retrieved().cast(pl.Int64)
        limit = n_ret if k is None else pl.min_horizontal(n_ret, pl.lit(k, pl.Int64))
        if term_sum is not None:
            last = pl.min_horizontal(hi, limit)
            total = pl.when(last >= lo).then(term_sum(lo, last)).otherwise(0.0)
        else:
            table = self.prefix_sums(lambda p: apply(pl.lit(1.0), p), limit)
            total = table.gather(hi) - table.gather(lo - 1)
        mean_term = total / (hi - lo + 1).cast(pl.Float64)
        return order_free_sum((values * mean_term).fill_null(0.0))

    def prefix_sums(self, term: Callable[[pl.Expr], pl.Expr], limit: pl.Expr) -> pl.Expr:
        """[0, t(1), t(1) + t(2), ...]: prefix sums of ``term`` over the ranks 1..n.

        Each term is 0 past ``limit``; gathering two of them sums a block of ranks.
        """
        ranks = pl.int_range(1, self.n_retrieved() + 1, dtype=pl.Int64)
        terms = pl.when(ranks <= limit).then(term(ranks)).otherwise(0.0)
        return pl.lit(0.0).append(terms.cum_sum())

    def first_hit(self, indicator: pl.Expr, k: int | None,
                  weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """:meth:`Ranked.first_hit`: only the first tie group holding a hit matters.

        With n rows and m hits, ranks lo..hi, the first hit is at slot j with
        probability m / (n - j + 1) * prod_(t<j) (n - m - t + 1) / (n - t + 1) (drawing
        without replacement), j = 1..n - m + 1.
        """
        return first_hit_chance(*self.first_hit_group(indicator > 0), k, weight)

    def first_hit_group(self, hit: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
        """(first rank, rows, hits) of the first tie group holding a hit; null without one."""
        lo, hi = self.bounds()
        hits = hit & lo.is_not_null()
        lo_1 = lo.filter(hits).min()
        n = (hi.filter(hits).min() - lo_1 + 1).cast(pl.Float64)
        m = (hits & (lo == lo_1)).sum().cast(pl.Float64)
        return lo_1, n, m


def first_hit_chance(lo_1: pl.Expr, n: pl.Expr, m: pl.Expr, k: int | None,
                     weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
    """E[weight(p)] over the first hit's rank p within k, its group at lo_1, n rows, m hits.

    :meth:`Expected.first_hit`'s sum over the slots of the group (0 without a hit).
    """
    slot = pl.int_range(1, (n - m + 2).fill_null(1).cast(pl.Int64), dtype=pl.Int64)
    j = slot.cast(pl.Float64)
    none_before = ((n - m - j + 1.0) / (n - j + 1.0)).cum_prod().shift(1, fill_value=1.0)
    rank = (lo_1 + slot - 1).cast(pl.Float64)
    chance = none_before * m / (n - j + 1.0) * weight(rank)
    inside = chance if k is None else pl.when(rank <= k).then(chance).otherwise(0.0)
    return group_sum(inside)
