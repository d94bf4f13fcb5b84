"""Every worked example of the source documents (shared/seeds/) comes out as printed."""

from __future__ import annotations

import math

import polars as pl
import pytest

import polars_rank as pr


def one(expr: pl.Expr, **columns: list) -> float:
    return pl.DataFrame(columns).select(expr).item()


# --- seed 000 / 003: "Why MAP and MRR fail for search ranking" --------------------------

def test_rr_second_item_relevant() -> None:
    assert one(pr.reciprocal_rank("rel", by=None), rel=[0, 1, 0]) == 0.5


def test_ap_r_n_r_n_r() -> None:
    # AP = (1/3)(1.0 + 0.667 + 0.6) = 0.756
    value = one(pr.average_precision("rel", by=None), rel=[1, 0, 1, 0, 1])
    assert value == pytest.approx((1 + 2 / 3 + 3 / 5) / 3, abs=1e-15)
    assert round(value, 3) == 0.756


@pytest.mark.parametrize(("rank", "ap"), [(1, 1.0), (3, 0.33), (30, 0.033)])
def test_ap_decays_linearly_with_the_rank_of_one_relevant_item(rank: int, ap: float) -> None:
    rel = [0] * 30
    rel[rank - 1] = 1
    value = one(pr.average_precision("rel", by=None), rel=rel)
    assert value == pytest.approx(1 / rank, abs=1e-15)
    assert round(value, len(str(ap)) - 2) == ap


def test_err_example_1() -> None:
    # labels 2 3 0, max label 3: R = 3/8, 7/8, 0; ERR = 0.648; MRR = 1
    value = one(pr.err("rel", max_grade=3, by=None), rel=[2, 3, 0])
    assert value == pytest.approx(0.6484375, abs=1e-15)
    assert one(pr.reciprocal_rank("rel", by=None), rel=[2, 3, 0]) == 1.0


def test_err_example_2() -> None:
    # R(4) = 15/256 = 0.0586, R(8) = 255/256 = 0.9961
    first = one(pr.err("rel", max_grade=8, by=None), rel=[8, 4, 4, 4, 4])
    last = one(pr.err("rel", max_grade=8, by=None), rel=[4, 4, 4, 4, 8])
    # the seed prints "ERR ~ 0.99" and "~ 0.27": two decimals, truncated (0.9964, 0.2722)
    assert math.floor(first * 100) / 100 == 0.99
    assert math.floor(last * 100) / 100 == 0.27
    # contribution of the relevance-8 item: 0.9961 at rank 1, 0.1565 at rank 5 (6.36x)
    r4, r8 = 15 / 256, 255 / 256
    at_5 = r8 * (1 - r4) ** 4 / 5
    without_8 = one(pr.err("rel", max_grade=8, by=None), rel=[4, 4, 4, 4, 0])
    assert round(last - without_8, 4) == round(at_5, 4) == 0.1565
    # the drop factor is printed from the rounded contributions: 0.9961 / 0.1565
    assert round(round(r8, 4) / round(at_5, 4), 2) == 6.36


def test_ndcg_ranking_a_and_b() -> None:
    # The seed's table lists ranking B as "2 1 3" but its contributions (3.00, 4.42,
    # 0.50) are those of labels 2 3 1; we follow the arithmetic: DCG(B) = 7.92.
    a = one(pr.dcg("rel", by=None), rel=[3, 2, 1])
    b = one(pr.dcg("rel", by=None), rel=[2, 3, 1])
    assert round(a, 2) == 9.39
    assert round(b, 2) == 7.92
    assert one(pr.ndcg("rel", by=None), rel=[3, 2, 1]) == 1.0
    assert round(one(pr.ndcg("rel", by=None), rel=[2, 3, 1]), 2) == 0.84


@pytest.mark.parametrize(("rank", "linear", "log"), [
    (1, 1.00, 1.00), (2, 0.50, 0.63), (5, 0.20, 0.39), (10, 0.10, 0.29), (50, 0.02, 0.18),
])
def test_discount_table(rank: int, linear: float, log: float) -> None:
    rel = [0] * 50
    rel[rank - 1] = 1  # gain 2^1 - 1 = 1, so DCG is the discount at that rank
    assert round(one(pr.dcg("rel", by=None), rel=rel), 2) == log
    assert round(one(pr.reciprocal_rank("rel", by=None), rel=rel), 2) == linear


