"""Rank-biased overlap (Webber, Moffat & Zobel, TOIS 2010) and average overlap.

Closed forms over the rows of one query: an item in both rankings, at positions a and
b, is in the overlap of the two prefixes of depth d for every d >= max(a, b), so each
sum over depths is a sum over the common items of a prefix sum of the weights.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Literal, get_args

import polars as pl

from polars_rank._engine.params import check_choice, check_k, check_real
from polars_rank._engine.sums import ordered_sum
from polars_rank.agreement._rankings.lists import MAX_ITEMS, on_codes, pair_of, per_query

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["RboKind", "average_overlap", "power_series", "prefix_series", "rbo", "rbo_kinds"]

RboKind = Literal["ext", "min", "res", "max"]
RBO_KINDS: tuple[str, ...] = get_args(RboKind)


def _f64(e: pl.Expr) -> pl.Expr:
    return e.cast(pl.Float64)


@functools.lru_cache(maxsize=32)
def prefix_series(p: float) -> pl.Series:
    """F(0), F(1), ..., F(2 * MAX_ITEMS), F(n) = sum_(d=1..n) p^d / d, added in order."""
    total, out = 0.0, [0.0]
    for d in range(1, 2 * MAX_ITEMS + 1):
        total += p**d / d
        out.append(total)
    return pl.Series(out, dtype=pl.Float64)


@functools.lru_cache(maxsize=32)
def power_series(p: float) -> pl.Series:
    """p^0, ..., p^(2 * MAX_ITEMS), each Python's correctly rounded power.

    Read from a table, not ``pow()``: Polars' ``pow`` of a literal by an aggregate
    rounds differently in a ``select`` (one query: 0.8^4 = 0.40960000000000013) and in
    a ``group_by`` (0.4096000000000001), so a query's RBO moved in its last bit with
    the context; and ``ranking_similarity`` reads the same table.
    """
    return pl.Series([p**d for d in range(2 * MAX_ITEMS + 1)], dtype=pl.Float64)


def _prefix_table(p: float) -> pl.Expr:
    return pl.lit(prefix_series(p))


def rbo_kinds(p: float, s: pl.Expr, ln: pl.Expr, common: pl.Expr, x_s: pl.Expr,
              shared: pl.Expr, *, one_value: bool) -> dict[str, pl.Expr]:
    """RBO ext, min, res and max (Webber et al., eqs. 32, 11, 30) from a query's sums.

    ``s``, ``ln``: the shorter and the longer list's lengths (Int64, at most
    2 x MAX_ITEMS); ``common``: the documents in both (Int64); ``x_s``: those of them
    within depth ``s`` (Float64); ``shared``: the sum over them of F(max(a, b) - 1).
    ``one_value``: the arguments are one query's values (the expression's
    ``list.eval``: tables read by ``get``), else columns of queries
    (``ranking_similarity``: by ``gather``). One place for the formulas of both.
    """
    table, powers = pl.lit(prefix_series(p)), pl.lit(power_series(p))

    def at(t: pl.Expr, i: pl.Expr) -> pl.Expr:
        return t.get(i) if one_value else t.gather(i)

    x_l = _f64(common)
    tail = -math.log1p(-p)  # F(infinity)
    c = (1 - p) / p
    sf, lf = _f64(s), _f64(ln)
    f_l, f_s = at(table, ln), at(table, s)
    p_s, p_l = at(powers, s), at(powers, ln)
    g_l = p * (1 - p_l) / (1 - p)
    g_s = p * (1 - p_s) / (1 - p)
    seen = x_l * f_l - shared
    beyond = x_s / sf * (g_l - g_s - sf * (f_l - f_s))
    ext = c * (seen + beyond) + ((x_l - x_s) / lf + x_s / sf) * p_l
    ext = pl.when(ln == 0).then(1.0).when(s == 0).then(0.0).otherwise(ext)
    minimum = c * (x_l * tail - shared)
    f = (s + ln - common).clip(0, 2 * MAX_ITEMS)
    f_f = at(table, f)
    residual = (p_s + p_l - at(powers, f)
                - c * (sf * (f_f - f_s) + lf * (f_f - f_l) + x_l * (tail - f_f)))
    return {"rbo": ext, "rbo_min": minimum, "rbo_res": residual, "rbo_max": minimum + residual}


def _present(positions: pl.Expr) -> pl.Expr:
    """The length of a ranking: its non-null positions.

    Not ``count()``, which counted the nulls of such a column in a Polars 1.36
    group_by (tests/test_workarounds.py).
    """
    return positions.is_not_null().sum().cast(pl.Int64)


def rbo(
    a: IntoExpr,
    b: IntoExpr,
    *,
    p: float = 0.9,
    kind: RboKind = "ext",
    k: int | None = None,
    descending: bool = False,
    doc: IntoExpr | None = None,
    query: Query = None,
) -> pl.Expr:
    r"""Rank-biased overlap of two rankings that need not hold the same items.

    With X_d the number of items in both top-d prefixes, s and l the lengths of the
    shorter and the longer ranking and F(n) = sum_(d=1..n) p^d / d (Webber, Moffat &
    Zobel, "A similarity measure for indefinite rankings", TOIS 2010):

    .. math:: \mathrm{RBO_{ext}} = \frac{1-p}{p}\Big(\sum_{d=1}^{l} \frac{X_d}{d} p^d
        + \sum_{d=s+1}^{l} \frac{X_s (d-s)}{s\,d} p^d\Big)
        + \Big(\frac{X_l - X_s}{l} + \frac{X_s}{s}\Big) p^l

    (Eq. 32, the ``rbo`` package's ``rbo_ext``); ``kind="min"`` is the lower bound
    (Eq. 11 at depth l: nothing beyond what was seen agrees),
    :math:`\frac{1-p}{p}\big(\sum_{d=1}^{l} (X_d - X_l) \frac{p^d}{d} - X_l \ln(1-p)\big)`;
    ``"res"`` the residual (Eq. 30: the most that the unseen items could add) and
    ``"max"`` min + res. Both rankings empty: 1 (``ext``, as the ``rbo`` package);
    one empty: 0.

    Parameters
    ----------
    a, b
        The two rankings: rank positions (``descending=False``, 1 first) or scores
        (``descending=True``); null = not in that ranking.
    p
        Persistence in (0, 1): the weight of depth d is proportional to p^(d-1).
    kind
        ``"ext"`` (extrapolated point value), ``"min"``, ``"res"`` or ``"max"``.
    k
        Read only the top k of each ranking (``None``: all of it).
    descending
        ``True`` when ``a`` and ``b`` are scores, highest first.
    doc
        Document id ordering equal keys (ascending). Without it, a ranking with equal
        keys has no order and gives NaN.
    query
        Column(s) identifying a query: the mean over queries, each weighted once.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; NaN for a list with NaN keys, or ties and no ``doc``.

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import rbo
    >>> df = pl.DataFrame({"doc": list("abcdz"), "ra": [1, 2, 3, 4, None],
    ...                    "rb": [2, 1, None, 3, 4]})
    >>> df.select(rbo("ra", "rb", p=0.9), rbo("ra", "rb", p=0.9, kind="min").alias("min"))
    shape: (1, 2)
    ┌─────────┬──────────┐
    │ rbo     ┆ min      │
    │ ---     ┆ ---      │
    │ f64     ┆ f64      │
    ╞═════════╪══════════╡
    │ 0.69075 ┆ 0.395528 │
    └─────────┴──────────┘
    """
    pp = check_real(p, "p", low=0, low_open=True, high=1, high_open=True,
                    allowed="a persistence in (0, 1)")
    check_choice(kind, "kind", RBO_KINDS)
    depth = check_k(k)
    pair = pair_of(a, b, descending, doc)
    pa, pb = pair.positions(pair.a), pair.positions(pair.b)
    if depth is not None:
        pa = pl.when(pa <= depth).then(pa)
        pb = pl.when(pb <= depth).then(pb)
    table = _prefix_table(pp)

    def body(xa: pl.Expr, xb: pl.Expr) -> pl.Expr:  # positions, 0 = absent; computed once
        # counts clipped to the tables: a list past MAX_ITEMS is NaN anyway (``long``
        # below), but an index past the table would raise for every query
        top = 2 * MAX_ITEMS
        na = (xa > 0).sum().cast(pl.Int64).clip(0, top)
        nb = (xb > 0).sum().cast(pl.Int64).clip(0, top)
        s, ln = pl.min_horizontal(na, nb), pl.max_horizontal(na, nb)  # shorter, longer
        both = (xa > 0) & (xb > 0)
        m = pl.max_horizontal(xa, xb).filter(both)  # the depth from which an item is shared
        shared = table.gather(m - 1).sum()  # sum over common items of F(m - 1), sorted
        return rbo_kinds(pp, s, ln, both.sum().cast(pl.Int64), _f64((m <= s).sum()), shared,
                         one_value=True)["rbo" if kind == "ext" else f"rbo_{kind}"]

    # positions past MAX_ITEMS only in a list that is NaN anyway (``long``): clipped so
    # that the codes and the tables' indices stay in range
    value = on_codes(pa.fill_null(0).clip(0, MAX_ITEMS), pb.fill_null(0).clip(0, MAX_ITEMS),
                     body)
    long = (pair.a.is_not_null().sum() > MAX_ITEMS) | (pair.b.is_not_null().sum() > MAX_ITEMS)
    return per_query(value, pair.bad() | long, query).alias(
        "rbo" if kind == "ext" else f"rbo_{kind}")


def average_overlap(
    a: IntoExpr,
    b: IntoExpr,
    *,
    k: int | None = None,
    descending: bool = False,
    doc: IntoExpr | None = None,
    query: Query = None,
) -> pl.Expr:
    r"""Average overlap to depth k: the mean over d <= k of X_d / d.

    .. math:: \mathrm{AO@k} = \frac{1}{k} \sum_{d=1}^{k} \frac{|A_{:d} \cap B_{:d}|}{d}

    with k at most the shorter ranking's length (Fagin, Kumar & Sivakumar, "Comparing
    top k lists", 2003; the ``rbo`` package's ``rbo(k, p=1.0)``). Both rankings
    empty: 1; one empty: 0.

    Parameters
    ----------
    a, b
        The two rankings (positions, or scores with ``descending=True``); null = absent.
    k
        Depth (``None``: the shorter ranking's length).
    descending
        ``True`` when ``a`` and ``b`` are scores, highest first.
    doc
        Document id ordering equal keys; without it, ties give NaN.
    query
        Column(s) identifying a query: the mean over queries.

    Returns
    -------
    pl.Expr
        Float64 in [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> from polars_rank.agreement import average_overlap
    >>> df = pl.DataFrame({"ra": [1, 2, 3], "rb": [2, 1, 3]})
    >>> df.select(average_overlap("ra", "rb")).item()
    0.6666666666666666
    """
    depth = check_k(k)
    pair = pair_of(a, b, descending, doc)
    pa, pb = pair.positions(pair.a), pair.positions(pair.b)
    na, nb = _present(pa), _present(pb)
    kk = pl.min_horizontal(na, nb)
    if depth is not None:
        kk = pl.min_horizontal(kk, pl.lit(depth, dtype=pl.Int64))
    m = pl.max_horizontal(pa, pb).filter(pa.is_not_null() & pb.is_not_null())
    m = m.filter(m <= kk)
    depths = pl.int_range(1, kk + 1, dtype=pl.Int64).cast(pl.Float64)
    prefix = pl.lit(0.0).append((1.0 / depths).cum_sum())  # H(0..kk)
    value = (_f64(m.len()) * prefix.get(kk) - ordered_sum(prefix.gather(m - 1))) / _f64(kk)
    value = pl.when(pl.max_horizontal(na, nb) == 0).then(1.0).when(kk == 0).then(0.0) \
        .otherwise(value)
    return per_query(value, pair.bad(), query).alias("average_overlap")
