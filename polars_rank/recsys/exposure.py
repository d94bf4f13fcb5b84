r"""Exposure-based group fairness: how much attention each item group receives.

Singh & Joachims, "Fairness of Exposure in Rankings", KDD 2018: the exposure of the
item at rank r is the position bias :math:`v_r = 1 / \log_2(1 + r)` (their DCG-style
choice, Section 3), a group's exposure the sum over its items, and demographic parity
asks every group's *average* exposure per item to be equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rank._docs import shared_parameters
from polars_rank._frames import as_polars_like
from polars_rank._params import to_expr
from polars_rank.recsys._common import only, per_list_mean, query_exprs, recommended

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._params import IntoExpr, Query

__all__ = ["exposure_share", "group_exposure"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def _position(by: IntoExpr | None, descending: bool) -> pl.Expr:
    """1-based rank of each row in its list (ties in input order)."""
    if by is None:
        return pl.int_range(1, pl.len() + 1, dtype=pl.Int64)
    return to_expr(by, "by").rank("ordinal", descending=descending)


@shared_parameters
def exposure_share(group: IntoExpr, value: object, *, query: Query = None,
                   by: IntoExpr | None = None, k: int | None = None,
                   descending: bool = True) -> pl.Expr:
    r"""Share of a list's exposure that goes to the items of one group.

    .. math:: \frac{\sum_{r \le k,\ g_r = \mathrm{value}} 1/\log_2(1 + r)}
       {\sum_{r \le k} 1/\log_2(1 + r)}

    (Singh & Joachims, KDD 2018); with ``query=``, the mean over lists.

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
    weight = only(1.0 / (_position(by, descending).cast(pl.Float64) + 1.0).log(2), mask)
    mine = only(to_expr(group, "group").eq(value), mask).fill_null(False)
    total = weight.sum()
    value_expr = pl.when(total > 0).then((weight * mine.cast(pl.Float64)).sum() / total)
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
    parity constraint). ``exposure`` and ``items`` add up over partitions.

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
    position = _position(by, descending).over(lists)
    mask = recommended(by, k, descending)
    rows = frame.with_columns((1.0 / (position.cast(pl.Float64) + 1.0).log(2)).alias("_w"))
    if mask is not None:
        rows = rows.filter(mask.over(lists))
    per_group = rows.group_by([*keys, group]).agg(
        pl.col("_w").sum().alias("exposure"), pl.len().cast(pl.Int64).alias("items"))
    over = keys or None
    total = pl.col("exposure").sum()
    mean = pl.col("exposure") / pl.col("items")
    return per_group.with_columns(
        (total if over is None else total.over(over)).alias("_t"),
        mean.alias("mean_exposure"),
    ).with_columns(
        (pl.col("exposure") / pl.col("_t")).alias("share"),
        (pl.col("mean_exposure").max() / pl.col("mean_exposure").min()).alias("disparity")
        if over is None else
        (pl.col("mean_exposure").max().over(over) / pl.col("mean_exposure").min().over(over))
        .alias("disparity"),
    ).drop("_t")
