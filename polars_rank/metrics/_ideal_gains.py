"""What trec_eval 10's gain-level measures share: a list's gains beside its ideal gains.

:mod:`polars_rank.metrics.gain_levels` (``G``, ``binG``) and
:mod:`polars_rank.metrics.ndcg_levels` (``ndcg_rel``, ``Rndcg``) read a ranked list
against its ideal gains, largest first (the former's docstring says how).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from polars_rank.metrics._dcg import row_gain

if TYPE_CHECKING:
    from collections.abc import Mapping

    from polars_rank._engine.gain_table import GainTable
    from polars_rank._engine.ranked import Ranked

__all__ = ["Walk", "no_closed_form", "table_gain"]


def table_gain(labels: pl.Expr, o: Mapping[str, Any]) -> pl.Expr:
    """A row's gain under a gain table ``o["gains"]``: ``evaluate()`` orders ties by it."""
    return row_gain(labels, gains=o["gains"])


def no_closed_form(name: str) -> str:
    """Why these metrics' specs leave out ``ties="expected"``."""
    return (f"{name} has no closed form under ties='expected' (each row's term depends on "
            "the rows ranked before it)")


class Walk:
    """A list's gains in rank order beside its ideal gains, as trec_eval walks them."""

    def __init__(self, r: Ranked, gains: GainTable | None) -> None:
        g = row_gain(r.labels, gains=gains)
        self.retrieved = r.retrieved()
        self.got = pl.when(self.retrieved).then(r.by_gain(g).ordered(g)).otherwise(0.0)
        """Gains in rank order, 0 on rows not retrieved."""
        self.rank = r.positions()
        """Ranks aligned with :attr:`got` (null or past the list: not retrieved)."""
        positive = g.filter(g > 0)
        ideal = r.prepared_ideal()
        if ideal is not None and not gains:  # the labels, sorted once for every metric
            self.ideal = row_gain(ideal).filter(row_gain(ideal) > 0)
        else:
            self.ideal = positive.sort(descending=True)
        """I_1 >= ... >= I_P."""
        # counted and summed before the sort (Ranked.ordered says why)
        self.n_ideal = positive.len()
        self.best = positive.sum()
        """I_1 + ... + I_P."""

    def at_ideal(self, prefix: pl.Expr) -> pl.Expr:
        """``prefix`` ([0, p_1, ..., p_P], over ideal positions) at each row's min(rank, P)."""
        return prefix.gather(pl.min_horizontal(self.rank, self.n_ideal))

    def dcg_terms(self) -> pl.Expr:
        """Each gain over log2(rank + 1), in rank order."""
        return self.got / (self.rank.cast(pl.Float64) + 1.0).log(2)

    @staticmethod
    def total(terms: pl.Expr) -> pl.Expr:
        """The sum of ``terms`` (in rank order) as one list's sum.

        A plain ``sum()`` adds a column's values per list with another kernel than
        a sorted list's (several partial sums), which can move the last bit: rows
        already in rank order (:class:`~polars_rank._engine.ranked.RankColumn`) and rows
        sorted here then differ. As one list, the same bits either way.
        """
        return terms.implode().list.sum()

    def ideal_dcg(self) -> pl.Expr:
        """[0, IDCG_1, ..., IDCG_P]: the ideal DCG at each ideal position."""
        ranks = pl.int_range(2, self.n_ideal + 2, dtype=pl.Int64).cast(pl.Float64)
        return pl.lit(0.0).append((self.ideal / ranks.log(2)).cum_sum())
