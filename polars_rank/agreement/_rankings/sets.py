"""Set overlap of two top-k lists: Jaccard@k and overlap@k."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.params import check_k
from polars_rank.agreement._rankings.lists import pair_of, per_query

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["jaccard", "overlap"]


def _tops(a: IntoExpr, b: IntoExpr, k: int | None, descending: bool,
          doc: IntoExpr | None) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    pair = pair_of(a, b, descending, doc)
    pa, pb = pair.positions(pair.a), pair.positions(pair.b)
    in_a = pa.is_not_null() if k is None else (pa <= k).fill_null(False)
    in_b = pb.is_not_null() if k is None else (pb <= k).fill_null(False)
    return in_a, in_b, pair.bad()


def jaccard(
    a: IntoExpr,
    b: IntoExpr,
    k: int | None = None,
    *,
    descending: bool = False,
    doc: IntoExpr | None = None,
    query: Query = None,
) -> pl.Expr:
    r"""Jaccard similarity of the two top-k sets.

    .. math:: J@k = \frac{|A_{:k} \cap B_{:k}|}{|A_{:k} \cup B_{:k}|}

    1 when both are empty.

    Parameters
    ----------
    a, b
        The two rankings (positions, or scores with ``descending=True``); null = absent.
    k
        Cutoff (``None``: the whole rankings).
    descending
        ``True`` when ``a`` and ``b`` are scores, highest first.
    doc
        Document id ordering equal keys (ascending); without it, ties give NaN.
    query
        Column(s) identifying a query: the mean over queries.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import jaccard
    >>> df = pl.DataFrame({"a": [1, 2, 3, None], "b": [None, 1, 2, 3]})
    >>> df.select(jaccard("a", "b", 2)).item()
    0.3333333333333333
    """
    depth = check_k(k)
    in_a, in_b, bad = _tops(a, b, depth, descending, doc)
    union = (in_a | in_b).sum()
    value = pl.when(union > 0).then((in_a & in_b).sum() / union).otherwise(1.0)
    name = "jaccard" if depth is None else f"jaccard@{depth}"
    return per_query(value, bad, query).alias(name)


def overlap(
    a: IntoExpr,
    b: IntoExpr,
    k: int,
    *,
    descending: bool = False,
    doc: IntoExpr | None = None,
    query: Query = None,
) -> pl.Expr:
    r"""Overlap at k: the share of k that the two top-k sets have in common.

    .. math:: O@k = \frac{|A_{:k} \cap B_{:k}|}{k}

    (divided by k even when a ranking is shorter, as precision@k).

    Parameters
    ----------
    a, b
        The two rankings (positions, or scores with ``descending=True``); null = absent.
    k
        Cutoff, a positive int.
    descending
        ``True`` when ``a`` and ``b`` are scores, highest first.
    doc
        Document id ordering equal keys (ascending); without it, ties give NaN.
    query
        Column(s) identifying a query: the mean over queries.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import overlap
    >>> df = pl.DataFrame({"a": [1, 2, 3, None], "b": [None, 1, 2, 3]})
    >>> df.select(overlap("a", "b", 2)).item()
    0.5
    """
    depth = check_k(k)
    if depth is None:
        msg = "overlap needs k, a positive int (the cutoff it divides by), got None"
        raise ValueError(msg)
    in_a, in_b, bad = _tops(a, b, depth, descending, doc)
    value = (in_a & in_b).sum().cast(pl.Float64) / depth
    return per_query(value, bad, query).alias(f"overlap@{depth}")
