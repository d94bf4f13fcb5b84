"""Reproducible synthetic data to learn and demo with: an A/B test, a recommender, a click log."""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

import polars as pl

from polars_rank._datasets_clicks import ClickLog, synthetic_click_log

__all__ = ["synthetic_experiment", "synthetic_interactions", "RecommenderData",
           "synthetic_click_log", "ClickLog"]

DEVICES = ("mobile", "desktop")
LOCALES = ("en-US", "de-DE", "fr-FR", "ja-JP")
GRADES = (0, 1, 2, 3)
GRADE_WEIGHTS = (0.62, 0.22, 0.11, 0.05)


def synthetic_experiment(
    n_queries: int = 2000,
    arms: Sequence[str] | Mapping[str, float] = ("control", "treatment"),
    *,
    seed: int = 0,
    pool: int = 30,
    shown: int = 10,
    unjudged: float = 0.1,
) -> pl.DataFrame:
    """Generate a search A/B experiment: queries, arms, graded judgments and clicks.

    Every query has a pool of ``pool`` documents with latent relevance grades 0-3.
    Each arm ranks the pool with ``score = quality * grade + noise`` and shows its top
    ``shown``; the rest of the pool is judged but not retrieved (null score and
    position), so relevant documents an arm missed still count for recall and the
    ideal. About ``unjudged`` of the labels are null. Clicks follow a cascade model:
    the user examines results from the top, clicks with probability
    ``(2^grade - 1) / 8`` and stops after a click with probability 0.6.
    Every arm ranks every query (a paired, offline-style experiment).

    Parameters
    ----------
    n_queries
        Number of queries.
    arms
        Arm names (quality 1.0, 1.15, 1.3, ... in order), or a mapping arm -> quality.
    seed
        Random seed: the same seed gives the same frame.
    pool
        Judged documents per query.
    shown
        Documents each arm shows per query.
    unjudged
        Share of documents with no label (null ``rel``).

    Returns
    -------
    pl.DataFrame
        ``arm, qid, device, locale, docid, score, position, rel, clicked``: one row
        per (arm, query, pool document).

    Examples
    --------
    >>> import polars_rank as pr
    >>> df = pr.datasets.synthetic_experiment(n_queries=200, seed=1)
    >>> df.shape, sorted(df["arm"].unique())
    ((12000, 9), ['control', 'treatment'])
    >>> pr.evaluate(df, metrics=["ndcg@10", "mrr@10"], group_by="arm", doc="docid")
    shape: (2, 3)
    ┌───────────┬──────────┬──────────┐
    │ arm       ┆ ndcg@10  ┆ mrr@10   │
    │ ---       ┆ ---      ┆ ---      │
    │ str       ┆ f64      ┆ f64      │
    ╞═══════════╪══════════╪══════════╡
    │ control   ┆ 0.739207 ┆ 0.937917 │
    │ treatment ┆ 0.775125 ┆ 0.939583 │
    └───────────┴──────────┴──────────┘
    """
    if n_queries < 1 or pool < 1 or shown < 1:
        msg = f"n_queries, pool and shown must be >= 1, got {n_queries}, {pool}, {shown}"
        raise ValueError(msg)
    quality = (
        dict(arms) if isinstance(arms, Mapping)
        else {arm: 1.0 + 0.15 * i for i, arm in enumerate(arms)}
    )
    if not quality:
        msg = "arms must name at least one arm"
        raise ValueError(msg)
    rnd = random.Random(seed)
    columns: dict[str, list[object]] = {
        name: [] for name in
        ("arm", "qid", "device", "locale", "docid", "score", "position", "rel", "clicked")
    }
    for q in range(n_queries):
        qid = f"q{q:05d}"
        device = rnd.choices(DEVICES, weights=(0.6, 0.4))[0]
        locale = rnd.choice(LOCALES)
        grades = rnd.choices(GRADES, weights=GRADE_WEIGHTS, k=pool)
        labels = [None if rnd.random() < unjudged else g for g in grades]
        docs = [f"{qid}-d{d:03d}" for d in range(pool)]
        noise_scale = 1.2 if device == "mobile" else 1.0
        for arm, arm_quality in quality.items():
            scores = [round(arm_quality * g + rnd.gauss(0.0, noise_scale), 4) for g in grades]
            order = sorted(range(pool), key=lambda i: -scores[i])
            position = {doc_index: rank for rank, doc_index in enumerate(order[:shown], 1)}
            clicks = _cascade_clicks([grades[i] for i in order[:shown]], rnd)
            for i in range(pool):
                rank = position.get(i)
                columns["arm"].append(arm)
                columns["qid"].append(qid)
                columns["device"].append(device)
                columns["locale"].append(locale)
                columns["docid"].append(docs[i])
                columns["score"].append(scores[i] if rank is not None else None)
                columns["position"].append(rank)
                columns["rel"].append(labels[i])
                columns["clicked"].append(clicks[rank - 1] if rank is not None else None)
    return pl.DataFrame(columns, schema={
        "arm": pl.String, "qid": pl.String, "device": pl.String, "locale": pl.String,
        "docid": pl.String, "score": pl.Float64, "position": pl.Int32, "rel": pl.Int8,
        "clicked": pl.Int8,
    })


