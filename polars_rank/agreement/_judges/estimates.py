"""The point estimates in Polars: each statistic of :mod:`.statistics` over count tables.

A count table is long, ``[*by, KEY, COUNT]``: per row of ``by`` (a query, a slice, or
nothing: the whole input), the integer total at each component ``KEY`` of the
statistic's layout (absent components are 0). :func:`estimate` gives ``[*by, VALUE]``
as a lazy plan, without NumPy; the NumPy ``__call__`` of each statistic (the same
arithmetic on dense rows) is only needed for the bootstrap's batches of resamples.
Undefined values (nothing to compare with) are null. A sum of fractions over a group is
the house's order-free sum (``ordered_sum``: smallest first), so that it does not
depend on row order (Polars' own ``sum()`` in a ``group_by`` adds in an order that
does, and drops a ``sort_by`` placed before it); sums of the integer counts are exact
in any order.
"""

from __future__ import annotations

import operator
from functools import reduce
from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.sums import ordered_sum
from polars_rank.agreement._judges.data import COUNT, KEY
from polars_rank.agreement._judges.statistics import (
    CohenKappa,
    FleissKappa,
    KrippendorffAlpha,
    MeanPairAgreement,
    ObservedAgreement,
    Statistic,
)

if TYPE_CHECKING:
    from collections.abc import Sequence


VALUE = "__polars_rank_value"
WIDE = 256
"""Up to this many components, alpha's table is turned into a column per component
and the arithmetic is done across columns, in a fixed order (:func:`_alpha_wide`);
above it, by joins and ``group_by`` over the long table (:func:`_alpha`)."""
_ALL = "__polars_rank_all"  # the one group when ``by`` is empty
_X = "__polars_rank_x"  # the count as a float
_A, _B = "__polars_rank_a", "__polars_rank_b"  # a component's two categories
_N, _NA, _NB = "__polars_rank_n", "__polars_rank_na", "__polars_rank_nb"
_W = "__polars_rank_w"
# the statistics' parts: prefixed, so that a ``group_by`` column of any other name works
_O, _E, _S, _D = "__polars_rank_o", "__polars_rank_e", "__polars_rank_s", "__polars_rank_d"
_CUM, _BEFORE = "__polars_rank_cum", "__polars_rank_before"
_CUM_B, _BEFORE_B = "__polars_rank_cum_b", "__polars_rank_before_b"


def _ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den != 0).then(num / den)


def _take(values: Sequence[float], index: pl.Expr) -> pl.Expr:
    """``values[index]`` as an expression (a small table of floats, e.g. the labels)."""
    return index.replace_strict(list(range(len(values))), list(values),
                                return_dtype=pl.Float64)


def estimate(statistic: Statistic, table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, VALUE]``: the statistic of each row of ``by``'s summed count table."""
    keys = by or [_ALL]
    # a zero changes no sum, and every row of ``by`` has a count (at least one pair)
    counts = (table.filter(pl.col(COUNT) != 0)
              .with_columns(pl.col(COUNT).cast(pl.Float64).alias(_X)))
    if not by:
        counts = counts.with_columns(pl.lit(0, pl.Int32).alias(_ALL))
    if isinstance(statistic, (CohenKappa, ObservedAgreement)):
        out = _cohen(statistic, counts, keys)
    elif isinstance(statistic, FleissKappa):
        out = _fleiss(statistic, counts, keys)
    elif isinstance(statistic, MeanPairAgreement):
        out = _mean_pairs(statistic, counts, keys)
    elif isinstance(statistic, KrippendorffAlpha):
        wide = len(statistic.judges) * statistic.size ** 2 <= WIDE
        out = (_alpha_wide if wide else _alpha)(statistic, counts, keys)
    else:  # pragma: no cover - every statistic is above
        msg = f"no Polars estimate for {statistic!r}"
        raise TypeError(msg)
    return out.select(*by, VALUE)


def _by_size(values: pl.Expr, index: pl.Expr, k: int) -> list[pl.Expr]:
    """Per group, the sum of ``values`` (integers: exact in any order) at each index < k."""
    return [(values * (index == i)).sum().alias(f"{_W}{i}") for i in range(k)]


def _weighted(weights: Sequence[float]) -> pl.Expr:
    """``sum_i weights[i] * column i`` of :func:`_by_size`, in the order of ``i``."""
    terms = [pl.col(f"{_W}{i}") * w for i, w in enumerate(weights)]
    return reduce(operator.add, terms)


