"""The analytics give one answer for the same data (issue 36).

Shuffling the rows of the input changes no value (bit for bit) of ``compare``,
``fuse``, ``optimize_fusion`` and the recommender metrics (``polars_rank/recsys``),
ties in the scores included; 20 identical calls return bit-identical frames.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
import pytest
from budget import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import polars_rank as pr
from polars_rank.fusion import METHODS, NORMS


def _settings(count: int) -> settings:
    return settings(max_examples=examples(count), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _shuffled(frame: pl.DataFrame, seed: int) -> pl.DataFrame:
    return frame.sample(fraction=1.0, shuffle=True, seed=seed)


def _quiet(call: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # compare's notes on left-out queries
        return call()


# ---------------------------------------------------------------------------- compare
@st.composite
def per_query(draw: st.DrawFn) -> pl.DataFrame:
    """2-3 arms x up to 14 queries in two slices, values from a few (ties) or any,
    some queries missing from an arm, some values null; bounds around each value."""
    n_arms = draw(st.integers(2, 3))
    n_queries = draw(st.integers(2, 14))
    tied = draw(st.booleans())
    value = (st.sampled_from([0.0, 0.25, 0.5, 1.0]) if tied
             else st.floats(0, 1, allow_nan=False))
    rows = []
    for arm in range(n_arms):
        for q in range(n_queries):
            if draw(st.integers(0, 9)) == 0:
                continue
            v = draw(st.one_of(st.none(), value)) if draw(st.booleans()) else draw(value)
            rows.append({"arm": f"a{arm}", "qid": q, "slice": q % 2, "m": v,
                         "m_low": None if v is None else v - 0.1,
                         "m_high": None if v is None else v + draw(st.floats(0, 0.3))})
    return pl.DataFrame(rows, schema={"arm": pl.String, "qid": pl.Int64, "slice": pl.Int64,
                                      "m": pl.Float64, "m_low": pl.Float64,
                                      "m_high": pl.Float64})


@pytest.mark.parametrize(("test", "paired"), [
    ("t", True), ("t", False), ("randomization", True), ("randomization", False),
    ("bootstrap", True), ("bootstrap", False), ("wilcoxon", True), ("sign", True),
    ("tukey", True)])
@_settings(15)
@given(frame=per_query(), seed=st.integers(0, 2**16))
def test_compare_ignores_row_order(test: str, paired: bool, frame: pl.DataFrame,
                                   seed: int) -> None:
    if frame["arm"].n_unique() < 2:
        return
    kwargs: dict[str, Any] = {"test": test, "paired": paired, "group_by": "slice",
                              "n_resamples": 300, "metrics": "m",
                              "robust": test != "wilcoxon",
                              "query": "qid" if paired else None}
    first = _quiet(lambda: pr.compare(frame, **kwargs))
    again = _quiet(lambda: pr.compare(_shuffled(frame, seed), **kwargs))
    assert_frame_equal(again, first, check_exact=True)


def test_compare_twenty_calls_are_one() -> None:
    rng = np.random.default_rng(36)
    frame = pl.DataFrame({"arm": np.repeat(["A", "B", "C"], 300), "qid": np.tile(range(300), 3),
                          "m": rng.random(900).round(2)})
    for test in ("bootstrap", "randomization", "t"):
        first = pr.compare(frame, baseline="A", test=test, n_resamples=2000)  # type: ignore[arg-type]
        for _ in range(19):
            assert_frame_equal(pr.compare(frame, baseline="A", test=test, n_resamples=2000),  # type: ignore[arg-type]
                               first, check_exact=True)


# ---------------------------------------------------------------------------- fusion
@st.composite
def runs(draw: st.DrawFn) -> pl.DataFrame:
    """2-3 systems, 1-3 queries, up to 12 documents per list, tied or continuous scores."""
    pool = [f"d{i:02}" for i in range(draw(st.integers(2, 16)))]
    tied = draw(st.booleans())
    score = (st.sampled_from([0.0, 1.0, 2.0, -3.0]) if tied
             else st.floats(-50, 50, allow_nan=False, allow_infinity=False))
    rows = []
    for system in range(draw(st.integers(2, 3))):
        for q in range(draw(st.integers(1, 3))):
            for d in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12,
                                   unique=True)):
                rows.append({"system": system, "qid": f"q{q}", "docid": d,
                             "score": draw(score)})
    return pl.DataFrame(rows, schema={"system": pl.Int64, "qid": pl.String,
                                      "docid": pl.String, "score": pl.Float64})


def _params(method: str, n: int) -> dict[str, Any]:
    weights = dict(enumerate([0.5, 0.3, 0.2][:n]))
    return {"gmnz": {"gamma": 0.7}, "rbc": {"phi": 0.8}, "rrf": {"k": 10},
            "logn_isr": {"sigma": 0.3}}.get(method, {"weights": weights}
                                            if METHODS[method].weighted else {})


UNTRAINED = [m for m in METHODS if not METHODS[m].trained]


@pytest.mark.parametrize("norm", [None, *NORMS])
@_settings(6)
@given(frame=runs(), seed=st.integers(0, 2**16))
def test_fuse_ignores_row_order(norm: str | None, frame: pl.DataFrame, seed: int) -> None:
    n = frame["system"].n_unique()
    shuffled = _shuffled(frame, seed)
    for method in UNTRAINED:
        params = _params(method, n)
        if "weights" in params:
            params = {"weights": {s: params["weights"][k] for k, s in
                                  enumerate(sorted(frame["system"].unique()))}}
        first = pr.fuse(frame, method, norm=norm, params=params)  # type: ignore[arg-type]
        assert_frame_equal(pr.fuse(shuffled, method, norm=norm, params=params), first,  # type: ignore[arg-type]
                           check_exact=True)
    normalized = pr.fusion.normalize(frame, norm or "min-max")  # type: ignore[arg-type]
    assert_frame_equal(pr.fusion.normalize(shuffled, norm or "min-max"), normalized,  # type: ignore[arg-type]
                       check_exact=True)


def _hybrid(n_queries: int = 300) -> tuple[pl.DataFrame, pl.DataFrame]:
    df = pr.datasets.synthetic_experiment(n_queries=n_queries, arms={"bm25": 1.0, "dense": 1.2},
                                          seed=3, shown=20)
    frame = (df.filter(pl.col("score").is_not_null())
             .select(system="arm", qid="qid", docid="docid",
                     score=pl.col("score").round(1)))  # ties
    qrels = (df.filter(pl.col("arm") == "bm25", pl.col("rel").is_not_null())
             .select("qid", "docid", "rel"))
    return frame, qrels


@pytest.mark.parametrize(("method", "grid"), [("wsum", {"step": 0.1}), ("rrf", None),
                                              ("w_bordafuse", {"step": 0.25}),
                                              ("gmnz", {"step": 0.25})])
def test_optimize_fusion_twenty_calls_and_any_row_order_are_one(method: str,
                                                                grid: Any) -> None:
    """Issue 36, 9: optimize_fusion's scores moved by up to 1e-3 between calls."""
    frame, qrels = _hybrid()
    first = pr.optimize_fusion(frame, qrels, method, metric="ndcg@10", grid=grid)
    for i in range(19):
        data = frame if i % 2 else _shuffled(frame, i)
        again = pr.optimize_fusion(data, _shuffled(qrels, i), method, metric="ndcg@10",
                                   grid=grid)
        assert_frame_equal(again.scores, first.scores, check_exact=True)
        assert again.params == first.params


