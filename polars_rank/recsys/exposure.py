r"""Exposure-based group fairness: how much attention each item group receives.

Singh & Joachims, "Fairness of Exposure in Rankings", KDD 2018: the exposure of the
item at rank r is the position bias :math:`v_r = 1 / \log_2(1 + r)` (their DCG-style
choice, Section 3), a group's exposure the sum over its items, and demographic parity
asks every group's *average* exposure per item to be equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rank._engine.frames import as_polars_like
from polars_rank._engine.params import to_expr
from polars_rank._engine.sums import ordered_sum
from polars_rank.metrics._docs import shared_parameters
from polars_rank.recsys._common import only, per_list_mean, query_exprs, recommended

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["exposure_share", "group_exposure"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def _bias(position: pl.Expr) -> pl.Expr:
    return 1.0 / (position.cast(pl.Float64) + 1.0).log(2)


def _weight(by: IntoExpr | None, descending: bool) -> pl.Expr:
    """Each row's position bias 1 / log2(1 + r) in its list (the context).

    Rows tied in ``by`` share the mean of the weights of the positions their block
    spans, ranks a to b: the expected weight over the orders of the tied rows,
    whatever their order in the data. ``by=None``: the rows' order is the ranking.
    """
    if by is None:
        return _bias(pl.int_range(1, pl.len() + 1, dtype=pl.Int64))
    key = to_expr(by, "by")
    a = key.rank("min", descending=descending).cast(pl.Int64)
    b = key.rank("max", descending=descending).cast(pl.Int64)
    # the weights of positions 1..n added up: a block's sum is a difference of two
    cumulative = _bias(pl.int_range(1, pl.len() + 1, dtype=pl.Int64)).cum_sum()
    before = pl.when(a > 1).then(cumulative.gather((a - 2).clip(0))).otherwise(0.0)
    block = (cumulative.gather(b - 1) - before) / (b - a + 1).cast(pl.Float64)
    return pl.when(a == b).then(_bias(a)).otherwise(block)


@shared_parameters
def exposure_share(group: IntoExpr, value: object, *, query: Query = None,
                   by: IntoExpr | None = None, k: int | None = None,
                   descending: bool = True) -> pl.Expr:
    r"""Share of a list's exposure that goes to the items of one group.

    .. math:: \frac{\sum_{r \le k,\ g_r = \mathrm{value}} 1/\log_2(1 + r)}
       {\sum_{r \le k} 1/\log_2(1 + r)}

    (Singh & Joachims, KDD 2018); with ``query=``, the mean over lists. Rows tied in
    ``by`` share the mean weight of the positions they span (the expected exposure
    over their orders).

    Parameters
    ----------
    group
        Item group column (e.g. provider, popularity bucket).
    value
        The group whose share is computed.
    query
        ... recsys
    by
        ... recsys
    k
        ... recsys
    descending
        ... recsys

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; null for an empty list.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"rank": [1, 2, 3], "owner": ["big", "small", "big"]})
    >>> round(reco.select(pr.exposure_share("owner", "small", by="rank",
    ...                                     descending=False)).item(), 4)
    0.2961
    """
    mask = recommended(by, k, descending)
    weight = only(_weight(by, descending), mask)
    mine = only(to_expr(group, "group").eq(value), mask).fill_null(False)
    whole = ordered_sum(weight)
    value_expr = pl.when(whole > 0).then(ordered_sum(weight * mine.cast(pl.Float64)) / whole)
    return per_list_mean(value_expr, query_exprs(query)).alias("exposure_share")


def group_exposure(frame: FrameT, *, group: str, query: str | Sequence[str],
                   by: str | None = None, k: int | None = None, descending: bool = True,
                   group_by: str | Sequence[str] | None = None) -> FrameT:
    """Exposure per item group of a slice, and its disparity.

    One row per (``group_by``..., ``group``): ``exposure`` (the sum of 1/log2(1 + r)
    over the group's rows within each list's top ``k``), ``items`` (those rows),
    ``share`` (of the slice's exposure), ``mean_exposure`` (exposure / items,
    Singh & Joachims' average exposure) and ``disparity``: the slice's largest
    ``mean_exposure`` over its smallest (1 = demographic parity; our summary of their
    parity constraint), sorted by slice and group. ``exposure`` and ``items`` add up
    over partitions.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2], "rank": [1, 2, 1, 2],
    ...                      "owner": ["big", "small", "big", "big"]})
    >>> out = pr.group_exposure(reco, group="owner", query="user", by="rank", descending=False)
    >>> out.sort("owner").select("owner", pl.col("share", "disparity").round(4)).rows()
    [('big', 0.8066, 1.39), ('small', 0.1934, 1.39)]
    """
    frame = as_polars_like(frame, "frame")  # pandas, Arrow, dicts too
    keys: list[str] = (
        [] if group_by is None else [group_by] if isinstance(group_by, str) else list(group_by))
    lists = [*keys, *([query] if isinstance(query, str) else query)]
    mask = recommended(by, k, descending)
    rows = frame.with_columns(_weight(by, descending).over(lists).alias("_w"))
    if mask is not None:
        rows = rows.filter(mask.over(lists))
    per_group = rows.group_by([*keys, group]).agg(
        ordered_sum(pl.col("_w")).alias("exposure"), pl.len().cast(pl.Int64).alias("items"))
    over = keys or None
    whole = ordered_sum(pl.col("exposure"))
    mean = pl.col("exposure") / pl.col("items")
    return per_group.with_columns(
        (whole if over is None else whole.over(over)).alias("_t"),
        mean.alias("mean_exposure"),
    ).with_columns(
        (pl.col("exposure") / pl.col("_t")).alias("share"),
        (pl.col("mean_exposure").max() / pl.col("mean_exposure").min()).alias("disparity")
        if over is None else
        (pl.col("mean_exposure").max().over(over) / pl.col("mean_exposure").min().over(over))
        .alias("disparity"),
    ).drop("_t").sort([*keys, group], nulls_last=True)
