"""Two rankings of one list as Polars expressions: positions, common items, dominance counts.

Every expression here treats its context (a ``group_by`` group, a window partition or the
whole frame) as the rows of one query: one row per item, two ranking keys, a null key
meaning the item is not in that ranking.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.column_types import checked_ranking
from polars_rank._engine.compat import nonempty
from polars_rank._engine.params import to_expr, to_exprs
from polars_rank._engine.summaries import summarize

if TYPE_CHECKING:
    from collections.abc import Callable

    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["LEVELS", "MAX_ITEMS", "WIDTH", "Pair", "check_bool", "dominated", "on_codes", "pair_of",
           "per_query"]

LEVELS = 12
"""Bits of a position read by :func:`dominated`: rankings of up to 2**12 = 4,096 items.

Each bit costs a sort per list (docs/performance.md); a longer ranking gives NaN.
"""

MAX_ITEMS = 1 << LEVELS

_NAN = float("nan")


def check_bool(value: object, name: str) -> bool:
    """Return ``value`` if it is a bool, else raise ``TypeError`` naming ``name``."""
    if not isinstance(value, bool):
        msg = f"{name} must be True or False, got {value!r}"
        raise TypeError(msg)
    return value


@dataclass(frozen=True)
class Pair:
    """Two rankings of the items of one context: their keys and tie-breaking document id.

    ``a`` and ``b`` are rank positions (``descending=False``: 1 first) or scores
    (``descending=True``: highest first); null means the item is not in that ranking.
    """

    a: pl.Expr
    b: pl.Expr
    descending: bool
    doc: pl.Expr | None

    def positions(self, key: pl.Expr) -> pl.Expr:
        """1-based position of each row in the ranking by ``key``; null where ``key`` is null.

        Equal keys are ordered by ``doc`` (ascending); without ``doc`` the order
        among them is arbitrary, and :meth:`tied` flags the list.
        """
        # one struct key: Polars 1.36 sorted by a list of keys wrongly in a group_by or
        # window of non-contiguous rows (tests/test_workarounds.py), and did not honour
        # nulls_last there; absent rows go last by the first field. The key as it is,
        # not as Float64 (integers past 2^53 collapsed into ties nobody saw: RBO 1.0 for
        # reversed lists); descending sorts the struct descending, the documents by
        # their rank from the last, so that equal keys still go in document order
        desc = self.descending
        fields = [(key.is_not_null() if desc else key.is_null()).alias("absent"),
                  key.alias("key")]
        if self.doc is not None:
            fields.append((self.doc.rank("dense", descending=True) if desc else self.doc)
                          .alias("doc"))
        place = pl.struct(fields).arg_sort(descending=desc).arg_sort().cast(pl.Int64) + 1
        return pl.when(key.is_not_null()).then(place)

    def tied(self) -> pl.Expr:
        """True if, without ``doc``, a ranking holds equal keys (its order is undefined)."""
        if self.doc is not None:
            return pl.lit(False)
        return (_tie_count(self.a) + _tie_count(self.b)) > 0

    def bad(self) -> pl.Expr:
        """True for a list no value can be given: NaN keys, or ties without ``doc``."""
        nan = (_float(self.a).is_nan().sum() + _float(self.b).is_nan().sum()) > 0
        long = pl.len() > MAX_ITEMS
        return nan | long | self.tied()


def _float(key: pl.Expr) -> pl.Expr:
    return key.cast(pl.Float64)


def _tie_count(key: pl.Expr) -> pl.Expr:
    present = key.drop_nulls()
    return present.len() - present.n_unique()


def pair_of(a: IntoExpr, b: IntoExpr, descending: object, doc: IntoExpr | None) -> Pair:
    """Validate the parameters shared by every two-ranking expression."""
    # text ranks alphabetically ("10" before "9"): refused when the plan is resolved
    return Pair(a=checked_ranking(to_expr(a, "a"), "a"), b=checked_ranking(to_expr(b, "b"), "b"),
                descending=check_bool(descending, "descending"),
                doc=None if doc is None else to_expr(doc, "doc"))


WIDTH = MAX_ITEMS + 1
"""The base of the codes ``x * WIDTH + y`` of :func:`on_codes` (x, y < WIDTH)."""


def on_codes(x: pl.Expr, y: pl.Expr, body: Callable[[pl.Expr, pl.Expr], pl.Expr]) -> pl.Expr:
    """``body(x, y)`` evaluated once on the list's (x, y) pairs, sorted.

    An expression has no variables: each use of ``x`` in ``body`` would compute it
    again (a sort for a rank), and ``body`` reads it dozens of times. The pairs are
    coded as one integer each, sorted (so that sums of floats add in one order, the
    same for any row order), gathered into one list, and ``body`` runs inside
    ``list.eval``, where its inputs are columns computed once.
    """
    codes = (x.cast(pl.Int64) * WIDTH + y.cast(pl.Int64)).sort().implode()
    # a list with no pair (no common item) becomes [0], one pair: every body gives NaN
    # for fewer than two items (compat.nonempty: Polars 1.36's empty-list aggregates)
    codes = nonempty(codes, pl.lit([0], pl.List(pl.Int64)))
    e = pl.element()
    return codes.list.eval(body(e // WIDTH, e % WIDTH)).list.first()


def dominated(x: pl.Expr, y: pl.Expr) -> pl.Expr:
    """Per row i: how many rows j have ``x_j < x_i`` and ``y_j < y_i``.

    ``x`` holds integers in [0, 2**LEVELS), ``y`` integers in [1, WIDTH). The range
    [0, x_i) is cut into dyadic blocks, one per set bit of x_i; at level L the rows of
    the block are those with ``x_j >> L == (x_i >> L) - 1``, and the ones among them
    with ``y_j < y_i`` are counted by two binary searches in the sorted codes
    ``(x_j >> L) * WIDTH + y_j``: O(n log^2 n) per list, no pair is built.
    """
    total = pl.lit(0, dtype=pl.Int64)
    for level in range(LEVELS):
        high = x // (1 << level)
        codes = (high * WIDTH + y).sort()
        block = (high - 1) * WIDTH
        found = (codes.search_sorted(block + y, side="left").cast(pl.Int64)
                 - codes.search_sorted(block, side="left").cast(pl.Int64))
        total = total + pl.when(high % 2 == 1).then(found).otherwise(0)
    return total


def per_query(value: pl.Expr, bad: pl.Expr, query: Query) -> pl.Expr:
    """NaN for a bad list; with ``query=``, the mean over queries of the per-query values."""
    out = pl.when(bad).then(pl.lit(_NAN)).otherwise(value.cast(pl.Float64))
    if query is None:
        return out
    keys = list(to_exprs(query, "query"))
    # the values sorted before they are added: the same bits for any row order
    return summarize(out.over(keys, mapping_strategy="explode"), "mean")
