"""The lists given as positions (``rank=``): a ranking step ran before, once for every metric.

:class:`Positions` reads each row's 1-based position (null: not retrieved), so most
metrics are plain sums, counts and minima of row contributions and none sorts; a list
may omit unjudged rows (they only occupy ranks), its length is its largest rank.
:class:`TieSpans` reads each row's (first, last) position, from a ranking step that
kept ties (``polars_rank.ranked(..., ties="expected")``), and averages over their
orders.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import group_sum
from polars_rank._engine.expected import Expected
from polars_rank._engine.ranked import Ranked, value_term

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


class RankColumn(str):
    """``rank=`` as :func:`polars_rank.evaluate` passes it: its judged rows' rank column.

    Private (the public ``rank=`` is a column name, an expression or a pair). Its rows
    come in rank order within each list: the retrieved ones by rank, ascending, then
    the judged rows not retrieved (:func:`polars_rank._evaluation.judged_frame.in_rank_order`),
    so a metric reads its values in rank order without sorting them (a sort per list
    and per metric: ``-m all_trec`` sorted each list about a hundred times).
    ``checked``: the data passed evaluate()'s checks (its ``validate=True``), so no list
    is unscorable and no metric tests its own list again.

    The other fields name columns computed once for every metric of the evaluation
    (:func:`polars_rank._evaluation.scoring.per_list`), from the label column
    ``labels``: a metric reading those labels reads them instead of computing each
    its own (Polars shares no sub-expression between the expressions of a
    ``group_by``): ``relevant``, per threshold, the list's relevant rows (R, on every
    row: comparing each row with a list's number costs a per-list broadcast, a row's
    own column does not); ``hits``, per threshold, the relevant retrieved rows at or
    above each row; ``precisions``, per threshold, the precision i / rank at the i-th
    relevant retrieved row (null on the others); ``precision_sums``, their sum over the
    rows at or above each row, added in rank order (trec_eval's average precision,
    m_map.c); ``ideal``, each list's labels sorted descending,
    unjudged last (the ideal ranking's labels, row by row); ``longest``, the length of
    the longest list (a table of powers p^0..p^longest, built once, serves them all).
    """

    checked: bool
    labels: str | None
    relevant: Mapping[float, str]
    hits: Mapping[float, str]
    precisions: Mapping[float, str]
    precision_sums: Mapping[float, str]
    ideal: str | None
    longest: int | None

    def __new__(cls, name: str, *, checked: bool, labels: str | None = None,
                relevant: Mapping[float, str] | None = None,
                hits: Mapping[float, str] | None = None,
                precisions: Mapping[float, str] | None = None,
                precision_sums: Mapping[float, str] | None = None,
                ideal: str | None = None, longest: int | None = None) -> RankColumn:
        out = super().__new__(cls, name)
        out.checked = checked
        out.labels = labels
        out.relevant = dict(relevant or {})
        out.hits = dict(hits or {})
        out.precisions = dict(precisions or {})
        out.precision_sums = dict(precision_sums or {})
        out.ideal = ideal
        out.longest = longest
        return out


@dataclass(frozen=True, kw_only=True)
class Positions(Ranked):
    """Rows at given positions: no ties (the ranking step decided them)."""

    rank: pl.Expr
    """Each row's 1-based position (null = not retrieved); with :attr:`rank_last`, the
    first position of the row's tie group."""
    rank_last: pl.Expr | None = None
    """The last position of the row's tie group (:class:`TieSpans`; kept when a tie
    span is read as its first position, ``retied(r, "first")``)."""
    rank_ordered: bool = False
    """The rows come in rank order, the ones not retrieved last (:class:`RankColumn`):
    values are in rank order as they are."""
    prepared: RankColumn | None = None
    """Columns computed for every metric from these labels (:class:`RankColumn`)."""
    longest: int | None = None
    """No list is longer (:class:`RankColumn`); None: not known."""

    def n_retrieved(self) -> pl.Expr:
        """The largest rank."""
        return self.bounds()[1].max().fill_null(0)

    def _row_flags(self) -> tuple[pl.Expr, ...]:
        """Positions are whole numbers >= 1 (null: not retrieved); a span ends after it starts."""
        first = self.rank.cast(pl.Float64)
        if self.rank_last is None:
            return first < 1, first != first.floor()
        return first < 1, first != first.floor(), self.rank_last.cast(pl.Float64) < first

    def _list_flags(self) -> tuple[pl.Expr, ...]:
        """Distinct positions 1..n: at least as large a largest one as there are positions.

        Catches dense ranks; rank("ordinal") and ranked() give distinct ones.
        is_not_null().sum(), not count(): in a group_by, Polars 1.36 counts the nulls
        of a rank() result too (judged_only re-ranks with one).
        """
        if self.rank_last is not None:
            return ()
        return (self.rank.max() < self.rank.is_not_null().sum(),)

    def bounds(self) -> tuple[pl.Expr, pl.Expr]:
        """(rank, rank): no ties; (first, last) with a tie span."""
        last = self.rank if self.rank_last is None else self.rank_last
        return self.rank.cast(pl.Int64), last.cast(pl.Int64)

    def ordered(self, values: pl.Expr, k: int | None = None) -> pl.Expr:
        """Every row in rank order (ranks need not be contiguous): :meth:`retrieved` masks."""
        return self.in_rank_order(values)

    def in_rank_order(self, values: pl.Expr, ranks: pl.Expr | None = None) -> pl.Expr:
        """``values`` sorted by rank, the rows not retrieved last.

        ``ranks``: the ranks of ``values`` when they are some of the rows (filtered).
        """
        if self.rank_ordered:
            return values
        by = self.rank if ranks is None else ranks
        return values.sort_by(by, nulls_last=True, maintain_order=True)

    def sorted_ranks(self, ranks: pl.Expr) -> pl.Expr:
        """``ranks`` (the rank column, or part of it filtered) ascending, nulls last."""
        return ranks if self.rank_ordered else ranks.sort(nulls_last=True)

    def within(self, k: int | None) -> pl.Expr:
        """True on the rows retrieved within k, in input order."""
        return self.rank.is_not_null() if k is None else self.rank <= k

    def positions(self, k: int | None = None) -> pl.Expr:
        """The ranks, ascending (null on rows not retrieved)."""
        return self.sorted_ranks(self.rank).cast(pl.Int64)

    def retrieved(self, k: int | None = None) -> pl.Expr:
        """Rows with a rank, within k."""
        ranks = self.positions()
        inside = ranks.is_not_null()
        return inside if k is None else inside & (ranks <= k)

    def rank_sum(self, values: pl.Expr, k: int | None = None,
                 term: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None,
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None) -> pl.Expr:
        """Each row's term where its rank is within k: no sort."""
        apply = term if term is not None else value_term
        return group_sum(pl.when(self.within(k)).then(apply(values, self.rank)).otherwise(0.0))

    def first_hit(self, indicator: pl.Expr, k: int | None,
                  weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """The smallest rank of a hit."""
        first = pl.when((indicator > 0) & self.within(k)).then(self.rank).min()
        return weight(first.cast(pl.Float64)).fill_null(0.0)

    def _prepared_column(self, kind: str, threshold: float) -> pl.Expr | None:
        """The :class:`RankColumn` column ``kind`` at ``threshold``, when computed."""
        if self.prepared is None:
            return None
        column = getattr(self.prepared, kind).get(threshold)
        return None if column is None else pl.col(column)

    def prepared_ideal(self) -> pl.Expr | None:
        """The list's labels sorted descending (unjudged last), when computed."""
        if self.prepared is None or self.prepared.ideal is None:
            return None
        return pl.col(self.prepared.ideal).cast(pl.Float64)


@dataclass(frozen=True, kw_only=True)
class TieSpans(Expected, Positions):
    """Rows at given tie spans (first, last): averaged over the orders of each span."""

    rank_last: pl.Expr
