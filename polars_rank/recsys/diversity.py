r"""Intra-list diversity and personalization (inter-list diversity) as expressions.

Intra-list diversity reads item features, embeddings or categories.

Intra-list similarity is the mean cosine similarity over the pairs of items of a list
(Ziegler, McNee, Konstan & Lausen, "Improving recommendation lists through topic
diversification", WWW 2005); diversity is 1 minus it (MS Recommenders' ``diversity``,
Zhang et al., Auralist, WSDM 2012, eq. 3). With unit vectors :math:`u_i`,

.. math:: \sum_{i < j} u_i \cdot u_j = \tfrac12 \big(\lVert \textstyle\sum_i u_i
   \rVert^2 - n\big),

so the mean over the n(n-1)/2 pairs needs one sum per feature, not a pass per pair:
plain aggregations that run in ``group_by``, ``over`` and with ``query=``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from polars_rank._engine.compat import row_sum
from polars_rank._engine.params import check_k, to_expr
from polars_rank._engine.sums import ordered_sum
from polars_rank.metrics._docs import shared_parameters
from polars_rank.recsys._common import only, per_list_mean, query_exprs, recommended

if TYPE_CHECKING:
    from collections.abc import Sequence

    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["intra_list_similarity", "intra_list_diversity", "personalization"]


def _components(features: IntoExpr | Sequence[IntoExpr] | None, dim: int | None) -> list[pl.Expr]:
    if features is None:
        return []
    if isinstance(features, (str, pl.Expr)):
        column = to_expr(features, "features")
        if dim is None:
            return [column.cast(pl.Float64)]
        size = check_k(dim, "dim")
        assert size is not None
        as_list = column.cast(pl.List(pl.Float64))
        return [as_list.list.get(j, null_on_oob=True) for j in range(size)]
    if dim is not None:
        msg = "dim= is for one embedding column; several feature columns give their own"
        raise ValueError(msg)
    return [to_expr(f, "features").cast(pl.Float64) for f in features]


def _similarity(features: IntoExpr | Sequence[IntoExpr] | None, category: IntoExpr | None,
                dim: int | None, mask: pl.Expr | None) -> pl.Expr:
    """Mean pairwise similarity of one list (null with fewer than two items)."""
    if (features is None) == (category is None):
        msg = "give features= (feature columns or an embedding with dim=) or category=, one"
        raise TypeError(msg)
    if category is not None:
        counts = only(to_expr(category, "category"), mask).unique_counts().cast(pl.Float64)
        n = counts.sum()  # whole numbers: exact in any order
        same = (counts * (counts - 1.0)).sum()
        return pl.when(n >= 2).then(same / (n * (n - 1.0)))
    parts = [only(c, mask) for c in _components(features, dim)]
    norm = row_sum(c * c for c in parts).sqrt()
    n = norm.len().cast(pl.Float64)
    summed = row_sum(ordered_sum(c / norm) ** 2 for c in parts)
    return pl.when(n >= 2).then((summed - n) / (n * (n - 1.0)))


@shared_parameters
def intra_list_similarity(features: IntoExpr | Sequence[IntoExpr] | None = None, *,
                          category: IntoExpr | None = None, dim: int | None = None,
                          query: Query = None, by: IntoExpr | None = None,
                          k: int | None = None, descending: bool = True) -> pl.Expr:
    r"""Intra-list similarity: the mean similarity over the pairs of a list's items.

    .. math:: \mathrm{ILS}(L) = \frac{2}{n(n-1)} \sum_{i<j \in L} \mathrm{sim}(i, j)

    ``features``: cosine similarity of item feature vectors, given as several numeric
    columns (Evidently's ``item_features``) or one list/array embedding column with
    ``dim=`` (MS Recommenders' ``item_sim_measure="item_feature_vector"``, the cosine
    of its ``features`` vectors). ``category``: 1 if two items share the category, 0
    otherwise (the share of same-category pairs). MS Recommenders' default, cosine
    of item co-occurrence in a log, needs the log: :func:`user_diversity`.

    Parameters
    ----------
    features
        ... recsys
    category
        ... recsys
    dim
        ... recsys
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
        Float64 in [-1, 1] (cosine) or [0, 1] (category); null for a list of fewer
        than two items (left out of the mean, as MS Recommenders leaves it out); NaN
        for a zero feature vector (its cosine is undefined).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 1, 2, 2], "genre": ["a", "a", "b", "c", "d"]})
    >>> round(reco.select(pr.intra_list_similarity(category="genre", query="user")).item(), 4)
    0.1667
    """
    mask = recommended(by, k, descending)
    value = _similarity(features, category, dim, mask)
    return per_list_mean(value, query_exprs(query)).alias("intra_list_similarity")


@shared_parameters
def intra_list_diversity(features: IntoExpr | Sequence[IntoExpr] | None = None, *,
                         category: IntoExpr | None = None, dim: int | None = None,
                         query: Query = None, by: IntoExpr | None = None,
                         k: int | None = None, descending: bool = True) -> pl.Expr:
    r"""Intra-list diversity: 1 - :func:`intra_list_similarity`, per list, averaged.

    MS Recommenders' ``user_diversity`` / ``diversity`` with
    ``item_sim_measure="item_feature_vector"`` (``python_evaluation.py``, b02c95e)
    when ``features`` is its feature vector; with ``category``, the share of pairs
    of different categories. Evidently's ``DiversityMetric`` divides the sum of the
    pairs' cosine distances by n instead of by the n(n-1)/2 pairs: multiply by
    (n - 1)/2 for its number.

    Parameters
    ----------
    features
        ... recsys
    category
        ... recsys
    dim
        ... recsys
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
        Float64; null for a list of fewer than two items.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2], "x": [1.0, 0.0, 1.0, 1.0],
    ...                      "y": [0.0, 1.0, 0.0, 0.0]})
    >>> reco.select(pr.intra_list_diversity(["x", "y"], query="user")).item()
    0.5
    """
    mask = recommended(by, k, descending)
    value = 1.0 - _similarity(features, category, dim, mask)
    return per_list_mean(value, query_exprs(query)).alias("intra_list_diversity")


@shared_parameters
def personalization(item: IntoExpr, *, query: Query, by: IntoExpr | None = None,
                    k: int | None = None, descending: bool = True) -> pl.Expr:
    r"""Personalization (inter-list diversity): 1 - the mean overlap of two users' lists.

    .. math:: 1 - \frac{1}{|U|(|U|-1)} \sum_{u \ne v} \frac{|L_u \cap L_v|}{k}
       = 1 - \frac{\sum_i c_i^2 - \sum_i c_i}{k\,|U|(|U|-1)}

    with :math:`c_i` the number of lists recommending item i: Evidently's
    ``PersonalizationMetric`` (``legacy/metrics/recsys/personalisation.py``, a4aa4c2),
    which subtracts :math:`|U| k` for :math:`\sum_i c_i` (equal when every list has
    k items). ``k=None`` divides by the longest list, and so does a ``k`` that ties
    at the cutoff make a list exceed (Evidently's order of tied rows is their input
    order). Sufficient statistics per slice:
    the item counts (:func:`exposure_counts`), the number of users and k.

    Parameters
    ----------
    item
        ... recsys
    query
        User column(s): the lists. Required.
    by
        ... recsys
    k
        Cutoff per list (the overlap's denominator).
    descending
        ... recsys

    Returns
    -------
    pl.Expr
        Float64 in [0, 1]; null with fewer than two users.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
    ...                      "item": [1, 2, 3, 4, 1, 2, 3, 4, 1, 3, 2, 5],
    ...                      "rank": [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]})
    >>> round(reco.select(pr.personalization("item", query="user", by="rank",
    ...                                      descending=False, k=4)).item(), 6)
    0.166667
    """
    if query is None:
        msg = "personalization needs query= (the user column): it compares users' lists"
        raise TypeError(msg)
    users = query_exprs(query)
    mask = recommended(by, k, descending, users)
    items = only(to_expr(item, "item"), mask)
    counts = items.drop_nulls().unique_counts().cast(pl.Float64)
    user_key = only(pl.struct(*users) if len(users) > 1 else users[0], mask)
    n = user_key.n_unique().cast(pl.Float64)
    longest = items.len().over(list(users), mapping_strategy="explode").max().cast(pl.Float64)
    # a list runs past k where rows tie with its k-th: then the longest list divides
    size = longest if k is None else pl.max_horizontal(pl.lit(float(k)), longest)
    overlap = (counts * counts).sum() - counts.sum()  # whole numbers: exact
    return pl.when(n >= 2).then(1.0 - overlap / (size * n * (n - 1.0))).alias("personalization")
