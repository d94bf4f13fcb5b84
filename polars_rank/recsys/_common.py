"""What the beyond-accuracy metrics share: the recommended rows of a context, per list."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.params import check_k, to_expr, to_exprs
from polars_rank._engine.sums import ordered_mean

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["only", "per_list_mean", "query_exprs", "recommended"]


def query_exprs(query: Query) -> tuple[pl.Expr, ...]:
    """``query=`` as expressions (none: the context is one list)."""
    return () if query is None else to_exprs(query, "query")


def recommended(by: IntoExpr | None, k: int | None, descending: bool,
                query: Sequence[pl.Expr] = ()) -> pl.Expr | None:
    """True on the rows within each list's top ``k`` (by ``by``), None if every row is.

    Rows tied in ``by`` with the ``k``-th are recommended too (the list runs past
    ``k``, as SQL's ``FETCH FIRST k ROWS WITH TIES``): which of them would be shown is
    not in the data, and no result may depend on the order of the rows. A null
    ``by`` is not recommended. ``by=None`` with ``k``: the first ``k`` rows of each
    list, as given. With ``query``, the lists are the query groups of the context (a
    window per list).
    """
    k = check_k(k)
    if by is None:
        if k is None:
            return None
        mask = pl.int_range(pl.len()) < k
    else:
        key = to_expr(by, "by")
        position = key.rank("min", descending=descending)  # a tied block: its first rank
        mask = position.is_not_null() if k is None else position <= k
    return mask.over(list(query)) if query else mask


def only(values: pl.Expr, mask: pl.Expr | None) -> pl.Expr:
    """``values`` on the recommended rows."""
    return values if mask is None else values.filter(mask)


def per_list_mean(value: pl.Expr, query: Sequence[pl.Expr]) -> pl.Expr:
    """``value`` (one per list) for one list, or its mean over the ``query`` lists.

    A list whose value is null (too short to have one) is left out of the mean.
    """
    if not query:
        return value.cast(pl.Float64)
    return ordered_mean(value.over(list(query), mapping_strategy="explode").cast(pl.Float64))
