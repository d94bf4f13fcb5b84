"""Diversity and serendipity from an item-pair similarity table (MS Recommenders' way).

MS Recommenders' ``diversity`` and ``serendipity`` (``recommenders/evaluation/
python_evaluation.py``, b02c95e) look item pairs up in a similarity table:
``item_sim_measure="item_cooccurrence_count"`` (the default) is the cosine of the
items' co-occurrence in the training log, ``"item_feature_vector"`` the cosine of
item feature vectors. :func:`item_similarity` builds that table (i1 <= i2) as a
Polars frame, :func:`user_diversity` and :func:`user_serendipity` give one row per
user; ``.mean()`` of their column is MS Recommenders' ``diversity`` / ``serendipity``.
Lazy in, lazy out; pure Polars joins.
"""

from __future__ import annotations

from typing import TypeVar

import polars as pl

__all__ = ["item_similarity", "user_diversity", "user_serendipity"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def item_similarity(frame: FrameT, *, item: str = "item", user: str = "user",
                    features: str | None = None) -> FrameT:
    r"""Item-pair cosine similarities ``i1 <= i2, sim`` from a log or from feature vectors.

    ``features=None``: ``frame`` is the interaction log (no duplicate rows) and
    :math:`\mathrm{sim}(i, j) = |U_i \cap U_j| / \sqrt{|U_i|\,|U_j|}`, the cosine of
    co-occurrence (Zhang et al., Auralist, WSDM 2012; MS Recommenders'
    ``_get_cooccurrence_similarity``); pairs never seen together are absent (0).
    ``features="col"``: ``frame`` is an item table with a list/array column of feature
    vectors and sim is their cosine (``_get_item_feature_similarity``; every pair).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> train = pl.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1]})
    >>> pr.item_similarity(train).sort("i1", "i2")["sim"].round(4).to_list()
    [1.0, 0.7071, 1.0]
    """
    if features is None:
        rows = frame.select(pl.col(user), pl.col(item))
        counts = rows.group_by(item).agg(pl.len().cast(pl.Float64).alias("n"))
        pairs = (rows.rename({item: "i1"}).join(rows.rename({item: "i2"}), on=user)
                 .filter(pl.col("i1") <= pl.col("i2"))
                 .group_by("i1", "i2").agg(pl.len().cast(pl.Float64).alias("both")))
        return (pairs.join(counts.rename({item: "i1", "n": "n1"}), on="i1")
                .join(counts.rename({item: "i2", "n": "n2"}), on="i2")
                .select("i1", "i2", (pl.col("both") / (pl.col("n1") * pl.col("n2")).sqrt())
                        .alias("sim")))
    vectors = frame.select(pl.col(item), pl.col(features).cast(pl.List(pl.Float64)).alias("f"))
    pairs = (vectors.rename({item: "i1", "f": "f1"}).join(
        vectors.rename({item: "i2", "f": "f2"}), how="cross")
        .filter(pl.col("i1") <= pl.col("i2")))
    flat = pairs.with_row_index("_pair").explode(["f1", "f2"])
    return flat.group_by("_pair", "i1", "i2").agg(
        ((pl.col("f1") * pl.col("f2")).sum()
         / ((pl.col("f1") ** 2).sum().sqrt() * (pl.col("f2") ** 2).sum().sqrt())).alias("sim"),
    ).drop("_pair")


def _lookup(pairs: FrameT, similarity: FrameT, a: str, b: str) -> FrameT:
    """``pairs`` with the similarity of items ``a`` and ``b`` (0 where the table has none)."""
    keyed = pairs.with_columns(pl.min_horizontal(a, b).alias("i1"),
                               pl.max_horizontal(a, b).alias("i2"))
    return keyed.join(similarity, on=["i1", "i2"], how="left").with_columns(
        pl.col("sim").fill_null(0.0))


def user_diversity(reco: FrameT, similarity: FrameT, *, user: str = "user",
                   item: str = "item") -> FrameT:
    """Per user: 1 - the mean similarity over the pairs of their recommended items.

    MS Recommenders' ``user_diversity`` (``_get_intralist_similarity``: pairs i1 < i2
    of a user's items, missing similarities 0); users with one item have no row.
    For feature vectors or categories already on the rows, the expression
    :func:`intra_list_diversity` gives the same numbers without a similarity table.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> train = pl.DataFrame({"user": [1, 1, 1, 2, 2, 3, 3, 3], "item": [1, 2, 4, 3, 4, 3, 4, 5]})
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2]})
    >>> out = pr.user_diversity(reco, pr.item_similarity(train))
    >>> out.sort("user")["user_diversity"].round(5).to_list()
    [0.29289, 1.0, 0.0]
    """
    rows = reco.select(pl.col(user), pl.col(item))
    pairs = (rows.rename({item: "a"}).join(rows.rename({item: "b"}), on=user)
             .filter(pl.col("a") < pl.col("b")))
    return (_lookup(pairs, similarity, "a", "b").group_by(user)
            .agg((1.0 - pl.col("sim").mean()).alias("user_diversity")).sort(user))


def user_serendipity(reco: FrameT, log: FrameT, similarity: FrameT, *, relevance: str,
                     user: str = "user", item: str = "item") -> FrameT:
    r"""Per user: the mean over recommended items of unexpectedness x relevance.

    .. math:: \mathrm{ser}(u, i) = \Big(1 - \frac{1}{|H_u|} \sum_{h \in H_u}
       \mathrm{sim}(i, h)\Big) \cdot \mathrm{rel}(u, i)

    with :math:`H_u` the user's items in the log (Zhang et al., Auralist, WSDM 2012;
    Yan, "Serendipity: accuracy's unpopular best friend", 2020): MS Recommenders'
    ``user_item_serendipity`` / ``user_serendipity`` (``python_evaluation.py``,
    b02c95e; a recommended item present in the history has similarity 1 with itself;
    users absent from the log have no row).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> train = pl.DataFrame({"user": [1, 1, 1, 2, 2, 3, 3, 3], "item": [1, 2, 4, 3, 4, 3, 4, 5]})
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2],
    ...                      "rel": [1, 0, 1, 1, 1, 0]})
    >>> out = pr.user_serendipity(reco, train, pr.item_similarity(train), relevance="rel")
    >>> out.sort("user")["user_serendipity"].round(3).to_list()
    [0.364, 0.535, 0.404]
    """
    rows = reco.select(pl.col(user), pl.col(item).alias("a"), pl.col(relevance).alias("_rel"))
    history = log.select(pl.col(user), pl.col(item).alias("b"))
    per_item = (_lookup(rows.join(history, on=user), similarity, "a", "b")
                .group_by(user, "a").agg(
                    ((1.0 - pl.col("sim").mean()) * pl.col("_rel").first().cast(pl.Float64))
                    .alias("s")))
    return (per_item.group_by(user).agg(pl.col("s").mean().alias("user_serendipity"))
            .sort(user))