def _cohen(statistic: CohenKappa | ObservedAgreement, counts: pl.LazyFrame,
           keys: list[str]) -> pl.LazyFrame:
    size = statistic.size
    cells = counts.with_columns((pl.col(KEY) // size).alias(_A),
                                (pl.col(KEY) % size).alias(_B)).cache()
    if isinstance(statistic, ObservedAgreement):
        return cells.group_by(keys).agg(_ratio(
            pl.col(_X).filter(pl.col(_A) == pl.col(_B)).sum(), pl.col(_X).sum()).alias(VALUE))
    diff = (pl.col(_A) - pl.col(_B)).cast(pl.Float64)
    w = (pl.when(pl.col(_A) == pl.col(_B)).then(0.0).otherwise(1.0) if statistic.weights is None
         else diff.abs() if statistic.weights == "linear" else diff * diff)
    observed = cells.group_by(keys).agg((w * pl.col(_X)).sum().alias(_O),
                                        pl.col(_X).sum().alias(_N))
    rows = cells.group_by([*keys, _A]).agg(pl.col(_X).sum().alias(_NA))
    cols = cells.group_by([*keys, _B]).agg(pl.col(_X).sum().alias(_NB))
    # sum w_ab r_a c_b: integers (exact in any order), over n after the sum
    chance = (rows.join(cols, on=keys).group_by(keys)
              .agg((w * pl.col(_NA) * pl.col(_NB)).sum().alias(_E)))
    return observed.join(chance, on=keys).with_columns(
        (1.0 - _ratio(pl.col(_O), pl.col(_E) / pl.col(_N))).alias(VALUE))


def _fleiss(statistic: FleissKappa, counts: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    c, m = statistic.size, float(statistic.judges)
    x, key = pl.col(_X), pl.col(KEY)
    sums = counts.group_by(keys).agg(
        (x.filter(key == c + 1).sum() * m).alias(_N), x.filter(key == c).sum().alias(_S),
        (x.filter(key < c) ** 2).sum().alias(_E))  # sum T_c^2: integers, exact
    chance = pl.col(_E) / (pl.col(_N) * pl.col(_N))
    observed = _ratio(pl.col(_S) - pl.col(_N), pl.col(_N) * (m - 1))
    return sums.with_columns(_ratio(observed - chance, 1.0 - chance).alias(VALUE))


def _mean_pairs(statistic: MeanPairAgreement, counts: pl.LazyFrame,
                keys: list[str]) -> pl.LazyFrame:
    k = len(statistic.judges)
    x, key = pl.col(_X), pl.col(KEY)
    sums = counts.group_by(keys).agg(*_by_size(x, key, k), x.filter(key >= k).sum().alias(_N))
    shares = _weighted([1.0 / (m * (m - 1)) for m in statistic.judges])
    return sums.with_columns(_ratio(shares, pl.col(_N)).alias(VALUE))


def _alpha(statistic: KrippendorffAlpha, counts: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    c, k = statistic.size, len(statistic.judges)
    key = pl.col(KEY)
    # the coincidences o_ab, their margins n_a and sum n: each number of judges m's integer
    # totals, over m - 1, summed in the order of m
    share = _weighted([1.0 / (m - 1) for m in statistic.judges])
    sums = _by_size(pl.col(_X), pl.col(_W), k)
    base = counts.with_columns((key // (c * c)).alias(_W), ((key // c) % c).alias(_A),
                               (key % c).alias(_B))
    cells = base.group_by([*keys, _A, _B]).agg(*sums).cache()  # .cache(): used twice
    integers = [pl.col(f"{_W}{i}").sum() for i in range(k)]
    rows = cells.group_by([*keys, _A]).agg(*integers)
    o = cells.select(*keys, _A, _B, share.alias(_O))
    margins = rows.select(*keys, _A, share.alias(_NA)).sort([*keys, _A])
    total = rows.group_by(keys).agg(*integers).select(*keys, share.alias(_N))
    if statistic.level == "ordinal":  # running sums of the margins, in the labels' order
        cum = pl.col(_NA).cum_sum().over(keys)
        margins = margins.with_columns(cum.alias(_CUM), (cum - pl.col(_NA)).alias(_BEFORE))
    margins = margins.cache()  # both sides of the grid, and the other parts: computed once
    other = margins.rename({_A: _B, _NA: _NB, **(
        {_CUM: _CUM_B, _BEFORE: _BEFORE_B} if statistic.level == "ordinal" else {})})
    grid = margins.join(other, on=keys).cache()
    d = _distance(statistic)
    expected = grid.group_by(keys).agg(
        ordered_sum(pl.col(_NA) * pl.col(_NB) * d).alias(_E))
    observed = (o.join(grid.select(*keys, _A, _B, d.alias(_D)), on=[*keys, _A, _B])
                .group_by(keys).agg(ordered_sum(pl.col(_O) * pl.col(_D)).alias(_O)))
    return expected.join(observed, on=keys).join(total, on=keys).with_columns(
        (1.0 - _ratio((pl.col(_N) - 1) * pl.col(_O), pl.col(_E))).alias(VALUE))


def _distance(statistic: KrippendorffAlpha) -> pl.Expr:
    """``d_ck`` on a row of :func:`_alpha`'s grid (categories ``_A``, ``_B``)."""
    a, b = pl.col(_A), pl.col(_B)
    if statistic.level == "nominal":
        return pl.when(a == b).then(0.0).otherwise(1.0)
    if statistic.level == "ordinal":  # sum of n_g for min <= g <= max, minus half the ends
        between = (pl.when(a <= b).then(pl.col(_CUM_B) - pl.col(_BEFORE))
                   .otherwise(pl.col(_CUM) - pl.col(_BEFORE_B)))
        return (between - (pl.col(_NA) + pl.col(_NB)) / 2) ** 2
    va, vb = _take(statistic.values, a), _take(statistic.values, b)
    if statistic.level == "interval":
        return (va - vb) ** 2
    total = va + vb
    return pl.when(total != 0).then(((va - vb) / total) ** 2).otherwise(0.0)


def _alpha_wide(statistic: KrippendorffAlpha, counts: pl.LazyFrame,
                keys: list[str]) -> pl.LazyFrame:
    """:func:`_alpha` with a column per component: sums across columns, in NumPy's order."""
    c, shares = statistic.size, [1.0 / (m - 1) for m in statistic.judges]
    size = len(shares) * c * c
    x, key = pl.col(_X), pl.col(KEY)
    # a row per group, a column per component: the integer totals (exact in any order)
    wide = counts.group_by(keys).agg(*((x * (key == i)).sum().alias(f"{_W}{i}")
                                       for i in range(size)))
    cells = [[f"{_A}{a}_{b}" for b in range(c)] for a in range(c)]
    o = [pl.col(cells[a][b]) for a in range(c) for b in range(c)]
    n = [pl.col(f"{_NA}{a}") for a in range(c)]
    wide = wide.select(*keys, *(
        reduce(operator.add, [pl.col(f"{_W}{(j * c + a) * c + b}") * w
                              for j, w in enumerate(shares)]).alias(cells[a][b])
        for a in range(c) for b in range(c)))
    wide = wide.with_columns(*(reduce(operator.add, o[a * c:(a + 1) * c]).alias(f"{_NA}{a}")
                               for a in range(c)))
    d = _distances(statistic, n)
    observed = reduce(operator.add, [o[i] * d[i] for i in range(c * c)])
    expected = reduce(operator.add, [n[i // c] * n[i % c] * d[i] for i in range(c * c)])
    total = reduce(operator.add, n)
    return wide.with_columns(
        (1.0 - _ratio((total - 1) * observed, expected)).alias(VALUE))


def _distances(statistic: KrippendorffAlpha, n: list[pl.Expr]) -> list[pl.Expr]:
    """``d_ab`` for each pair (a, b), row-major, from the margins ``n`` (ordinal)."""
    c = statistic.size
    pairs = [(a, b) for a in range(c) for b in range(c)]
    if statistic.level == "ordinal":
        cum = [pl.lit(0.0)]
        for g in range(c):
            cum.append(cum[-1] + n[g])
        return [(cum[max(a, b) + 1] - cum[min(a, b)] - (n[a] + n[b]) / 2) ** 2
                for a, b in pairs]
    v = statistic.values
    if statistic.level == "nominal":
        values = [float(a != b) for a, b in pairs]
    elif statistic.level == "interval":
        values = [(v[a] - v[b]) ** 2 for a, b in pairs]
    else:
        values = [((v[a] - v[b]) / (v[a] + v[b])) ** 2 if v[a] + v[b] != 0 else 0.0
                  for a, b in pairs]
    return [pl.lit(value) for value in values]
