"""``pr.datasets.synthetic_interactions``: shapes, determinism, and arms that differ as meant.

The recommender data of ``notebooks/03_recommender.ipynb``: a training log, held-out
test interactions, an item and a user table, and three arms' rankings. The checks
read the frames with plain Python where they can (sets, sorted lists), so that they
do not lean on the expressions the data is there to demonstrate.
"""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank.datasets import ARMS, GENRES, SEGMENTS, synthetic_interactions

N_USERS, N_ITEMS, K = 200, 150, 10
USERS = [f"u{u:03d}" for u in range(N_USERS)]


@pytest.fixture(scope="module")
def data() -> pr.datasets.RecommenderData:
    return synthetic_interactions(N_USERS, N_ITEMS, seed=3, k=K)


@pytest.fixture(scope="module")
def full() -> pr.datasets.RecommenderData:
    return synthetic_interactions(N_USERS, N_ITEMS, seed=3, k=None)


def test_schemas(data: pr.datasets.RecommenderData) -> None:
    log = {"user": pl.String, "item": pl.String, "timestamp": pl.Datetime("us")}
    assert dict(data.train.schema) == log
    assert dict(data.test.schema) == log
    assert dict(data.items.schema) == {"item": pl.String, "genre": pl.String,
                                       "provider": pl.String,
                                       "embedding": pl.Array(pl.Float64, 4)}
    assert dict(data.users.schema) == {"user": pl.String, "segment": pl.Enum(SEGMENTS)}
    assert dict(data.recommendations.schema) == {"arm": pl.String, "user": pl.String,
                                                 "item": pl.String, "rank": pl.Int32,
                                                 "score": pl.Float64}


def test_tables(data: pr.datasets.RecommenderData) -> None:
    assert data.items["item"].to_list() == [f"i{i:03d}" for i in range(N_ITEMS)]
    assert set(data.items["genre"]) <= set(GENRES)
    assert set(data.items["provider"]) == {"studio", "indie"}
    assert data.users["user"].to_list() == USERS
    assert set(data.users["segment"]) == set(SEGMENTS)


def _by_user(frame: pl.DataFrame) -> dict[str, list[tuple[str, object]]]:
    out: dict[str, list[tuple[str, object]]] = {}
    for user, item, ts in frame.select("user", "item", "timestamp").iter_rows():
        out.setdefault(user, []).append((item, ts))
    return out


def test_train_and_test_split_each_users_log_by_time(
        data: pr.datasets.RecommenderData) -> None:
    train, test = _by_user(data.train), _by_user(data.test)
    segment = dict(data.users.iter_rows())
    bounds = {"light": (3, 8), "regular": (10, 25), "heavy": (30, 60)}
    assert set(train) == set(test) == set(USERS)
    for user in USERS:
        seen, held = train[user], test[user]
        items = [i for i, _ in seen + held]
        assert len(items) == len(set(items)), "an item twice in a user's log"
        low, high = bounds[segment[user]]
        assert low <= len(items) <= high
        assert len(held) == max(1, round(0.2 * len(items)))
        assert max(t for _, t in seen) <= min(t for _, t in held)  # the latest are held out


