"""Two rankings read flat: per-row expressions and per-query sums, no per-list evaluation.

With ``query=``, a measure written in closed form over the rows (RBO, average overlap,
Jaccard, overlap) needs only each row's positions (a rank over the query's window) and
sums over the query's rows (window sums, which Polars computes for all queries at once),
instead of evaluating a whole expression once per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.params import to_exprs
from polars_rank._engine.summaries import summarize
from polars_rank.agreement._rankings.lists import MAX_ITEMS, Pair

if TYPE_CHECKING:
    from polars_rank._engine.params import Query

__all__ = ["Scope", "scope_of"]

_NAN = float("nan")
_HIGH = float(1 << 24)
_LOW = float(1 << 36)


@dataclass(frozen=True)
class Scope:
    """The lists of a context: one (no ``query``), or one per query (window expressions)."""

    keys: tuple[pl.Expr, ...]

    def total(self, agg: pl.Expr) -> pl.Expr:
        """An aggregation per list: a scalar, or its query's value on each row."""
        return agg.over(list(self.keys)) if self.keys else agg

    def rows(self, expr: pl.Expr) -> pl.Expr:
        """A per-row expression that reads the whole list (a rank) within its list."""
        return expr.over(list(self.keys)) if self.keys else expr

    def count(self, mask: pl.Expr) -> pl.Expr:
        """How many rows of the list ``mask`` holds, Int64.

        Not ``count()``: Polars 1.36 counted the nulls of a rank column in a group_by
        (tests/test_workarounds.py).
        """
        return self.total(mask.fill_null(False).sum()).cast(pl.Int64)

    def exact_sum(self, values: pl.Expr) -> pl.Expr:
        """Sum per list of values in [0, 2**39), the same bits for any row order.

        Each value is split into two integers (its multiples of 2**-24 and the rest in
        units of 2**-60), which add exactly in any order; one rounding at the end.
        """
        scaled = values.fill_null(0.0) * _HIGH
        high = scaled.floor()
        low = ((scaled - high) * _LOW).round()
        total_high = self.total(high.cast(pl.Int64).sum()).cast(pl.Float64)
        total_low = self.total(low.cast(pl.Int64).sum()).cast(pl.Float64)
        return (total_high + total_low / _LOW) / _HIGH

    def positions(self, pair: Pair, key: pl.Expr) -> pl.Expr:
        """1-based position of each row in the ranking by ``key``, ties by ``doc``.

        Null where ``key`` is null.
        """
        forward = key.cast(pl.Float64)
        forward = -forward if pair.descending else forward
        if pair.doc is None:
            rank = forward.rank("ordinal")
        else:  # one struct key: a sort by several keys was wrong on Polars 1.36 in a window
            rank = pl.struct(key.is_null().alias("absent"), forward.alias("key"),
                             pair.doc.alias("doc")).rank("ordinal")
        return pl.when(key.is_not_null()).then(self.rows(rank).cast(pl.Int64))

    def bad(self, pair: Pair) -> pl.Expr:
        """NaN keys, a list longer than MAX_ITEMS, or equal keys without ``doc``."""
        flag = pl.lit(False)
        for key in (pair.a, pair.b):
            present = self.count(key.is_not_null())
            flag = flag | (self.count(key.cast(pl.Float64).is_nan()) > 0) | (present > MAX_ITEMS)
            if pair.doc is None:
                flag = flag | (present > self.total(key.drop_nulls().n_unique()))
        return flag

    def finish(self, value: pl.Expr, bad: pl.Expr) -> pl.Expr:
        """NaN for a bad list; with queries, the mean over them (each once, order-free)."""
        out = pl.when(bad).then(pl.lit(_NAN)).otherwise(value.cast(pl.Float64))
        if not self.keys:
            return out
        first = (self.keys[0] if len(self.keys) == 1 else pl.struct(*self.keys)).is_first_distinct()
        return summarize(out.filter(first), "mean")


def scope_of(query: Query) -> Scope:
    """The scope of a measure called with ``query=`` (validated)."""
    return Scope(() if query is None else to_exprs(query, "query"))
