"""Novelty and popularity bias: recommended items seen through their popularity.

Popularity comes from the interaction log (the training data): :func:`item_popularity`
turns a log into an item table (interactions, share, distinct users, self-information,
long-tail flag) to join onto the recommendations by item id; the expressions then read
its columns. They are per-list means: without ``query=`` the context's rows form one
list (MS Recommenders' global average over every recommendation); with ``query=`` the
mean of each user's mean (Evidently's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, TypeVar

import polars as pl

from polars_rank._engine.frames import as_polars_like
from polars_rank._engine.params import check_choice, check_real, to_expr
from polars_rank._engine.sums import ordered_mean
from polars_rank.metrics._docs import shared_parameters
from polars_rank.recsys._common import only, per_list_mean, query_exprs, recommended

if TYPE_CHECKING:
    from polars_rank._engine.params import IntoExpr, Query

__all__ = ["item_popularity", "novelty", "average_popularity", "long_tail_share",
           "popularity_lift"]

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


def item_popularity(log: FrameT, *, item: str = "item", user: str | None = None,
                    head: float = 0.2) -> FrameT:
    r"""An item table from an interaction log: how popular each item is.

    Columns: ``item``; ``count`` (interactions); ``share`` = count / all interactions
    (MS Recommenders' choice-model p(i), ``historical_item_novelty``); ``novelty`` =
    :math:`-\log_2` share; with ``user``, ``users`` (distinct users) and
    ``user_share`` = users / distinct users of the log (Evidently's ``TrainStats``
    popularity and its novelty's p(i)); ``long_tail``: not among the ``head`` fraction
    of items with the most interactions (the short head: the top 20% of the items by
    default, ties by item id; our threshold, papers differ).

    Sorted by item. Sufficient statistics: ``count`` and ``users`` of disjoint logs add
    up (distinct users only if each user's interactions lie in one partition).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> train = pl.DataFrame({"user": [1, 1, 1, 2, 2, 3, 3, 3], "item": [1, 2, 4, 3, 4, 3, 4, 5]})
    >>> pr.item_popularity(train).sort("item")["novelty"].round(5).to_list()
    [3.0, 3.0, 2.0, 1.41504, 3.0]
    """
    log = as_polars_like(log, "log")  # pandas, Arrow, dicts too
    check_real(head, "head", low=0.0, high=1.0, allowed="a fraction of the items in [0, 1]")
    aggs = [pl.len().cast(pl.Int64).alias("count")]
    if user is not None:
        aggs.append(pl.col(user).n_unique().cast(pl.Int64).alias("users"))
    table = log.filter(pl.col(item).is_not_null()).group_by(item).agg(aggs)
    share = pl.col("count") / pl.col("count").sum()  # whole numbers: exact in any order
    position = pl.struct(-pl.col("count"), pl.col(item)).rank("ordinal")
    out = table.with_columns(
        share.alias("share"),
        (-share.log(2)).alias("novelty"),
        (position > pl.len().cast(pl.Float64) * head).alias("long_tail"),
    )
    if user is not None:
        n_users = log.select(pl.col(user).n_unique())
        users = n_users.collect().item() if isinstance(n_users, pl.LazyFrame) else n_users.item()
        out = out.with_columns((pl.col("users") / float(users)).alias("user_share"))
    return out.sort(item)


def _mean_per_list(values: pl.Expr, query: Query, by: IntoExpr | None, k: int | None,
                   descending: bool) -> pl.Expr:
    mask = recommended(by, k, descending)
    return per_list_mean(ordered_mean(only(values, mask)), query_exprs(query))


@shared_parameters
def novelty(share: IntoExpr, *, query: Query = None, by: IntoExpr | None = None,
            k: int | None = None, descending: bool = True,
            unseen: Literal["skip", "zero"] = "skip") -> pl.Expr:
    r"""Novelty: mean self-information :math:`-\log_2 p(i)` of the recommended items.

    Castells, Vargas & Wang, "Novelty and diversity metrics for recommender systems:
    choice, discovery and relevance", ECIR 2011 (eqs. 1 and 6). ``share`` is each
    row's item popularity p(i) from the log (:func:`item_popularity`): its ``share``
    is MS Recommenders' ``novelty`` (``python_evaluation.py``, b02c95e: every
    recommendation weighted once, no ``query``), its ``user_share`` with
    ``query="user"`` Evidently's ``NoveltyMetric`` (mean inverse user frequency,
    ``legacy/metrics/recsys/novelty.py``, a4aa4c2: each user's mean, then the mean).

    Parameters
    ----------
    share
        p(i) of each recommended item, in (0, 1]; null for an item the log never saw.
    query
        ... recsys
    by
        ... recsys
    k
        ... recsys
    descending
        ... recsys
    unseen
        An item without popularity: ``"skip"`` leaves it out (Evidently); ``"zero"``
        counts it with novelty 0 (MS Recommenders' inner merge keeps it in the
        denominator).

    Returns
    -------
    pl.Expr
        Float64 >= 0; null for a list without a seen item (skipped by the mean).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> train = pl.DataFrame({"user": [1, 1, 1, 2, 2, 3, 3, 3], "item": [1, 2, 4, 3, 4, 3, 4, 5]})
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2, 3, 3], "item": [3, 5, 2, 5, 1, 2]})
    >>> rows = reco.join(pr.item_popularity(train), on="item", how="left")
    >>> round(rows.select(pr.novelty("share")).item(), 5)
    2.83333
    """
    check_choice(unseen, "unseen", ("skip", "zero"))
    info = -to_expr(share, "share").cast(pl.Float64).log(2)
    if unseen == "zero":
        info = info.fill_null(0.0)
    return _mean_per_list(info, query, by, k, descending).alias("novelty")


@shared_parameters
def average_popularity(popularity: IntoExpr, *, query: Query = None,
                       by: IntoExpr | None = None, k: int | None = None,
                       descending: bool = True, normalize: float | None = None) -> pl.Expr:
    r"""Average recommendation popularity (ARP): the mean popularity of recommended items.

    .. math:: \mathrm{ARP} = \frac{1}{|U|} \sum_u \frac{1}{|L_u|} \sum_{i \in L_u} \phi(i)

    Abdollahpouri, Burke & Mobasher, "Managing popularity bias in recommender systems
    with personalized re-ranking", FLAIRS 2019; Evidently's ``PopularityBias`` ARP
    (``legacy/metrics/recsys/popularity_bias.py``, a4aa4c2) with :math:`\phi(i)` the
    distinct users of the item (:func:`item_popularity`'s ``users``), ``query="user"``,
    items the log never saw (null) left out; ``normalize=`` the largest popularity is
    its ``normalize_arp=True``.

    Parameters
    ----------
    popularity
        ... recsys
    query
        ... recsys
    by
        ... recsys
    k
        ... recsys
    descending
        ... recsys
    normalize
        Divide by this (the log's largest popularity); ``None``: raw.

    Returns
    -------
    pl.Expr
        Float64.

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> train = pl.DataFrame({"user": [1, 1, 2, 3], "item": [1, 2, 1, 1]})
    >>> reco = pl.DataFrame({"user": [1, 2, 2, 3, 3], "item": [3, 2, 3, 1, 2]})
    >>> rows = reco.join(pr.item_popularity(train, user="user"), on="item", how="left")
    >>> rows.select(pr.average_popularity("users", query="user")).item()
    1.5
    """
    values = to_expr(popularity, "popularity").cast(pl.Float64)
    if normalize is not None:
        check_real(normalize, "normalize", low=0.0, low_open=True, allowed="a number > 0")
        values = values / float(normalize)
    return _mean_per_list(values, query, by, k, descending).alias("average_popularity")


@shared_parameters
def long_tail_share(long_tail: IntoExpr, *, query: Query = None,
                    by: IntoExpr | None = None, k: int | None = None,
                    descending: bool = True) -> pl.Expr:
    r"""Share of recommended items in the long tail (APLT).

    Abdollahpouri, Burke & Mobasher, FLAIRS 2019 ("average percentage of long-tail
    items"): the mean over lists of the fraction of each list's items outside the
    short head. ``long_tail`` is a boolean per row, e.g. :func:`item_popularity`'s
    (the items outside the top ``head`` = 20% by interactions); an item the log never
    saw (null) counts as long tail.

    Parameters
    ----------
    long_tail
        True where the item is in the long tail.
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
        Float64 in [0, 1].

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2, 2], "tail": [True, False, False, False]})
    >>> reco.select(pr.long_tail_share("tail", query="user")).item()
    0.25
    """
    flag = to_expr(long_tail, "long_tail").fill_null(True).cast(pl.Float64)
    return _mean_per_list(flag, query, by, k, descending).alias("long_tail_share")


@shared_parameters
def popularity_lift(popularity: IntoExpr, *, history: IntoExpr, query: Query,
                    by: IntoExpr | None = None, k: int | None = None,
                    descending: bool = True) -> pl.Expr:
    r"""Popularity lift: how much more popular the recommendations are than the history.

    .. math:: \Delta\mathrm{GAP} = \frac{\mathrm{GAP}_r - \mathrm{GAP}_p}{\mathrm{GAP}_p}

    with :math:`\mathrm{GAP}_r` the mean over the context's users of their
    recommended items' mean popularity and :math:`\mathrm{GAP}_p` the mean over the
    same users of their history's mean popularity (Abdollahpouri, Mansoury, Burke &
    Mobasher, "The connection between popularity bias, calibration, and fairness in
    recommendation", RecSys 2020). Per slice (a user group, an arm) in a ``group_by``.
    Both means are over one set of users: those with a history (not null) and a
    recommended item of known popularity; the others are left out of both.

    Parameters
    ----------
    popularity
        ... recsys
    history
        Each user's mean popularity over their interaction history, repeated on the
        user's rows (join :func:`item_popularity` onto the log and average per user);
        null for a user without history. A user whose rows give different values has
        no single history: the result is NaN.
    query
        User column(s): required.
    by
        ... recsys
    k
        ... recsys
    descending
        ... recsys

    Returns
    -------
    pl.Expr
        Float64 (> 0: recommendations more popular than the users' histories).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> reco = pl.DataFrame({"user": [1, 1, 2], "pop": [4.0, 2.0, 6.0], "hist": [2.0, 2.0, 4.0]})
    >>> reco.select(pr.popularity_lift("pop", history="hist", query="user")).item()
    0.5
    """
    if query is None:
        msg = "popularity_lift needs query= (the user column): it compares users' means"
        raise TypeError(msg)
    mask = recommended(by, k, descending)
    recommended_mean = ordered_mean(only(to_expr(popularity, "popularity").cast(pl.Float64), mask))
    seen = to_expr(history, "history").cast(pl.Float64).drop_nulls()
    # one value per user, whatever the row order (a varying history: NaN)
    own = pl.when(seen.min() == seen.max()).then(seen.min()).otherwise(
        pl.when(seen.count() > 0).then(pl.lit(float("nan"))))
    users = pl.struct(recommended_mean.alias("r"), own.alias("h")).over(
        list(query_exprs(query)), mapping_strategy="explode")
    r, h = users.struct.field("r"), users.struct.field("h")
    both = r.is_not_null() & h.is_not_null()
    rec, profile = ordered_mean(r.filter(both)), ordered_mean(h.filter(both))
    return ((rec - profile) / profile).alias("popularity_lift")
