"""Cross-list metrics of item exposure: catalog coverage, entropy, Gini index.

They read every list of a context (a slice, an A/B arm): ``df.group_by("arm").agg(
pr.catalog_coverage("item", catalog=n_items, query="user", by="score", k=10))``.
Their sufficient statistic is the number of times each item is recommended in the
slice (:func:`exposure_counts`); counts from partitions (Spark, Dask) add up, and
:func:`coverage_from_counts` finishes the three metrics from the merged counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

import polars as pl

from polars_rank._engine.frames import as_polars_like
from polars_rank._engine.params import to_expr
from polars_rank._engine.sums import ordered_sum
from polars_rank.metrics._docs import shared_parameters
from polars_rank.recsys._common import only, query_exprs, recommended

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["catalog_coverage", "distributional_coverage", "gini_index",
           "exposure_counts", "coverage_from_counts"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)
Catalog = int | Sequence[object] | pl.Series


def _items(item: IntoExpr, query: Query, by: IntoExpr | None, k: int | None,
           descending: bool) -> pl.Expr:
    """The recommended item ids of the context (top ``k`` of each list), nulls dropped."""
    mask = recommended(by, k, descending, query_exprs(query))
    return only(to_expr(item, "item"), mask).drop_nulls()


def _check_catalog(catalog: Catalog | None, required: bool) -> None:
    if catalog is None and not required:
        return
    if isinstance(catalog, bool) or not isinstance(catalog, (int, Sequence, pl.Series)) \
            or isinstance(catalog, str):
        msg = ("catalog must be the number of items in the catalog (an int > 0) or the "
               f"catalog's item ids (a sequence or Series), got {catalog!r}")
        raise TypeError(msg)
    if isinstance(catalog, int) and catalog < 1:
        msg = f"catalog must be > 0, got {catalog!r}"
        raise ValueError(msg)


@shared_parameters
def catalog_coverage(item: IntoExpr, *, catalog: Catalog, query: Query = None,
                     by: IntoExpr | None = None, k: int | None = None,
                     descending: bool = True) -> pl.Expr:
    r"""Catalog coverage: the share of the catalog recommended at least once.

    .. math:: \mathrm{coverage} = \frac{|\bigcup_u L_u|}{|I|}

    over the lists :math:`L_u` of the context (Shani & Gunawardana, "Evaluating
    Recommendation Systems", Recommender Systems Handbook, 2011). With ``catalog`` an
    int (the number of items :math:`|I|`) it is MS Recommenders' ``catalog_coverage``
    (``recommenders/evaluation/python_evaluation.py``, b02c95e: distinct recommended
    items / distinct items of the training log, so pass
    ``catalog=train["item"].n_unique()``); with ``catalog`` the item ids, only
    recommended items of the catalog count, as Evidently's ``PopularityBias``
    coverage (``legacy/metrics/recsys/popularity_bias.py``, a4aa4c2).

    Parameters
    ----------
    item
        ... recsys
    catalog
        Number of items in the catalog, or its item ids.
    query
        ... slice
    by
        ... recsys
    k
        ... recsys
    descending
        ... recsys

    Returns
    -------
    pl.Expr
        Float64 in [0, 1] (above 1 only if an int ``catalog`` is smaller than the
        items recommended).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2]})
    >>> reco.select(pr.catalog_coverage("item", catalog=5)).item()
    0.8
    """
    _check_catalog(catalog, required=True)
    items = _items(item, query, by, k, descending)
    if isinstance(catalog, int):
        return (items.n_unique() / float(catalog)).alias("catalog_coverage")
    ids = pl.Series(catalog).unique()
    inside = items.filter(items.is_in(ids.implode()))
    return (inside.n_unique() / float(len(ids))).alias("catalog_coverage")


@shared_parameters
def distributional_coverage(item: IntoExpr, *, query: Query = None,
                            by: IntoExpr | None = None, k: int | None = None,
                            descending: bool = True) -> pl.Expr:
    r"""Distributional coverage: Shannon entropy (bits) of the recommended items.

    .. math:: H = -\sum_i p(i) \log_2 p(i), \quad p(i) = \frac{c_i}{\sum_j c_j}

    with :math:`c_i` the number of times item i is recommended in the context (Shani &
    Gunawardana 2011, eq. 21). MS Recommenders' ``distributional_coverage``
    (``python_evaluation.py``, b02c95e), log base 2. 0 for no recommendation; at most
    :math:`\log_2` of the number of distinct items.

    Parameters
    ----------
    item
        ... recsys
    query
        ... slice
    by
        ... recsys
    k
        ... recsys
    descending
        ... recsys

    Returns
    -------
    pl.Expr
        Float64 >= 0.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2]})
    >>> round(reco.select(pr.distributional_coverage("item")).item(), 4)
    1.9183
    """
    counts = _items(item, query, by, k, descending).unique_counts().cast(pl.Float64)
    return entropy_of(counts).alias("distributional_coverage")


def entropy_of(counts: pl.Expr) -> pl.Expr:
    """Entropy (bits) of a distribution given by counts (an aggregate)."""
    p = counts / counts.sum()  # counts: whole numbers, added exactly in any order
    return -ordered_sum(p * p.log(2))


@shared_parameters
def gini_index(item: IntoExpr, *, catalog: int | None = None, query: Query = None,
               by: IntoExpr | None = None, k: int | None = None,
               descending: bool = True) -> pl.Expr:
    r"""Gini index of item exposure: 0 = every item recommended equally often.

    With :math:`c_{(1)} \le \dots \le c_{(n)}` the recommendation counts in
    non-decreasing order,

    .. math:: G = \frac{\sum_{j=1}^{n} (2j - n - 1)\, c_{(j)}}{D \sum_j c_{(j)}}

    ``catalog=None`` (Evidently's ``PopularityBias.get_gini``,
    ``legacy/metrics/recsys/popularity_bias.py``, a4aa4c2): the n items recommended
    at least once, :math:`D = n - 1` (null for fewer than 2 items). ``catalog=N``
    (RecBole's ``GiniIndex``, ``recbole/evaluator/metrics.py``, after Gunawardana &
    Shani's handbook chapter): every item of the catalog, those never recommended
    with count 0, :math:`n = N` and :math:`D = N`.

    Parameters
    ----------
    item
        ... recsys
    catalog
        ``None`` (Evidently) or the number of catalog items (RecBole).
    query
        ... slice
    by
        ... recsys
    k
        ... recsys
    descending
        ... recsys

    Returns
    -------
    pl.Expr
        Float64 in [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 2, 2, 3, 3], "item": [3, 2, 3, 1, 2]})
    >>> reco.select(pr.gini_index("item")).item()
    0.2
    """
    if catalog is not None:
        _check_catalog(catalog, required=True)
        if not isinstance(catalog, int):
            msg = f"gini_index: catalog must be the number of catalog items, got {catalog!r}"
            raise TypeError(msg)
    counts = _items(item, query, by, k, descending).unique_counts().cast(pl.Float64)
    return gini_of(counts, catalog).alias("gini_index")


def gini_of(counts: pl.Expr, catalog: int | None = None) -> pl.Expr:
    """The Gini index of an aggregate of counts (see :func:`gini_index`)."""
    ordered = counts.sort()
    n = ordered.len().cast(pl.Float64)
    if catalog is None:
        size, zeros, denominator = n, pl.lit(0.0), n - 1.0
    else:
        size = pl.lit(float(catalog))
        zeros, denominator = size - n, size
    j = ordered.cum_count().cast(pl.Float64) + zeros  # 1..n in sorted order
    value = ordered_sum((2.0 * j - size - 1.0) * ordered) / (denominator * ordered.sum())
    return pl.when(denominator > 0).then(value)


def exposure_counts(frame: FrameT, *, item: str = "item", query: Query = None,
                    by: str | None = None, k: int | None = None, descending: bool = True,
                    group_by: str | Sequence[str] | None = None) -> FrameT:
    """The sufficient statistic of the coverage metrics: times each item is recommended.

    One row per (``group_by``..., item), sorted, with ``count``: the number of lists
    of the slice whose top ``k`` hold the item. Counts of partitions of the same slice add up
    (``pl.concat(parts).group_by([*group_by, item]).agg(pl.col("count").sum())``,
    or a Spark/Dask ``groupBy(...).sum("count")``), because each list lies in one
    partition; :func:`coverage_from_counts` then gives the metrics.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2]})
    >>> pr.exposure_counts(reco, item="item").sort("item")["count"].to_list()
    [1, 2, 1, 2]
    """
    frame = as_polars_like(frame, "frame")  # pandas, Arrow, dicts too
    keys: list[str] = (
        [] if group_by is None else [group_by] if isinstance(group_by, str) else list(group_by))
    mask = recommended(by, k, descending, query_exprs(query))
    rows = frame if mask is None else frame.filter(mask.over(keys) if keys else mask)
    return rows.filter(pl.col(item).is_not_null()).group_by([*keys, item]).agg(
        pl.len().cast(pl.Int64).alias("count")).sort([*keys, item], nulls_last=True)


def coverage_from_counts(counts: FrameT, *, item: str = "item", count: str = "count",
                         catalog: int | None = None,
                         group_by: str | Sequence[str] | None = None) -> FrameT:
    """Catalog coverage, distributional coverage and Gini index from exposure counts.

    ``counts`` is :func:`exposure_counts`' frame (merged over partitions). Without
    ``catalog``, ``catalog_coverage`` is null and the Gini index is Evidently's; with
    it, RecBole's (see :func:`gini_index`).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2]})
    >>> out = pr.coverage_from_counts(pr.exposure_counts(reco), catalog=5)
    >>> out.select(pl.all().round(4)).row(0)
    (0.8, 1.9183, 0.3333)
    """
    counts = as_polars_like(counts, "counts")  # pandas, Arrow, dicts too
    keys: list[str] = (
        [] if group_by is None else [group_by] if isinstance(group_by, str) else list(group_by))
    c = pl.col(count).filter(pl.col(count) > 0).cast(pl.Float64)
    coverage = (c.len() / float(catalog)) if catalog is not None else pl.lit(None, pl.Float64)
    metrics = [coverage.cast(pl.Float64).alias("catalog_coverage"),
               entropy_of(c).alias("distributional_coverage"),
               gini_of(c, catalog).alias("gini_index")]
    if keys:
        return counts.group_by(keys).agg(metrics).sort(keys, nulls_last=True)
    return counts.select(metrics)
