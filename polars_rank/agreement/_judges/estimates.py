"""The point estimates in Polars: each statistic of :mod:`.statistics` over count tables.

A count table is long, ``[*by, KEY, COUNT]``: per row of ``by`` (a query, a slice, or
nothing: the whole input), the integer total at each component ``KEY`` of the
statistic's layout (absent components are 0). :func:`estimate` gives ``[*by, VALUE]``
as a lazy plan, without NumPy; the NumPy ``__call__`` of each statistic (the same
arithmetic on dense rows) is only needed for the bootstrap's batches of resamples.
Undefined values (nothing to compare with) are null. A sum of fractions is taken in
the order of the components, as a running sum (``sort_by().cum_sum().last()``: Polars
drops a sort before a plain ``sum()``), so that it does not depend on row order; sums
of the integer counts are exact in any order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank.agreement._judges.data import COUNT, KEY
from polars_rank.agreement._judges.statistics import (
    CohenKappa,
    FleissKappa,
    KrippendorffAlpha,
    MeanPairAgreement,
    ObservedAgreement,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank.agreement._judges.summary import Statistic

VALUE = "__polars_rank_value"
_ALL = "__polars_rank_all"  # the one group when ``by`` is empty
_X = "__polars_rank_x"  # the count as a float
_A, _B = "__polars_rank_a", "__polars_rank_b"  # a component's two categories
_N, _NA, _NB = "__polars_rank_n", "__polars_rank_na", "__polars_rank_nb"
_W = "__polars_rank_w"


def _ratio(num: pl.Expr, den: pl.Expr) -> pl.Expr:
    return pl.when(den != 0).then(num / den)


def _in_order(values: pl.Expr, *by: str) -> pl.Expr:
    """The sum of a group's ``values`` in the order of ``by``: the same whatever the rows'."""
    return values.sort_by(*by).cum_sum().last()


def _take(values: Sequence[float], index: pl.Expr) -> pl.Expr:
    """``values[index]`` as an expression (a small table of floats, e.g. the labels)."""
    return index.replace_strict(list(range(len(values))), list(values),
                                return_dtype=pl.Float64)


def estimate(statistic: Statistic, table: pl.LazyFrame, by: list[str]) -> pl.LazyFrame:
    """``[*by, VALUE]``: the statistic of each row of ``by``'s summed count table."""
    keys = by or [_ALL]
    counts = table.with_columns(pl.col(COUNT).cast(pl.Float64).alias(_X))
    if not by:
        counts = counts.with_columns(pl.lit(0, pl.Int32).alias(_ALL))
    if isinstance(statistic, (CohenKappa, ObservedAgreement)):
        out = _cohen(statistic, counts, keys)
    elif isinstance(statistic, FleissKappa):
        out = _fleiss(statistic, counts, keys)
    elif isinstance(statistic, MeanPairAgreement):
        out = _mean_pairs(statistic, counts, keys)
    elif isinstance(statistic, KrippendorffAlpha):
        out = _alpha(statistic, counts, keys)
    else:  # pragma: no cover - every statistic is above
        msg = f"no Polars estimate for {statistic!r}"
        raise TypeError(msg)
    return out.select(*by, VALUE)