@_settings(10)
@given(frame=runs(), seed=st.integers(0, 2**16))
def test_optimize_fusion_ignores_row_order(frame: pl.DataFrame, seed: int) -> None:
    qrels = (frame.select("qid", "docid").unique().sort("qid", "docid")
             .with_columns(rel=pl.int_range(pl.len()) % 3))
    for method in ("wsum", "rbc"):
        first = pr.optimize_fusion(frame, qrels, method, metric="ndcg@5",
                                   grid={"step": 0.25}, train_fraction=0.5, seed=1)
        again = pr.optimize_fusion(_shuffled(frame, seed), _shuffled(qrels, seed), method,
                                   metric="ndcg@5", grid={"step": 0.25}, train_fraction=0.5,
                                   seed=1)
        assert_frame_equal(again.scores, first.scores, check_exact=True)


# ---------------------------------------------------------------------------- recsys
@st.composite
def recommendations(draw: st.DrawFn) -> pl.DataFrame:
    """Up to 6 users, each a list of up to 8 distinct items, scores with ties (a few
    values) or continuous; popularity, history, a group and a feature per item."""
    tied = draw(st.booleans())
    score = (st.sampled_from([0.0, 0.5, 1.0]) if tied
             else st.floats(0, 1, allow_nan=False))
    rows = []
    for user in range(draw(st.integers(1, 6))):
        history = draw(st.one_of(st.none(), st.floats(1, 50, allow_nan=False)))
        for item in draw(st.lists(st.integers(0, 12), min_size=1, max_size=8, unique=True)):
            rows.append({"user": user, "item": item, "score": draw(score),
                         "history": history})
    frame = pl.DataFrame(rows, schema={"user": pl.Int64, "item": pl.Int64,
                                       "score": pl.Float64, "history": pl.Float64})
    pop = pl.col("item").cast(pl.Float64)
    return frame.with_columns(
        pop=pl.when(pl.col("item") % 5 == 0).then(None).otherwise(pop * 1.7 + 0.3),
        share=(pop + 1.0) / 20.0, tail=pl.col("item") > 6, owner=pl.col("item") % 3,
        x=(pop * 0.37).sin(), y=(pop * 0.11).cos(), genre=pl.col("item") % 4)


