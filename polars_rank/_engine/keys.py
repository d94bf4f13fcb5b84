"""The lists ranked by sort keys (``by=``): each metric sorts or ranks its list itself.

:class:`SortKeys` orders the tied rows as its tie policy says (the row order,
trec_eval's doc ids, the best or the worst order of the labels); :class:`TieAveraged`
averages over every order of them (``ties="expected"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import TOP_ROWS, group_sum
from polars_rank._engine.expected import Expected, first_hit_chance
from polars_rank._engine.ranked import Ranked, order_free_sum, value_term
from polars_rank._engine.sort_keys import LABEL_TIES, rank_key, sort_by

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass(frozen=True, kw_only=True)
class SortKeys(Ranked):
    """Rows ranked by keys; equal keys in the order of the tie policy."""

    keys: tuple[pl.Expr, ...] = ()
    """Ranking keys, the first decides retrieval (null = not retrieved); empty = the
    row order (``by=None``)."""
    descending: tuple[bool, ...] = ()
    columns_only: bool = False
    """The labels, keys and doc ids are plain columns (see :meth:`ordered`)."""

    def n_retrieved(self) -> pl.Expr:
        """The rows with a first key (every row without keys)."""
        # is_not_null().sum(), not count(): Polars 1.36 counts the nulls of a per-list
        # key in a group_by (by=pl.col("s").rank(); the canary in Ranked.bad)
        return self.keys[0].is_not_null().sum() if self.keys else pl.len()

    def bounds(self) -> tuple[pl.Expr, pl.Expr]:
        """Each row's tie span among the keys."""
        key, down = rank_key(list(self.keys), list(self.descending))
        lo = self._retrieved_only(key.rank("min", descending=down).cast(pl.Int64))
        hi = self._retrieved_only(key.rank("max", descending=down).cast(pl.Int64))
        return lo, hi

    def _retrieved_only(self, ranks: pl.Expr) -> pl.Expr:
        """``ranks`` where the first key is not null (a struct key ranks null rows too)."""
        if len(self.keys) == 1:
            return ranks  # a single key's rank is null where the key is
        return pl.when(self.keys[0].is_not_null()).then(ranks)

    def ordered(self, values: pl.Expr, k: int | None = None) -> pl.Expr:
        """``values`` sorted by the keys (then by the tie policy), cut at ``k``."""
        out = values
        if self.keys:
            keys = list(self.keys)
            desc = list(self.descending)
            if self.ties in LABEL_TIES:
                keys.append(self.relevance_order())
                desc.append(self.ties == "optimistic")
            out = sort_by(values, keys, desc)
        if k is None:
            return out
        # head(k) lets Polars sort only the first k (a "limit" in the plan; without it
        # a five-metric group_by took longer: docs/performance.md). Polars 2.1 panics on
        # that sort in a group_by or window, or gets it wrong, when a key or the values
        # are per-list expressions (by=pl.col("s").rank(), or s - s.mean()): those take
        # head(min(n, k)), the same rows without the limit (the canary
        # test_a_limited_sort_by_a_rank_in_a_group_by_still_goes_wrong tells when not needed)
        return out.head(k) if self.columns_only else out.head(self.depth(k))

    def positions(self, k: int | None = None) -> pl.Expr:
        """1..min(n, k)."""
        return self.ideal_positions(k)

    def retrieved(self, k: int | None = None) -> pl.Expr:
        """The first min(n, k) positions that hold a retrieved row."""
        return self.positions(k) <= self.n_retrieved()

    def rank_sum(self, values: pl.Expr, k: int | None = None,
                 term: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None,
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None) -> pl.Expr:
        """The terms of the sorted values at their positions."""
        apply = term if term is not None else value_term
        ranked = pl.when(self.retrieved(k)).then(self.ordered(values, k)).otherwise(0.0)
        return group_sum(apply(ranked, self.positions(k)).fill_null(0.0))

    def first_hit(self, indicator: pl.Expr, k: int | None,
                  weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """The smallest position of a hit."""
        shown = pl.when(self.retrieved(k)).then(self.ordered(indicator, k))
        first = pl.when(shown > 0).then(self.positions(k)).min()
        return weight(first.cast(pl.Float64)).fill_null(0.0)


@dataclass(frozen=True, kw_only=True)
class TieAveraged(Expected, SortKeys):
    """Rows ranked by keys, averaged over every order of the rows with equal keys."""

    def top_rows_apply(self) -> bool:
        """One ranking key: :meth:`top_rows` can cut the list at k."""
        return TOP_ROWS and len(self.keys) == 1

    def top_rows(self, k: int, **fields: pl.Expr) -> pl.Expr:
        """The rows whose key is at least the k-th best, as one list of structs per list.

        One key. Those rows are every tie group holding a rank <= k (the group at rank
        k whole, however far it reaches past k), and each keeps its tie bounds when
        ranked among them alone: they are the rows ranked above any of them. The k-th
        best key is a ``top_k`` (a selection, no sort); a list without a retrieved row
        has none. ``fields``: the struct's fields besides ``key``. Ranking these few
        rows in a ``list.eval`` replaces two ``rank()`` of the whole list (the card's
        nDCG@10 with ``ties="expected"``: 4.2x ``"first"`` -> 1.9x at 1M rows,
        docs/performance.md).
        """
        key, down = self.keys[0], self.descending[0]
        kth = key.top_k(k).min() if down else key.bottom_k(k).max()  # nulls left out
        inside = key >= kth if down else key <= kth
        return pl.struct(key.alias("key"), *(e.alias(n) for n, e in fields.items())).filter(
            inside).implode()

    def rank_sum(self, values: pl.Expr, k: int | None = None,
                 term: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None,
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None = None) -> pl.Expr:
        """Within k and one key, over :meth:`top_rows`; else from every row's tie span."""
        if k is not None and self.top_rows_apply():
            apply = term if term is not None else value_term
            top = self._top_sum(values, k, apply, term_sum)
            if top is not None:
                return top
        return super().rank_sum(values, k, term, term_sum)

    def _top_sum(self, values: pl.Expr, k: int,
                 apply: Callable[[pl.Expr, pl.Expr], pl.Expr],
                 term_sum: Callable[[pl.Expr, pl.Expr], pl.Expr] | None) -> pl.Expr | None:
        """:meth:`rank_sum` within k over :meth:`top_rows`.

        The same terms as over the whole list (the rows past them add zeros, and the
        sum of a sorted list adds its values in order, so leaving zeros out changes
        no bit); the prefix sums of the terms over the ranks 1..k are a literal, built
        here as the whole list's would be. None when ``apply`` reads a column.
        """
        if term_sum is None:
            ranks = pl.int_range(1, k + 1, dtype=pl.Int64)
            try:
                table = pl.select(pl.lit(0.0).append(
                    pl.when(ranks <= k).then(apply(pl.lit(1.0), ranks)).otherwise(0.0)
                    .cum_sum())).to_series()
            except pl.exceptions.PolarsError:  # a term of a column: each list's own
                return None
        down = self.descending[0]
        key, value = pl.element().struct.field("key"), pl.element().struct.field("value")
        lo = key.rank("min", descending=down).cast(pl.Int64)
        hi = key.rank("max", descending=down).cast(pl.Int64)
        last = pl.min_horizontal(hi, pl.lit(k, pl.Int64))  # hi <= the list's length
        if term_sum is not None:
            total = pl.when(last >= lo).then(term_sum(lo, last)).otherwise(0.0)
        else:
            total = pl.lit(table).gather(last) - pl.lit(table).gather(lo - 1)  # lo <= k
        mean_term = total / (hi - lo + 1).cast(pl.Float64)
        summed = order_free_sum((value * mean_term).fill_null(0.0))
        return self.top_rows(k, value=values).list.eval(summed).list.first().fill_null(0.0)

    def first_hit(self, indicator: pl.Expr, k: int | None,
                  weight: Callable[[pl.Expr], pl.Expr]) -> pl.Expr:
        """Within k and one key, the first group holding a hit lies among the top rows."""
        if k is None or not self.top_rows_apply():
            return super().first_hit(indicator, k, weight)
        down = self.descending[0]
        key = pl.element().struct.field("key")
        hits = pl.element().struct.field("hit") > 0
        # the counts first, as one list each (read many times below: bound once)
        counts = pl.concat_list([c.cast(pl.Float64) for c in
                                 first_hit_counts(key, down, hits)])
        lo_1, n, m = (pl.element().get(i) for i in range(3))
        chance = first_hit_chance(lo_1.cast(pl.Int64), n, m, k, weight)
        hit = (indicator > 0).cast(pl.Float64)
        return (self.top_rows(k, hit=hit).list.eval(counts)
                .list.first().list.eval(chance).list.first().fill_null(0.0))

    def first_hit_group(self, hit: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
        """One ranking key: read from counts against the best score of a hit.

        Rows above it, rows equal to it, with no rank per row: two ``rank()`` per list
        made ``mrr@10`` under ``ties="expected"`` about 100x ``"first"``
        (docs/performance.md).
        """
        if len(self.keys) != 1:
            return super().first_hit_group(hit)
        key = self.keys[0]
        return first_hit_counts(key, self.descending[0], hit & key.is_not_null())


def first_hit_counts(key: pl.Expr, down: bool,
                     hits: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """(first rank, rows, hits) of the first tie group of ``key`` holding a hit.

    Read from counts against the best key of a hit (rows above it, rows equal to it):
    no rank per row. Null without a hit. ``hits``: true on the retrieved hits.
    """
    shown = key.filter(hits)
    best = shown.max() if down else shown.min()  # the score of the first hit
    above = ((key > best) if down else (key < best)).sum()
    lo_1 = pl.when(best.is_not_null()).then(above + 1).cast(pl.Int64)
    n = pl.when(best.is_not_null()).then((key == best).sum()).cast(pl.Float64)
    m = (hits & (key == best)).sum().cast(pl.Float64)
    return lo_1, n, m