def _cascade_clicks(grades: list[int], rnd: random.Random) -> list[int]:
    """Cascade user: examine from the top, click with P(grade), stop after a click (0.6)."""
    clicks = [0] * len(grades)
    for rank, grade in enumerate(grades):
        if rnd.random() < (2**grade - 1) / 8:
            clicks[rank] = 1
            if rnd.random() < 0.6:
                break
    return clicks


# ------------------------------------------------------------------ recommendations
GENRES = ("action", "comedy", "documentary", "drama", "family", "horror", "romance", "sci-fi")
SEGMENTS = ("light", "regular", "heavy")
# segment -> (share of users, fewest and most interactions, popularity exponent)
ACTIVITY = {"light": (0.4, 3, 8, 1.0), "regular": (0.4, 10, 25, 0.85),
            "heavy": (0.2, 30, 60, 0.7)}
AFFINITY = 9.0  # a favourite genre's weight against another genre's 1
EMBEDDING_DIM = 4
START = datetime(2024, 1, 1)
HORIZON = 180 * 24 * 3600  # the log spans 180 days (seconds)
# the arms: weight of log-popularity next to the user's genre profile (None: popularity only)
ARMS = {"popular": None, "blend": 1.0, "personal": 0.4}
SMOOTHING = 2.0  # pseudo-interactions of the genre prior in a user's profile


class RecommenderData(NamedTuple):
    """The frames of :func:`synthetic_interactions`."""

    train: pl.DataFrame
    """``user, item, timestamp``: the training interaction log."""
    test: pl.DataFrame
    """``user, item, timestamp``: each user's latest interactions, held out (the qrels)."""
    items: pl.DataFrame
    """``item, genre, provider, embedding``: the item table (popularity: from ``train``)."""
    users: pl.DataFrame
    """``user, segment``: light, regular or heavy, by activity."""
    recommendations: pl.DataFrame
    """``arm, user, item, rank, score``: each arm's top ``k`` per user."""


