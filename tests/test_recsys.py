"""Beyond-accuracy metrics against their lenders' own test values and a plain-Python
reference (tests/reference_recsys.py) on random data.

Transcribed: MS Recommenders ``tests/unit/recommenders/evaluation/test_python_evaluation.py``
and the ``diversity_data`` fixture of ``tests/unit/recommenders/evaluation/conftest.py``
(recommenders-team/recommenders b02c95e, TOL = 1e-4); Evidently
``tests/metrics/recsys/test_{personalisation,popularity_bias,novelty,diversity}.py``
(evidentlyai/evidently a4aa4c2).
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from budget import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import polars_rank as pr
from tests import reference_recsys as ref

TOL = 1e-4

# MS Recommenders' diversity_data fixture
TRAIN = pl.DataFrame({"UserId": [1, 1, 1, 2, 2, 3, 3, 3], "ItemId": [1, 2, 4, 3, 4, 3, 4, 5]})
RECO = pl.DataFrame({"UserId": [1, 1, 2, 2, 3, 3], "ItemId": [3, 5, 2, 5, 1, 2],
                     "Relevance": [1, 0, 1, 1, 1, 0]})
FEATURES = pl.DataFrame({"ItemId": [1, 2, 3, 4, 5], "features": [
    [0.0, 1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 1.0, 1.0, 0.0],
    [0.0, 0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0, 1.0]]})
KW = {"user": "UserId", "item": "ItemId"}


def test_msr_catalog_and_distributional_coverage() -> None:
    out = RECO.select(pr.catalog_coverage("ItemId", catalog=TRAIN["ItemId"].n_unique()),
                      pr.distributional_coverage("ItemId"))
    assert out.row(0) == pytest.approx((0.8, 1.9183), rel=TOL)


def test_msr_item_novelty_and_novelty() -> None:
    table = pr.item_popularity(TRAIN, item="ItemId").sort("ItemId")
    assert table["novelty"].to_list() == pytest.approx([3.0, 3.0, 2.0, 1.41504, 3.0], rel=TOL)
    rows = RECO.join(table, on="ItemId", how="left")
    assert rows.select(pr.novelty("share")).item() == pytest.approx(2.83333, rel=TOL)
    # novelty is 0 when the data hold one item
    only3 = pr.item_popularity(TRAIN.filter(pl.col("ItemId") == 3), item="ItemId")
    assert only3["novelty"].to_list() == [0.0]
    rows3 = RECO.filter(pl.col("ItemId") == 3).join(only3, on="ItemId")
    assert rows3.select(pr.novelty("share")).item() == 0


@pytest.mark.parametrize(("measure", "expected", "mean"), [
    ("item_cooccurrence_count", [0.29289, 1.0, 0.0], 0.43096),
    ("item_feature_vector", [0.5, 0.5, 0.5], 0.5),
])
def test_msr_user_diversity(measure: str, expected: list[float], mean: float) -> None:
    similarity = (pr.item_similarity(TRAIN, **KW) if measure == "item_cooccurrence_count"
                  else pr.item_similarity(FEATURES, item="ItemId", features="features"))
    out = pr.user_diversity(RECO, similarity, **KW)
    assert out["UserId"].to_list() == [1, 2, 3]
    assert out["user_diversity"].to_list() == pytest.approx(expected, abs=TOL)
    assert out["user_diversity"].mean() == pytest.approx(mean, rel=TOL)


def test_msr_feature_vector_diversity_as_expression() -> None:
    rows = RECO.join(FEATURES, on="ItemId")
    per_user = rows.group_by("UserId").agg(pr.intra_list_diversity("features", dim=5))
    assert per_user["intra_list_diversity"].to_list() == pytest.approx([0.5] * 3, abs=TOL)
    value = rows.select(pr.intra_list_diversity("features", dim=5, query="UserId")).item()
    assert value == pytest.approx(0.5, rel=TOL)


@pytest.mark.parametrize(("measure", "per_item", "per_user", "mean"), [
    ("item_cooccurrence_count", [0.72783, 0.0, 0.71132, 0.35777, 0.80755, 0.0],
     [0.363915, 0.53455, 0.403775], 0.43408),
    ("item_feature_vector", [0.5, 0.0, 0.75, 0.5, 0.6667, 0.0], [0.25, 0.625, 0.3333], 0.4028),
])
def test_msr_serendipity(measure: str, per_item: list[float], per_user: list[float],
                         mean: float) -> None:
    similarity = (pr.item_similarity(TRAIN, **KW) if measure == "item_cooccurrence_count"
                  else pr.item_similarity(FEATURES, item="ItemId", features="features"))
    out = pr.user_serendipity(RECO, TRAIN, similarity, relevance="Relevance", **KW)
    assert out["user_serendipity"].to_list() == pytest.approx(per_user, abs=TOL)
    assert out["user_serendipity"].mean() == pytest.approx(mean, abs=TOL)
    # the per-item values average to the per-user ones (MSR's user_item_serendipity)
    users = RECO["UserId"].to_list()
    by_user = {u: [v for w, v in zip(users, per_item, strict=True) if w == u] for u in users}
    assert [sum(v) / len(v) for v in by_user.values()] == pytest.approx(per_user, abs=TOL)


def test_evidently_personalization() -> None:
    curr = pl.DataFrame({"user_id": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
                         "item_id": [1, 2, 3, 4, 1, 2, 3, 4, 1, 3, 2, 5],
                         "prediction": [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4],
                         "score": [10, 9, 8, 4, 10, 9, 8, 4, 10, 9, 8, 4]})
    ranked = pr.personalization("item_id", query="user_id", by="prediction", descending=False,
                                k=4)
    scored = pr.personalization("item_id", query="user_id", by="score", k=4)
    assert curr.select(ranked).item() == pytest.approx(0.16666666)
    assert curr.select(scored).item() == pytest.approx(0.16666666)


@pytest.mark.parametrize(("k", "expected"), [(1, 1 / 3), (2, 2 / 3), (3, 1.0)])
def test_evidently_coverage(k: int, expected: float) -> None:
    curr = pl.DataFrame({"user_id": [1, 1, 1, 2, 2, 2, 3, 3, 3],
                         "item_id": [1, 2, 3, 1, 2, 3, 1, 2, 3],
                         "prediction": [1, 2, 3, 1, 2, 3, 1, 2, 3]})
    train_items = pl.Series([1, 2, 1, 3]).unique()
    value = curr.select(pr.catalog_coverage("item_id", catalog=train_items, query="user_id",
                                            by="prediction", descending=False, k=k)).item()
    assert value == pytest.approx(expected)


@pytest.mark.parametrize(("column", "descending"), [("rank", False), ("score", True)])
def test_evidently_popularity_bias_and_novelty(column: str, descending: bool) -> None:
    curr = pl.DataFrame({"user_id": [1, 2, 2, 3, 3], "item_id": [3, 2, 3, 1, 2],
                         "rank": [1, 1, 2, 1, 2], "score": [3, 3, 2, 3, 2]})
    train = pl.DataFrame({"user_id": [1, 1, 2, 3], "item_id": [1, 2, 1, 1]})
    table = pr.item_popularity(train, item="item_id", user="user_id")
    rows = curr.join(table, on="item_id", how="left")
    cut = {"query": "user_id", "by": column, "descending": descending, "k": 3}
    out = rows.select(pr.average_popularity("users", **cut),
                      pr.catalog_coverage("item_id", catalog=table["item_id"], **cut),
                      pr.gini_index("item_id", **cut),
                      pr.novelty("user_share", **cut))
    assert out.row(0) == pytest.approx((1.5, 1.0, 0.2, 1.18872199999))


def test_evidently_diversity() -> None:
    curr = pl.DataFrame({
        "user_id": ["1"] * 4 + ["2"] * 4 + ["3"] * 4,
        "item_f1": [1.0, 1, 1, -0.1, 1, 1, 1, -0.1, 1, 1, -0.1, -1],
        "item_f2": [0.0, 0.1, 1, 0.9, 0, 0.1, 1, 0.9, 0, 0.9, 0.9, -1],
        "prediction": [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4]})
    per_user = curr.group_by("user_id").agg(
        pr.intra_list_diversity(["item_f1", "item_f2"], by="prediction", descending=False, k=4))
    # Evidently divides the pairs' summed cosine distance by n: diversity * C(n, 2) / n
    evidently = (per_user["intra_list_diversity"] * 6 / 4).mean()
    assert evidently == pytest.approx(1.0963345074906863)


lists = st.lists(st.lists(st.integers(0, 6), min_size=0, max_size=6, unique=True),
                 min_size=1, max_size=6)


def _rows(users: list[list[int]]) -> pl.DataFrame:
    return pl.DataFrame(
        {"user": [u for u, items in enumerate(users) for _ in items],
         "item": [i for items in users for i in items],
         "pos": [p for items in users for p in range(1, len(items) + 1)],
         "arm": [u % 2 for u, items in enumerate(users) for _ in items]},
        schema={"user": pl.Int64, "item": pl.Int64, "pos": pl.Int64, "arm": pl.Int64})


@settings(max_examples=examples(60), deadline=None)
@given(lists, st.integers(1, 6))
def test_cross_list_against_reference(users: list[list[int]], k: int) -> None:
    df = _rows(users)
    cut = {"query": "user", "by": "pos", "descending": False, "k": k}
    top = [items[:k] for items in users]
    flat = [i for items in top for i in items]
    out = df.select(pr.distributional_coverage("item", **cut), pr.gini_index("item", **cut),
                    pr.gini_index("item", catalog=10, **cut).alias("g10"),
                    pr.catalog_coverage("item", catalog=10, **cut)).row(0)
    assert out[0] == pytest.approx(ref.entropy(flat) if flat else 0.0, abs=1e-12)
    g = ref.gini(flat) if flat else None
    assert (out[1] is None or math.isnan(out[1])) if g is None else out[1] == pytest.approx(g)
    assert out[2] == pytest.approx(ref.gini(flat, 10)) if flat else True
    assert out[3] == pytest.approx(len(set(flat)) / 10)
    nonempty = [t for t in top if t]
    full = [t for t in nonempty if len(t) == k]
    if len(full) == len(nonempty) and len(nonempty) >= 2:
        value = df.filter(pl.col("user").is_in([u for u, t in enumerate(top) if t])).select(
            pr.personalization("item", **cut)).item()
        assert value == pytest.approx(ref.personalization(nonempty, k))
    # per arm in a group_by equals the arm's own frame; counts merge across partitions
    per_arm = df.group_by("arm").agg(pr.distributional_coverage("item", **cut))
    for arm, value in per_arm.rows():
        alone = df.filter(pl.col("arm") == arm).select(pr.distributional_coverage("item", **cut))
        assert value == pytest.approx(alone.item())
    parts = [pr.exposure_counts(df.filter(pl.col("arm") == a), **cut) for a in (0, 1)]
    merged = pl.concat(parts).group_by("item").agg(pl.col("count").sum())
    finished = pr.coverage_from_counts(merged, catalog=10).row(0)
    assert finished[0] == pytest.approx(out[3])
    assert finished[1] == pytest.approx(out[0], abs=1e-12)


vectors = st.lists(st.lists(st.floats(0.1, 5, allow_nan=False), min_size=3, max_size=3),
                   min_size=0, max_size=5)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(vectors, min_size=1, max_size=4), st.lists(st.integers(0, 2), min_size=20,
                                                          max_size=20))
def test_intra_list_against_reference(users: list[list[list[float]]], cats: list[int]) -> None:
    rows = [(u, v, cats[(u * 5 + j) % 20]) for u, vs in enumerate(users) for j, v in enumerate(vs)]
    df = pl.DataFrame({"user": [r[0] for r in rows], "emb": [r[1] for r in rows],
                       "cat": [r[2] for r in rows]},
                      schema={"user": pl.Int64, "emb": pl.List(pl.Float64), "cat": pl.Int64})
    expected = ref.mean([ref.ils(vs) for vs in users])
    got = df.select(pr.intra_list_similarity("emb", dim=3, query="user")).item()
    assert got is None if expected is None else got == pytest.approx(expected, abs=1e-9)
    by_user: dict[int, list[int]] = {}
    for u, _, c in rows:
        by_user.setdefault(u, []).append(c)
    expected_c = ref.mean([ref.ils_category(c) for c in by_user.values()])
    got_c = df.select(pr.intra_list_similarity(category="cat", query="user")).item()
    assert got_c is None if expected_c is None else got_c == pytest.approx(expected_c)
    # .over() gives every row its list's value
    windows = df.with_columns(pr.intra_list_similarity("emb", dim=3).over("user").alias("v"))
    for u, vs in enumerate(users):
        if len(vs) >= 2:
            value = windows.filter(pl.col("user") == u)["v"][0]
            assert value == pytest.approx(ref.ils(vs), abs=1e-9)


log_st = st.sets(st.tuples(st.integers(0, 5), st.integers(0, 7)), max_size=25)
reco_st = st.dictionaries(st.integers(0, 6), st.lists(
    st.tuples(st.integers(0, 7), st.sampled_from([0.0, 0.5, 1.0])), unique_by=lambda r: r[0],
    max_size=5), max_size=5)


@pytest.mark.parametrize("kind", ["Int64", "Int32 recommendations", "String"])
@settings(max_examples=examples(40), deadline=None)
@given(log=log_st, reco=reco_st)
def test_similarity_frames_against_reference(kind: str, log: set[tuple[int, int]],
                                             reco: dict[int, list[tuple[int, float]]]) -> None:
    """item_similarity, user_diversity and user_serendipity against the plain-Python
    reference (users without history, one item, items never seen together), with items
    of another type in the recommendations than in the log, a table holding both orders
    of each pair (read as MS Recommenders reads it: i1 <= i2 only) and null items (left
    out)."""
    name = (lambda i: f"i{i}") if kind == "String" else (lambda i: i)
    dtype = pl.String if kind == "String" else pl.Int64
    train = pl.DataFrame({"user": [u for u, _ in sorted(log)],
                          "item": [name(i) for _, i in sorted(log)]},
                         schema={"user": pl.Int64, "item": dtype})
    rows = [(u, name(i), rel) for u, items in reco.items() for i, rel in items]
    frame = pl.DataFrame({"user": [r[0] for r in rows], "item": [r[1] for r in rows],
                          "rel": [r[2] for r in rows]},
                         schema={"user": pl.Int64, "item": dtype, "rel": pl.Float64})
    if kind == "Int32 recommendations":
        frame = frame.with_columns(pl.col("item").cast(pl.Int32))
    logged = [(u, name(i)) for u, i in log]
    sim = ref.cooccurrence(logged)
    table = pr.item_similarity(train)
    assert {(a, b): v for a, b, v in table.rows()} == pytest.approx(sim)
    both_orders = pl.concat([table, table.filter(pl.col("i1") != pl.col("i2")).select(
        pl.col("i2").alias("i1"), pl.col("i1").alias("i2"), "sim")])
    with_nulls = pl.concat([frame, frame.head(2).with_columns(pl.lit(None).cast(
        frame.schema["item"]).alias("item"))])
    want_div = ref.user_diversity({u: [name(i) for i, _ in items] for u, items in reco.items()},
                                  sim)
    want_ser = ref.user_serendipity({u: [(name(i), r) for i, r in items]
                                     for u, items in reco.items()}, logged, sim)
    for similarity in (table, both_orders):
        for recommended in (frame, with_nulls):
            div = pr.user_diversity(recommended, similarity)
            assert dict(div.rows()) == pytest.approx(want_div)
            ser = pr.user_serendipity(recommended, train, similarity, relevance="rel")
            assert dict(ser.rows()) == pytest.approx(want_ser)


def test_bad_parameters() -> None:
    with pytest.raises(TypeError, match="catalog"):
        pr.catalog_coverage("item", catalog="many")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="catalog must be > 0"):
        pr.catalog_coverage("item", catalog=0)
    with pytest.raises(TypeError, match="query"):
        pr.personalization("item", query=None)
    with pytest.raises(TypeError, match=r"features= .* or category="):
        pr.intra_list_similarity()
    with pytest.raises(ValueError, match="unseen"):
        pr.novelty("share", unseen="drop")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k"):
        pr.gini_index("item", k=0)


def test_popularity_lift_compares_one_set_of_users() -> None:
    """Issue 36, 8: user 1 recommended popularities 10, 20 with history 5, user 2
    popularities 30, 50 and no history. The two means were over different users
    (4.5); over the users with both, user 1: (15 - 5) / 5 = 2.0."""
    reco = pl.DataFrame({"user": [1, 1, 2, 2], "pop": [10.0, 20.0, 30.0, 50.0],
                         "hist": [5.0, 5.0, None, None]})
    lift = pr.popularity_lift("pop", history="hist", query="user")
    assert reco.select(lift).item() == 2.0
    # a user without a recommended item of known popularity is left out of both too
    unknown = pl.DataFrame({"user": [1, 1, 3], "pop": [10.0, 20.0, None],
                            "hist": [5.0, 5.0, 40.0]})
    assert unknown.select(lift).item() == 2.0
    # a plain-Python reference on random users: GAP_r and GAP_p over the same users
    rng = np.random.default_rng(8)
    rows = [{"user": u, "pop": float(rng.integers(1, 50)) if rng.random() > 0.1 else None,
             "hist": h} for u in range(40)
            for h in [float(rng.integers(1, 30)) if rng.random() > 0.3 else None]
            for _ in range(int(rng.integers(1, 5)))]
    frame = pl.DataFrame(rows, schema={"user": pl.Int64, "pop": pl.Float64,
                                       "hist": pl.Float64})
    users: dict[int, tuple[list[float], float | None]] = {}
    for r in rows:
        users.setdefault(r["user"], ([], r["hist"]))[0].extend(
            [] if r["pop"] is None else [r["pop"]])
    both = [(sum(p) / len(p), h) for p, h in users.values() if p and h is not None]
    gap_r = sum(r for r, _ in both) / len(both)
    gap_p = sum(h for _, h in both) / len(both)
    assert frame.select(lift).item() == pytest.approx((gap_r - gap_p) / gap_p, rel=1e-12)
    # a history that differs between a user's rows is no history: NaN, not a number
    varying = reco.with_columns(hist=pl.Series([5.0, 6.0, None, None]))
    assert math.isnan(varying.select(lift).item())