def _expressions(k: int | None) -> list[pl.Expr]:
    common: dict[str, Any] = {"by": "score", "k": k}
    return [
        pr.novelty("share", query="user", **common),
        pr.novelty("share", **common).alias("novelty_global"),
        pr.average_popularity("pop", query="user", **common),
        pr.long_tail_share("tail", query="user", **common),
        pr.popularity_lift("pop", history="history", query="user", **common),
        pr.catalog_coverage("item", catalog=13, query="user", **common),
        pr.distributional_coverage("item", query="user", **common),
        pr.gini_index("item", query="user", **common),
        pr.gini_index("item", catalog=13, query="user", **common).alias("gini_13"),
        pr.intra_list_similarity(["x", "y"], query="user", **common),
        pr.intra_list_diversity(category="genre", query="user", **common),
        pr.personalization("item", query="user", **common),
        pr.exposure_share("owner", 1, query="user", **common),
    ]


@pytest.mark.parametrize("k", [None, 1, 3])
@_settings(25)
@given(frame=recommendations(), seed=st.integers(0, 2**16))
def test_recsys_metrics_ignore_row_order(k: int | None, frame: pl.DataFrame,
                                         seed: int) -> None:
    """Every recommender metric, in a select and per slice: the same bits for any row
    order, ties in the scores included (rows tied with the k-th are recommended)."""
    shuffled = _shuffled(frame, seed)
    exprs = _expressions(k)
    assert_frame_equal(shuffled.select(exprs), frame.select(exprs), check_exact=True)
    sliced = [e for e in exprs if "popularity_lift" not in str(e)]
    by_slice = frame.with_columns(arm=pl.col("user") % 2)
    assert_frame_equal(_shuffled(by_slice, seed).group_by("arm").agg(sliced).sort("arm"),
                       by_slice.group_by("arm").agg(sliced).sort("arm"), check_exact=True)
    counts = pr.exposure_counts(frame, item="item", query="user", by="score", k=k)
    assert_frame_equal(pr.exposure_counts(shuffled, item="item", query="user", by="score",
                                          k=k), counts, check_exact=True)
    assert_frame_equal(pr.coverage_from_counts(_shuffled(counts, seed), catalog=13),
                       pr.coverage_from_counts(counts, catalog=13), check_exact=True)
    exposure = pr.group_exposure(frame, group="owner", query="user", by="score", k=k)
    assert_frame_equal(pr.group_exposure(shuffled, group="owner", query="user", by="score",
                                         k=k), exposure, check_exact=True)


@_settings(15)
@given(frame=recommendations(), seed=st.integers(0, 2**16))
def test_recsys_frame_functions_ignore_row_order(frame: pl.DataFrame, seed: int) -> None:
    log = frame.select("user", "item").unique()
    shuffled_log = _shuffled(log, seed)
    table = pr.item_popularity(log, user="user")
    assert_frame_equal(pr.item_popularity(shuffled_log, user="user"), table, check_exact=True)
    similarity = pr.item_similarity(log)
    assert_frame_equal(pr.item_similarity(shuffled_log), similarity, check_exact=True)
    features = (frame.select("item", f=pl.concat_list("x", "y")).unique("item"))
    assert_frame_equal(pr.item_similarity(_shuffled(features, seed), features="f"),
                       pr.item_similarity(features, features="f"), check_exact=True)
    reco = frame.select("user", "item", rel=(pl.col("item") % 2).cast(pl.Int64))
    assert_frame_equal(pr.user_diversity(_shuffled(reco, seed), _shuffled(similarity, seed)),
                       pr.user_diversity(reco, similarity), check_exact=True)
    assert_frame_equal(
        pr.user_serendipity(_shuffled(reco, seed), shuffled_log, similarity, relevance="rel"),
        pr.user_serendipity(reco, log, similarity, relevance="rel"), check_exact=True)


def test_recsys_twenty_calls_are_one() -> None:
    rng = np.random.default_rng(36)
    n = 20_000
    frame = pl.DataFrame({"user": rng.integers(0, 2000, n), "item": rng.integers(0, 500, n),
                          "score": rng.random(n).round(2)}).unique(["user", "item"])
    frame = frame.with_columns(pop=pl.col("item") * 1.3 + 0.1, share=(pl.col("item") + 1) / 600,
                               tail=pl.col("item") > 400, owner=pl.col("item") % 3,
                               history=pl.col("user") * 0.01 + 1.0,
                               x=(pl.col("item") * 0.37).sin(), y=(pl.col("item") * 0.11).cos(),
                               genre=pl.col("item") % 4)
    exprs = _expressions(10)
    first = frame.select(exprs)
    for _ in range(19):
        assert_frame_equal(frame.select(exprs), first, check_exact=True)