def synthetic_interactions(
    n_users: int = 1000,
    n_items: int = 500,
    *,
    seed: int = 0,
    k: int | None = 10,
    skew: float = 1.0,
    held_out: float = 0.2,
) -> RecommenderData:
    """Generate a recommender's interaction log, held-out test items and three arms.

    Items have a Zipf-like popularity (weight ``1 / r^skew`` for the item of
    popularity rank r, in shuffled id order), one of eight genres, a 4-dimensional
    embedding (its genre's direction plus noise) and a provider, ``"studio"`` (most of
    the short head) or ``"indie"``. Users are ``light`` (40%, 3-8 interactions),
    ``regular`` (40%, 10-25) or ``heavy`` (20%, 30-60); each likes one or two genres
    (9 times the weight of the others) and picks distinct items with probability
    proportional to ``popularity^b x genre weight``, b = 1, 0.85, 0.7 by segment
    (heavier users go further into the tail), at random times over 180 days. Each
    user's latest ``held_out`` share of interactions (at least one) is the test set.

    The arms rank every item a user has not interacted with in ``train``:
    ``popular`` by its training interactions; ``blend`` and ``personal`` by the
    user's genre profile (the log of their training share of the item's genre,
    smoothed towards the log's) plus ``w x log`` the item's smoothed popularity,
    w = 1 (``blend``) or 0.4 (``personal``: more long-tail items). Equal scores
    rank by item id descending, as :func:`polars_rank.evaluate` breaks ties, so the
    ``score`` and the ``rank`` give the same numbers; ``rank`` 1 is the top.

    Parameters
    ----------
    n_users
        Number of users.
    n_items
        Number of items (at least 100: the heaviest users pick 60 distinct ones).
    seed
        Random seed: the same seed gives the same frames.
    k
        Recommendations per user and arm; ``None``: every item not in the user's
        training interactions (a full ranking, e.g. to sample negatives from).
    skew
        Zipf exponent of item popularity (0: uniform).
    held_out
        Share of each user's latest interactions held out, in (0, 0.5].

    Returns
    -------
    RecommenderData
        ``train``, ``test``, ``items``, ``users``, ``recommendations`` (DataFrames;
        ids are strings ``"u0001"``, ``"i042"``: zero-padded, so that id order,
        byte order and number order agree).

    Examples
    --------
    >>> import polars as pl
    >>> import polars_rank as pr
    >>> data = pr.datasets.synthetic_interactions(n_users=300, n_items=200, seed=1)
    >>> data.train.height, data.test.height, data.recommendations.height
    (4309, 1087, 9000)
    >>> qrels = pr.qrels_from_interactions(data.test, doc="item")
    >>> accuracy = pr.evaluate(data.recommendations, qrels, ["ndcg@10"], query="user",
    ...                        doc="item", group_by="arm")
    >>> pop = pr.item_popularity(data.train)  # items the log never saw: no row
    >>> rows = data.recommendations.join(pop, on="item", how="left")
    >>> beyond = rows.group_by("arm").agg(pr.novelty("share", query="user"),
    ...                                   pr.catalog_coverage("item", catalog=200))
    >>> accuracy.join(beyond, on="arm").sort("novelty")
    shape: (3, 4)
    ┌──────────┬──────────┬──────────┬──────────────────┐
    │ arm      ┆ ndcg@10  ┆ novelty  ┆ catalog_coverage │
    │ ---      ┆ ---      ┆ ---      ┆ ---              │
    │ str      ┆ f64      ┆ f64      ┆ f64              │
    ╞══════════╪══════════╪══════════╪══════════════════╡
    │ popular  ┆ 0.257487 ┆ 5.958981 ┆ 0.135            │
    │ blend    ┆ 0.308603 ┆ 6.763537 ┆ 0.655            │
    │ personal ┆ 0.288449 ┆ 7.27717  ┆ 0.885            │
    └──────────┴──────────┴──────────┴──────────────────┘
    """
    _check_interaction_args(n_users, n_items, k, skew, held_out)
    rnd = random.Random(seed)
    user_ids, item_ids = _ids("u", n_users), _ids("i", n_items)
    items, weight = _items(rnd, item_ids, skew)
    genre_of = items["genre"].to_list()
    users: dict[str, list[object]] = {"user": [], "segment": []}
    log: dict[str, list[object]] = {"user": [], "item": [], "timestamp": [], "test": []}
    segment_weights = [ACTIVITY[s][0] for s in SEGMENTS]
    cumulative: dict[tuple[str, frozenset[str]], list[float]] = {}
    for user in range(n_users):
        segment = rnd.choices(SEGMENTS, weights=segment_weights)[0]
        _, fewest, most, exponent = ACTIVITY[segment]
        liked = frozenset(rnd.sample(GENRES, rnd.choice((1, 2))))
        if (segment, liked) not in cumulative:
            cumulative[segment, liked] = list(itertools.accumulate(
                weight[i] ** exponent * (AFFINITY if genre_of[i] in liked else 1.0)
                for i in range(n_items)))
        picked = _draw_distinct(rnd, cumulative[segment, liked], rnd.randint(fewest, most))
        rnd.shuffle(picked)
        times = sorted(rnd.randrange(HORIZON) for _ in picked)
        n_test = max(1, round(held_out * len(picked)))
        users["user"].append(user_ids[user])
        users["segment"].append(segment)
        for j, (item, second) in enumerate(zip(picked, times, strict=True)):
            log["user"].append(user_ids[user])
            log["item"].append(item_ids[item])
            log["timestamp"].append(START + timedelta(seconds=second))
            log["test"].append(j >= len(picked) - n_test)
    interactions = pl.DataFrame(log, schema={
        "user": pl.String, "item": pl.String, "timestamp": pl.Datetime("us"),
        "test": pl.Boolean})
    train = interactions.filter(~pl.col("test")).drop("test")
    test = interactions.filter(pl.col("test")).drop("test")
    user_table = pl.DataFrame(users, schema={"user": pl.String,
                                             "segment": pl.Enum(SEGMENTS)})
    return RecommenderData(train, test, items, user_table,
                           _recommend(train, items, user_table, k))


def _ids(prefix: str, n: int) -> list[str]:
    """``prefix`` and 0 .. n - 1, zero-padded: id order is number order and byte order."""
    width = len(str(n - 1))
    return [f"{prefix}{i:0{width}d}" for i in range(n)]


def _draw_distinct(rnd: random.Random, cumulative: list[float], n: int) -> list[int]:
    """``n`` distinct indices drawn with the weights of ``cumulative`` (sums), in draw order."""
    picked: dict[int, None] = {}
    total, last = cumulative[-1], len(cumulative) - 1
    while len(picked) < n:
        picked.setdefault(min(bisect.bisect_right(cumulative, rnd.random() * total), last), None)
    return list(picked)


