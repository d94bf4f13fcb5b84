"""``ranked()``: the ranking step of ``evaluate()``, as a frame a user holds."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import polars_rank as pr

RUN = pl.DataFrame({
    "qid": ["q2", "q1", "q1", "q1", "q2", "q3"],
    "docid": ["a", "b", "c", "a", "d", "x"],
    "score": [2.0, 3.0, 2.0, 2.0, 1.0, 1.0],
})
QRELS = pl.DataFrame({"qid": ["q1", "q1", "q2", "q2"], "docid": ["b", "z", "d", "a"],
                      "rel": [2, 1, 1, 0]})


def test_judged_rows_with_their_rank_and_each_lists_end() -> None:
    with pytest.warns(UserWarning, match="1 run query has no judgments"):  # q3
        lists = pr.ranked(RUN, QRELS)
    want = pl.DataFrame({
        "qid": ["q1", "q1", "q1", "q2", "q2"],
        "docid": ["b", None, "z", "a", "d"],
        "rel": [2.0, None, 1.0, 0.0, 1.0],
        "rank": [1, 3, None, 1, 2],  # q1: c and a tie at 2.0; trec_eval puts c first
    })
    assert_frame_equal(lists, want)
    assert lists["qid"].flags["SORTED_ASC"]  # a group_by on it slices the frame


def test_lazy_in_lazy_out_and_the_same_numbers_as_evaluate() -> None:
    with pytest.warns(UserWarning, match="no judgments"):
        lists = pr.ranked(RUN.lazy(), QRELS.lazy())
    with pytest.warns(UserWarning, match="no judgments"):
        want = pr.evaluate(RUN, QRELS, ["ndcg_cut_10", "map", "P_2"], per_query=True)
    assert isinstance(lists, pl.LazyFrame)
    got = lists.group_by("qid").agg(
        pr.ndcg("rel", 10, rank="rank", gain="linear").alias("ndcg_cut_10"),
        pr.map("rel", rank="rank").alias("map"),
        pr.precision("rel", 2, rank="rank").alias("P_2"),
    ).sort("qid").collect()
    assert_frame_equal(got, want)


def test_expected_ties_give_tie_bounds() -> None:
    with pytest.warns(UserWarning, match="no judgments"):
        lists = pr.ranked(RUN, QRELS, ties="expected")
    q1 = lists.filter(pl.col("qid") == "q1").sort("rank", nulls_last=True)
    # the end row (the list's length) sits at the last rank, inside c and a's tie
    assert q1.select("rank", "rank_last").rows() == [(1, 1), (3, 3), (None, None)]
    assert q1["docid"].to_list() == ["b", None, "z"]


def test_labelled_frame_per_arm() -> None:
    df = pr.datasets.synthetic_experiment(200, seed=1)
    lists = pr.ranked(df, group_by="arm")
    got = lists.group_by("arm").agg(
        # metric strings are linear gain (as trec_eval); the functions default to 2^l - 1
        pr.ndcg("rel", 10, rank="rank", gain="linear", query="qid").alias("ndcg@10"),
        pr.mrr("rel", 10, rank="rank", query="qid").alias("mrr@10"),
    ).sort("arm")
    want = pr.evaluate(df, metrics=["ndcg@10", "mrr@10"], group_by="arm")
    assert_frame_equal(got, want)


def test_bad_data_is_named_as_in_evaluate() -> None:
    bad = QRELS.with_columns(rel=pl.Series([2, -1, 1, 0]))
    with pytest.raises(pr.InvalidDataError, match="negative relevance in qrels column 'rel'"):
        pr.ranked(RUN, bad)