# --- seed 001: Liu's metrics, blog notes (MRR, MAP, RC) -----------------------------------

def test_liu_example_map_with_six_relevant() -> None:
    # labels 4 3 2 1 3 1 2; relevant when > 2 (threshold 3); m1 = 6 relevant in all,
    # so three relevant documents were never retrieved: AP = 13/30.
    rel = [4, 3, 2, 1, 3, 1, 2, 3, 3, 3]
    score = [7, 6, 5, 4, 3, 2, 1, None, None, None]
    value = one(pr.average_precision("rel", by="score", threshold=3), rel=rel, score=score)
    assert value == pytest.approx(13 / 30, abs=1e-15)
    assert one(pr.reciprocal_rank("rel", by="score", threshold=3), rel=rel, score=score) == 1.0


def test_liu_example_two_queries() -> None:
    q1 = (1 / 1 + 2 / 2 + 3 / 5 + 4 / 7) / 4
    q2 = (1 / 2 + 2 / 3 + 3 / 6 + 4 / 29 + 5 / 58) / 5
    q2_at_8 = (1 / 2 + 2 / 3 + 3 / 6) / 5
    rows = {"qid": [], "rel": []}
    for qid, hits, n in (("q1", {1, 2, 5, 7}, 7), ("q2", {2, 3, 6, 29, 58}, 58)):
        rows["qid"] += [qid] * n
        rows["rel"] += [int(r in hits) for r in range(1, n + 1)]
    df = pl.DataFrame(rows)
    per = dict(df.group_by("qid").agg(pr.average_precision("rel", by=None)).iter_rows())
    assert per["q1"] == pytest.approx(q1, abs=1e-15)
    assert per["q2"] == pytest.approx(q2, abs=1e-15)
    assert df.select(pr.map("rel", by=None, query="qid")).item() == pytest.approx((q1 + q2) / 2)
    cut = dict(df.group_by("qid").agg(pr.average_precision("rel", 8, by=None)).iter_rows())
    assert cut["q2"] == pytest.approx(q2_at_8, abs=1e-15)


def test_liu_rank_correlation() -> None:
    # pi = (1, 2, 3), labels 1 0 1: max over ideal orderings (1,3,2): 2/3, (3,1,2): 1/3
    value = one(pr.rank_correlation("rel", by=None), rel=[1, 0, 1])
    assert value == pytest.approx(2 / 3, abs=1e-15)


# --- seed 002: MRR encyclopedia entry -----------------------------------------------------

def test_mrr_three_queries() -> None:
    # first relevant at ranks 2, 1 and none: (0.5 + 1 + 0) / 3 = 0.5
    df = pl.DataFrame({"qid": [1, 1, 2, 2, 3, 3], "rel": [0, 1, 1, 0, 0, 0]})
    assert df.select(pr.mrr("rel", by=None, query="qid")).item() == 0.5


def test_mrr_at_k_counts_zero_beyond_k() -> None:
    assert one(pr.mrr("rel", 2, by=None), rel=[0, 0, 1]) == 0.0
    assert one(pr.mrr("rel", 3, by=None), rel=[0, 0, 1]) == pytest.approx(1 / 3)


# --- seed 004: a quick dive into search system metrics -----------------------------------

def test_recall_and_precision_at_k() -> None:
    rel = [1, 0, 1, 0, 0, 1, 1]  # 4 relevant in all
    assert one(pr.recall("rel", 3, by=None), rel=rel) == 0.5
    assert one(pr.precision("rel", 3, by=None), rel=rel) == pytest.approx(2 / 3)


def test_linear_dcg_formula() -> None:
    # DCG@p = sum rel_i / log2(i + 1)
    value = one(pr.dcg("rel", 2, gain="linear", by=None), rel=[3, 2, 3])
    assert value == pytest.approx(3 + 2 / 1.584962500721156)


def test_ctr_clicked_over_suggested() -> None:
    assert one(pr.ctr("clicked", by=None), clicked=[1, 0, 0, 1]) == 0.5