def _check_interaction_args(n_users: int, n_items: int, k: int | None, skew: float,
                            held_out: float) -> None:
    if n_users < 2 or n_items < 100:
        msg = f"n_users must be >= 2 and n_items >= 100, got {n_users}, {n_items}"
        raise ValueError(msg)
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
        msg = f"k must be a positive int or None, got {k!r}"
        raise ValueError(msg)
    if not 0.0 <= skew <= 5.0:
        msg = f"skew must be in [0, 5], got {skew!r}"
        raise ValueError(msg)
    if not 0.0 < held_out <= 0.5:
        msg = f"held_out must be in (0, 0.5], got {held_out!r}"
        raise ValueError(msg)


def _items(rnd: random.Random, ids: list[str], skew: float) -> tuple[pl.DataFrame, list[float]]:
    """The item table and each item's popularity weight (Zipf over a shuffled order)."""
    n_items = len(ids)
    order = list(range(n_items))
    rnd.shuffle(order)  # order[r]: the item of popularity rank r + 1
    weight = [0.0] * n_items
    for r, item in enumerate(order):
        weight[item] = 1.0 / (r + 1) ** skew
    head = set(order[: max(1, n_items // 10)])
    directions = []
    for _ in GENRES:
        v = [rnd.gauss(0.0, 1.0) for _ in range(EMBEDDING_DIM)]
        norm = math.sqrt(sum(x * x for x in v))
        directions.append([x / norm for x in v])
    genre = rnd.choices(range(len(GENRES)), k=n_items)
    table = pl.DataFrame({
        "item": ids,
        "genre": [GENRES[g] for g in genre],
        "provider": ["studio" if rnd.random() < (0.8 if i in head else 0.3) else "indie"
                     for i in range(n_items)],
        "embedding": [[round(x + rnd.gauss(0.0, 0.35), 4) for x in directions[g]]
                      for g in genre],
    }, schema={"item": pl.String, "genre": pl.String, "provider": pl.String,
               "embedding": pl.Array(pl.Float64, EMBEDDING_DIM)})
    return table, weight


def _recommend(train: pl.DataFrame, items: pl.DataFrame, users: pl.DataFrame,
               k: int | None) -> pl.DataFrame:
    """Each arm's ranking of the items a user has not seen in training (top ``k``)."""
    n_train, n_items = train.height, items.height
    genre = items.select("item", "genre")
    counts = train.group_by("item").agg(pl.len().cast(pl.Int64).alias("count"))
    # the log's genre shares, add-one smoothed: every genre has a prior > 0
    prior = (pl.DataFrame({"genre": GENRES})
             .join(train.join(genre, on="item").group_by("genre").len(), on="genre",
                   how="left")
             .select("genre", ((pl.col("len").fill_null(0) + 1.0)
                               / float(n_train + len(GENRES))).alias("prior")))
    profile = (train.join(genre, on="item").group_by("user", "genre")
               .agg(pl.len().cast(pl.Float64).alias("n_genre")))
    seen = train.group_by("user").agg(pl.len().cast(pl.Float64).alias("n_user"))
    candidates = (users.select("user").join(genre, how="cross")
                  .join(train.select("user", "item"), on=["user", "item"], how="anti")
                  .join(counts, on="item", how="left")
                  .join(prior, on="genre", how="left")
                  .join(profile, on=["user", "genre"], how="left")
                  .join(seen, on="user", how="left")
                  .with_columns(pl.col("count", "n_genre", "n_user").fill_null(0)))
    taste = ((pl.col("n_genre") + SMOOTHING * pl.col("prior"))
             / (pl.col("n_user") + SMOOTHING)).log()
    popularity = ((pl.col("count") + 1.0) / float(n_train + n_items)).log()
    arms = []
    for arm, w in ARMS.items():
        score = pl.col("count").cast(pl.Float64) if w is None else taste + w * popularity
        arms.append(candidates.select(pl.lit(arm).alias("arm"), "user", "item",
                                      score.round(4).alias("score")))
    # rank by score, then item id, both descending (a struct: one key per window)
    position = pl.struct("score", "item").rank("ordinal", descending=True)
    ranked = pl.concat(arms).with_columns(
        position.over("arm", "user").cast(pl.Int32).alias("rank"))
    if k is not None:
        ranked = ranked.filter(pl.col("rank") <= k)
    ranked = ranked.sort("arm", "user", "rank")
    return ranked.select("arm", "user", "item", "rank", "score")