def _head_share(train: pl.DataFrame) -> float:
    """The share of the log's interactions on its 10% most popular items."""
    counts = sorted(train.group_by("item").len()["len"].to_list(), reverse=True)
    return sum(counts[: N_ITEMS // 10]) / sum(counts)


def test_popularity_is_long_tailed(data: pr.datasets.RecommenderData) -> None:
    assert _head_share(data.train) > 0.25
    uniform = synthetic_interactions(N_USERS, N_ITEMS, seed=3, skew=0.0)
    assert _head_share(uniform.train) < 0.2


def test_recommendations_rank_unseen_items(data: pr.datasets.RecommenderData,
                                           full: pr.datasets.RecommenderData) -> None:
    seen = {(u, i) for u, i in data.train.select("user", "item").iter_rows()}
    n_seen = data.train.group_by("user").len().rows()
    for frame, sizes in ((data.recommendations, dict.fromkeys(USERS, K)),
                         (full.recommendations, {u: N_ITEMS - n for u, n in n_seen})):
        lists: dict[tuple[str, str], list[tuple[int, str, float]]] = {}
        for arm, user, item, rank, score in frame.iter_rows():
            assert (user, item) not in seen
            lists.setdefault((arm, user), []).append((rank, item, score))
        assert set(lists) == {(a, u) for a in ARMS for u in USERS}
        for (_, user), rows in lists.items():
            assert [r for r, _, _ in rows] == list(range(1, sizes[user] + 1))  # in rank order
            assert len({i for _, i, _ in rows}) == len(rows)
            # score descending, equal scores by item id descending
            keys = [(s, i) for _, i, s in rows]
            assert keys == sorted(keys, reverse=True)


def test_top_k_is_the_head_of_the_full_ranking(data: pr.datasets.RecommenderData,
                                               full: pr.datasets.RecommenderData) -> None:
    for name in ("train", "test", "items", "users"):
        assert_frame_equal(getattr(data, name), getattr(full, name))
    assert_frame_equal(data.recommendations,
                       full.recommendations.filter(pl.col("rank") <= K))


def test_the_ranks_are_evaluates_order(data: pr.datasets.RecommenderData) -> None:
    """Ties in score rank as evaluate() breaks them: the score and the rank agree."""
    qrels = pr.qrels_from_interactions(data.test, doc="item")
    metrics = ["ndcg@5", "p@3", "map", "mrr"]
    by_score = pr.evaluate(data.recommendations, qrels, metrics, query="user", doc="item",
                           group_by="arm", per_query=True)
    by_rank = pr.evaluate(data.recommendations.with_columns(score=-pl.col("rank")), qrels,
                          metrics, query="user", doc="item", group_by="arm",
                          per_query=True)
    assert by_score.height == 3 * N_USERS
    assert_frame_equal(by_score.sort("arm", "user"), by_rank.sort("arm", "user"))


def test_same_seed_same_frames_other_seed_other_frames() -> None:
    a = synthetic_interactions(120, 100, seed=5, k=5)
    b = synthetic_interactions(120, 100, seed=5, k=5)
    c = synthetic_interactions(120, 100, seed=6, k=5)
    for x, y in zip(a, b, strict=True):
        assert_frame_equal(x, y)
    assert not a.train.equals(c.train)
    assert not a.recommendations.equals(c.recommendations)


def test_the_arms_differ_as_meant(data: pr.datasets.RecommenderData) -> None:
    """popular: the least novel, the fewest items, the most overlap; personal the most."""
    pop = pr.item_popularity(data.train)
    rows = data.recommendations.join(pop, on="item", how="left").join(data.items, on="item")
    cut = {"query": "user", "by": "rank", "descending": False, "k": K}
    out = {row["arm"]: row for row in rows.group_by("arm").agg(
        pr.novelty("share", **cut),
        pr.catalog_coverage("item", catalog=N_ITEMS, **cut).alias("coverage"),
        pr.gini_index("item", catalog=N_ITEMS, **cut).alias("gini"),
        pr.long_tail_share("long_tail", **cut).alias("tail"),
        pr.personalization("item", **cut),
        pr.exposure_share("provider", "indie", **cut).alias("indie"),
    ).iter_rows(named=True)}
    for metric in ("novelty", "coverage", "tail", "personalization", "indie"):
        assert out["popular"][metric] < out["blend"][metric] < out["personal"][metric], metric
    assert out["popular"]["gini"] > out["blend"]["gini"] > out["personal"]["gini"]
    # the plain-Python view of the same: distinct items recommended per arm
    distinct = {arm: len(set(g["item"])) for (arm,), g in
                data.recommendations.group_by("arm")}
    assert distinct["popular"] < distinct["blend"] < distinct["personal"]


def test_segments_slice_through_evaluate(data: pr.datasets.RecommenderData) -> None:
    """The segment (an Enum) is a group_by column of evaluate(); personalisation helps
    the heavy users more than the light ones."""
    qrels = pr.qrels_from_interactions(data.test, doc="item")
    run = data.recommendations.join(data.users, on="user")
    out = pr.evaluate(run, qrels, ["ndcg@10"], query="user", doc="item",
                      group_by=["segment", "arm"])
    assert out.height == len(SEGMENTS) * len(ARMS)
    ndcg = {(s, a): v for s, a, v in out.iter_rows()}
    gain = {s: ndcg[s, "blend"] - ndcg[s, "popular"] for s in SEGMENTS}
    assert gain["heavy"] > gain["light"]


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"n_users": 1}, "n_users"),
    ({"n_items": 50}, "n_items"),
    ({"k": 0}, "k must"),
    ({"k": True}, "k must"),
    ({"skew": -1.0}, "skew"),
    ({"held_out": 0.0}, "held_out"),
    ({"held_out": 0.6}, "held_out"),
])
def test_bad_arguments(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        synthetic_interactions(**kwargs)  # type: ignore[arg-type]
