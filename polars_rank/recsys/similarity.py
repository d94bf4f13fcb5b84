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

from polars_rank._engine.frames import as_polars_like
from polars_rank._engine.sums import ordered_mean, ordered_sum

__all__ = ["item_similarity", "user_diversity", "user_serendipity"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def item_similarity(frame: FrameT, *, item: str = "item", user: str = "user",
                    features: str | None = None) -> FrameT:
    r"""Item-pair cosine similarities ``i1 <= i2, sim`` from a log or from feature vectors.

    Sorted by ``i1``, ``i2``. ``features=None``: ``frame`` is the interaction log (no
    duplicate rows) and
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
    frame = as_polars_like(frame, "frame")  # pandas, Arrow, dicts too
    if features is None:
        rows = frame.select(pl.col(user), pl.col(item))
        items = _dense_ids(rows.group_by(item).agg(pl.len().cast(pl.Float64).alias("n")), item)
        ids = rows.join(items.select(item, "_id"), on=item).select(user, "_id")
        both = (ids.rename({"_id": "a"}).join(ids.rename({"_id": "b"}), on=user)
                .filter(pl.col("a") <= pl.col("b"))
                .group_by(_packed("a", "b")).agg(pl.len().cast(pl.Float64).alias("both")))
        first = items.rename({"_id": "a", item: "i1", "n": "n1"})
        second = items.rename({"_id": "b", item: "i2", "n": "n2"})
        return (both.with_columns((pl.col("_pair") // _SHIFT).cast(pl.UInt32).alias("a"),
                                  (pl.col("_pair") % _SHIFT).cast(pl.UInt32).alias("b"))
                .join(first, on="a").join(second, on="b")
                .select("i1", "i2", (pl.col("both") / (pl.col("n1") * pl.col("n2")).sqrt())
                        .alias("sim")).sort("i1", "i2"))
    vectors = frame.select(pl.col(item), pl.col(features).cast(pl.List(pl.Float64)).alias("f"))
    pairs = (vectors.rename({item: "i1", "f": "f1"}).join(
        vectors.rename({item: "i2", "f": "f2"}), how="cross")
        .filter(pl.col("i1") <= pl.col("i2")))
    flat = pairs.with_row_index("_pair").explode(["f1", "f2"])
    return flat.group_by("_pair", "i1", "i2").agg(
        (ordered_sum(pl.col("f1") * pl.col("f2"))
         / (ordered_sum(pl.col("f1") ** 2).sqrt() * ordered_sum(pl.col("f2") ** 2).sqrt()))
        .alias("sim"),
    ).drop("_pair").sort("i1", "i2")


# The lookups join millions of item pairs with the similarity table. A join or group_by
# on one UInt64 key is about twice as fast as on the two item columns (docs/performance.md,
# "Recommender similarity lookups"), so items get dense ids (their index among the sorted
# distinct items) and a pair is one number, id1 * 2**32 + id2 with id1 <= id2.
_SHIFT = 2**32


def _dense_ids(items: FrameT, item: str) -> FrameT:
    """``items`` (one row per item) sorted by item, with its index as ``_id`` (UInt32).

    Sorted, so that a lazy plan that reads it twice numbers the items the same way.
    """
    return items.sort(item).with_row_index("_id")


def _packed(a: str, b: str) -> pl.Expr:
    """The pair key of dense ids ``a`` and ``b``, in either order."""
    return (pl.min_horizontal(a, b).cast(pl.UInt64) * _SHIFT
            + pl.max_horizontal(a, b)).alias("_pair")


def _item_type(*columns: tuple[FrameT, str]) -> pl.DataType:
    """The common type of the (frame, column) item columns, as a concatenation casts them.

    A table's i1 Int64 beside a recommendation's item Int32: Int64.
    """
    empty = [pl.DataFrame(schema={"item": frame.collect_schema()[name]})
             for frame, name in columns]
    return pl.concat(empty, how="vertical_relaxed").schema["item"]


def _dictionary(*columns: FrameT, item: str) -> FrameT:
    """The distinct items of ``columns`` (frames of one column, ``item``) with dense ids.

    Built from the rows to look up, not from the similarity table: a lazy table read
    twice (for its items, then for its rows) is computed twice, as projection pushdown
    makes the two reads differ and common-subplan elimination misses them.
    """
    return _dense_ids(pl.concat(list(columns)).unique(), item)


def _keyed(similarity: FrameT, items: FrameT, item: str, dtype: pl.DataType) -> FrameT:
    """The table's rows i1 <= i2 between ``items`` (a :func:`_dictionary`), by ``_pair``.

    A table that also holds rows i2 < i1 is read as MS Recommenders reads it: the pair
    (min, max) matches the row i1 = min, i2 = max only.
    """
    return (similarity.select(pl.col("i1", "i2").cast(dtype), "sim")
            .join(items.rename({item: "i1", "_id": "_a"}), on="i1")
            .join(items.rename({item: "i2", "_id": "_b"}), on="i2")
            .filter(pl.col("_a") <= pl.col("_b"))  # ids are in item order
            .select(_packed("_a", "_b"), "sim"))


def _with_ids(rows: FrameT, items: FrameT, item: str, to: str) -> FrameT:
    """``rows`` with the dense id of column ``item`` as ``to`` (a null item: no row)."""
    return rows.join(items.rename({"_id": to}), on=item, maintain_order="left")


def _to_ids(similarity: FrameT, item: str,
            *frames: tuple[FrameT, str]) -> tuple[list[FrameT], FrameT]:
    """The frames with dense item ids, and the similarity table keyed over the same ids.

    Each (frame, name): the frame with its ``item`` column replaced by the ids, called
    ``name``; the items, cast to their common type with the table's, numbered once for
    all (:func:`_dictionary`), the table by ``_pair`` (:func:`_keyed`).
    """
    dtype = _item_type(*((f, item) for f, _ in frames), (similarity, "i1"),
                       (similarity, "i2"))
    cast = [f.with_columns(pl.col(item).cast(dtype)) for f, _ in frames]
    items = _dictionary(*(f.select(item) for f in cast), item=item)
    with_ids = [_with_ids(f, items, item, name).drop(item)
                for f, (_, name) in zip(cast, frames, strict=True)]
    return with_ids, _keyed(similarity, items, item, dtype)


def _lookup(pairs: FrameT, table: FrameT, a: str, b: str) -> FrameT:
    """``pairs`` (dense ids ``a``, ``b``) with their similarity (0 where the table has none)."""
    return (pairs.with_columns(_packed(a, b)).join(table, on="_pair", how="left")
            .with_columns(pl.col("sim").fill_null(0.0)))


def user_diversity(reco: FrameT, similarity: FrameT, *, user: str = "user",
                   item: str = "item") -> FrameT:
    """Per user: 1 - the mean similarity over the pairs of their recommended items.

    MS Recommenders' ``user_diversity`` (``_get_intralist_similarity``: pairs i1 < i2
    of a user's items, missing similarities 0); users with one item have no row, and
    rows with a null item are left out.
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
    reco, similarity = as_polars_like(reco, "reco"), as_polars_like(similarity, "similarity")
    (rows,), table = _to_ids(similarity, item, (reco.select(user, item), "_id"))
    # pairs of two rows of a user: ids follow item order, so _a < _b is item < item
    pairs = (rows.rename({"_id": "_a"}).join(rows.rename({"_id": "_b"}), on=user)
             .filter(pl.col("_a") < pl.col("_b")))
    return (_lookup(pairs, table, "_a", "_b").group_by(user)
            .agg((1.0 - ordered_mean(pl.col("sim"))).alias("user_diversity")).sort(user))


def user_serendipity(reco: FrameT, log: FrameT, similarity: FrameT, *, relevance: str,
                     user: str = "user", item: str = "item") -> FrameT:
    r"""Per user: the mean over recommended items of unexpectedness x relevance.

    .. math:: \mathrm{ser}(u, i) = \Big(1 - \frac{1}{|H_u|} \sum_{h \in H_u}
       \mathrm{sim}(i, h)\Big) \cdot \mathrm{rel}(u, i)

    with :math:`H_u` the user's items in the log (Zhang et al., Auralist, WSDM 2012;
    Yan, "Serendipity: accuracy's unpopular best friend", 2020): MS Recommenders'
    ``user_item_serendipity`` / ``user_serendipity`` (``python_evaluation.py``,
    b02c95e; a recommended item present in the history has similarity 1 with itself;
    users absent from the log have no row). Rows with a null item are left out; a
    (user, item) given twice (MS Recommenders assumes none) counts once per row.

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
    reco, log = as_polars_like(reco, "reco"), as_polars_like(log, "log")
    similarity = as_polars_like(similarity, "similarity")
    (rows, history), table = _to_ids(
        similarity, item,
        (reco.select(pl.col(user), pl.col(item), pl.col(relevance).alias("_rel")), "_a"),
        (log.select(user, item), "_b"))
    rows = rows.with_row_index("_row")
    # one group per recommended row (the row index: one integer key; MS Recommenders
    # assumes no (user, item) twice: each such row counts with its own relevance)
    per_item = (_lookup(rows.join(history, on=user), table, "_a", "_b")
                .group_by("_row").agg(
                    pl.col(user).first(),
                    ((1.0 - ordered_mean(pl.col("sim"))) * pl.col("_rel").first().cast(pl.Float64))
                    .alias("s")))
    return (per_item.group_by(user).agg(ordered_mean(pl.col("s")).alias("user_serendipity"))
            .sort(user))
