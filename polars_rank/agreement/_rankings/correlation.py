"""Rank correlations of two rankings over the items both hold: Kendall's tau_b, tau_AP, Spearman.

Pairs are counted without building them: :func:`~polars_rank.agreement._rankings.lists.dominated`
counts, for each item, the items above it in both rankings in O(n log^2 n).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.sums import ordered_sum
from polars_rank.agreement._rankings.lists import (
    MAX_ITEMS,
    WIDTH,
    check_bool,
    dominated,
    on_codes,
    pair_of,
    per_query,
)

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["kendall_tau", "spearman_rho", "tau_ap"]

_F = pl.Float64


def _common(a: pl.Expr, b: pl.Expr) -> tuple[pl.Expr, pl.Expr]:
    both = a.is_not_null() & b.is_not_null()
    return a.filter(both), b.filter(both)


def kendall_tau(
    a: IntoExpr,
    b: IntoExpr,
    *,
    query: Query = None,
) -> pl.Expr:
    r"""Kendall's tau_b between two rankings, over the items both hold.

    .. math:: \tau_b = \frac{n_c - n_d}{\sqrt{(n_0 - n_1)(n_0 - n_2)}}

    n_c and n_d the concordant and discordant pairs, n_0 = n(n-1)/2, n_1 and n_2 the
    pairs tied in ``a`` and in ``b`` (Kendall 1945; ``scipy.stats.kendalltau``'s
    default). The sign does not depend on the direction, so ranks and scores mix
    only if both run the same way. NaN with fewer than two common items or a ranking
    constant on them, as SciPy.

    Parameters
    ----------
    a, b
        Rank positions or scores; null = not in that ranking (left out).
    query
        Column(s) identifying a query: the mean over queries, each weighted once.

    Returns
    -------
    pl.Expr
        Float64 in [-1, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import kendall_tau
    >>> df = pl.DataFrame({"a": [1, 2, 3, 4], "b": [1, 3, 2, 4]})
    >>> round(df.select(kendall_tau("a", "b")).item(), 6)
    0.666667
    """
    pair = pair_of(a, b, False, None)
    xa, xb = _common(pair.a, pair.b)
    value = on_codes(xa.rank("dense").cast(pl.Int64) - 1, xb.rank("dense").cast(pl.Int64),
                     _tau_b)
    bad = ((xa.cast(_F).is_nan().sum() + xb.cast(_F).is_nan().sum()) > 0) \
        | (xa.len() > MAX_ITEMS)
    return per_query(value, bad, query).alias("kendall_tau")


def _tau_b(ra: pl.Expr, rb: pl.Expr) -> pl.Expr:
    """tau_b of dense ranks ``ra`` (from 0) and ``rb`` (from 1), columns computed once."""
    n = ra.len().cast(pl.Int64)
    below_both = dominated(ra, rb)  # a_j < a_i and b_j < b_i
    below_a = ra.rank("min").cast(pl.Int64) - 1  # a_j < a_i
    codes = (rb * WIDTH + ra).sort()
    level_b = (codes.search_sorted(rb * WIDTH + ra, side="left").cast(pl.Int64)
               - codes.search_sorted(rb * WIDTH, side="left").cast(pl.Int64))  # b_j == b_i
    above_b = below_a - below_both - level_b  # a_j < a_i and b_j > b_i
    score = (below_both - above_b).sum().cast(_F)
    n0 = (n * (n - 1)).cast(_F) / 2
    n1 = (ra.rank("max") - ra.rank("min")).sum().cast(_F) / 2
    n2 = (rb.rank("max") - rb.rank("min")).sum().cast(_F) / 2
    den = ((n0 - n1) * (n0 - n2)).sqrt()
    return pl.when(den > 0).then(score / den).otherwise(pl.lit(float("nan")))


def spearman_rho(
    a: IntoExpr,
    b: IntoExpr,
    *,
    query: Query = None,
) -> pl.Expr:
    r"""Spearman's rho between two rankings, over the items both hold.

    The Pearson correlation of the two columns' ranks, equal values taking the mean
    of their ranks (``scipy.stats.spearmanr``):

    .. math:: \rho = \frac{\mathrm{cov}(R_a, R_b)}{\sigma_{R_a} \sigma_{R_b}}

    NaN with fewer than two common items or a constant ranking.

    Parameters
    ----------
    a, b
        Rank positions or scores; null = not in that ranking (left out).
    query
        Column(s) identifying a query: the mean over queries.

    Returns
    -------
    pl.Expr
        Float64 in [-1, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import spearman_rho
    >>> df = pl.DataFrame({"a": [1, 2, 3, 4], "b": [1, 3, 2, 4]})
    >>> df.select(spearman_rho("a", "b")).item()
    0.8
    """
    pair = pair_of(a, b, False, None)
    xa, xb = _common(pair.a, pair.b)
    ra, rb = xa.rank("average").cast(_F), xb.rank("average").cast(_F)
    da, db = ra - ra.mean(), rb - rb.mean()
    den = (ordered_sum(da * da) * ordered_sum(db * db)).sqrt()
    value = pl.when(den > 0).then(ordered_sum(da * db) / den).otherwise(pl.lit(float("nan")))
    bad = (xa.cast(_F).is_nan().sum() + xb.cast(_F).is_nan().sum()) > 0
    return per_query(value, bad, query).alias("spearman_rho")


def tau_ap(
    a: IntoExpr,
    b: IntoExpr,
    *,
    descending: bool = False,
    doc: IntoExpr | None = None,
    symmetric: bool = False,
    query: Query = None,
) -> pl.Expr:
    r"""AP rank correlation tau_AP of ranking ``b`` against the reference ``a``.

    .. math:: \tau_{AP} = \frac{2}{n-1} \sum_{i=2}^{n} \frac{C(i)}{i-1} - 1

    i the positions of ``b`` over the n items both rankings hold, C(i) the items
    above position i in ``b`` that ``a`` also puts above it (Yilmaz, Aslam &
    Robertson, "A new rank correlation coefficient for information retrieval",
    SIGIR 2008). Asymmetric: a swap near the top of ``b`` costs more.
    ``symmetric=True`` gives the mean of both directions (their Section 3).
    NaN with fewer than two common items.

    Parameters
    ----------
    a
        The reference ranking (positions, or scores with ``descending=True``).
    b
        The ranking compared with it.
    descending
        ``True`` when ``a`` and ``b`` are scores, highest first.
    doc
        Document id ordering equal keys (ascending); without it, ties give NaN.
    symmetric
        The mean of tau_AP(a, b) and tau_AP(b, a).
    query
        Column(s) identifying a query: the mean over queries.

    Returns
    -------
    pl.Expr
        Float64 in [-1, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import tau_ap
    >>> df = pl.DataFrame({"a": [1, 2, 3, 4], "b": [2, 1, 3, 4]})
    >>> round(df.select(tau_ap("a", "b")).item(), 6)
    0.333333
    """
    pair = pair_of(a, b, descending, doc)
    sym = check_bool(symmetric, "symmetric")
    pa, pb = _common(pair.positions(pair.a), pair.positions(pair.b))
    ra = pa.rank("ordinal").cast(pl.Int64)  # 1..n among the common items
    rb = pb.rank("ordinal").cast(pl.Int64)

    def body(x: pl.Expr, y: pl.Expr) -> pl.Expr:  # x = ra - 1, y = rb
        n = x.len().cast(_F)

        def one_way(ref: pl.Expr, ranked: pl.Expr) -> pl.Expr:
            correct = dominated(ref - 1, ranked).cast(_F)
            terms = pl.when(ranked > 1).then(correct / (ranked - 1).cast(_F)).otherwise(0.0)
            return 2.0 / (n - 1.0) * terms.sum() - 1.0

        value = (one_way(x + 1, y) + one_way(y, x + 1)) / 2.0 if sym else one_way(x + 1, y)
        return pl.when(n >= 2).then(value).otherwise(pl.lit(float("nan")))

    value = on_codes(ra - 1, rb, body)
    return per_query(value, pair.bad(), query).alias("tau_ap")