def _cohen(statistic: CohenKappa | ObservedAgreement, counts: pl.LazyFrame,
           keys: list[str]) -> pl.LazyFrame:
    size = statistic.size
    cells = counts.with_columns((pl.col(KEY) // size).alias(_A), (pl.col(KEY) % size).alias(_B))
    if isinstance(statistic, ObservedAgreement):
        return cells.group_by(keys).agg(_ratio(
            pl.col(_X).filter(pl.col(_A) == pl.col(_B)).sum(), pl.col(_X).sum()).alias(VALUE))
    diff = (pl.col(_A) - pl.col(_B)).cast(pl.Float64)
    w = (pl.when(pl.col(_A) == pl.col(_B)).then(0.0).otherwise(1.0) if statistic.weights is None
         else diff.abs() if statistic.weights == "linear" else diff * diff)
    observed = cells.group_by(keys).agg((w * pl.col(_X)).sum().alias("o"),
                                        pl.col(_X).sum().alias(_N))
    rows = cells.group_by([*keys, _A]).agg(pl.col(_X).sum().alias(_NA))
    cols = cells.group_by([*keys, _B]).agg(pl.col(_X).sum().alias(_NB))
    chance = (rows.join(cols, on=keys).join(observed.select(*keys, _N), on=keys)
              .group_by(keys)
              .agg(_in_order(w * (pl.col(_NA) * pl.col(_NB) / pl.col(_N)), _A, _B).alias("e")))
    return observed.join(chance, on=keys).with_columns(
        (1.0 - _ratio(pl.col("o"), pl.col("e"))).alias(VALUE))


def _fleiss(statistic: FleissKappa, counts: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    c, m = statistic.size, float(statistic.judges)
    x, key = pl.col(_X), pl.col(KEY)
    judged = x.filter(key == c + 1).sum() * m  # N m
    sums = counts.group_by(keys).agg(
        judged.alias(_N), x.filter(key == c).sum().alias("s"),
        _in_order(pl.when(key < c).then((x / judged) ** 2).otherwise(0.0), KEY)
        .alias("e"))
    observed = _ratio(pl.col("s") - pl.col(_N), pl.col(_N) * (m - 1))
    return sums.with_columns(
        _ratio(observed - pl.col("e"), 1.0 - pl.col("e")).alias(VALUE))


def _mean_pairs(statistic: MeanPairAgreement, counts: pl.LazyFrame,
                keys: list[str]) -> pl.LazyFrame:
    k = len(statistic.judges)
    pairs = [float(m * (m - 1)) for m in statistic.judges]
    x, key = pl.col(_X), pl.col(KEY)
    return counts.group_by(keys).agg(_ratio(
        _in_order(pl.when(key < k).then(x / _take(pairs, key % k)).otherwise(0.0), KEY),
        x.filter(key >= k).sum()).alias(VALUE))


def _alpha(statistic: KrippendorffAlpha, counts: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    c = statistic.size
    key = pl.col(KEY)
    # the coincidences o_ck: each number of judges m's totals over m - 1
    share = [1.0 / (m - 1) for m in statistic.judges]
    o = (counts.with_columns((key // (c * c)).alias(_W), ((key // c) % c).alias(_A),
                             (key % c).alias(_B))
         .group_by([*keys, _A, _B])
         .agg(_in_order(pl.col(_X) * _take(share, pl.col(_W)), _W).alias("o")))
    margins = (o.group_by([*keys, _A]).agg(_in_order(pl.col("o"), _B).alias(_NA))
               .sort([*keys, _A]))
    if statistic.level == "ordinal":  # running sums of the margins, in the labels' order
        cum = pl.col(_NA).cum_sum().over(keys)
        margins = margins.with_columns(cum.alias("cum"), (cum - pl.col(_NA)).alias("before"))
    other = margins.rename({_A: _B, _NA: _NB, **(
        {"cum": "cum_b", "before": "before_b"} if statistic.level == "ordinal" else {})})
    grid = margins.join(other, on=keys)
    d = _distance(statistic)
    expected = grid.group_by(keys).agg(
        _in_order(pl.col(_NA) * pl.col(_NB) * d, _A, _B).alias("e")).join(
        margins.group_by(keys).agg(_in_order(pl.col(_NA), _A).alias(_N)), on=keys)
    observed = (o.join(grid.select(*keys, _A, _B, d.alias("d")), on=[*keys, _A, _B])
                .group_by(keys).agg(_in_order(pl.col("o") * pl.col("d"), _A, _B).alias("o")))
    return expected.join(observed, on=keys).with_columns(
        (1.0 - _ratio((pl.col(_N) - 1) * pl.col("o"), pl.col("e")))
        .alias(VALUE))


def _distance(statistic: KrippendorffAlpha) -> pl.Expr:
    """``d_ck`` on a row of :func:`_alpha`'s grid (categories ``_A``, ``_B``)."""
    a, b = pl.col(_A), pl.col(_B)
    if statistic.level == "nominal":
        return pl.when(a == b).then(0.0).otherwise(1.0)
    if statistic.level == "ordinal":  # sum of n_g for min <= g <= max, minus half the ends
        between = (pl.when(a <= b).then(pl.col("cum_b") - pl.col("before"))
                   .otherwise(pl.col("cum") - pl.col("before_b")))
        return (between - (pl.col(_NA) + pl.col(_NB)) / 2) ** 2
    va, vb = _take(statistic.values, a), _take(statistic.values, b)
    if statistic.level == "interval":
        return (va - vb) ** 2
    total = va + vb
    return pl.when(total != 0).then(((va - vb) / total) ** 2).otherwise(0.0)
